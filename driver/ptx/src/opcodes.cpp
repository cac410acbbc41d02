// The PTX instruction names the front end accepts, and the sizes of the fundamental types.
#include <cstdlib>
#include <string>

#include "ast.h"
#include "parser.h"

namespace minicuda::ptx {

bool is_known_opcode(const std::string& name) {
  static const char* const kOpcodes[] = {
      "abs", "activemask", "add", "addc", "and", "atom", "bar", "barrier", "bfe", "bfi", "bfind",
      "bmsk", "bra", "brev", "brkpt", "call", "clz", "cnot", "copysign", "cos", "cp", "createpolicy",
      "cvt", "cvta", "discard", "div", "dp2a", "dp4a", "elect", "ex2", "exit", "fence", "fma",
      "fns", "getctarank", "isspacep", "ld", "ldmatrix", "ldu", "lg2", "lop3", "mad", "mad24", "madc",
      "mapa", "match", "max", "mbarrier", "membar", "min", "mma", "mov", "mul", "mul24", "nanosleep",
      "neg", "not", "or", "pmevent", "popc", "prefetch", "prefetchu", "prmt", "rcp", "red", "redux",
      "rem", "ret", "rsqrt", "sad", "selp", "set", "setp", "shf", "shfl", "shl", "shr", "sin",
      "slct", "sqrt", "st", "stackrestore", "stacksave", "sub", "subc", "suld", "suq", "sured", "sust", "szext",
      "tanh", "testp", "tex", "tld4", "trap", "txq", "vote", "wmma", "xor", "alloca", "applypriority",
      "griddepcontrol", "setmaxnreg"};
  for (const char* op : kOpcodes)
    if (name == op) return true;
  return false;
}

uint32_t type_size(const std::string& t) {
  if (t == "pred") return 1;
  if (t.size() < 2) return 0;
  if (t == "f16x2" || t == "bf16x2") return 4;
  if (t == "bf16") return 2;
  char k = t[0];
  if (k != 'b' && k != 'u' && k != 's' && k != 'f') return 0;
  int bits = std::atoi(t.c_str() + 1);
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64 && bits != 128) return 0;
  return static_cast<uint32_t>(bits / 8);
}

}  // namespace minicuda::ptx
