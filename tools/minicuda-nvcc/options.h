// minicuda-nvcc's command line: what nvcc accepts, parsed into one Invocation.
//
// Contract: parse_command_line(args) reads nvcc's options as Makefiles and build systems pass
// them (short and long spellings, "-o x", "-ox" is not nvcc's and is not accepted, "--opt=x" and
// "--opt x", comma lists for -Xcompiler, -Xlinker, -gencode and -code), and either fills an
// Invocation or returns an error message naming the option. An option minicuda cannot honour
// (PTX, cubin or fatbin output, device link-time optimisation, ...) is an error, never ignored
// silently; an option that changes only how a real GPU's code is generated (the target
// architecture, fast math, register limits) is accepted and has no effect, since kernels here
// are host C++.
#ifndef MINICUDA_NVCC_OPTIONS_H
#define MINICUDA_NVCC_OPTIONS_H

#include <optional>
#include <string>
#include <vector>

namespace minicuda_nvcc {

// What an input file is, from -x or its extension.
enum class InputKind { Cuda, Cxx, C, Object };

struct Input {
  std::string path;
  InputKind kind;
};

enum class Mode {
  Link,         // compile every source and link an executable (the default)
  Compile,      // -c / -dc: one object per source
  Dependencies, // -M / -MM: print make rules, compile nothing
  DeviceLink,   // -dlink: the device-link step; minicuda has no device code to link
  Library,      // -lib: compile and archive into a static library
  Version,      // --version
  Help,         // --help
};

struct Invocation {
  Mode mode = Mode::Link;
  std::vector<Input> inputs;
  std::string output;                    // -o
  std::vector<std::string> compile_args; // -I -D -U -O -g -w -Xcompiler ..., in order
  std::vector<std::string> link_args;    // -L -l -Xlinker ..., in order
  std::string host_compiler;             // -ccbin
  bool write_dependencies = false;       // -MD / -MMD: a .d file beside the compilation
  bool system_headers_in_deps = true;    // false for -MM / -MMD
  std::string dep_file;                  // -MF
  std::string dep_target;                // -MT
  bool verbose = false;                  // -v: print each command
  bool dry_run = false;                  // --dryrun: print, run nothing
  bool keep = false;                     // -keep: keep the translated .cpp files
};

// Parses nvcc's arguments (without argv[0]). On error returns nullopt with `error` set to a
// sentence that names the option.
std::optional<Invocation> parse_command_line(const std::vector<std::string>& args,
                                             std::string& error);

// The kind of a file from its extension; nullopt when the extension is not one nvcc knows.
std::optional<InputKind> kind_from_extension(const std::string& path);

}  // namespace minicuda_nvcc

#endif  // MINICUDA_NVCC_OPTIONS_H
