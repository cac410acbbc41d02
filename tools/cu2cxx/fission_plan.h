// cu2cxx region fission: the plan of one kernel's block function - what fission_plan.cpp
// finds in the body and fission_emit.cpp turns into code. Internal to cu2cxx (see fission.h).
#pragma once

#include <cstddef>
#include <optional>
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
  enum class Kind { Barrier, Loop, If, Plain };
  Kind kind = Kind::Plain;
  std::size_t begin = 0, end = 0;  // its tokens [begin, end)
  std::vector<std::size_t> vars;   // Plain: the variables it declares (indices into Plan::vars)
  bool rewritten = false;          // Plain: declares replicated or re-declared variables (not copied verbatim)
  bool hoisted = false;            // Plain: a declaration of Block variables (emitted once, first)
  // Plain: `if (threadIdx.x < E) S` with E the same for every thread (or `== 0`): a region made
  // of this statement alone runs only the threads for which the condition can hold (x below
  // the first x where it fails; for `< E` found by bisecting the condition itself, which is
  // monotone in x). cond_begin/cond_end: the condition's tokens.
  enum class XBound { None, Search, One };
  XBound x_bound = XBound::None;
  std::size_t cond_begin = 0, cond_end = 0;
  std::size_t body_open = 0, body_close = 0;  // Loop, If: its (then-)body's braces
  std::vector<Stmt> body;                     // Loop, If: its (then-)body's statements
  std::size_t else_open = 0, else_close = 0;  // If: its else-body's braces (0: no else)
  std::vector<Stmt> else_body;                // If: its else-body's statements
};

struct Plan {
  std::vector<Var> vars;
  std::vector<Stmt> top;                 // the body's statements
  std::vector<std::pair<std::size_t, std::size_t>> hoisted;  // hoisted statements' tokens, in order
  std::vector<std::size_t> returns;      // the `return` tokens (each followed by `;`)
  std::vector<std::size_t> user_calls;   // `(` of calls to functions of the file
  unsigned replicated = 0;               // slots used (slot 0 is the exit flags)
  // A template kernel: its head ("template <int N, class T>") and the arguments that name the
  // same instantiation ("N, T"); both empty for a plain kernel.
  std::string template_head;
  std::string template_arguments;
};

// The plan of the kernel, or the reason it keeps fibers only.
struct PlanResult {
  std::optional<Plan> plan;
  std::string reason;
};
PlanResult plan_kernel(const FileContext& file, const KernelSite& kernel);

}  // namespace minicuda::cu2cxx::fission
