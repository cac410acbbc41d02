// The parsed form of a PTX module: what the parser builds and the verifier and the lowering read.
// It keeps the text's own structure (directives, instructions with their dotted modifiers, operands
// as written) and the source line of every element, so diagnostics can name the line as ptxas does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace minicuda::ptx {

// One operand as written. Addresses keep base + constant offset ([%rd1+8], [name], [name+4]).
struct Operand {
  enum class Kind { Register, Immediate, FloatImmediate, Symbol, Address, Vector, Sink };
  Kind kind = Kind::Register;
  std::string name;             // Register / Symbol / Address base ("" for an absolute address)
  std::string component;        // ".x" of %tid.x (without the dot), "" otherwise
  bool negated = false;         // !%p as a source predicate
  int64_t imm = 0;              // Immediate value, or the Address's constant offset
  double fimm = 0;              // FloatImmediate value
  bool fimm_single = false;     // written 0fXXXXXXXX (single) rather than 0d / decimal
  uint64_t fbits = 0;           // the bits as written for 0f/0d forms
  std::vector<Operand> elements;  // Vector elements; an Address's coordinates ([%rd1, {%f1, %f2}])
  std::string second;           // "%p1|%p2": the second destination predicate
};

struct Instruction {
  std::string opcode;                    // "ld"
  std::vector<std::string> modifiers;    // {"global", "nc", "v2", "f32"} without dots
  std::string guard;                     // "%p1" for @%p1, "" if unguarded
  bool guard_negated = false;            // @!%p1
  std::vector<Operand> operands;
  int line = 0;                          // the PTX text's line
  int loc_file = 0, loc_line = 0;        // the last .loc before it (0: none)
  bool has(const std::string& m) const {
    for (const auto& x : modifiers) if (x == m) return true;
    return false;
  }
};

// A .reg/.shared/.local/.const/.global/.param declaration.
struct VarDecl {
  std::string space;            // "reg", "shared", "local", "const", "global", "param"
  std::string type;             // "u32", "b8", "pred", ...
  std::string name;
  int vector = 0;               // .v2/.v4 (0: scalar)
  uint32_t align = 0;           // .align N (0: natural)
  std::vector<uint64_t> dims;   // array dimensions (0 for [] with the size from the initializer)
  bool is_range = false;        // %r<N>
  uint32_t range = 0;
  bool ptr = false;             // .ptr attribute on a kernel parameter
  bool managed = false;         // .attribute(.managed) on a .global variable
  std::vector<Operand> init;    // initializer values, flattened
  bool has_init = false;
  std::string linkage;          // "visible", "extern", "weak", "common" or ""
  int line = 0;
};

// One body element, in order: an instruction, a label, or a (nested) declaration.
struct Statement {
  enum class Kind { Instr, Label, Decl, BlockOpen, BlockClose };
  Kind kind = Kind::Instr;
  Instruction instr;
  std::string label;
  VarDecl decl;
  int line = 0;
};

struct Function {
  bool is_entry = false;
  std::string linkage;
  std::string name;
  std::vector<VarDecl> returns;          // .func return parameters
  std::vector<VarDecl> params;
  bool has_body = false;                 // false for a prototype declaration
  std::vector<Statement> body;
  uint32_t maxntid[3] = {0, 0, 0};
  uint32_t reqntid[3] = {0, 0, 0};
  uint32_t minnctapersm = 0;
  uint32_t reqnctapercluster[3] = {0, 0, 0};
  int line = 0;
  int header_end_line = 0;               // the line of the header's last token (before { or ;)
  int body_line = 0;                     // the line of the body's opening brace
  int end_line = 0;                      // the line of the body's closing brace
};

struct Module {
  int version_major = 0, version_minor = 0;
  std::string target;                    // "sm_90"
  int target_line = 0;
  int address_size = 64;
  int address_size_line = 0;             // 0: no .address_size directive
  std::vector<std::pair<int, std::string>> files;  // .file index, name
  std::vector<VarDecl> globals;          // module-scope .global/.const/.shared
  std::vector<Function> functions;
};

// Size in bytes of a PTX fundamental type name ("u32" -> 4, "pred" -> 1 (as a register), "b8" -> 1).
uint32_t type_size(const std::string& type);

}  // namespace minicuda::ptx
