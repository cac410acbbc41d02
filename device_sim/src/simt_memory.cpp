// simt_memory: the SIMT executor's memory instructions - ld/st/ldu, atom/red, cvta, isspacep -
// and the two system calls a kernel makes, vprintf and __assertfail.
//
// Global, const and generic addresses are host addresses as the GPU's page tables map them, so
// an access is a plain load or store: one the page tables forbid is a SIGSEGV that the SM's
// handler turns into an IllegalAddress error (simt.cpp record_fault). Alignment is checked here
// (the GPU's misaligned-address error), as are the bounds of the shared, local and param windows.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "simt_values.h"

namespace minicuda::gpu::simt {

namespace {

// The host address a lane's access of `bytes` bytes at window address `address` touches.
uint8_t* resolve(BlockExec& b, const Warp& w, uint8_t space, unsigned lane, uint64_t address, unsigned bytes,
                 bool write) {
  switch (space) {
    case NV_SASS_SPACE_SHARED:
      if (address + bytes > b.shared_size() || address + bytes < address)
        b.raise(KernelErrorKind::IllegalAddress,
                fmt::format("shared memory {} of offset {:#x} outside the block's {} bytes", write ? "write" : "read",
                            address, b.shared_size()),
                address, write);
      return b.shared() + address;
    case NV_SASS_SPACE_LOCAL:
      if (address + bytes > b.local_bytes() || address + bytes < address)
        b.raise(KernelErrorKind::IllegalAddress,
                fmt::format("local memory {} of offset {:#x} outside the thread's {} bytes", write ? "write" : "read",
                            address, b.local_bytes()),
                address, write);
      return b.local_of(w.index * kLanes + lane) + address;
    case NV_SASS_SPACE_PARAM:
      if (write || address + bytes > b.program().param_bytes || address + bytes < address)
        b.raise(KernelErrorKind::IllegalAddress,
                fmt::format("parameter {} of offset {:#x} outside the kernel's {} bytes", write ? "write" : "read",
                            address, b.program().param_bytes),
                address, write);
      return const_cast<uint8_t*>(static_cast<const uint8_t*>(b.launch().params)) + address;
    default:
      return reinterpret_cast<uint8_t*>(address);
  }
}

// The window address of each lane's access: addr's base + offset.
void addresses(const BlockExec& b, const Warp& w, const NvSassAddress& addr, uint32_t mask, uint64_t* out) {
  uint64_t base = 0;
  if (addr.kind == NV_SASS_OPND_SYMBOL) {
    const NvSassProgram& p = b.program();
    base = addr.index < p.symbol_count ? nv_p64_to_ptr<const NvU64>(p.symbols)[addr.index] : 0;
  }
  const uint64_t offset = base + static_cast<uint64_t>(addr.offset);
  if (addr.kind == NV_SASS_OPND_REG) {
    const uint64_t* r = w.regs + size_t{addr.index} * kLanes;
    for_lanes(mask, [&](unsigned l) { out[l] = r[l] + offset; });
  } else {
    for_lanes(mask, [&](unsigned l) { out[l] = offset; });
  }
}

void check_alignment(BlockExec& b, uint64_t address, unsigned bytes, bool write) {
  if ((address & (bytes - 1)) != 0)
    b.raise(KernelErrorKind::MisalignedAddress,
            fmt::format("misaligned address {:#x} (an access of {} bytes not aligned to its size)", address, bytes),
            address, write);
}

uint64_t load_bits(const uint8_t* p, unsigned bytes, bool sign) {
  switch (bytes) {
    case 1: { uint8_t v; __builtin_memcpy(&v, p, 1); return sign ? static_cast<uint64_t>(int64_t{static_cast<int8_t>(v)}) : v; }
    case 2: { uint16_t v; __builtin_memcpy(&v, p, 2); return sign ? static_cast<uint64_t>(int64_t{static_cast<int16_t>(v)}) : v; }
    case 4: { uint32_t v; __builtin_memcpy(&v, p, 4); return sign ? static_cast<uint64_t>(int64_t{static_cast<int32_t>(v)}) : v; }
    default: { uint64_t v; __builtin_memcpy(&v, p, 8); return v; }
  }
}
void store_bits(uint8_t* p, unsigned bytes, uint64_t v) {
  switch (bytes) {
    case 1: { const auto x = static_cast<uint8_t>(v); __builtin_memcpy(p, &x, 1); return; }
    case 2: { const auto x = static_cast<uint16_t>(v); __builtin_memcpy(p, &x, 2); return; }
    case 4: { const auto x = static_cast<uint32_t>(v); __builtin_memcpy(p, &x, 4); return; }
    default: __builtin_memcpy(p, &v, 8); return;
  }
}

void load_store(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask) {
  const bool store = in.opcode == NV_SASS_OP_ST;
  const unsigned bytes = std::max(1u, type_bits(in.type) / 8);
  const unsigned vec = in.vec == 0 ? 1 : in.vec;
  const bool sign = is_signed_type(in.type);
  uint64_t address[kLanes];
  addresses(b, w, in.addr, mask, address);
  uint64_t scratch[kLanes];
  for (unsigned e = 0; e < vec; ++e) {
    const NvSassOperand& op = in.operand[e];
    if (!store && op.kind != NV_SASS_OPND_REG) continue;  // a "_" sink
    uint64_t* d = store ? nullptr : dest(w, op);
    const uint64_t* s = store ? source(b, w, op, mask, scratch) : nullptr;
    for_lanes(mask, [&](unsigned l) {
      b.set_fault_lane(l);
      if (e == 0) check_alignment(b, address[l], bytes * vec, store);
      uint8_t* p = resolve(b, w, in.space, l, address[l] + e * bytes, bytes, store);
      if (store) store_bits(p, bytes, s[l]);
      else d[l] = load_bits(p, bytes, sign);
    });
  }
}

// One lane's atomic: returns the old value.
template <class T>
T atomic_op(T* p, uint8_t op, T a, T c) {
  std::atomic_ref<T> ref(*p);
  if constexpr (std::is_floating_point_v<T>) {
    if (op == NV_SASS_ATOM_EXCH) return ref.exchange(a);
    T old = ref.load(std::memory_order_relaxed);
    while (!ref.compare_exchange_weak(old, old + a)) {
    }
    return old;
  } else {
    switch (op) {
      case NV_SASS_ATOM_ADD: return ref.fetch_add(a);
      case NV_SASS_ATOM_AND: return ref.fetch_and(a);
      case NV_SASS_ATOM_OR: return ref.fetch_or(a);
      case NV_SASS_ATOM_XOR: return ref.fetch_xor(a);
      case NV_SASS_ATOM_EXCH: return ref.exchange(a);
      case NV_SASS_ATOM_CAS: {
        T expected = a;
        ref.compare_exchange_strong(expected, c);
        return expected;
      }
      default: break;
    }
    T old = ref.load(std::memory_order_relaxed);
    for (;;) {
      T next = old;
      if (op == NV_SASS_ATOM_MIN) next = a < old ? a : old;
      if (op == NV_SASS_ATOM_MAX) next = a > old ? a : old;
      if (op == NV_SASS_ATOM_INC) next = old >= a ? T(0) : T(old + 1);
      if (op == NV_SASS_ATOM_DEC) next = (old == 0 || old > a) ? a : T(old - 1);
      if (ref.compare_exchange_weak(old, next)) return old;
    }
  }
}

void atomic(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask) {
  const bool red = in.opcode == NV_SASS_OP_RED;
  const unsigned first = red ? 0 : 1;
  uint64_t scratch[2][kLanes];
  const uint64_t* a = source(b, w, in.operand[first], mask, scratch[0]);
  const uint64_t* c = in.atom == NV_SASS_ATOM_CAS ? source(b, w, in.operand[first + 1], mask, scratch[1]) : a;
  uint64_t* d = red ? nullptr : dest(w, in.operand[0]);
  uint64_t address[kLanes];
  addresses(b, w, in.addr, mask, address);
  const unsigned bytes = std::max(1u, type_bits(in.type) / 8);
  auto run = [&]<class T>() {
    for_lanes(mask, [&](unsigned l) {
      b.set_fault_lane(l);
      check_alignment(b, address[l], bytes, true);
      auto* p = reinterpret_cast<T*>(resolve(b, w, in.space, l, address[l], bytes, true));
      const T old = atomic_op<T>(p, in.atom, get<T>(a[l]), get<T>(c[l]));
      if (d != nullptr) d[l] = put<T>(old);
    });
  };
  if (!with_type(in.type, run))
    b.raise(KernelErrorKind::IllegalInstruction, "atomic on a type the executor does not support");
}

// The generic address of window address 0 of `space` for a lane (0 for the windows that are
// generic addresses already: global and const).
uint64_t window_base(BlockExec& b, const Warp& w, uint8_t space, unsigned lane) {
  switch (space) {
    case NV_SASS_SPACE_SHARED: return reinterpret_cast<uint64_t>(b.shared());
    case NV_SASS_SPACE_LOCAL: return reinterpret_cast<uint64_t>(b.local_of(w.index * kLanes + lane));
    case NV_SASS_SPACE_PARAM: return reinterpret_cast<uint64_t>(b.launch().params);
    default: return 0;
  }
}

// vprintf(format, args): formats one lane's record from its argument buffer, where each
// argument sits at the next offset aligned to its size (as nvcc lays the buffer out).
std::string format_printf(const char* format, const uint8_t* args) {
  std::string out;
  size_t offset = 0;
  auto take = [&](unsigned bytes) {
    offset = (offset + bytes - 1) / bytes * bytes;
    uint64_t v = 0;
    if (args != nullptr) std::memcpy(&v, args + offset, bytes);
    offset += bytes;
    return v;
  };
  char piece[512];
  for (const char* p = format; *p != '\0';) {
    if (*p != '%') {
      out += *p++;
      continue;
    }
    if (p[1] == '%') {
      out += '%';
      p += 2;
      continue;
    }
    std::string spec = "%";
    const char* q = p + 1;
    while (*q != '\0' && std::strchr("-+ #0", *q)) spec += *q++;
    auto number = [&]() {
      if (*q == '*') {
        spec += std::to_string(static_cast<int32_t>(take(4)));
        ++q;
      }
      while (*q >= '0' && *q <= '9') spec += *q++;
    };
    number();
    if (*q == '.') {
      spec += *q++;
      number();
    }
    bool wide = false;
    while (*q != '\0' && std::strchr("hljztL", *q)) {
      if (*q == 'l' || *q == 'j' || *q == 'z' || *q == 't') wide = true;
      ++q;
    }
    const char conversion = *q;
    if (conversion == '\0') break;
    p = q + 1;
    if (std::strchr("diouxXc", conversion)) {
      const uint64_t v = take(wide ? 8 : 4);
      spec += wide ? "ll" : "";
      spec += conversion;
      if (wide) std::snprintf(piece, sizeof piece, spec.c_str(), static_cast<long long>(v));
      else std::snprintf(piece, sizeof piece, spec.c_str(), static_cast<int>(v));
    } else if (std::strchr("fFeEgGaA", conversion)) {
      spec += conversion;
      std::snprintf(piece, sizeof piece, spec.c_str(), std::bit_cast<double>(take(8)));
    } else if (conversion == 's') {
      spec += 's';
      const auto* s = reinterpret_cast<const char*>(take(8));
      std::snprintf(piece, sizeof piece, spec.c_str(), s != nullptr ? s : "(null)");
    } else if (conversion == 'p') {
      spec += 'p';
      std::snprintf(piece, sizeof piece, spec.c_str(), reinterpret_cast<void*>(take(8)));
    } else {
      continue;  // %n and unknown conversions print nothing
    }
    out += piece;
  }
  return out;
}

}  // namespace

bool execute_memory(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask) {
  switch (in.opcode) {
    case NV_SASS_OP_LD: case NV_SASS_OP_LDU: case NV_SASS_OP_ST:
      load_store(b, w, in, mask);
      return true;
    case NV_SASS_OP_ATOM: case NV_SASS_OP_RED:
      atomic(b, w, in, mask);
      return true;
    case NV_SASS_OP_CVTA: {
      uint64_t scratch[kLanes];
      const uint64_t* a = source(b, w, in.operand[1], mask, scratch);
      uint64_t* d = dest(w, in.operand[0]);
      const bool to = in.mode == NV_SASS_CVTA_TO;
      const uint64_t keep = type_bits(in.type) == 32 ? 0xFFFFFFFFu : ~uint64_t{0};
      for_lanes(mask, [&](unsigned l) {
        const uint64_t base = window_base(b, w, in.space, l);
        d[l] = (to ? a[l] - base : a[l] + base) & keep;
      });
      return true;
    }
    case NV_SASS_OP_ISSPACEP: {
      uint64_t scratch[kLanes];
      const uint64_t* a = source(b, w, in.operand[1], mask, scratch);
      uint32_t r = 0;
      for_lanes(mask, [&](unsigned l) {
        const uint64_t shared = reinterpret_cast<uint64_t>(b.shared()), local = window_base(b, w, NV_SASS_SPACE_LOCAL, l);
        const bool in_shared = a[l] - shared < b.shared_size(), in_local = a[l] - local < b.local_bytes();
        bool yes = false;
        switch (in.space) {
          case NV_SASS_SPACE_SHARED: yes = in_shared; break;
          case NV_SASS_SPACE_LOCAL: yes = in_local; break;
          case NV_SASS_SPACE_PARAM: yes = a[l] - window_base(b, w, NV_SASS_SPACE_PARAM, l) < b.program().param_bytes; break;
          default: yes = !in_shared && !in_local; break;
        }
        r |= uint32_t{yes} << l;
      });
      write_predicate(w, in.operand[0].index, r, mask);
      return true;
    }
    case NV_SASS_OP_PRINTF: {
      uint64_t scratch[2][kLanes];
      const uint64_t* format = source(b, w, in.operand[1], mask, scratch[0]);
      const uint64_t* args = source(b, w, in.operand[2], mask, scratch[1]);
      uint64_t* d = in.operand[0].kind == NV_SASS_OPND_REG ? dest(w, in.operand[0]) : nullptr;
      for_lanes(mask, [&](unsigned l) {
        b.set_fault_lane(l);
        const std::string text =
            format_printf(reinterpret_cast<const char*>(format[l]), reinterpret_cast<const uint8_t*>(args[l]));
        append_printf(b.launch(), text.data(), static_cast<uint32_t>(text.size()));
        if (d != nullptr) d[l] = static_cast<uint32_t>(text.size());
      });
      return true;
    }
    case NV_SASS_OP_ASSERTFAIL: {
      uint64_t scratch[4][kLanes];
      const unsigned l = static_cast<unsigned>(__builtin_ctz(mask));
      b.set_fault_lane(l);
      const uint64_t message = source(b, w, in.operand[0], mask, scratch[0])[l];
      const uint64_t file = source(b, w, in.operand[1], mask, scratch[1])[l];
      const uint64_t line = source(b, w, in.operand[2], mask, scratch[2])[l];
      const uint64_t function = source(b, w, in.operand[3], mask, scratch[3])[l];
      const uint3 block = b.block_index(), thread = thread_index(w.index * kLanes + l, b.launch().block);
      b.raise(KernelErrorKind::Assert,
              fmt::format("{}:{}: {}: block: [{},{},{}], thread: [{},{},{}] Assertion `{}` failed.",
                          reinterpret_cast<const char*>(file), static_cast<uint32_t>(line),
                          reinterpret_cast<const char*>(function), block.x, block.y, block.z, thread.x, thread.y,
                          thread.z, reinterpret_cast<const char*>(message)));
    }
    default:
      return false;
  }
}

}  // namespace minicuda::gpu::simt
