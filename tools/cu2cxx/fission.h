// cu2cxx's region fission (docs/tools/cu2cxx.md, "Region fission"): for a kernel whose
// barriers all sit where every thread of a block must reach them together, a second copy of
// the body - the *block function* - that runs a whole block without fibers. The body is split
// at its `__syncthreads()` into regions; each region becomes a loop over the block's threads
// (z, y, x order, x fastest), and a loop around barriers (block-uniform, as CUDA requires)
// runs once per block around its regions' loops. This is what MCUDA and CuPBoP do to run CUDA
// on CPUs.
//
// Internal to cu2cxx: translate.cpp calls split_kernels(); fission_plan.cpp analyses a kernel,
// fission_emit.cpp writes its block function, fission_tokens.cpp holds the token-level
// predicates both use.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lexer.h"
#include "rewrites.h"

namespace minicuda::cu2cxx::fission {

// What the analysis needs to know about the file around the kernels.
struct FileFacts {
  // Functions defined in the file (any namespace, struct members included), by unqualified
  // name: the body `{` of each definition.
  std::vector<std::pair<std::string, std::size_t>> functions;
  // Names that stand for the same value in every thread and region: object-like macros,
  // namespace-scope const and constexpr variables.
  std::set<std::string, std::less<>> constants;
  // A #define of the file mentions a barrier or warp operation (it could hide one in a kernel).
  bool macro_hides_barrier = false;
  // An identifier of the file has the form of the names inlining writes (fission_inline.h).
  bool inline_names_taken = false;
};

FileFacts file_facts(std::string_view source, const Tokens& tokens);

// One kernel's outcome.
struct KernelFission {
  std::string kernel;          // "::ns::k"
  bool split = false;
  std::string block_function;  // "::ns::k__regions" when split
  std::string reason;          // why not, when not split
  std::optional<Edit> insertion;  // the block function, inserted after the kernel's `}`
  // A template kernel: the block function's declaration before the kernel's head, and the
  // statement at the start of its body that records the block function of each instantiation.
  std::vector<Edit> declarations;
};

// Where the text of a source built from pieces of another came from (fission_inline.h): each
// piece starts at `synthetic` and was copied from `original` on (verbatim) or written for the
// place at `original` (generated glue).
struct SourceMap {
  struct Piece {
    std::size_t synthetic, original;
    bool verbatim;
  };
  std::vector<Piece> pieces;  // ascending by `synthetic`, the first at 0
  std::size_t original(std::size_t synthetic) const;
};

// Context shared by every kernel of a file.
struct FileContext {
  std::string_view source;
  const Tokens& tokens;
  const LineIndex& lines;          // of the original file
  const std::vector<Edit>& edits;  // the other passes' edits, sorted by begin
  std::string line_path;           // the #line path, already escaped for a string literal
  FileFacts facts;
  const SourceMap* map = nullptr;  // set when `source` is a kernel with its calls inlined
  // The .cu line of source offset `offset`.
  int line_at(std::size_t offset) const { return lines.line_of(map != nullptr ? map->original(offset) : offset); }
};

// The block function of `kernel`, or the reason it keeps fibers only.
KernelFission split_kernel(const FileContext& file, const KernelSite& kernel);

// --- token-level predicates (fission_tokens.cpp) ------------------------------------------

// Calls __syncthreads() or a barrier/warp intrinsic by name (`__shfl_sync`, `__syncwarp`, ...).
bool is_barrier_name(std::string_view name);
bool is_warp_or_reduction_name(std::string_view name);  // everything is_barrier_name has, but __syncthreads
// The barrier reductions: __syncthreads_count, __syncthreads_and, __syncthreads_or; the operation
// as the SM's syncthreads_reduce numbers it (0 count, 1 and, 2 or), or -1.
int barrier_reduction_op(std::string_view name);
// Device built-ins a region may call (math, atomics, printf, casts...): none reaches a barrier.
bool is_builtin_function(std::string_view name);
// Built-ins whose result depends only on their arguments (a rematerialized initializer may call them).
bool is_pure_builtin(std::string_view name);
// CUDA's built-in variables: threadIdx, blockIdx, blockDim, gridDim, warpSize.
bool is_builtin_variable(std::string_view name);
// Is the `*` or `&` at token k (> begin) a binary operator, its left operand ending just before
// it? A left operand ends in a number, in a name that is not a type, or in a `)` closing a
// call's arguments (`f(x) * y`, `sizeof(T) * n`) or a parenthesized expression (`(a + 1) * b`).
// A `)` closing parentheses that may hold a type is a C-style cast, and the operator after it
// is then a dereference or an address (`(int)*p`, `(T)&x`); so parentheses count as an
// expression only when they hold a number or a name `is_value` accepts, and no type keyword.
// Anything else is not binary: callers then treat the operand as read through a pointer.
bool binary_operator_at(const Tokens& tokens, std::size_t k, std::size_t begin,
                        const std::function<bool(std::string_view)>& is_value);
// Type names that may stand before `(` as a functional cast (`float(x)`, `dim3(a, b)`).
bool is_type_keyword(std::string_view name);
// Keywords that take a parenthesized group without being a call (`if (`, `sizeof (`, ...).
bool is_non_call_keyword(std::string_view name);

// An occurrence of `name` at token k that names a variable (not `.name`, `->name`, `x::name`).
bool is_variable_use(const Tokens& tokens, std::size_t k, std::string_view name);
// Is variable `name` possibly modified (assigned, incremented, address taken, passed whole to a
// function that is not a built-in, given to a member function) in tokens [begin, end)?
// `pointer`: the variable is a pointer, so `name[i] = v` writes what it points to, not it.
bool maybe_modified(const Tokens& tokens, std::size_t begin, std::size_t end, std::string_view name, bool pointer);
// Does `name` name a variable somewhere in [begin, end)?
bool used_in(const Tokens& tokens, std::size_t begin, std::size_t end, std::string_view name);
// The index one past the statement starting at token `k` (no later than `limit`), or nullopt
// when it cannot be delimited with certainty.
std::optional<std::size_t> statement_end(const Tokens& tokens, std::size_t k, std::size_t limit);
// For `<` at `open`: the matching `>` scanning forwards (nested `<>`, brackets skipped), or
// nullopt if a `;`, `{`, `}` or unbalanced bracket comes first.
std::optional<std::size_t> matching_angle_close(const Tokens& tokens, std::size_t open, std::size_t limit);
// Calls `f` with each preprocessor directive of `text` (a line whose first non-blank is `#`,
// through its backslash continuations): what follows the `#`, leading blanks removed
// ("define N 4", "pragma unroll").
void for_each_directive(std::string_view text, const std::function<void(std::string_view)>& f);
// The source text of tokens [begin, end), one space where the source separated two tokens by
// anything (so it holds no comment and no newline outside literals).
std::string joined(const Tokens& tokens, std::size_t begin, std::size_t end);

}  // namespace minicuda::cu2cxx::fission
