// The storage behind a CompiledKernel's `sass` pointer: the NvSassProgram header and everything
// its 64-bit pointers point at (instructions, name, symbol addresses, .file names), plus what the
// disassembler shows beside the code (the PTX text's lines, the symbol names).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nv_sass.h"

namespace minicuda::ptx {

struct ProgramData {
  std::string name;
  std::vector<NvSassInstruction> code;
  std::vector<NvU64> symbol_addresses;                // one per symbol, 0 until bound
  std::vector<std::string> symbol_names;
  std::vector<std::string> file_names;                // .file names, indexed by NvSassInstruction::file
  std::vector<const char*> file_pointers;
  std::shared_ptr<const std::vector<std::string>> ptx_lines;  // the PTX text, line 1 at [0]
};

// Standard layout, the program first: a `sass` pointer is both a `const NvSassProgram*` and a
// `const ProgramHead*`.
struct ProgramHead {
  NvSassProgram program;
  const ProgramData* data;
};

struct ProgramBlock {
  ProgramHead head{};
  ProgramData data;

  // Points the header's pointer fields at `data` (after filling or copying it).
  void seal() {
    head.data = &data;
    data.file_pointers.clear();
    for (const auto& f : data.file_names) data.file_pointers.push_back(f.c_str());
    NvSassProgram& p = head.program;
    p.magic = NV_SASS_PROGRAM_MAGIC;
    p.version = NV_SASS_VERSION;
    p.name = nv_ptr_to_p64(data.name.c_str());
    p.instructions = nv_ptr_to_p64(data.code.data());
    p.instruction_count = static_cast<NvU32>(data.code.size());
    p.symbols = nv_ptr_to_p64(data.symbol_addresses.data());
    p.symbol_count = static_cast<NvU32>(data.symbol_addresses.size());
    p.files = nv_ptr_to_p64(data.file_pointers.data());
    p.file_count = static_cast<NvU32>(data.file_pointers.size());
  }
};

// The `sass` pointer of a sealed block: shares ownership of the block, points at its head.
inline std::shared_ptr<const void> sass_pointer(const std::shared_ptr<ProgramBlock>& block) {
  return std::shared_ptr<const void>(block, &block->head);
}

inline const ProgramHead* head_of(const std::shared_ptr<const void>& sass) {
  return static_cast<const ProgramHead*>(sass.get());
}

}  // namespace minicuda::ptx
