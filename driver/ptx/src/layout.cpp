// Memory layout (layout.h).
#include "layout.h"

#include <cstring>

#include "minicuda/round_up.h"

namespace minicuda::ptx {

uint64_t decl_size(const VarDecl& v) {
  uint64_t n = type_size(v.type) * static_cast<uint64_t>(v.vector ? v.vector : 1);
  for (uint64_t d : v.dims) {
    if (d == 0) {
      // int a[] = {...}: as many elements as the initializer gives (an extern [] is 0 bytes).
      uint64_t total = 0;
      if (__builtin_mul_overflow(n, static_cast<uint64_t>(v.init.size()), &total)) return UINT64_MAX;
      return total;
    }
    if (__builtin_mul_overflow(n, d, &n)) return UINT64_MAX;
  }
  return n;
}

uint32_t decl_align(const VarDecl& v) {
  if (v.align) return v.align;
  uint32_t a = type_size(v.type) * static_cast<uint32_t>(v.vector ? v.vector : 1);
  return a ? a : 1;
}

void layout_kernel(const Function& f, CompiledKernel& k) {
  uint64_t offset = 0;
  for (const auto& p : f.params) {
    uint32_t align = decl_align(p);
    uint64_t size = decl_size(p);
    offset = round_up(offset, static_cast<uint64_t>(align));
    k.param_offsets.push_back(static_cast<uint32_t>(offset));
    k.param_sizes.push_back(static_cast<uint32_t>(size));
    k.param_aligns.push_back(align);
    offset += size;
  }
  k.param_bytes = static_cast<uint32_t>(offset);

  k.max_ntid = f.maxntid[0] ? f.maxntid[0] * (f.maxntid[1] ? f.maxntid[1] : 1) * (f.maxntid[2] ? f.maxntid[2] : 1) : 0;
  for (int i = 0; i < 3; ++i) k.req_ntid[i] = f.reqntid[i];
  k.min_ctas_per_sm = f.minnctapersm;
  for (int i = 0; i < 3; ++i) k.req_cluster[i] = f.reqnctapercluster[i];
}

std::vector<CompiledGlobal> layout_globals(const Module& m) {
  std::vector<CompiledGlobal> out;
  for (const auto& v : m.globals) {
    if ((v.space != "global" && v.space != "const") || v.linkage == "extern") continue;
    CompiledGlobal g;
    g.name = v.name;
    g.size = decl_size(v);
    g.align = decl_align(v);
    g.constant = v.space == "const";
    g.managed = v.managed;
    if (v.has_init) {
      g.initializer.assign(g.size, 0);
      uint32_t elem = type_size(v.type);
      for (size_t i = 0; i < v.init.size() && (i + 1) * elem <= g.size; ++i) {
        const Operand& o = v.init[i];
        uint64_t bits = 0;
        if (o.kind == Operand::Kind::Immediate) {
          bits = static_cast<uint64_t>(o.imm);
        } else if (o.kind == Operand::Kind::FloatImmediate) {
          if (o.fbits && (o.fimm_single ? elem == 4 : elem == 8)) {
            bits = o.fbits;
          } else if (elem == 4) {
            float f = static_cast<float>(o.fimm);
            uint32_t b;
            std::memcpy(&b, &f, 4);
            bits = b;
          } else {
            std::memcpy(&bits, &o.fimm, 8);
          }
        }
        std::memcpy(g.initializer.data() + i * elem, &bits, elem);  // little-endian host
      }
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace minicuda::ptx
