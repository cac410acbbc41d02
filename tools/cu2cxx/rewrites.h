// cu2cxx's internal passes over the token stream; translate.cpp composes them. Each pass only
// reads the tokens and the source and returns what it found; none of them edits text.
//
// Contract: the Edits a pass returns are sorted by `begin` and never overlap; each replacement
// holds at least as many newlines as the text it replaces and has been padded (with trailing
// newlines) to hold exactly as many, so applying them keeps every line where it was.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lexer.h"
#include "translate.h"

namespace minicuda::cu2cxx {

// Replace source[begin, end) with `replacement`.
struct Edit {
  std::size_t begin;
  std::size_t end;
  std::string replacement;
};

// source[begin, end) with `edits` applied (those inside the range; positions are offsets into
// `source`). Edits are taken in order of `begin`; one that overlaps an earlier one is dropped.
std::string apply_edits(std::string_view source, std::size_t begin, std::size_t end, std::vector<Edit> edits);

// `replacement` followed by as many '\n' as `original` has more than it, so the line count of
// the replaced text is kept. Precondition: `replacement` has no more newlines than `original`.
std::string keep_line_count(std::string_view original, std::string replacement);

// A kernel whose parameter list has default arguments, launched through the host function
// cu2cxx defines after it (`NAME__minicuda_defaults`, same parameters and defaults), so a launch
// with fewer arguments gets the defaults as a call does.
struct KernelWithDefaults {
  std::string name;           // last name, "k"
  std::size_t defined_after;  // source offset of the kernel's `}`: launches after it use the helper
};

// What pass 1 knows about the callees of the file's launches.
struct LaunchTargets {
  // Last names of template or overloaded kernels (kernels_chosen_by_arguments).
  std::vector<std::string> chosen_by_arguments;
  // Names of variables that hold a kernel's address (function_pointer_variables).
  std::vector<std::string> pointers;
  std::vector<KernelWithDefaults> with_defaults;
};

// Pass 1: every `CALLEE<<<CFG>>>(ARGS)` launch, as an Edit. A `<<<` it cannot rewrite is
// reported in `warnings` and left alone. A CALLEE without template arguments whose last name is
// in `chosen_by_arguments` (a template or overloaded kernel of the file) is launched through
// ::minicuda::launch_deduced (crt/host_runtime.h), which lets the call pick it; a CALLEE that is
// one name in `pointers` through ::minicuda::launch_through(CALLEE)(ARGS); a CALLEE in
// `with_defaults` (launched after its definition) as CALLEE__minicuda_defaults(ARGS). A CALLEE
// with template arguments also names ::minicuda::detail::start_up_registration<CALLEE>, so the
// instantiation is registered at start-up.
std::vector<Edit> rewrite_launches(std::string_view source, const Tokens& tokens, const LineIndex& lines,
                                   const LaunchTargets& targets, std::vector<Diagnostic>& warnings);

// The names of the file's variables (and parameters) declared as pointers to functions, in the
// declarator form `(*NAME)(`, or declared `auto NAME = &K` / `NAME = K` with K a `__global__`
// function of the file: the callees a launch must take as a run-time value.
std::vector<std::string> function_pointer_variables(const Tokens& tokens);


// The names (last component, `k` for `::ns::k`) of the file's `__global__` definitions that a
// launch without template arguments can only select by its arguments, as a call does: function
// templates, and names defined more than once (overloads).
std::vector<std::string> kernels_chosen_by_arguments(const Tokens& tokens);

// Pass 2: every `extern __shared__ TYPE NAME[];`, as an Edit: inside a function body (at any
// brace depth below one) `TYPE* const NAME = ::minicuda::dynamic_shared<TYPE>();`, elsewhere
// `::minicuda::DynamicShared<TYPE> NAME;`. A brace opens a function body when it follows the
// `)` of a parameter list (trailing specifiers, attributes and `-> type` allowed in between) or a
// lambda's captures; namespace, class, enum, `extern "C"` and initializer braces do not. A
// declaration of another form is reported in `warnings` and left alone.
std::vector<Edit> rewrite_dynamic_shared(std::string_view source, const Tokens& tokens,
                                         const LineIndex& lines, std::vector<Diagnostic>& warnings);

// `__shared__ alignas(N) T x;` (or `__align__(N)`): the alignment specifier moved before
// `__shared__` (`alignas(N) __shared__ T x;`), where C++ allows it once `__shared__` is
// `static thread_local`. Declarations with `extern` are rewrite_dynamic_shared's.
std::vector<Edit> rewrite_shared_alignment(std::string_view source, const Tokens& tokens);

// True when the `{` at index `brace` opens a function body (a lambda's included): it follows a
// parameter list's `)`, optionally with trailing specifiers, attributes or `-> type` between, or
// a lambda's captures.
bool opens_function_body(const Tokens& tokens, std::size_t brace);

// For every token: true when it lies inside a function body (at any depth below one), as pass 2
// tells function bodies from other braces.
std::vector<bool> inside_function_bodies(const Tokens& tokens);

inline constexpr std::size_t kNoTemplate = static_cast<std::size_t>(-1);

// A registrable kernel's definition, located in the token stream.
struct KernelSite {
  std::string qualified_name;      // "::ns::k"
  std::size_t name;                // the token of its (last) name
  std::size_t params_open, params_close;  // its parameter list's `(` and `)`
  std::size_t body_open, body_close;      // its body's `{` and `}`
  bool qualified_definition;       // defined outside its namespace (`void ns::k(...) {`)
  std::size_t template_keyword = kNoTemplate;  // a template kernel: its head's `template` token
};

// Pass 3 with locations: the kernels registrable_kernels() names, in the same order.
std::vector<KernelSite> registrable_kernel_sites(const Tokens& tokens);

// The template kernels defined once (no other definition under their qualified name), in
// source order: region fission may split them too (their block function is a template).
std::vector<KernelSite> template_kernel_sites(const Tokens& tokens);

// The `__cluster_dims__(...)` of the file (cluster_dims.cpp): the edits that remove them, and for
// each registrable kernel (sites) that has one, its qualified name and the arguments' source text.
// One anywhere else is an error in `errors`.
struct ClusterDims {
  std::vector<Edit> edits;
  std::vector<std::pair<std::string, std::string>> shapes;
};
ClusterDims find_cluster_dims(std::string_view source, const Tokens& tokens, const LineIndex& lines,
                              const std::vector<KernelSite>& sites, std::vector<Diagnostic>& errors);

// Pass 3: the qualified names ("::ns::k") of the kernels the appended block registers: the
// non-template `__global__` function definitions at namespace scope whose qualified name is
// defined only once in the file, in source order.
std::vector<std::string> registrable_kernels(const Tokens& tokens);

// True when the declaration that ends at the function body `{` at `brace` says __global__ or
// __device__ and not __host__ (it starts after the previous `;`, `{` or `}`): device-only code.
bool declared_device_only(const Tokens& tokens, std::size_t brace);

// CUDA dynamic parallelism that minicuda does not run, in the body of a device-only function
// (declared_device_only): a call of cudaDeviceSynchronize (which CDP2 does not allow in device
// code, as nvcc refuses it) or of a device-runtime function minicuda's device runtime does not
// have (cudaLaunchDevice, cudaGetParameterBuffer, cudaMemcpyAsync, ...). Each occurrence is one
// Diagnostic whose message names the function and what it calls.
std::vector<Diagnostic> find_dynamic_parallelism(const Tokens& tokens, const LineIndex& lines);

// Dynamic parallelism in device-only bodies (docs/dynamic-parallelism.md): `edits` must hold
// pass 1's launch rewrites; those inside such a body are changed to the device runtime's forms
// (::minicuda::devrt::push_call_configuration, device_stub, launch_deduced; cuda_device_runtime_api.h),
// and an Edit is added for each call of cudaGetLastError, cudaPeekAtLastError,
// cudaStreamCreateWithFlags, cudaStreamDestroy, cudaMalloc, cudaFree, malloc and free there
// (not inside another edit), which then
// calls ::minicuda::devrt's function of that name. Lines are kept.
void rewrite_device_runtime(const Tokens& tokens, std::vector<Edit>& edits);

// Does a device-only body call malloc, free, cudaMalloc or cudaFree (which rewrite_device_runtime
// sends to ::minicuda::devrt, the device heap)? The file's module is then registered as one that
// uses the device heap (MINICUDA_REGISTER_MODULE_WITH_HEAP, docs/device-heap.md).
bool device_code_uses_heap(const Tokens& tokens);

// Pass 6: `clock()` in device code. In the body of a device-only function (declared_device_only),
// every `clock()` that is not qualified or a member call becomes
// `static_cast<clock_t>(static_cast<unsigned int>(::clock64()))`: the SM's 32-bit cycle counter,
// as nvcc's device-side clock() reads it, instead of the C library's processor time. Each Edit
// is on one line, so lines are kept.
std::vector<Edit> rewrite_device_clock(const Tokens& tokens);

// Pass 5: `__CUDA_ARCH__` inside device code only (docs/kernels.md, "__CUDACC__ and
// __CUDA_ARCH__"). For the body of every function definition declared `__global__` or
// `__device__` without `__host__` (not nested in another function), two Edits: after its `{`,
// `#define __CUDA_ARCH__ 900`, and before its `}`, `#undef __CUDA_ARCH__`, each on lines of its
// own followed by a `#line` directive (naming `line_path`, already escaped) that gives the rest of
// the line its own number again. Only bodies where the macro can matter get them: those whose
// text names `__CUDA_ARCH__` (a directive or a use), or every one if a #define of the file names it.
std::vector<Edit> define_cuda_arch_in_device_bodies(std::string_view source, const Tokens& tokens,
                                                    const LineIndex& lines, std::string_view line_path);

// A `__device__` or `__constant__` variable defined at namespace scope.
struct ModuleVariableSite {
  std::string name;            // "g_dev"
  std::string qualified_name;  // "::ns::g_dev"
  bool constant = false;       // __constant__
  std::size_t semicolon = 0;   // the token that ends its declaration
};

// Pass 7, what it finds: the file's `__device__` and `__constant__` variable definitions at
// namespace scope, in source order. Not variables: functions, templates, `extern` declarations,
// `__managed__` and `__shared__` ones. A declaration of several variables is reported in
// `warnings` and left out.
std::vector<ModuleVariableSite> find_module_variables(const Tokens& tokens, const LineIndex& lines,
                                                      std::vector<Diagnostic>& warnings);

// Pass 7, its Edits (each within one line): after each variable's `;`, its slot
// ` static decltype(NAME)* NAME__device = nullptr;` (`const decltype(NAME)*` for __constant__,
// so that kernel code cannot write it); in the body of every device-only function
// (declared_device_only), each unqualified use of NAME (not a member, not followed by `::`)
// becomes `(*NAME__device)`.
std::vector<Edit> rewrite_module_variables(const Tokens& tokens, const std::vector<ModuleVariableSite>& variables);

// For each registrable kernel (`sites`) whose parameter list has a default argument, defined in
// its own namespace, with every parameter named: the Edit that inserts, after its `}` and on the
// same line, `static void NAME__minicuda_defaults(PARAMS) { ::minicuda::kernel_stub<&NAME>::launch(NAMES); }`.
std::vector<Edit> default_argument_helpers(const Tokens& tokens, const std::vector<KernelSite>& sites,
                                           std::vector<KernelWithDefaults>& kernels);

}  // namespace minicuda::cu2cxx
