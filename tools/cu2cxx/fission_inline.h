// cu2cxx region fission: barriers inside `__device__` functions. A kernel that reaches a barrier
// through a call (`uint v = scan(x, s, cta);`, scan calling `__syncthreads()`) cannot be split as
// it is: the barrier sits in the middle of a statement. When the call's shape allows, the
// function's body is inlined into a *copy* of the kernel's body, the `synthetic` kernel, which
// the ordinary analysis (fission_plan.h) then splits; the kernel itself is left as it is and
// still calls the function on the fiber path. Whatever cannot be inlined with certainty leaves
// the kernel on fibers, with the reason.
//
// What is inlined (docs/tools/cu2cxx.md, "Barriers in device functions"): a call to a function
// of the file, defined once, before the kernel and in its namespace (not a template, member or
// qualified name), that reaches a barrier directly or through its calls; as a statement
// `f(a);`, the initializer of a one-variable declaration `T x = E;`, the right side of an
// assignment `L = E;` / `L op= E;`, or, inside an inlined function, its last statement
// `return E;`. E may hold the call inside an expression (`f(a) - b`) only when the rest of E
// reads nothing the call could change (locals whose address never escapes, parameters,
// constants, built-ins) and has no side effect, so that evaluating the call first is what any
// order of evaluation gives. Arguments have no side effects. The function's only `return` is its
// last statement. Its parameters become locals of the inlined block (a cooperative-groups
// handle and a `T&` bound to a variable of a built-in type are replaced by the argument's name),
// its locals are renamed `name__inlN`, and its result goes through a local
// `minicuda_result_N` of its return type.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "fission.h"

namespace minicuda::cu2cxx::fission {

// A kernel with its barrier-reaching calls inlined: a copy of the file's source where only the
// kernel's body differs, and what the analysis needs to read it as the file.
struct InlinedKernel {
  std::string source;
  Tokens tokens;  // of `source`
  SourceMap map;  // source offsets -> the original file's offsets (lines, reasons)
  std::vector<Edit> edits;  // the other passes' edits, moved to `source`'s offsets
  KernelSite kernel;        // the kernel in `source`
  FileFacts facts;          // the file's, for `tokens`
  // The names each inlined body takes from around it (globals, constants, types, functions):
  // none may be declared by the kernel at the call, or the copy would read the kernel's.
  std::set<std::string, std::less<>> free_names;
  // Result types that are not plainly scalars or vector types (a typedef, a class): the block
  // function runs only when every one is a scalar (minicuda/fission.h, scalar_results).
  std::vector<std::string> checked_results;
  std::vector<std::string> inlined;  // the functions inlined, in order
};

struct InlineResult {
  enum class Status {
    Nothing,  // the kernel calls no function that reaches a barrier: split it as it is
    Inlined,  // `kernel` holds the copy to split
    Refused,  // a call cannot be inlined with certainty: `reason` says why (the kernel keeps fibers)
  };
  Status status = Status::Nothing;
  std::unique_ptr<InlinedKernel> kernel;
  std::string reason;
};

InlineResult inline_barrier_calls(const FileContext& file, const KernelSite& kernel);

// --- reading the functions to inline (fission_callee.cpp) ---------------------------------

struct CalleeParam {
  enum class Kind {
    Value,        // a local of the inlined block, initialised from the argument
    Reference,    // `T& p`, T a built-in type: replaced by the argument when that is one name
    BlockHandle,  // `cg::thread_block`: replaced by the kernel's handle
  };
  Kind kind = Kind::Value;
  std::string name;
  std::size_t first = 0, name_token = 0;  // its tokens [first, name_token]
};

struct Callee {
  std::string name;
  std::size_t params_open = 0, params_close = 0, body_open = 0, body_close = 0;
  std::string result_type;        // empty for void
  bool checked_result = false;    // result_type needs scalar_results (not a built-in type or pointer)
  std::vector<CalleeParam> params;
  std::set<std::string, std::less<>> locals;   // names its body declares
  std::set<std::string, std::less<>> flagged;  // those declared as references, arrays, __shared__, static
  std::size_t final_return = 0;   // its last statement's `return` token, if it has one (else 0)
  bool holds_shared = false;      // declares a __shared__ or static variable (one per block)
};

// The function whose body `{` is at `body_open`, read for inlining, or why it cannot be.
// `cg`: the file's names of namespace cooperative_groups.
std::optional<std::string> read_callee(const FileContext& file, std::size_t body_open, const std::set<std::string>& cg,
                                       Callee& callee);
// The names declared by the statements of tokens [begin, end), at any depth (for-init and
// condition declarations included); false when a statement looks like a declaration that cannot
// be read with certainty. `flagged` gets the names declared as references, arrays,
// `__shared__`, `static` or `extern`: they are not values a hoisted call leaves alone.
bool declared_names(const Tokens& tokens, std::size_t begin, std::size_t end, std::set<std::string, std::less<>>& names,
                    std::set<std::string, std::less<>>& flagged);
// The namespace path ("a::b", "" for the global one) of the scope the token `at` lies in, when
// every brace around it is a namespace's or `extern "C"`'s; nothing inside a class or function.
std::optional<std::string> namespace_at(const Tokens& tokens, std::size_t at);

}  // namespace minicuda::cu2cxx::fission
