// minicuda-nvcc's command-line parser (options.h has the contract).
//
// Each option of nvcc's that Makefiles use is one row of a table: its spellings, whether it
// takes a value, and what it does to the Invocation. A value is given as "--opt=v", "-opt=v" or
// "-opt v"; the short options nvcc lets glue their value (-Idir, -DX=1, -Ldir, -lm, -O3) also
// accept that form.
#include "options.h"

#include <algorithm>
#include <functional>
#include <regex>
#include <sstream>

namespace minicuda_nvcc {
namespace {

std::vector<std::string> split_commas(const std::string& value) {
  std::vector<std::string> parts;
  std::stringstream stream(value);
  std::string part;
  while (std::getline(stream, part, ',')) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

std::string lower_extension(const std::string& path) {
  std::size_t slash = path.find_last_of('/');
  std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot + 1);
  if (ext == "C") return "cpp";  // .C is C++ (as for gcc); lower-casing would make it C
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

// A GPU architecture name as -arch, -code and -gencode take them. lto_NN (link-time
// optimisation of device code) is refused by the caller.
bool is_architecture(const std::string& name) {
  static const std::regex arch("(sm|compute|lto)_[0-9]+[af]?|native|all|all-major");
  return std::regex_match(name, arch);
}

// Handler of one option: gets the value (empty for a flag) and fills the Invocation; returns an
// error sentence, or "" when accepted.
using Handler = std::function<std::string(Invocation&, const std::string&)>;

struct Option {
  std::vector<std::string> names;  // every spelling, with its dashes
  bool takes_value;
  bool glued;  // the value may follow the name directly (-Idir)
  Handler handle;
};

std::string no_effect(Invocation&, const std::string&) { return ""; }

std::string check_architectures(const std::string& value, const std::string& option) {
  for (const std::string& name : split_commas(value)) {
    if (name.rfind("lto_", 0) == 0) {
      return option + " " + name + ": device link-time optimisation needs NVIDIA's device linker; "
             "minicuda compiles kernels as host C++";
    }
    if (!is_architecture(name)) return option + ": '" + name + "' is not a GPU architecture";
  }
  return "";
}

std::string refuse(const std::string& what) {
  return what + " (minicuda compiles kernels into host C++; it produces no GPU machine code)";
}

const std::vector<Option>& options() {
  static const std::vector<Option> table = {
      {{"-o", "--output-file"}, true, false,
       [](Invocation& inv, const std::string& v) { inv.output = v; return std::string(); }},
      {{"-I", "--include-path"}, true, true,
       [](Invocation& inv, const std::string& v) { inv.compile_args.push_back("-I" + v); return std::string(); }},
      {{"-isystem", "--system-include"}, true, false,
       [](Invocation& inv, const std::string& v) {
         inv.compile_args.insert(inv.compile_args.end(), {"-isystem", v});
         return std::string();
       }},
      {{"-include", "--pre-include"}, true, false,
       [](Invocation& inv, const std::string& v) {
         inv.compile_args.insert(inv.compile_args.end(), {"-include", v});
         return std::string();
       }},
      {{"-D", "--define-macro"}, true, true,
       [](Invocation& inv, const std::string& v) { inv.compile_args.push_back("-D" + v); return std::string(); }},
      {{"-U", "--undefine-macro"}, true, true,
       [](Invocation& inv, const std::string& v) { inv.compile_args.push_back("-U" + v); return std::string(); }},
      {{"-L", "--library-path"}, true, true,
       [](Invocation& inv, const std::string& v) { inv.link_args.push_back("-L" + v); return std::string(); }},
      {{"-l", "--library"}, true, true,
       [](Invocation& inv, const std::string& v) {
         // The CUDA runtime and driver libraries are minicuda's own, always linked.
         static const std::vector<std::string> provided = {"cudart", "cudart_static", "cuda", "cudadevrt"};
         for (const std::string& name : split_commas(v)) {
           if (std::find(provided.begin(), provided.end(), name) == provided.end()) {
             inv.link_args.push_back("-l" + name);
           }
         }
         return std::string();
       }},
      {{"-O", "--optimize", "-dopt", "--dopt"}, true, true,
       [](Invocation& inv, const std::string& v) {
         static const std::regex level("[0-3s]|fast|g");
         if (!std::regex_match(v, level)) return "-O" + v + ": unknown optimisation level";
         inv.compile_args.push_back("-O" + v);
         return std::string();
       }},
      {{"-std", "--std"}, true, false,
       [](Invocation&, const std::string& v) {
         // minicuda's headers need C++20, so every source is compiled as C++20; the C++ a
         // program written for C++11..17 uses is valid there.
         static const std::regex dialect("c\\+\\+(11|14|17|20)");
         if (!std::regex_match(v, dialect)) return "-std=" + v + ": minicuda compiles C++11 to C++20 code as C++20";
         return std::string();
       }},
      {{"-arch", "--gpu-architecture"}, true, false,
       [](Invocation&, const std::string& v) { return check_architectures(v, "-arch"); }},
      {{"-code", "--gpu-code"}, true, false,
       [](Invocation&, const std::string& v) { return check_architectures(v, "-code"); }},
      {{"-gencode", "--generate-code"}, true, false,
       [](Invocation&, const std::string& v) {
         // arch=compute_90,code=sm_90 or code=[sm_90,compute_90]
         std::string flat = v;
         flat.erase(std::remove_if(flat.begin(), flat.end(), [](char c) { return c == '[' || c == ']' || c == '"' || c == '\''; }),
                    flat.end());
         for (const std::string& part : split_commas(flat)) {
           std::string name = part;
           if (part.rfind("arch=", 0) == 0) name = part.substr(5);
           if (part.rfind("code=", 0) == 0) name = part.substr(5);
           std::string error = check_architectures(name, "-gencode");
           if (!error.empty()) return error;
         }
         return std::string();
       }},
      {{"-Xcompiler", "--compiler-options"}, true, false,
       [](Invocation& inv, const std::string& v) {
         for (const std::string& part : split_commas(v)) {
           inv.compile_args.push_back(part);
           inv.link_args.push_back(part);
         }
         return std::string();
       }},
      {{"-Xlinker", "--linker-options"}, true, false,
       [](Invocation& inv, const std::string& v) { inv.link_args.push_back("-Wl," + v); return std::string(); }},
      // Options of NVIDIA's device-code tools (ptxas, nvlink, cudafe, fatbinary): no such tools here.
      {{"-Xptxas", "--ptxas-options", "-Xnvlink", "--nvlink-options", "-Xcudafe", "-Xfatbin",
        "--fatbin-options", "-maxrregcount", "--maxrregcount", "-t", "--threads", "-split-compile",
        "--split-compile", "-diag-suppress", "--diag-suppress", "-ftz", "--ftz", "-prec-div",
        "--prec-div", "-prec-sqrt", "--prec-sqrt", "-fmad", "--fmad"},
       true, false, no_effect},
      {{"-rdc", "--relocatable-device-code"}, true, false,
       [](Invocation&, const std::string& v) {
         return (v == "true" || v == "false") ? std::string() : "-rdc=" + v + ": expected true or false";
       }},
      {{"-ccbin", "--compiler-bindir"}, true, false,
       [](Invocation& inv, const std::string& v) { inv.host_compiler = v; return std::string(); }},
      {{"-m", "--machine"}, true, true,
       [](Invocation&, const std::string& v) {
         return v == "64" ? std::string() : "-m" + v + ": minicuda builds 64-bit programs only";
       }},
      {{"-MF", "--dependency-output"}, true, false,
       [](Invocation& inv, const std::string& v) { inv.dep_file = v; return std::string(); }},
      {{"-MT", "--dependency-target-name"}, true, false,
       [](Invocation& inv, const std::string& v) { inv.dep_target = v; return std::string(); }},
      {{"-default-stream", "--default-stream"}, true, false,
       [](Invocation&, const std::string& v) {
         if (v == "legacy") return std::string();
         return "--default-stream " + v + ": minicuda has the legacy default stream only";
       }},
      {{"-Werror", "--Werror"}, true, false,
       [](Invocation& inv, const std::string& v) {
         for (const std::string& kind : split_commas(v)) {
           if (kind == "all-warnings") inv.compile_args.push_back("-Werror");
         }
         return std::string();
       }},
      // Flags.
      {{"-c", "--compile"}, false, false,
       [](Invocation& inv, const std::string&) { inv.mode = Mode::Compile; return std::string(); }},
      {{"-dc", "--device-c", "-dw", "--device-w"}, false, false,
       [](Invocation& inv, const std::string&) { inv.mode = Mode::Compile; return std::string(); }},
      {{"-dlink", "--device-link"}, false, false,
       [](Invocation& inv, const std::string&) { inv.mode = Mode::DeviceLink; return std::string(); }},
      {{"-lib", "--lib"}, false, false,
       [](Invocation& inv, const std::string&) { inv.mode = Mode::Library; return std::string(); }},
      {{"-M", "--generate-dependencies"}, false, false,
       [](Invocation& inv, const std::string&) { inv.mode = Mode::Dependencies; return std::string(); }},
      {{"-MM", "--generate-nonsystem-dependencies"}, false, false,
       [](Invocation& inv, const std::string&) {
         inv.mode = Mode::Dependencies;
         inv.system_headers_in_deps = false;
         return std::string();
       }},
      {{"-MD", "--generate-dependencies-with-compile"}, false, false,
       [](Invocation& inv, const std::string&) { inv.write_dependencies = true; return std::string(); }},
      {{"-MMD", "--generate-nonsystem-dependencies-with-compile"}, false, false,
       [](Invocation& inv, const std::string&) {
         inv.write_dependencies = true;
         inv.system_headers_in_deps = false;
         return std::string();
       }},
      {{"-g", "--debug", "-G", "--device-debug"}, false, false,
       [](Invocation& inv, const std::string&) { inv.compile_args.push_back("-g"); return std::string(); }},
      {{"-w", "--disable-warnings"}, false, false,
       [](Invocation& inv, const std::string&) { inv.compile_args.push_back("-w"); return std::string(); }},
      {{"-shared", "--shared"}, false, false,
       [](Invocation& inv, const std::string&) {
         inv.compile_args.push_back("-fPIC");
         inv.link_args.push_back("-shared");
         return std::string();
       }},
      {{"-lineinfo", "--generate-line-info", "-use_fast_math", "--use_fast_math",
        "-expt-relaxed-constexpr", "--expt-relaxed-constexpr", "-extended-lambda", "--extended-lambda",
        "-expt-extended-lambda", "--expt-extended-lambda", "-Wno-deprecated-gpu-targets",
        "--Wno-deprecated-gpu-targets", "-Wno-deprecated-declarations", "--Wno-deprecated-declarations",
        "-restrict", "--restrict", "-src-in-ptx", "--source-in-ptx", "-res-usage", "--resource-usage",
        "-Wreorder", "--Wreorder", "-forward-unknown-to-host-compiler",
        "--forward-unknown-to-host-compiler", "-static-global-template-stub",
        "--static-global-template-stub", "-cudart", "--cudart", "-cudadevrt", "--cudadevrt"},
       false, false, no_effect},
      {{"-V", "--version"}, false, false,
       [](Invocation& inv, const std::string&) { inv.mode = Mode::Version; return std::string(); }},
      {{"-h", "--help"}, false, false,
       [](Invocation& inv, const std::string&) { inv.mode = Mode::Help; return std::string(); }},
      {{"-v", "--verbose"}, false, false,
       [](Invocation& inv, const std::string&) { inv.verbose = true; return std::string(); }},
      {{"-dryrun", "--dryrun"}, false, false,
       [](Invocation& inv, const std::string&) { inv.dry_run = inv.verbose = true; return std::string(); }},
      {{"-keep", "--keep"}, false, false,
       [](Invocation& inv, const std::string&) { inv.keep = true; return std::string(); }},
  };
  return table;
}

// Options of nvcc's that ask for something minicuda cannot make, each with the reason.
std::optional<std::string> refused(const std::string& name) {
  static const std::vector<std::pair<std::vector<std::string>, std::string>> table = {
      {{"-ptx", "--ptx"}, "cannot produce PTX"},
      {{"-cubin", "--cubin"}, "cannot produce a cubin"},
      {{"-fatbin", "--fatbin"}, "cannot produce a fatbinary"},
      {{"-optix-ir", "--optix-ir", "-ltoir", "--ltoir"}, "cannot produce device IR"},
      {{"-dlto", "--dlto", "-lto"}, "cannot do device link-time optimisation"},
      {{"-E", "--preprocess", "-cuda", "--cuda"}, "cannot write nvcc's preprocessed or translated output"},
      {{"-run", "--run"}, "does not run programs (build, then run the executable)"},
  };
  for (const auto& [names, reason] : table) {
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      return "option '" + name + "' is not supported: minicuda-nvcc " + refuse(reason);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<InputKind> kind_from_extension(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == "cu") return InputKind::Cuda;
  if (ext == "cpp" || ext == "cc" || ext == "cxx" || ext == "c++" || ext == "cp") return InputKind::Cxx;
  if (ext == "c") return InputKind::C;
  if (ext == "o" || ext == "obj" || ext == "a" || ext == "so" || ext == "lib") return InputKind::Object;
  if (path.find(".so.") != std::string::npos) return InputKind::Object;
  return std::nullopt;
}

std::optional<Invocation> parse_command_line(const std::vector<std::string>& args, std::string& error) {
  Invocation inv;
  std::optional<InputKind> forced_kind;  // -x
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.empty() || arg[0] != '-' || arg == "-") {
      std::optional<InputKind> kind = forced_kind ? forced_kind : kind_from_extension(arg);
      if (!kind) {
        error = "'" + arg + "': unknown file type (expected .cu, .cpp, .cc, .cxx, .c, .o, .a or .so)";
        return std::nullopt;
      }
      inv.inputs.push_back({arg, *kind});
      continue;
    }
    if (arg == "-x" || arg == "--x" || arg.rfind("-x=", 0) == 0 || arg.rfind("--x=", 0) == 0) {
      std::string language;
      if (arg.find('=') != std::string::npos) {
        language = arg.substr(arg.find('=') + 1);
      } else if (i + 1 < args.size()) {
        language = args[++i];
      }
      if (language == "cu") forced_kind = InputKind::Cuda;
      else if (language == "c++") forced_kind = InputKind::Cxx;
      else if (language == "c") forced_kind = InputKind::C;
      else if (language == "none") forced_kind.reset();
      else {
        error = "-x " + language + ": minicuda-nvcc knows the languages cu, c++, c and none";
        return std::nullopt;
      }
      continue;
    }
    if (std::optional<std::string> why = refused(arg.substr(0, arg.find('=')))) {
      error = *why;
      return std::nullopt;
    }
    // Exact spellings and "--opt=value" first, then the glued short forms (-Idir, -lm), so that
    // -lib and -lineinfo are never read as -l with a value.
    const Option* match = nullptr;
    std::string value;
    bool has_value = false;
    for (int pass = 0; pass < 2 && !match; ++pass) {
      for (const Option& option : options()) {
        for (const std::string& name : option.names) {
          if (pass == 0 && arg == name) {
            match = &option;
          } else if (pass == 0 && option.takes_value && arg.rfind(name + "=", 0) == 0) {
            match = &option;
            value = arg.substr(name.size() + 1);
            has_value = true;
          } else if (pass == 1 && option.glued && arg.size() > name.size() && arg.rfind(name, 0) == 0) {
            match = &option;
            value = arg.substr(name.size());
            has_value = true;
          }
          if (match) break;
        }
        if (match) break;
      }
    }
    if (match && !has_value && match->takes_value) {
      if (i + 1 >= args.size()) {
        error = "option '" + arg + "' needs a value";
        return std::nullopt;
      }
      value = args[++i];
    }
    if (!match) {
      error = "option '" + arg + "' is not supported by minicuda-nvcc (docs/testing-without-a-gpu.md "
              "lists the options it accepts; pass host compiler options through -Xcompiler)";
      return std::nullopt;
    }
    error = match->handle(inv, value);
    if (!error.empty()) return std::nullopt;
  }
  return inv;
}

}  // namespace minicuda_nvcc
