// nv_sass.h: minicuda's SASS, the instruction form the simulated SMs execute.
//
// A real driver compiles PTX to the machine code of the GPU it runs on (SASS) and the SM fetches
// it from PROGRAM_ADDRESS. minicuda's JIT (libcuda) lowers PTX to this form instead: a flat array
// of fixed-size, already decoded instructions with registers allocated, labels resolved to
// instruction indices and kernel parameters laid out as in constant bank 0. The SM's SIMT
// executor (device_sim/src/simt*.cpp) runs it one warp-instruction at a time. No real GPU has
// this encoding; it is designed for a fast interpreter and for students to read.
//
// Versioning: enumerators and fields are append-only. A value once given keeps its meaning.
//
// Conventions every instruction follows:
// - Registers: each thread has `register_count` 64-bit slots. A read of an N-bit type takes the
//   slot's low N bits; a write of an N-bit type stores the value zero-extended to 64 bits. f32
//   values live as their IEEE bits in the low 32 bits, f64 as all 64.
// - Predicates: each thread has `predicate_count` one-bit predicates, a file of their own.
// - operand[0] is the destination of every instruction that produces a value; the sources follow
//   in PTX order. Below, d = operand[0], a = operand[1], b = operand[2], c = operand[3] and
//   e = operand[4] for such instructions; those that produce no value (st, red, bar.*,
//   __assertfail) list their operands by index.
// - Loads of signed sub-word types (ld.s8, ld.s16, ld.s32) sign-extend to 64 bits; every other
//   write zero-extends.
// - Addresses: memory instructions take their address from `addr`, not from the operands.
//   Its value is (base register, symbol or nothing) + offset, interpreted per `space`:
//     GENERIC, GLOBAL, CONST: a device address (device pointers are what the SM dereferences;
//       the const space lives in device memory, so const and global addresses equal their
//       generic addresses);
//     SHARED: an offset in the block's shared window (static shared first, at 0, then dynamic
//       shared at `shared_bytes` rounded up to 16);
//     LOCAL:  an offset in the thread's local window (`local_bytes` per thread);
//     PARAM:  an offset in the kernel's parameter buffer (constant bank 0).
//   cvta converts a shared or local window offset to a generic address and back. A .shared or
//   .local variable named as an operand (mov d, smem_var) is its window offset, an IMM.
#pragma once

#include "nvtypes.h"

// --- operations -------------------------------------------------------------------------------
enum NvSassOpcode : NvU16 {
  NV_SASS_OP_NOP = 0,
  // Data movement.
  NV_SASS_OP_MOV,        // d = a (a register, immediate, special register, symbol or predicate)
  NV_SASS_OP_PACK,       // d = {a (low), b} (or {a,b,c,e} for 4 elements); type = element type
  NV_SASS_OP_UNPACK,     // {d (low), a} = b, or {d,a,b,c} = e; type = element type
  NV_SASS_OP_CVTA,       // d = a converted: mode TO (generic -> space) or FROM (space -> generic)
  NV_SASS_OP_CVT,        // d (type) = a (stype), with rounding, SAT and FTZ
  NV_SASS_OP_LD,         // operand[0..vec-1] = [addr] (registers; NONE for a "_" sink); space,
                         // vec, cache, flags VOLATILE/NC
  NV_SASS_OP_ST,         // [addr] = operand[0..vec-1] (registers or immediates)
  NV_SASS_OP_LDU,        // as LD (a uniform load)
  NV_SASS_OP_PREFETCH,   // a hint: no effect
  NV_SASS_OP_ISSPACEP,   // d (pred) = address a is in window `space`
  // Integer and floating-point arithmetic (type: the operation's type).
  NV_SASS_OP_ADD,        // d = a + b; flags SAT, FTZ, CC_OUT, CC_IN (add.cc / addc), rounding
  NV_SASS_OP_SUB,        // d = a - b; flags as ADD
  NV_SASS_OP_MUL,        // d = a * b; mode LO / HI / WIDE (WIDE: type is the source type)
  NV_SASS_OP_MAD,        // d = a * b + c; mode as MUL; flags SAT, CC_OUT, CC_IN
  NV_SASS_OP_MUL24,      // d = a * b on the low 24 bits; mode LO / HI
  NV_SASS_OP_MAD24,      // d = a * b + c on the low 24 bits; mode LO / HI
  NV_SASS_OP_SAD,        // d = |a - b| + c
  NV_SASS_OP_FMA,        // d = a * b + c, rounded once
  NV_SASS_OP_DIV,        // d = a / b; flags APPROX / FULL, rounding
  NV_SASS_OP_REM,        // d = a % b
  NV_SASS_OP_ABS,        // d = |a|
  NV_SASS_OP_NEG,        // d = -a
  NV_SASS_OP_MIN,        // d = min(a, b) (float: the non-NaN one)
  NV_SASS_OP_MAX,        // d = max(a, b)
  NV_SASS_OP_COPYSIGN,   // d = |b| with the sign of a
  NV_SASS_OP_TESTP,      // d (pred) = a is of class `mode` (NvSassTestp)
  // Bits (type: B16/B32/B64 or the integer type).
  NV_SASS_OP_AND,        // d = a & b (PRED type: on predicates)
  NV_SASS_OP_OR,         // d = a | b
  NV_SASS_OP_XOR,        // d = a ^ b
  NV_SASS_OP_NOT,        // d = ~a
  NV_SASS_OP_CNOT,       // d = (a == 0)
  NV_SASS_OP_SHL,        // d = a << b (b >= width: 0)
  NV_SASS_OP_SHR,        // d = a >> b (signed types shift arithmetically)
  NV_SASS_OP_SHF,        // d = funnel shift of {b:a} by c; mode L / R, flags WRAP or CLAMP
  NV_SASS_OP_LOP3,       // d = LUT(a, b, c); mode = the 8-bit truth table
  NV_SASS_OP_PRMT,       // d = bytes of {b, a} selected by c; mode = NvSassPrmt
  NV_SASS_OP_BFE,        // d = bit field of a at b, length c
  NV_SASS_OP_BFI,        // d = b with a inserted at c, length e
  NV_SASS_OP_BREV,       // d = a's bits reversed
  NV_SASS_OP_POPC,       // d (u32) = bits set in a
  NV_SASS_OP_CLZ,        // d (u32) = leading zeros of a
  NV_SASS_OP_BFIND,      // d (u32) = position of a's most significant non-sign bit; flag SHIFTAMT
  // Comparison and selection.
  NV_SASS_OP_SETP,       // d (pred) = (a cmp b) boolop c; `pred_dst` = !(a cmp b) boolop c
  NV_SASS_OP_SELP,       // d = c ? a : b (c a predicate)
  NV_SASS_OP_SET,        // d (type: -1/1.0f or 0) = (a cmp b) boolop c, stype = compared type
  NV_SASS_OP_SLCT,       // d = c >= 0 ? a : b (c of stype)
  // Transcendentals and special functions (f32 unless type says f64).
  NV_SASS_OP_RCP,        // d = 1 / a; flags APPROX, FTZ, rounding
  NV_SASS_OP_SQRT,
  NV_SASS_OP_RSQRT,
  NV_SASS_OP_SIN,
  NV_SASS_OP_COS,
  NV_SASS_OP_EX2,
  NV_SASS_OP_LG2,
  NV_SASS_OP_TANH,
  // Control flow. `target` is an instruction index.
  NV_SASS_OP_BRA,        // jump to target; flag UNI (the lanes agree)
  NV_SASS_OP_CALL,       // push the next index on the lane's call stack, jump to target; the JIT
                         // has moved arguments into the callee's registers. Flag SAVE_FRAME (a
                         // call that may reach its caller again, recursion): the lane's registers
                         // and predicates are saved in a frame of operand[0] (IMM) bytes of its
                         // call stack and restored by the matching RET, except the callee's return
                         // registers operand[1..4]; a frame past the stack limit is an error
  NV_SASS_OP_RET,        // pop the lane's call stack; with an empty stack, as EXIT
  NV_SASS_OP_EXIT,       // the thread ends
  NV_SASS_OP_TRAP,       // the grid stops with cudaErrorLaunchFailure (719)
  NV_SASS_OP_BRKPT,      // as TRAP
  NV_SASS_OP_PRINTF,     // call vprintf: d = a (format, generic address), b (argument buffer)
  NV_SASS_OP_ASSERTFAIL, // call __assertfail: operand[0..3] = message, file (generic addresses),
                         // line, function (generic address)
  // Barriers and memory ordering.
  NV_SASS_OP_BAR_SYNC,   // operand[0] = barrier id, operand[1] = thread count (NONE: every
                         // thread of the block that has not exited); waits until they arrive
  NV_SASS_OP_BAR_ARRIVE, // operands as BAR_SYNC: arrives without waiting
  NV_SASS_OP_BAR_RED,    // bar.red: d = reduction (atom: POPC / AND / OR) of predicate c over
                         // the block at barrier a (b threads, NONE: all)
  NV_SASS_OP_BAR_WARP_SYNC, // operand[0] = membermask: waits for its lanes
  NV_SASS_OP_MEMBAR,     // membar / fence; scope
  // Atomics: space GLOBAL, SHARED or GENERIC; atom = the operation; type = its type.
  NV_SASS_OP_ATOM,       // d = old [addr]; [addr] = old op a (CAS: old == a ? b : old)
  NV_SASS_OP_RED,        // [addr] = old op operand[0]
  // Warp-synchronous operations; the last operand is the membermask.
  NV_SASS_OP_SHFL,       // d = a from the lane chosen by mode, b (lane/delta), c (clamp/segment
                         // mask), e = membermask; `pred_dst` = the source lane was in range
  NV_SASS_OP_VOTE,       // d = vote `mode` of predicate a over membermask b (BALLOT: d is b32)
  NV_SASS_OP_MATCH,      // d (b32 mask) = lanes of membermask b whose a equals this lane's;
                         // mode ANY / ALL; ALL: `pred_dst` = all equal
  NV_SASS_OP_REDUX,      // d = reduction `atom` (ADD/MIN/MAX/AND/OR/XOR) of a over membermask b
  NV_SASS_OP_ACTIVEMASK, // d (b32) = the lanes executing this instruction together
  NV_SASS_OP_NANOSLEEP,  // a hint: no effect
  // Asynchronous copies and mbarriers (sm_80 / sm_90). Operand[0] is NONE for those that write
  // nothing; an address operand is REG (the register + imm), IMM (a window offset) or SYMBOL.
  NV_SASS_OP_CP_ASYNC,   // copy to [addr] (SHARED) from the global address a: mode CA / CG copy
                         // b bytes (4, 8, 16), of which c (NONE: b) come from a and the rest are
                         // zero; mode BULK copies b bytes and completes b bytes of transactions on
                         // the mbarrier at the shared address c. The copy completes when issued.
  NV_SASS_OP_CP_ASYNC_GROUP, // mode COMMIT: closes the lane's group of cp.async; WAIT: waits until
                         // at most a groups are pending (every copy has completed at issue)
  NV_SASS_OP_MBARRIER,   // the mbarrier object at [addr] (SHARED or GENERIC); mode NvSassMbarrier
  // Textures and surfaces (the texture unit, docs/textures.md). Register pairs: a 64-bit register
  // holds two 32-bit values, the first in its low half (PACK / UNPACK with type B32 move them).
  // The handle is the object's 64-bit value (cudaTextureObject_t / cudaSurfaceObject_t); the
  // coordinates are PTX's coordinate vector as written, elements 0|1 in c01 and 2|3 in c23
  // (NONE when absent): 1d {x}, 2d {x, y}, 3d {x, y, z, -}, a1d {layer, x}, a2d {layer, x, y, -},
  // cube {x, y, z, -}, acube {layer, x, y, z}. mode = NvSassTexShape | NvSassTexVariant << 4
  // (TEX) or | NvSassSurfBoundary << 4 (SULD, SUST).
  NV_SASS_OP_TEX,        // d01 (r, g), d23 (b, a) = fetch of handle a at c01 = b, c23 = c; type
                         // = the result type (F32, S32, U32), stype = the coordinates' (F32, or
                         // S32 on .1d: an element index, what tex1Dfetch compiles to)
  NV_SASS_OP_SULD,       // d01, d23 = `vec` elements of `type` (B8..B64) read from surface a at
                         // c01 = b, c23 = c (x in bytes); a scalar, or B64 elements, take whole
                         // registers (d01 = element 0, d23 = element 1)
  NV_SASS_OP_SUST,       // surface operand[0] at c01 = operand[1], c23 = operand[2] (x in bytes)
                         // = `vec` elements of `type` in operand[3] (v01), operand[4] (v23)
  // The device malloc heap (nv_device_heap.h), mode NvSassHeapMode: the calls of malloc and free
  // (and of the device runtime's cudaMalloc/cudaFree, __cudaCDP2Malloc/__cudaCDP2Free) that the
  // JIT resolves to the driver's heap. MALLOC: d (b64) = malloc(a). FREE: free(a). CDP_MALLOC:
  // d (b32 cudaError_t) = cudaMalloc(a = void**, b = size). CDP_FREE: d (b32) = cudaFree(a).
  NV_SASS_OP_HEAP,
  NV_SASS_OP_COUNT
};

// Value types. The operation's type is `type`; a conversion's source type is `stype`.
enum NvSassType : NvU8 {
  NV_SASS_TYPE_NONE = 0,
  NV_SASS_TYPE_PRED,
  NV_SASS_TYPE_B8, NV_SASS_TYPE_B16, NV_SASS_TYPE_B32, NV_SASS_TYPE_B64,
  NV_SASS_TYPE_U8, NV_SASS_TYPE_U16, NV_SASS_TYPE_U32, NV_SASS_TYPE_U64,
  NV_SASS_TYPE_S8, NV_SASS_TYPE_S16, NV_SASS_TYPE_S32, NV_SASS_TYPE_S64,
  NV_SASS_TYPE_F16, NV_SASS_TYPE_F16X2, NV_SASS_TYPE_BF16,
  NV_SASS_TYPE_F32, NV_SASS_TYPE_F64,
  NV_SASS_TYPE_BF16X2,
};

// What an operand is.
enum NvSassOperandKind : NvU8 {
  NV_SASS_OPND_NONE = 0,  // absent
  NV_SASS_OPND_REG,       // index: a register
  NV_SASS_OPND_IMM,       // imm: the value's bits in the instruction's type
  NV_SASS_OPND_SREG,      // index: an NvSassSpecialReg
  NV_SASS_OPND_PRED,      // index: a predicate; flag NV_SASS_OPND_NEGATE reads its complement
  NV_SASS_OPND_SYMBOL,    // the device address symbols[index] + imm (a module variable)
};
inline constexpr NvU8 NV_SASS_OPND_NEGATE = 1u << 0;

struct NvSassOperand {
  NvU8 kind;         // NvSassOperandKind
  NvU8 flags;        // NV_SASS_OPND_*
  NvU16 reserved;
  NvU32 index;       // REG, PRED, SREG, SYMBOL: see the kind
  NvU64 imm;         // IMM: the value; SYMBOL: the byte offset added to the symbol's address
};
static_assert(sizeof(NvSassOperand) == 16);

// A memory address: base + offset, where the base is a register (kind REG), a module symbol's
// device address (SYMBOL) or nothing (NONE). See the space rules at the top of this file.
struct NvSassAddress {
  NvU8 kind;         // NV_SASS_OPND_NONE, _REG or _SYMBOL
  NvU8 reserved[3];
  NvU32 index;       // REG: the base register; SYMBOL: the symbol
  NvS64 offset;
};
static_assert(sizeof(NvSassAddress) == 16);

// Special registers (operand kind SREG).
enum NvSassSpecialReg : NvU32 {
  NV_SASS_SR_TID_X = 0, NV_SASS_SR_TID_Y, NV_SASS_SR_TID_Z,
  NV_SASS_SR_NTID_X, NV_SASS_SR_NTID_Y, NV_SASS_SR_NTID_Z,
  NV_SASS_SR_CTAID_X, NV_SASS_SR_CTAID_Y, NV_SASS_SR_CTAID_Z,
  NV_SASS_SR_NCTAID_X, NV_SASS_SR_NCTAID_Y, NV_SASS_SR_NCTAID_Z,
  NV_SASS_SR_LANEID, NV_SASS_SR_WARPID, NV_SASS_SR_NWARPID,
  NV_SASS_SR_SMID, NV_SASS_SR_NSMID, NV_SASS_SR_GRIDID,
  NV_SASS_SR_LANEMASK_EQ, NV_SASS_SR_LANEMASK_LT, NV_SASS_SR_LANEMASK_LE,
  NV_SASS_SR_LANEMASK_GT, NV_SASS_SR_LANEMASK_GE,
  NV_SASS_SR_CLOCK, NV_SASS_SR_CLOCK_HI, NV_SASS_SR_CLOCK64,
  NV_SASS_SR_GLOBALTIMER, NV_SASS_SR_GLOBALTIMER_LO, NV_SASS_SR_GLOBALTIMER_HI,
  NV_SASS_SR_DYNAMIC_SMEM_SIZE, NV_SASS_SR_TOTAL_SMEM_SIZE, NV_SASS_SR_WARPSIZE,
  // The block's reserved shared memory (what cooperative groups keep their multi-warp barriers
  // in): its window offsets begin/end, its size, and the offsets of reserved areas 0 and 1.
  NV_SASS_SR_RESERVED_SMEM_BEGIN, NV_SASS_SR_RESERVED_SMEM_END, NV_SASS_SR_RESERVED_SMEM_CAP,
  NV_SASS_SR_RESERVED_SMEM_0, NV_SASS_SR_RESERVED_SMEM_1,
  // %envreg1 / %envreg2: the high / low half of the grid workspace's address in a cooperative
  // launch (cooperative groups' grid_group keeps its barrier there), 0 otherwise.
  NV_SASS_SR_ENVREG1, NV_SASS_SR_ENVREG2,
  NV_SASS_SR_COUNT
};

// Comparison operators of setp/set/slct (U-suffixed: unordered, true when either is NaN; LO/LS/
// HI/HS are the unsigned names and behave as LT/LE/GT/GE on unsigned types).
enum NvSassCmp : NvU8 {
  NV_SASS_CMP_NONE = 0,
  NV_SASS_CMP_EQ, NV_SASS_CMP_NE, NV_SASS_CMP_LT, NV_SASS_CMP_LE, NV_SASS_CMP_GT, NV_SASS_CMP_GE,
  NV_SASS_CMP_LO, NV_SASS_CMP_LS, NV_SASS_CMP_HI, NV_SASS_CMP_HS,
  NV_SASS_CMP_EQU, NV_SASS_CMP_NEU, NV_SASS_CMP_LTU, NV_SASS_CMP_LEU, NV_SASS_CMP_GTU,
  NV_SASS_CMP_GEU, NV_SASS_CMP_NUM, NV_SASS_CMP_NAN,
};

// The combining operator of setp/set with a predicate third source c.
enum NvSassBoolOp : NvU8 { NV_SASS_BOOL_NONE = 0, NV_SASS_BOOL_AND, NV_SASS_BOOL_OR, NV_SASS_BOOL_XOR };

// Rounding: RN..RP round floating-point results; RNI..RPI round to an integral value.
enum NvSassRounding : NvU8 {
  NV_SASS_RND_NONE = 0,
  NV_SASS_RND_RN, NV_SASS_RND_RZ, NV_SASS_RND_RM, NV_SASS_RND_RP,
  NV_SASS_RND_RNI, NV_SASS_RND_RZI, NV_SASS_RND_RMI, NV_SASS_RND_RPI,
};

enum NvSassSpace : NvU8 {
  NV_SASS_SPACE_GENERIC = 0, NV_SASS_SPACE_GLOBAL, NV_SASS_SPACE_SHARED, NV_SASS_SPACE_LOCAL,
  NV_SASS_SPACE_CONST, NV_SASS_SPACE_PARAM,
};

// Operations of atom/red (and of redux and bar.red, which use the subset they allow).
enum NvSassAtomOp : NvU8 {
  NV_SASS_ATOM_NONE = 0,
  NV_SASS_ATOM_ADD, NV_SASS_ATOM_MIN, NV_SASS_ATOM_MAX, NV_SASS_ATOM_INC, NV_SASS_ATOM_DEC,
  NV_SASS_ATOM_AND, NV_SASS_ATOM_OR, NV_SASS_ATOM_XOR, NV_SASS_ATOM_EXCH, NV_SASS_ATOM_CAS,
  NV_SASS_ATOM_POPC,
};

enum NvSassCacheOp : NvU8 {
  NV_SASS_CACHE_NONE = 0, NV_SASS_CACHE_CA, NV_SASS_CACHE_CG, NV_SASS_CACHE_CS, NV_SASS_CACHE_LU,
  NV_SASS_CACHE_CV, NV_SASS_CACHE_WB, NV_SASS_CACHE_WT,
};

enum NvSassScope : NvU8 {
  NV_SASS_SCOPE_NONE = 0, NV_SASS_SCOPE_CTA, NV_SASS_SCOPE_CLUSTER, NV_SASS_SCOPE_GPU,
  NV_SASS_SCOPE_SYS,
};
enum NvSassSemantics : NvU8 {
  NV_SASS_SEM_NONE = 0, NV_SASS_SEM_RELAXED, NV_SASS_SEM_ACQUIRE, NV_SASS_SEM_RELEASE,
  NV_SASS_SEM_ACQ_REL, NV_SASS_SEM_SC, NV_SASS_SEM_WEAK,
};

// `mode`, per opcode (one byte; LOP3 keeps its truth table there instead).
enum NvSassMulMode : NvU8 { NV_SASS_MUL_LO = 0, NV_SASS_MUL_HI, NV_SASS_MUL_WIDE };
enum NvSassCvtaMode : NvU8 { NV_SASS_CVTA_FROM = 0, NV_SASS_CVTA_TO };
enum NvSassHeapMode : NvU8 { NV_SASS_HEAP_MALLOC = 0, NV_SASS_HEAP_FREE, NV_SASS_HEAP_CDP_MALLOC, NV_SASS_HEAP_CDP_FREE };
enum NvSassShfMode : NvU8 { NV_SASS_SHF_L = 0, NV_SASS_SHF_R };
enum NvSassShflMode : NvU8 { NV_SASS_SHFL_UP = 0, NV_SASS_SHFL_DOWN, NV_SASS_SHFL_BFLY, NV_SASS_SHFL_IDX };
enum NvSassVoteMode : NvU8 { NV_SASS_VOTE_ALL = 0, NV_SASS_VOTE_ANY, NV_SASS_VOTE_UNI, NV_SASS_VOTE_BALLOT };
enum NvSassMatchMode : NvU8 { NV_SASS_MATCH_ANY = 0, NV_SASS_MATCH_ALL };
enum NvSassPrmt : NvU8 {
  NV_SASS_PRMT_DEFAULT = 0, NV_SASS_PRMT_F4E, NV_SASS_PRMT_B4E, NV_SASS_PRMT_RC8,
  NV_SASS_PRMT_ECL, NV_SASS_PRMT_ECR, NV_SASS_PRMT_RC16,
};
enum NvSassTestp : NvU8 {
  NV_SASS_TESTP_FINITE = 0, NV_SASS_TESTP_INFINITE, NV_SASS_TESTP_NUMBER, NV_SASS_TESTP_NOTANUMBER,
  NV_SASS_TESTP_NORMAL, NV_SASS_TESTP_SUBNORMAL,
};

enum NvSassCpAsyncMode : NvU8 { NV_SASS_CP_ASYNC_CA = 0, NV_SASS_CP_ASYNC_CG, NV_SASS_CP_ASYNC_BULK };
enum NvSassCpAsyncGroupMode : NvU8 { NV_SASS_CP_ASYNC_COMMIT = 0, NV_SASS_CP_ASYNC_WAIT };
// mbarrier operations: d = operand[0], a = operand[1].
enum NvSassMbarrier : NvU8 {
  NV_SASS_MBAR_INIT = 0,     // expected arrivals = a; phase 0
  NV_SASS_MBAR_INVAL,        // the object is no longer an mbarrier
  NV_SASS_MBAR_ARRIVE,       // d (b64 state, or NONE) = the state before; arrive a (NONE: 1) times
  NV_SASS_MBAR_ARRIVE_DROP,  // as ARRIVE, and the expected count drops by a for later phases
  NV_SASS_MBAR_ARRIVE_EXPECT_TX, // d = state; expect a transaction bytes, then arrive once
  NV_SASS_MBAR_EXPECT_TX,    // expect a more transaction bytes
  NV_SASS_MBAR_COMPLETE_TX,  // a transaction bytes have completed
  NV_SASS_MBAR_TEST_WAIT,    // d (pred) = the phase of state a has completed (test_wait, try_wait)
  NV_SASS_MBAR_TEST_WAIT_PARITY, // d (pred) = the phase of parity a has completed
  NV_SASS_MBAR_CP_ASYNC_ARRIVE,  // arrive when the lane's cp.async complete; flag NOINC: the
                                 // arrival counts against the expected ones
};

// Texture and surface instructions: the shape (mode bits 0-3) and the variant or boundary mode
// (bits 4-7).
enum NvSassTexShape : NvU8 {
  NV_SASS_TEX_1D = 0, NV_SASS_TEX_2D, NV_SASS_TEX_3D, NV_SASS_TEX_A1D, NV_SASS_TEX_A2D,
  NV_SASS_TEX_CUBE, NV_SASS_TEX_ACUBE,
};
// tex.level and tex.grad: the unit has one mipmap level, which every level of detail selects, so
// the JIT keeps the variant (for the disassembly) and drops the level and gradient operands.
enum NvSassTexVariant : NvU8 { NV_SASS_TEX_PLAIN = 0, NV_SASS_TEX_LEVEL, NV_SASS_TEX_GRAD };
enum NvSassSurfBoundary : NvU8 { NV_SASS_SURF_TRAP = 0, NV_SASS_SURF_CLAMP, NV_SASS_SURF_ZERO };
inline constexpr NvU8 nv_sass_tex_shape(NvU8 mode) { return mode & 0xF; }
inline constexpr NvU8 nv_sass_tex_variant(NvU8 mode) { return mode >> 4; }

// `flags` bits.
inline constexpr NvU16 NV_SASS_FLAG_SAT = 1u << 0;
inline constexpr NvU16 NV_SASS_FLAG_FTZ = 1u << 1;
inline constexpr NvU16 NV_SASS_FLAG_APPROX = 1u << 2;
inline constexpr NvU16 NV_SASS_FLAG_FULL = 1u << 3;
inline constexpr NvU16 NV_SASS_FLAG_CC_OUT = 1u << 4;   // write the carry flag (add.cc)
inline constexpr NvU16 NV_SASS_FLAG_CC_IN = 1u << 5;    // add the carry flag in (addc)
inline constexpr NvU16 NV_SASS_FLAG_WRAP = 1u << 6;     // shf.wrap
inline constexpr NvU16 NV_SASS_FLAG_CLAMP = 1u << 7;    // shf.clamp
inline constexpr NvU16 NV_SASS_FLAG_SHIFTAMT = 1u << 8; // bfind.shiftamt
inline constexpr NvU16 NV_SASS_FLAG_UNI = 1u << 9;      // bra.uni / call.uni
inline constexpr NvU16 NV_SASS_FLAG_VOLATILE = 1u << 10;
inline constexpr NvU16 NV_SASS_FLAG_NC = 1u << 11;      // ld.global.nc
inline constexpr NvU16 NV_SASS_FLAG_ALIGNED = 1u << 12; // bar.sync.aligned and the like
inline constexpr NvU16 NV_SASS_FLAG_NOINC = 1u << 13;   // cp.async.mbarrier.arrive.noinc
inline constexpr NvU16 NV_SASS_FLAG_SAVE_FRAME = 1u << 14;  // call: a recursive call (see CALL)
// bra: a yield point, the back edge of a loop that spins on another thread (ptxas' YIELD). When
// the lanes that take it leave other lanes of their warp ready, those run first.
inline constexpr NvU16 NV_SASS_FLAG_YIELD = 1u << 15;

// No register / the always-true guard.
inline constexpr NvU32 NV_SASS_REG_NONE = 0xFFFFFFFFu;
inline constexpr NvU16 NV_SASS_PRED_TRUE = 0xFFFFu;
inline constexpr NvU32 NV_SASS_MAX_OPERANDS = 5;

// One decoded instruction, 136 bytes; executed for the lanes of a warp whose guard holds.
struct NvSassInstruction {
  NvU16 opcode;      // NvSassOpcode
  NvU8 type;         // NvSassType of the operation (of d)
  NvU8 stype;        // NvSassType of the sources where it differs (cvt, set, slct), else NONE
  NvU8 cmp;          // NvSassCmp (setp, set, slct)
  NvU8 boolop;       // NvSassBoolOp (setp, set)
  NvU8 rounding;     // NvSassRounding
  NvU8 space;        // NvSassSpace (ld, st, ldu, atom, red, cvta, isspacep)
  NvU8 atom;         // NvSassAtomOp (atom, red, redux, bar.red)
  NvU8 vec;          // elements of a vector ld/st: 1, 2 or 4 (0 reads as 1)
  NvU8 cache;        // NvSassCacheOp
  NvU8 mode;         // per opcode: the Nv*Mode enums above, or lop3's truth table
  NvU16 flags;       // NV_SASS_FLAG_*
  NvU8 scope;        // NvSassScope (atom, red, membar/fence)
  NvU8 sem;          // NvSassSemantics (atom, red, ld/st .acquire/.release)
  NvU16 guard;       // the guard predicate (@p), NV_SASS_PRED_TRUE for none
  NvU8 guard_negate; // 1: @!p
  NvU8 operand_count;// operands used, <= NV_SASS_MAX_OPERANDS
  NvU16 pred_dst;    // a second predicate destination (setp p|q, shfl d|p, match.all d|p), or
                     // NV_SASS_PRED_TRUE for none
  NvU16 file;        // the .loc file: an index into the program's files, 0xFFFF when unknown
  NvU32 target;      // bra, call: the instruction index to jump to
  NvU32 line;        // the .loc source line (0: unknown)
  NvU32 ptx_line;    // the line of the PTX text this instruction came from (0: unknown)
  NvU32 reserved;    // 0
  NvSassAddress addr;                          // memory instructions: the address
  NvSassOperand operand[NV_SASS_MAX_OPERANDS]; // see the opcodes
};
static_assert(sizeof(NvSassInstruction) == 136);

// A compiled kernel: what NvMinicudaKernelCode::sass points at. Pointers are host addresses
// carried as 64-bit integers, like the rest of this hardware interface; the program and what
// it points at stay valid while the module that holds it is loaded.
struct NvSassProgram {
  NvU32 magic;              // NV_SASS_PROGRAM_MAGIC
  NvU32 version;            // NV_SASS_VERSION
  NvU64 name;               // const char*: the kernel's (mangled) name
  NvU64 instructions;       // const NvSassInstruction[instruction_count]; execution starts at 0
  NvU32 instruction_count;
  NvU32 register_count;     // 64-bit registers per thread
  NvU32 predicate_count;    // predicates per thread
  NvU32 param_bytes;        // bytes of constant bank 0 the kernel reads
  NvU32 shared_bytes;       // static shared memory per block
  NvU32 local_bytes;        // local memory per thread (the stack frame of .local variables)
  NvU64 symbols;            // const NvU64[symbol_count]: device addresses of module variables
  NvU32 symbol_count;
  NvU32 file_count;
  NvU64 files;              // const char* const[file_count]: the .file names of .loc
  NvU32 target_sm;          // the compute capability it was compiled for, e.g. 90
  NvU32 max_call_depth;     // call stack entries a thread needs (0: no calls)
  NvU32 reqntid[3];         // .reqntid, 0 when absent
  NvU32 maxntid[3];         // .maxntid, 0 when absent
};
inline constexpr NvU32 NV_SASS_PROGRAM_MAGIC = 0x53534D4Du;  // "MMSS"
inline constexpr NvU32 NV_SASS_VERSION = 1;

inline const NvSassInstruction* nv_sass_instructions(const NvSassProgram& p) {
  return nv_p64_to_ptr<const NvSassInstruction>(p.instructions);
}
inline const char* nv_sass_name(const NvSassProgram& p) { return nv_p64_to_ptr<const char>(p.name); }

// The PTX spelling of each opcode, for disassemblers and the warp trace.
inline const char* nv_sass_opcode_name(NvU16 opcode) {
  static constexpr const char* names[] = {
      "nop", "mov", "pack", "unpack", "cvta", "cvt", "ld", "st", "ldu", "prefetch", "isspacep",
      "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "fma", "div", "rem", "abs", "neg",
      "min", "max", "copysign", "testp",
      "and", "or", "xor", "not", "cnot", "shl", "shr", "shf", "lop3", "prmt", "bfe", "bfi",
      "brev", "popc", "clz", "bfind",
      "setp", "selp", "set", "slct",
      "rcp", "sqrt", "rsqrt", "sin", "cos", "ex2", "lg2", "tanh",
      "bra", "call", "ret", "exit", "trap", "brkpt", "vprintf", "__assertfail",
      "bar.sync", "bar.arrive", "bar.red", "bar.warp.sync", "membar",
      "atom", "red",
      "shfl.sync", "vote.sync", "match.sync", "redux.sync", "activemask", "nanosleep",
      "cp.async", "cp.async.group", "mbarrier", "tex", "suld", "sust", "heap"};
  static_assert(sizeof(names) / sizeof(names[0]) == NV_SASS_OP_COUNT);
  return opcode < NV_SASS_OP_COUNT ? names[opcode] : "?";
}
