// cu2cxx region fission: the plan of one kernel's block function - what fission_plan.cpp
// finds in the body and fission_emit.cpp turns into code. Internal to cu2cxx (see fission.h).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fission.h"

namespace minicuda::cu2cxx::fission {

// A local declared at a split level (the top of the body, or of the body of a split loop or if).
struct Var {
  enum class Kind {
    Local,       // used only in the region that declares it: left where it is
    Remat,       // never modified, computed from values every region sees: re-declared per region
    Replicated,  // lives across a barrier: one copy per thread, bound by reference in each region
    Block,       // __shared__, extern __shared__ or constexpr: declared once per block, hoisted
    LoopVar,     // declared by a split loop's header: once per block, read by its regions
  };
  Kind kind = Kind::Local;
  bool uniform = false;     // Remat, Block, LoopVar: the same value in every thread
  bool stable = false;      // Block: its name stands for the same value in every region (a
                            // constexpr, or a shared array's address); not a shared scalar
  std::string name;
  std::string spec;         // the declaration's specifiers ("const int")
  std::string declarator;   // ptr-operators, name, array bounds ("* p", "v[4]")
  std::string type_id;      // the declared type without the name ("const int *", "float[4]")
  std::string init;         // "= expr", "(args)", "{args}" or empty
  unsigned slot = 0;        // Replicated: its scratch slot (fission.h replicas)
};

// A statement of a split level.
struct Stmt {
  enum class Kind { Barrier, Loop, If, Scope, Plain };  // Scope: a nested `{ ... }` around barriers
  Kind kind = Kind::Plain;
  std::size_t begin = 0, end = 0;  // its tokens [begin, end)
  std::vector<std::size_t> vars;   // Plain: the variables it declares (indices into Plan::vars)
  bool rewritten = false;          // Plain: declares replicated or re-declared variables (not copied verbatim)
  bool hoisted = false;            // Plain: a declaration of Block variables (emitted once, first), or
                                   // of a block handle (cg::thread_block; nothing to emit)
  // Plain: `if (threadIdx.x < E) S` with E the same for every thread (or `== 0`): a region made
  // of this statement alone runs only the threads for which the condition can hold (x below
  // the first x where it fails; for `< E` found by bisecting the condition itself, which is
  // monotone in x). cond_begin/cond_end: the condition's tokens (also a reduction's Loop or If).
  enum class XBound { None, Search, One };
  XBound x_bound = XBound::None;
  std::size_t cond_begin = 0, cond_end = 0;
  std::size_t body_open = 0, body_close = 0;  // Loop, If, Scope: its (then-)body's braces
  std::vector<Stmt> body;                     // Loop, If, Scope: its (then-)body's statements
  std::size_t else_open = 0, else_close = 0;  // If: its else-body's braces (0: no else)
  std::vector<Stmt> else_body;                // If: its else-body's statements
  // A barrier reduction that is a statement of its own at a split level - `F(P);` or `PREFIX
  // F(P);`, F one of __syncthreads_count/_and/_or and PREFIX a one-variable declaration or an
  // assignment's left side (`int v =`, `o[i] +=`) - is three statements over its tokens: Gather, a
  // Plain whose region folds each live thread's P into the block's accumulator; a Barrier; and,
  // with a PREFIX, Result, a Plain that runs the statement with the accumulator for the call in
  // the region after the seam (where C++17 evaluates PREFIX too: after the call).
  // A Loop `while (C) { ... }` or `do { ... } while (C);`, or an If `if (C) { ... }`, whose
  // condition C holds F(P) is marked Gather too (cond_begin/cond_end: C's tokens): P folds in a
  // region of its own before each round (after each, for a do; before the branch, for an if),
  // and the block evaluates C once with the accumulator for the call.
  enum class Reduction { None, Gather, Result };
  Reduction reduction = Reduction::None;
  unsigned reduction_id = 0;                     // its accumulator: minicuda_reduce_<id>
  int reduction_op = 0;                          // 0 count, 1 and, 2 or (barrier_reduction_op)
  std::size_t call = 0, call_close = 0;          // F's token and the `)` closing its call
  bool do_while = false;                         // a Loop is `do { ... } while (...);`
};

struct Plan {
  std::vector<Var> vars;
  std::vector<Stmt> top;                 // the body's statements
  std::vector<std::pair<std::size_t, std::size_t>> hoisted;  // hoisted statements' tokens, in order
  std::vector<std::size_t> returns;      // the `return` tokens (each followed by `;`)
  std::vector<std::size_t> user_calls;   // `(` of calls to functions of the file
  unsigned replicated = 0;               // slots used (slot 0 is the exit flags)
  unsigned reductions = 0;               // barrier reductions split (Stmt::Reduction)
  // Parameters the body changes: Replicated variables (indices into vars), one copy per thread
  // made from the parameter, which the block function takes as `minicuda_param_<name>`.
  std::vector<std::size_t> changed_params;
  // A template kernel: its head ("template <int N, class T>") and the arguments that name the
  // same instantiation ("N, T"); both empty for a plain kernel.
  std::string template_head;
  std::string template_arguments;
  // Every name declared at a split level, parameters and template parameters included: what a
  // body inlined there could see instead of a global of the same name (fission_inline.h).
  std::set<std::string, std::less<>> names;
  // Result types of inlined calls the block function runs with only when they are scalars.
  std::vector<std::string> checked_results;
};

// A template kernel's head (fission_template.cpp).
struct TemplateHead {
  std::string head;                // "template <int N, unsigned M>"
  std::string arguments;           // "N, M"
  std::vector<std::string> names;  // its parameters' names: constants of the instantiation
};
// Reads the head of `kernel` (kernel.template_keyword set): nothing when every template
// parameter is a named non-type parameter without a default, and the kernel's parameters have
// no defaults either; else why the kernel keeps fibers.
std::optional<std::string> read_kernel_template_head(const FileContext& file, const KernelSite& kernel,
                                                     TemplateHead& head);

// --- barriers of the whole block (fission_barriers.cpp) --------------------------------------

// The names of namespace cooperative_groups in the file: itself and the aliases it declares
// (`namespace cg = cooperative_groups;`).
std::set<std::string> cooperative_groups_names(const Tokens& tokens);
// The statement [k, e) is `NS::thread_block NAME = NS::this_thread_block();` (NS one of `cg`):
// NAME, else nothing.
std::optional<std::string> block_handle_declaration(const Tokens& tokens, std::size_t k, std::size_t e,
                                                    const std::set<std::string>& cg);
// Does a token of [begin, end) spell `name` (qualified or not)?
bool names_token(const Tokens& tokens, std::size_t begin, std::size_t end, std::string_view name);
// The block handles declared by the statements of [begin, end) (the top of a kernel body):
// `cg` gets the file's names of cooperative_groups, `handles` their names, `declarations` each
// declaration's first -> last token.
void find_block_handles(const Tokens& tokens, std::size_t begin, std::size_t end, std::set<std::string>& cg,
                        std::set<std::string>& handles, std::map<std::size_t, std::size_t>& declarations);
// The statement [k, e) is exactly a barrier of the whole block: `__syncthreads();`,
// `NS::sync(H);` or `H.sync();`, H one of `handles`.
bool is_block_barrier(const Tokens& tokens, std::size_t k, std::size_t e, const std::set<std::string>& handles,
                      const std::set<std::string>& cg);
// Does [k, e) name `__syncthreads`, a barrier reduction or one of `handles` (so may hold a barrier)?
bool holds_block_barrier(const Tokens& tokens, std::size_t k, std::size_t e, const std::set<std::string>& handles);

// Does a `break` or `continue` in [begin, end) leave the enclosing (split) loop? `break_bound`:
// inside a switch, which a `break` leaves.
bool jump_escapes(const Tokens& tokens, std::size_t begin, std::size_t end, bool break_bound);
// Every name in the initializer of a reference declaration in [begin, end) (`int& r = x;`): such
// a variable may change through the reference, which maybe_modified() does not see. `element`
// gets the names whose element is bound (`int& r = x[i];`: for a pointer, what it points to).
void referenced_names(const Tokens& tokens, std::size_t begin, std::size_t end, std::set<std::string, std::less<>>& whole,
                      std::set<std::string, std::less<>>& element);

// The plan of the kernel, or the reason it keeps fibers only.
struct PlanResult {
  std::optional<Plan> plan;
  std::string reason;
};
PlanResult plan_kernel(const FileContext& file, const KernelSite& kernel);

}  // namespace minicuda::cu2cxx::fission
