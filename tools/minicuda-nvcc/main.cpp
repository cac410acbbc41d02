// minicuda-nvcc: an nvcc-compatible compiler driver for minicuda.
//
// Contract: `minicuda-nvcc [nvcc options] files...` builds what nvcc would build from the same
// command line, with minicuda standing in for the GPU: each .cu is translated by minicuda_cu2cxx
// (tools/cu2cxx) and compiled by the host C++ compiler (g++ unless -ccbin says otherwise) as
// C++20, with minicuda's headers as system headers; .cpp/.cc/.c sources are compiled as host
// code; .o/.a/.so inputs go to the link, which adds minicuda's libraries (libcudart's and
// libcuda's look-alikes and the layers below them). options.h lists the options; one that
// cannot be honoured stops the driver with a message and exit status 1. The exit status is
// otherwise the first failing tool's, or 0.
//
// Where minicuda is: `minicuda-nvcc.conf` beside the executable, one `key=value` a line
// (cu2cxx=, cxx=, version=, and the repeatable cxxflag=, include= and link=, in order; `$ORIGIN` stands for the
// executable's directory). The build tree and the install tree each get their own
// (tools/minicuda-nvcc/CMakeLists.txt), so the driver works from either.
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "options.h"

namespace fs = std::filesystem;
using namespace minicuda_nvcc;

namespace {

struct Config {
  std::string cu2cxx;
  std::string cxx = "g++";
  std::vector<std::string> includes;
  std::vector<std::string> link;
  std::vector<std::string> cxx_flags;  // minicuda's own build flags (a sanitizer's)
  std::string version;
};

[[noreturn]] void fail(const std::string& message) {
  std::cerr << "minicuda-nvcc: error: " << message << "\n";
  std::exit(1);
}

fs::path executable_directory() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) fail("cannot find its own executable (/proc/self/exe): " + ec.message());
  return self.parent_path();
}

Config load_config() {
  const fs::path directory = executable_directory();
  const fs::path path = directory / "minicuda-nvcc.conf";
  std::ifstream in(path);
  if (!in) fail("cannot read " + path.string() + " (it is written by minicuda's build and install)");
  Config config;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq);
    std::string value = line.substr(eq + 1);
    if (value.rfind("$ORIGIN", 0) == 0) value = directory.string() + value.substr(7);
    if (key == "cu2cxx") config.cu2cxx = value;
    else if (key == "cxx") config.cxx = value;
    else if (key == "include") config.includes.push_back(value);
    else if (key == "link") config.link.push_back(value);
    else if (key == "cxxflag") config.cxx_flags.push_back(value);
    else if (key == "version") config.version = value;
  }
  if (config.cu2cxx.empty()) fail(path.string() + " names no cu2cxx");
  return config;
}

std::string quote(const std::string& word) {
  if (!word.empty() && word.find_first_of(" \t\"'\\$`*?;&|<>()") == std::string::npos) return word;
  std::string out = "'";
  for (char c : word) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

class Driver {
 public:
  Driver(Config config, Invocation inv) : config_(std::move(config)), inv_(std::move(inv)) {
    if (!inv_.host_compiler.empty()) config_.cxx = host_compiler(inv_.host_compiler);
  }
  ~Driver() {
    if (!temp_.empty() && !inv_.keep) {
      std::error_code ec;
      fs::remove_all(temp_, ec);
    } else if (!temp_.empty()) {
      std::cerr << "minicuda-nvcc: kept intermediate files in " << temp_ << "\n";
    }
  }

  int run();

 private:
  // -ccbin names a compiler or a directory holding one; a C compiler's name gives its C++ sibling.
  static std::string host_compiler(const std::string& given) {
    std::error_code ec;
    if (fs::is_directory(given, ec)) return (fs::path(given) / "g++").string();
    std::string name = given;
    const std::size_t slash = name.find_last_of('/');
    const std::size_t base = slash == std::string::npos ? 0 : slash + 1;
    const std::size_t gcc = name.rfind("gcc");
    if (gcc != std::string::npos && gcc >= base) return name.replace(gcc, 3, "g++");
    const std::size_t clang = name.rfind("clang");
    if (clang != std::string::npos && clang >= base && name.find("clang++", base) == std::string::npos) {
      return name.replace(clang, 5, "clang++");
    }
    return given;
  }

  int execute(const std::vector<std::string>& command) {
    if (inv_.verbose) {
      std::string line = "#$";
      for (const std::string& word : command) line += " " + quote(word);
      std::cerr << line << "\n";
    }
    if (inv_.dry_run) return 0;
    std::vector<char*> argv;
    for (const std::string& word : command) argv.push_back(const_cast<char*>(word.c_str()));
    argv.push_back(nullptr);
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) fail(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      execvp(argv[0], argv.data());
      std::fprintf(stderr, "minicuda-nvcc: error: cannot run '%s': %s\n", argv[0], std::strerror(errno));
      _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
      if (errno != EINTR) fail(std::string("waitpid: ") + std::strerror(errno));
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  }

  const fs::path& temp_dir() {
    if (temp_.empty()) {
      const char* base = std::getenv("TMPDIR");
      std::string pattern = std::string(base && *base ? base : "/tmp") + "/minicuda-nvcc.XXXXXX";
      if (!mkdtemp(pattern.data())) fail("cannot create a temporary directory: " + std::string(std::strerror(errno)));
      temp_ = pattern;
    }
    return temp_;
  }

  // A fresh path named `name` in a directory of its own under the temporary directory (so that
  // objects archived by -lib keep their sources' names).
  std::string temp_file(const std::string& name) {
    const fs::path directory = temp_dir() / std::to_string(counter_++);
    std::error_code ec;
    fs::create_directory(directory, ec);
    if (ec) fail("cannot create " + directory.string() + ": " + ec.message());
    return (directory / name).string();
  }

  // The host compiler's command for one source, up to (not including) -c/-M and the file.
  std::vector<std::string> compile_command(const Input& input) {
    std::vector<std::string> command = {config_.cxx};
    command.insert(command.end(), config_.cxx_flags.begin(), config_.cxx_flags.end());
    if (input.kind == InputKind::C) {
      command.insert(command.end(), {"-x", "c"});
    } else {
      command.push_back("-std=c++20");
    }
    if (input.kind == InputKind::Cuda) {
      // The .cu's directory first for quoted includes, as for the .cu itself under nvcc.
      command.push_back("-DMINICUDA_CU_SOURCE");
      command.push_back("-iquote" + fs::absolute(input.path).parent_path().string());
    }
    command.insert(command.end(), inv_.compile_args.begin(), inv_.compile_args.end());
    for (const std::string& include : config_.includes) command.insert(command.end(), {"-isystem", include});
    return command;
  }

  // The C++ file that the host compiler reads for `input`: the translation of a .cu, else itself.
  std::string host_source(const Input& input, int& status) {
    status = 0;
    if (input.kind != InputKind::Cuda) return input.path;
    const std::string translated = temp_file(fs::path(input.path).filename().string() + ".cpp");
    status = execute({config_.cu2cxx, input.path, translated});
    return translated;
  }

  // Rewrites the translated file's name back to the .cu's in a make rule file or text.
  static std::string restore_name(std::string text, const std::string& translated, const std::string& original) {
    for (std::size_t at = text.find(translated); at != std::string::npos; at = text.find(translated, at)) {
      text.replace(at, translated.size(), original);
      at += original.size();
    }
    return text;
  }

  int fix_dep_file(const std::string& dep_file, const std::string& translated, const std::string& original) {
    if (inv_.dry_run || translated == original) return 0;
    std::ifstream in(dep_file);
    if (!in) return 0;
    std::stringstream text;
    text << in.rdbuf();
    in.close();
    std::ofstream out(dep_file, std::ios::trunc);
    out << restore_name(text.str(), translated, original);
    return out ? 0 : 1;
  }

  static std::string object_name(const std::string& path) {
    return fs::path(path).filename().replace_extension(".o").string();
  }

  int compile(const Input& input, const std::string& object);
  int dependencies(const Input& input);
  int link(const std::vector<std::string>& objects);

  Config config_;
  Invocation inv_;
  fs::path temp_;
  int counter_ = 0;
};

int Driver::compile(const Input& input, const std::string& object) {
  int status = 0;
  const std::string source = host_source(input, status);
  if (status != 0) return status;
  std::vector<std::string> command = compile_command(input);
  std::string dep_file;
  if (inv_.write_dependencies) {
    dep_file = !inv_.dep_file.empty() ? inv_.dep_file : fs::path(object).replace_extension(".d").string();
    command.insert(command.end(), {inv_.system_headers_in_deps ? "-MD" : "-MMD", "-MF", dep_file});
    if (!inv_.dep_target.empty()) command.insert(command.end(), {"-MT", inv_.dep_target});
  }
  command.insert(command.end(), {"-c", source, "-o", object});
  status = execute(command);
  if (status == 0 && !dep_file.empty()) status = fix_dep_file(dep_file, source, input.path);
  return status;
}

int Driver::dependencies(const Input& input) {
  if (input.kind == InputKind::Object) return 0;
  int status = 0;
  const std::string source = host_source(input, status);
  if (status != 0) return status;
  std::vector<std::string> command = compile_command(input);
  const std::string rules = temp_file("rules.d");
  command.insert(command.end(), {inv_.system_headers_in_deps ? "-M" : "-MM", "-MF", rules, "-MT",
                                 !inv_.dep_target.empty() ? inv_.dep_target : object_name(input.path), source});
  status = execute(command);
  if (status != 0 || inv_.dry_run) return status;
  std::ifstream in(rules);
  std::stringstream text;
  text << in.rdbuf();
  const std::string result = restore_name(text.str(), source, input.path);
  const std::string& target = !inv_.dep_file.empty() ? inv_.dep_file : inv_.output;
  if (target.empty()) {
    std::cout << result;
  } else {
    std::ofstream out(target, std::ios::app);
    out << result;
    if (!out) fail("cannot write " + target);
  }
  return 0;
}

int Driver::link(const std::vector<std::string>& objects) {
  // -rdynamic: the program's functions named in memcheck mode's host backtraces (docs/debugging.md).
  std::vector<std::string> command = {config_.cxx, "-rdynamic"};
  command.insert(command.end(), objects.begin(), objects.end());
  command.insert(command.end(), inv_.link_args.begin(), inv_.link_args.end());
  command.insert(command.end(), config_.link.begin(), config_.link.end());
  command.insert(command.end(), {"-o", inv_.output.empty() ? "a.out" : inv_.output});
  return execute(command);
}

int Driver::run() {
  switch (inv_.mode) {
    case Mode::Version:
      std::cout << "minicuda-nvcc: NVIDIA (R) Cuda compiler driver look-alike, minicuda " << config_.version << "\n"
                << "Kernels are translated to C++ by minicuda_cu2cxx and run on minicuda's simulated GPU\n"
                << "Cuda compilation tools, release 13.0, V13.0.0 (minicuda)\n"
                << "Host compiler: " << config_.cxx << "\n";
      return 0;
    case Mode::Help:
      std::cout << "usage: minicuda-nvcc [nvcc options] <files: .cu .cpp .cc .c .o .a .so>\n"
                   "  modes: (link) -c -dc -M -MM -lib -dlink; -MD -MMD -MF -MT; -o <file>\n"
                   "  host: -I -isystem -include -D -U -O<n> -g -G -w -std=c++11..20 -Xcompiler a,b\n"
                   "  link: -L -l -Xlinker a,b -shared; -lcudart/-lcuda are minicuda's own\n"
                   "  accepted without effect (GPU code generation): -arch -code -gencode -rdc -lineinfo\n"
                   "    --use_fast_math -m64 --expt-relaxed-constexpr --extended-lambda -Xptxas ...\n"
                   "  refused: -ptx -cubin -fatbin -lto -E -run\n"
                   "  -ccbin <compiler or directory>, -v (print commands), --dryrun, -keep,\n"
                   "  --options-file <file>; NVCC_PREPEND_FLAGS and NVCC_APPEND_FLAGS are read\n";
      return 0;
    default:
      break;
  }
  if (inv_.inputs.empty()) fail("no input files");
  std::size_t sources = 0;
  for (const Input& input : inv_.inputs) sources += input.kind != InputKind::Object;

  if (inv_.mode == Mode::Dependencies) {
    for (const Input& input : inv_.inputs) {
      if (int status = dependencies(input)) return status;
    }
    return 0;
  }
  if (inv_.mode == Mode::DeviceLink) {
    // Kernels are host code already linked with the program: the device-link object is empty.
    const std::string empty = temp_file("dlink.cpp");
    std::ofstream(empty) << "// minicuda-nvcc -dlink: no device code to link\n";
    return execute({config_.cxx, "-x", "c++", "-c", empty, "-o", inv_.output.empty() ? "a_dlink.o" : inv_.output});
  }
  if (inv_.mode == Mode::Compile) {
    if (!inv_.output.empty() && sources > 1) fail("-o with -c names one output, but there are several sources");
    for (const Input& input : inv_.inputs) {
      if (input.kind == InputKind::Object) continue;
      const std::string object = !inv_.output.empty() ? inv_.output : object_name(input.path);
      if (int status = compile(input, object)) return status;
    }
    return 0;
  }
  std::vector<std::string> objects;
  for (const Input& input : inv_.inputs) {
    if (input.kind == InputKind::Object) {
      objects.push_back(input.path);
      continue;
    }
    const std::string object = temp_file(object_name(input.path));
    if (int status = compile(input, object)) return status;
    objects.push_back(object);
  }
  if (inv_.mode == Mode::Library) {
    std::vector<std::string> command = {"ar", "rcs", inv_.output.empty() ? "a.a" : inv_.output};
    command.insert(command.end(), objects.begin(), objects.end());
    return execute(command);
  }
  return link(objects);
}

// NVCC_PREPEND_FLAGS and NVCC_APPEND_FLAGS, as nvcc reads them: words split at blanks.
std::vector<std::string> environment_words(const char* name) {
  std::vector<std::string> words;
  if (const char* value = std::getenv(name)) {
    std::istringstream stream(value);
    std::string word;
    while (stream >> word) words.push_back(word);
  }
  return words;
}

// The words of an --options-file: separated by blanks, double quotes group, backslash escapes.
std::vector<std::string> file_words(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail("cannot read options file " + path);
  std::vector<std::string> words;
  std::string word;
  bool in_word = false, quoted = false;
  for (char c; in.get(c);) {
    if (c == '\\' && in.get(c)) {
      word += c, in_word = true;
    } else if (c == '"') {
      quoted = !quoted, in_word = true;
    } else if (!quoted && std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(word);
      word.clear(), in_word = false;
    } else {
      word += c, in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

// Replaces each "--options-file f" / "-optf f" (nvcc's, which CMake uses for long object lists)
// with the words of f.
std::vector<std::string> expand_options_files(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::string path;
    if ((arg == "--options-file" || arg == "-optf") && i + 1 < args.size()) {
      path = args[++i];
    } else if (arg.rfind("--options-file=", 0) == 0 || arg.rfind("-optf=", 0) == 0) {
      path = arg.substr(arg.find('=') + 1);
    } else {
      out.push_back(arg);
      continue;
    }
    for (std::string& word : file_words(path)) out.push_back(std::move(word));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args = environment_words("NVCC_PREPEND_FLAGS");
  args.insert(args.end(), argv + 1, argv + argc);
  for (const std::string& word : environment_words("NVCC_APPEND_FLAGS")) args.push_back(word);
  args = expand_options_files(args);
  std::string error;
  std::optional<Invocation> inv = parse_command_line(args, error);
  if (!inv) fail(error);
  Driver driver(load_config(), std::move(*inv));
  return driver.run();
}
