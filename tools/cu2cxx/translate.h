// cu2cxx: translates a CUDA .cu source into C++ that g++ compiles against minicuda's headers.
//
// Contract of translate(source, input_path): the returned text is
//
//   #define __CUDACC__ 1                       (and __CUDACC_VER_MAJOR__/MINOR__/BUILD__: 13.0.88)
//   #include "cuda_runtime.h"
//   #line 1 "<input_path>"
//   <source, with the rewrites below>
//   <registration block, only when the file defines at least one registrable kernel>
//
// and only these things are rewritten, never inside comments, literals or preprocessor lines
// (except the directives named in 5 and 8):
//
//   1. kernel launches   CALLEE<<<CFG>>>(ARGS)
//        -> (__cudaPushCallConfiguration(CFG) ? (void)0 : ::minicuda::kernel_stub<CALLEE>::launch(ARGS))
//      (a class template's static member function, so ARGS convert to the kernel's parameter
//      types exactly as in a call of the kernel: a literal 0 for a pointer parameter works);
//      when CALLEE has no template arguments and names a template or overloaded kernel of the
//      file or of `header_kernels`:
//        -> (__cudaPushCallConfiguration(CFG) ? (void)0 : ::minicuda::launch_deduced(
//               [](auto... minicuda_arguments) { CALLEE(minicuda_arguments...); }, ARGS))
//      when CALLEE has template arguments, `(void)0` is
//        `(void)&::minicuda::detail::start_up_registration<CALLEE>` (registered before main);
//      when CALLEE is one name of a variable holding a kernel (function_pointer_variables):
//        -> (... ? (void)0 : ::minicuda::launch_through(CALLEE)(ARGS))
//      when CALLEE is a kernel of the file (or of an inlined header) with default arguments,
//      launched after its definition (default_argument_helpers, rewrites.h):
//        -> (... ? (void)0 : CALLEE__minicuda_defaults(ARGS))
//   2. dynamic shared    extern __shared__ [__align__(N)|alignas(N)] TYPE NAME[];
//        inside a function body  -> TYPE* const NAME = ::minicuda::dynamic_shared<TYPE>();
//        at namespace scope      -> ::minicuda::DynamicShared<TYPE> NAME;
//      (a brace opens a function body when it follows a parameter list's `)`, optionally with
//      trailing specifiers, attributes or `-> type` in between, or a lambda's captures)
//   3. registration      every non-template `__global__` function definition whose qualified
//      name is unique in the file is listed, in order, in one appended line:
//        MINICUDA_REGISTER_MODULE("<basename>", MINICUDA_KERNEL(::q::name), ...)
//      (MINICUDA_KERNEL_REGIONS(::q::name, ::q::name__regions) for a kernel split by 4)
//   4. region fission    after a registrable kernel whose body it can split at its barriers
//      (docs/tools/cu2cxx.md, "Region fission"), its block function
//        static bool name__regions(<the kernel's parameters>) { ... }
//      inserted after the kernel's `}`: the body's regions, each a loop over the block's threads.
//      Its pieces carry #line directives naming their own .cu lines, and a last #line maps the
//      rest of the `}` line back, so the kernel's and every following line keep their numbers.
//      A kernel it cannot split keeps fibers only; `fission` says why.
//   5. __CUDA_ARCH__     around the body of each `__global__` or `__device__` (not `__host__`)
//      function that names the macro (each one, if a #define of the file names it):
//        {  ->  {\n#define __CUDA_ARCH__ 900\n#line L "<input_path>"\n
//        }  ->  \n#undef __CUDA_ARCH__\n#line L "<input_path>"\n}
//      so device code sees the H200's compute capability and host code sees none
//      (docs/kernels.md, "__CUDACC__ and __CUDA_ARCH__"); the same two directives around each
//      file-scope #if group that names the macro and declares device code only (not around the
//      bodies inside it).
//   6. clock()           in the body of every `__global__` or `__device__` (not `__host__`)
//      function, an unqualified `clock()`
//        -> static_cast<clock_t>(static_cast<unsigned int>(::clock64()))
//      (the SM's 32-bit cycle counter, as nvcc's device clock() is, not the C library's).
//   7. variables         every `__device__` or `__constant__` variable defined at namespace scope
//      (find_module_variables in rewrites.h) gets a slot after its `;`,
//        ` static decltype(NAME)* NAME__device = nullptr;` (`const decltype(NAME)*` for __constant__),
//      each unqualified use of NAME in a device-only body becomes `(*NAME__device)`, and the
//      registration block lists MINICUDA_VARIABLE(::q::NAME, ::q::NAME__device, 0 or 1) and, when
//      the file has __constant__ variables, a static_assert that they fit the 64 KiB constant bank.
//   8. headers           `#include "name"` of a header holding CUDA code (see translate below).
//   9. inline PTX        every `asm` statement in a `__global__` or `__device__` (not `__host__`)
//      function body -> a C++ block doing what its PTX does (inline_ptx.h), and then
//      `#include "minicuda/inline_ptx.h"` after cuda_runtime.h; PTX outside the supported subset
//      is reported in `errors`.
//
// Every rewrite keeps the count of newlines of the text it replaces (missing newlines are put at
// the end of the replacement), so line N of the output body is line N of the .cu: compiler
// messages and gdb name the right .cu line (an inlined header's lines are named by #line
// directives of their own, and a #line after it names the .cu's next line). A `<<<` that is not a well-formed launch, or an
// `extern __shared__` that is not an unsized array declaration, is left unchanged and reported
// in `warnings` (g++ then reports the error at that line).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace minicuda::cu2cxx {

// A problem found in the input, at a 1-based line of the .cu.
struct Diagnostic {
  int line;
  std::string message;
  std::string path = {};  // the header it is in, when not the .cu itself
};

// What region fission made of one registered kernel or template kernel.
struct FissionNote {
  std::string kernel;  // "::ns::k"
  bool split;          // it has a block function, "::ns::k__regions"
  std::string reason;  // why not, when not split ("it uses __shfl_down_sync (line 12): ...")
};

struct Translation {
  std::string text;                          // the complete generated C++ file
  std::vector<std::string> kernels;          // registered kernels' qualified names ("::ns::k")
  std::vector<std::string> variables;        // registered variables' qualified names ("::ns::v")
  std::vector<Diagnostic> warnings;          // in source order
  // Code minicuda cannot run, in source order: device code that launches work (CUDA dynamic
  // parallelism, find_dynamic_parallelism in rewrites.h). The command reports each and writes
  // no output, so the build stops at the .cu line.
  std::vector<Diagnostic> errors;
  std::vector<FissionNote> fission;          // one per registered kernel, in the same order, then
                                             // one per template kernel defined once
};

// A file a quoted `#include` names, as the reader found it.
struct IncludedFile {
  std::string path;     // absolute, normalised: what #line directives and the generated names use
  std::string content;
};
// Finds the file `#include "spelled"` names in the file at `including_path`, or nullopt.
using IncludeReader =
    std::function<std::optional<IncludedFile>(std::string_view including_path, std::string_view spelled)>;

// Translates `source`; `input_path` is written into the `#line` directive as given (the command
// line tool passes an absolute path) and its last path component names the module.
// `header_kernels` names more kernels that only a launch's arguments can select (templates and
// overloads defined in the headers the .cu includes, found by header_kernels_chosen_by_arguments):
// launches of them without template arguments go through launch_deduced as the file's own do.
//
// Headers: with `read_include`, every `#include "name"` whose file it finds and that holds CUDA
// code (`__global__`, `__device__`, `__shared__`, `__constant__`, `__managed__`, `__CUDA_ARCH__`
// or `<<<`, or a quoted include of such a header) is replaced by that header's translation,
// rewritten exactly as the .cu is, between `#line 1 "<header path>"` and a `#line` back to the
// includer, so the project's own headers' kernels, launches, dynamic shared arrays and device code
// work as in the .cu. Each header is translated once; a later include of it repeats the same text
// (its include guard decides, as with a real include); a header's `#pragma once` becomes a guard
// of its own (MINICUDA_CU2CXX_ONCE_<n>). Its registrable kernels and variables join the .cu's
// module through a macro, MINICUDA_CU2CXX_ENTRIES_<n>, defined after its text (so a header in a
// false `#if` branch registers nothing). In a header, a quoted include found by the reader that
// needs no translation is rewritten to its absolute path; an include cycle is left as it is.
Translation translate(std::string_view source, std::string_view input_path,
                      const std::vector<std::string>& header_kernels = {}, const IncludeReader& read_include = {});

// The `__global__` templates and overloaded kernels a header defines (their last names), for
// translate's `header_kernels`. The command reads each `#include "..."` header found next to the
// .cu and passes what they define.
std::vector<std::string> header_kernels_chosen_by_arguments(std::string_view header_source);

// "<path>:<line>: warning: cu2cxx: <message>", the form compilers use, so IDEs pick it up.
std::string format_warning(std::string_view path, const Diagnostic& diagnostic);
// "<path>:<line>: error: cu2cxx: <message>".
std::string format_error(std::string_view path, const Diagnostic& diagnostic);

}  // namespace minicuda::cu2cxx
