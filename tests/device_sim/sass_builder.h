// Test helpers for the SIMT executor: a small assembler that builds an NvSassProgram by hand
// (what the JIT does from PTX), and a runner that executes a grid of it through run_blocks on
// a chosen number of host threads, as the compute engine's SM workers do.
#pragma once

#include <algorithm>
#include <cstring>
#include <mutex>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "nv_sass.h"
#include "device_heap.h"
#include "sm.h"

namespace minicuda::gpu::testing {

inline NvSassOperand R(uint32_t n) { return NvSassOperand{NV_SASS_OPND_REG, 0, 0, n, 0}; }
inline NvSassOperand I(uint64_t v) { return NvSassOperand{NV_SASS_OPND_IMM, 0, 0, 0, v}; }
inline NvSassOperand F(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return I(bits);
}
inline NvSassOperand S(uint32_t sr) { return NvSassOperand{NV_SASS_OPND_SREG, 0, 0, sr, 0}; }
inline NvSassOperand P(uint32_t n) { return NvSassOperand{NV_SASS_OPND_PRED, 0, 0, n, 0}; }
inline NvSassOperand NotP(uint32_t n) { return NvSassOperand{NV_SASS_OPND_PRED, NV_SASS_OPND_NEGATE, 0, n, 0}; }

class SassBuilder {
 public:
  explicit SassBuilder(std::string name = "test_kernel") : name_(std::move(name)) {}

  // Appends one instruction; the returned reference may set modifiers (cmp, mode, guard...).
  NvSassInstruction& op(NvU16 opcode, NvU8 type, std::initializer_list<NvSassOperand> operands) {
    NvSassInstruction in{};
    in.opcode = opcode;
    in.type = type;
    in.guard = NV_SASS_PRED_TRUE;
    in.pred_dst = NV_SASS_PRED_TRUE;
    in.file = 0xFFFF;
    in.vec = 1;
    unsigned i = 0;
    for (const NvSassOperand& o : operands) {
      in.operand[i++] = o;
      note(o);
    }
    in.operand_count = static_cast<NvU8>(i);
    in.line = line_;
    if (line_ != 0) in.file = 0;
    code_.push_back(in);
    return code_.back();
  }
  NvSassInstruction& ld(NvU8 space, NvU8 type, NvSassOperand d, int base, int64_t offset) {
    NvSassInstruction& in = op(NV_SASS_OP_LD, type, {d});
    set_address(in, space, base, offset);
    return in;
  }
  NvSassInstruction& st(NvU8 space, NvU8 type, int base, int64_t offset, NvSassOperand value) {
    NvSassInstruction& in = op(NV_SASS_OP_ST, type, {value});
    set_address(in, space, base, offset);
    return in;
  }
  NvSassInstruction& atom(NvU8 space, NvU8 atom, NvU8 type, NvSassOperand d, int base,
                          std::initializer_list<NvSassOperand> sources) {
    NvSassInstruction& in = op(NV_SASS_OP_ATOM, type, {d});
    for (const NvSassOperand& o : sources) {
      in.operand[in.operand_count++] = o;
      note(o);
    }
    in.atom = atom;
    set_address(in, space, base, 0);
    return in;
  }
  NvSassInstruction& setp(NvU8 cmp, NvU8 type, uint32_t p, NvSassOperand a, NvSassOperand b) {
    NvSassInstruction& in = op(NV_SASS_OP_SETP, type, {P(p), a, b});
    in.cmp = cmp;
    return in;
  }
  // bra to a label (defined before or after); guard p (negated with `negate`) or none.
  NvSassInstruction& bra(const std::string& label, int p = -1, bool negate = false) {
    NvSassInstruction& in = op(NV_SASS_OP_BRA, NV_SASS_TYPE_NONE, {});
    if (p >= 0) guard(in, static_cast<uint32_t>(p), negate);
    fixups_.push_back({code_.size() - 1, label});
    return in;
  }
  static NvSassInstruction& guard(NvSassInstruction& in, uint32_t p, bool negate = false) {
    in.guard = static_cast<NvU16>(p);
    in.guard_negate = negate;
    return in;
  }
  void label(const std::string& name) { labels_[name] = static_cast<uint32_t>(code_.size()); }
  // The .loc line of the instructions that follow (file "kernel.cu").
  void line(uint32_t l) { line_ = l; }
  void param_bytes(uint32_t n) { params_ = n; }
  void shared_bytes(uint32_t n) { shared_ = n; }
  void local_bytes(uint32_t n) { local_ = n; }

  // Resolves the labels and fills the program header.
  const NvSassProgram& finish() {
    for (const auto& [at, label] : fixups_) code_[at].target = labels_.at(label);
    program_ = NvSassProgram{};
    program_.magic = NV_SASS_PROGRAM_MAGIC;
    program_.version = NV_SASS_VERSION;
    program_.name = nv_ptr_to_p64(name_.c_str());
    program_.instructions = nv_ptr_to_p64(code_.data());
    program_.instruction_count = static_cast<NvU32>(code_.size());
    program_.register_count = registers_;
    program_.predicate_count = predicates_;
    program_.param_bytes = params_;
    program_.shared_bytes = shared_;
    program_.local_bytes = local_;
    program_.files = nv_ptr_to_p64(files_);
    program_.file_count = 1;
    program_.target_sm = 90;
    return program_;
  }

 private:
  void note(const NvSassOperand& o) {
    if (o.kind == NV_SASS_OPND_REG) registers_ = std::max(registers_, o.index + 1);
    if (o.kind == NV_SASS_OPND_PRED) predicates_ = std::max(predicates_, o.index + 1);
  }
  void set_address(NvSassInstruction& in, NvU8 space, int base, int64_t offset) {
    in.space = space;
    in.addr.kind = base >= 0 ? NV_SASS_OPND_REG : NV_SASS_OPND_NONE;
    in.addr.index = base >= 0 ? static_cast<uint32_t>(base) : 0;
    in.addr.offset = offset;
    if (base >= 0) registers_ = std::max(registers_, static_cast<uint32_t>(base) + 1);
  }

  std::string name_;
  std::vector<NvSassInstruction> code_;
  std::map<std::string, uint32_t> labels_;
  std::vector<std::pair<size_t, std::string>> fixups_;
  uint32_t registers_ = 1, predicates_ = 1, params_ = 0, shared_ = 0, local_ = 0, line_ = 0;
  const char* files_[1] = {"kernel.cu"};
  NvSassProgram program_{};
};

// A grid of a SASS program, run as the compute engine runs one: blocks claimed from a shared
// queue by `host_threads` threads (0: the calling thread alone); the error of the lowest block wins.
struct SassGrid {
  dim3 grid{1, 1, 1}, block{32, 1, 1};
  std::vector<uint64_t> params;  // constant bank 0
  uint32_t dynamic_shared = 0;
  std::vector<uint8_t> printf_fifo;  // empty: no printf buffer
  uint64_t stack_bytes = 1024;       // the call stack per thread (cudaLimitStackSize)
  uint64_t grid_workspace = 0;       // a cooperative grid's workspace (%envreg1/%envreg2), or 0
  uint8_t* heap = nullptr;           // a formatted device heap (device_heap.h heap_format), or null

  std::optional<BlockError> run(const NvSassProgram& program, unsigned host_threads = 1) {
    GridLaunch launch;
    launch.kernel_name = nv_sass_name(program);
    launch.sass = &program;
    launch.params = params.data();
    launch.grid = grid;
    launch.block = block;
    launch.dynamic_shared = dynamic_shared;
    launch.stack_bytes = stack_bytes;
    launch.grid_workspace = grid_workspace;
    if (!printf_fifo.empty()) {
      launch.printf_buffer = printf_fifo.data();
      launch.printf_bytes = static_cast<uint32_t>(printf_fifo.size());
    }
    launch.heap = heap;
    BlockQueue queue(grid, 1);
    std::optional<HeapTurn> turn;  // the heap calls in block order, as the compute engine orders them
    if (heap != nullptr && host_threads > 1) {
      turn.emplace(queue, host_threads);
      queue.set_heap_turn(&*turn);
      launch.heap_turn = &*turn;
    }
    std::optional<BlockError> first;
    std::mutex mutex;
    auto worker = [&] {
      if (std::optional<BlockError> e = run_blocks(launch, queue)) {
        std::lock_guard lock(mutex);
        if (!first || e->block < first->block) first = std::move(e);
      }
    };
    if (host_threads == 0) {  // on the calling thread
      worker();
      return first;
    }
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < host_threads; ++t) threads.emplace_back(worker);
    for (std::thread& t : threads) t.join();
    return first;
  }
  // The text device printf wrote (the FIFO after its header).
  std::string printed() const {
    NvMinicudaPrintfFifo header;
    std::memcpy(&header, printf_fifo.data(), sizeof header);
    return std::string(reinterpret_cast<const char*>(printf_fifo.data()) + sizeof header, header.end);
  }
};

template <class T>
uint64_t address_of(const std::vector<T>& v) {
  return reinterpret_cast<uint64_t>(v.data());
}

}  // namespace minicuda::gpu::testing
