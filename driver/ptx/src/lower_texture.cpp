// The lowering of the texture and surface instructions (lower.h) in unified texture mode, where
// the texture or surface is a 64-bit handle in a register (what nvcc emits for
// cudaTextureObject_t and cudaSurfaceObject_t):
//   tex[.level|.grad].{1d,2d,3d,a1d,a2d,cube,acube}.v4.{f32,s32,u32}.{f32,s32} d, [h, {c}] {, lod | , dPdx, dPdy}
//   suld.b.{1d,2d,3d,a1d,a2d}[.v2|.v4].{b8,b16,b32,b64}.{trap,clamp,zero} d, [h, {c}]
//   sust.b.{...}.{trap,clamp,zero} [h, {c}], v
// Each becomes one TEX, SULD or SUST (nv_sass.h) on register pairs: PACKs gather the coordinates
// (and a store's values) two 32-bit values to a register, the instruction reads and writes whole
// pairs, and UNPACKs spread a result into the PTX destinations. tld4 (tex2Dgather), txq, suq,
// sured, the formatted surface forms (.p) and texture references (a texref symbol as handle) are
// refused by name.
#include "lowerer.h"

namespace minicuda::ptx {

namespace {

bool shape_of(const Instruction& in, NvU8* shape, size_t* coords) {
  static const struct { const char* name; NvU8 shape; size_t coords; } kShapes[] = {
      {"1d", NV_SASS_TEX_1D, 1},   {"2d", NV_SASS_TEX_2D, 2},     {"3d", NV_SASS_TEX_3D, 4},
      {"a1d", NV_SASS_TEX_A1D, 2}, {"a2d", NV_SASS_TEX_A2D, 4},   {"cube", NV_SASS_TEX_CUBE, 4},
      {"acube", NV_SASS_TEX_ACUBE, 4}};
  for (const auto& s : kShapes) {
    if (in.has(s.name)) {
      *shape = s.shape;
      *coords = s.coords;
      return true;
    }
  }
  return false;
}

uint32_t vector_width(const Instruction& in) { return in.has("v4") ? 4 : in.has("v2") ? 2 : 1; }

}  // namespace

// A register of the lowering's own (PTX names cannot contain '#').
NvU32 Lowerer::scratch_register() { return reg("%tex#" + std::to_string(scratch_count_++)); }

// a and b (registers or immediates of types ta and tb) packed into one register, a in the low
// half; a alone when b is null; NONE when both are.
bool Lowerer::packed(const Instruction& in, const Operand* a, const Operand* b, NvSassType ta, NvSassType tb,
                     NvSassOperand& out) {
  out = NvSassOperand{};
  if (a == nullptr) return true;
  if (b == nullptr) return value(*a, ta, out, in.line);
  NvSassInstruction p = base(in);
  p.opcode = NV_SASS_OP_PACK;
  p.type = NV_SASS_TYPE_B32;
  p.operand[0] = NvSassOperand{NV_SASS_OPND_REG, 0, 0, scratch_register(), 0};
  p.operand_count = 3;
  if (!value(*a, ta, p.operand[1], in.line) || !value(*b, tb, p.operand[2], in.line)) return false;
  emit(p);
  out = p.operand[0];
  return true;
}

// The first `count` coordinates, elements 0|1 into c01 and 2|3 into c23; element 0 has type t0.
bool Lowerer::coordinates(const Instruction& in, const std::vector<Operand>& c, size_t count, NvSassType t0,
                          NvSassType t, NvSassOperand& c01, NvSassOperand& c23) {
  auto element = [&](size_t k) { return k < count ? &c[k] : nullptr; };
  return packed(in, element(0), element(1), t0, t, c01) && packed(in, element(2), element(3), t, t, c23);
}

bool Lowerer::lower_texture(const Instruction& in, NvSassInstruction i) {
  const std::string& op = in.opcode;
  const auto& o = in.operands;
  if (op == "tld4") return unsupported(in.line, "'tld4' (tex2Dgather)");
  if (op == "txq" || op == "suq" || op == "sured") return unsupported(in.line, "the instruction '" + op + "'");
  if ((op == "suld" || op == "sust") && !in.has("b")) return unsupported(in.line, "the formatted surface access '" + op + ".p'");
  NvU8 shape = 0;
  size_t coords = 0;
  if (!shape_of(in, &shape, &coords)) return unsupported(in.line, "'" + op + "' of this geometry");
  const bool store = op == "sust";
  const size_t at = store ? 0 : 1;
  if (o.size() < 2 || o[at].kind != Operand::Kind::Address || o[at].elements.size() != 1 ||
      o[at].name.empty() || o[at].name[0] != '%')
    return unsupported(in.line, "'" + op + "' without a handle register (texture references)");
  const Operand& c = o[at].elements[0];
  const std::vector<Operand> single{c};
  const std::vector<Operand>& cv = c.kind == Operand::Kind::Vector ? c.elements : single;
  if (cv.size() < coords) return unsupported(in.line, "'" + op + "' with too few coordinates");

  std::vector<std::string> types;
  for (const auto& m : in.modifiers)
    if (sass_type(m) != NV_SASS_TYPE_NONE) types.push_back(m);
  NvSassOperand handle{NV_SASS_OPND_REG, 0, 0, reg(o[at].name), 0};

  if (op == "tex") {
    if (types.size() != 2 || !in.has("v4")) return unsupported(in.line, "'tex' without .v4 and two types");
    i.opcode = NV_SASS_OP_TEX;
    i.type = sass_type(types[0]);
    i.stype = sass_type(types[1]);
    if (i.type != NV_SASS_TYPE_F32 && i.type != NV_SASS_TYPE_S32 && i.type != NV_SASS_TYPE_U32)
      return unsupported(in.line, "'tex' with results of type ." + types[0]);
    if (i.stype != NV_SASS_TYPE_F32 && i.stype != NV_SASS_TYPE_S32)
      return unsupported(in.line, "'tex' with coordinates of type ." + types[1]);
    if (i.stype == NV_SASS_TYPE_S32 && shape != NV_SASS_TEX_1D)
      return unsupported(in.line, "'tex' with integer coordinates on a shape other than .1d");
    const NvU8 variant = in.has("level") ? NV_SASS_TEX_LEVEL : in.has("grad") ? NV_SASS_TEX_GRAD : NV_SASS_TEX_PLAIN;
    i.mode = static_cast<NvU8>(shape | variant << 4);
    i.vec = 4;
    // The layer of a1d/a2d/acube is element 0, an s32 whatever the coordinates' type.
    const bool layered = shape == NV_SASS_TEX_A1D || shape == NV_SASS_TEX_A2D || shape == NV_SASS_TEX_ACUBE;
    const NvSassType ct = static_cast<NvSassType>(i.stype);
    NvSassOperand c01, c23;
    if (!coordinates(in, cv, coords, layered ? NV_SASS_TYPE_S32 : ct, ct, c01, c23)) return false;
    const Operand& d = o[0];
    if (d.kind != Operand::Kind::Vector || d.elements.size() != 4) return unsupported(in.line, "'tex' without four destinations");
    const NvU32 d01 = scratch_register(), d23 = scratch_register();
    i.operand[0] = NvSassOperand{NV_SASS_OPND_REG, 0, 0, d01, 0};
    i.operand[1] = NvSassOperand{NV_SASS_OPND_REG, 0, 0, d23, 0};
    i.operand[2] = handle;
    i.operand[3] = c01;
    i.operand[4] = c23;
    i.operand_count = 5;
    emit(i);
    // The level (tex.level) and gradients (tex.grad) select among mipmap levels; the unit's
    // objects have one, which they all select (NvSassTexVariant).
    for (int pair = 0; pair < 2; ++pair) {
      NvSassInstruction u = base(in);
      u.guard = i.guard;
      u.guard_negate = i.guard_negate;
      u.opcode = NV_SASS_OP_UNPACK;
      u.type = NV_SASS_TYPE_B32;
      if (!value(d.elements[pair * 2], static_cast<NvSassType>(i.type), u.operand[0], in.line) ||
          !value(d.elements[pair * 2 + 1], static_cast<NvSassType>(i.type), u.operand[1], in.line))
        return false;
      u.operand[2] = NvSassOperand{NV_SASS_OPND_REG, 0, 0, pair == 0 ? d01 : d23, 0};
      u.operand_count = 3;
      if (u.operand[0].kind == NV_SASS_OPND_NONE && u.operand[1].kind == NV_SASS_OPND_NONE) continue;
      emit(u);
    }
    return true;
  }

  // suld / sust.
  if (types.size() != 1) return unsupported(in.line, "'" + op + "' without one element type");
  i.opcode = store ? NV_SASS_OP_SUST : NV_SASS_OP_SULD;
  i.type = sass_type(types[0]);
  if (i.type != NV_SASS_TYPE_B8 && i.type != NV_SASS_TYPE_B16 && i.type != NV_SASS_TYPE_B32 && i.type != NV_SASS_TYPE_B64)
    return unsupported(in.line, "'" + op + "' with elements of type ." + types[0]);
  i.vec = static_cast<NvU8>(vector_width(in));
  const NvU8 boundary = in.has("clamp") ? NV_SASS_SURF_CLAMP : in.has("zero") ? NV_SASS_SURF_ZERO : NV_SASS_SURF_TRAP;
  i.mode = static_cast<NvU8>(shape | boundary << 4);
  NvSassOperand c01, c23;
  if (!coordinates(in, cv, coords, NV_SASS_TYPE_S32, NV_SASS_TYPE_S32, c01, c23)) return false;
  const Operand& data = o[store ? 1 : 0];
  const std::vector<Operand> one{data};
  const std::vector<Operand>& dv = data.kind == Operand::Kind::Vector ? data.elements : one;
  if (dv.size() != i.vec) return unsupported(in.line, "'" + op + "' whose vector width and values differ");
  const bool wide = i.type == NV_SASS_TYPE_B64;
  const NvSassType et = static_cast<NvSassType>(i.type);
  auto element = [&](size_t k) { return k < dv.size() ? &dv[k] : nullptr; };
  if (store) {
    NvSassOperand v01, v23;
    if (wide ? !packed(in, element(0), nullptr, et, et, v01) || !packed(in, element(1), nullptr, et, et, v23)
             : !packed(in, element(0), element(1), et, et, v01) || !packed(in, element(2), element(3), et, et, v23))
      return false;
    i.operand[0] = handle;
    i.operand[1] = c01;
    i.operand[2] = c23;
    i.operand[3] = v01;
    i.operand[4] = v23;
    i.operand_count = 5;
    emit(i);
    return true;
  }
  // suld: a scalar or a pair of 64-bit elements goes straight to the destinations; narrower
  // vectors through register pairs.
  const bool direct = i.vec == 1 || wide;
  NvSassOperand d[2] = {};
  if (direct) {
    if (!value(dv[0], et, d[0], in.line) || (dv.size() > 1 && !value(dv[1], et, d[1], in.line))) return false;
  } else {
    d[0] = NvSassOperand{NV_SASS_OPND_REG, 0, 0, scratch_register(), 0};
    if (i.vec == 4) d[1] = NvSassOperand{NV_SASS_OPND_REG, 0, 0, scratch_register(), 0};
  }
  i.operand[0] = d[0];
  i.operand[1] = d[1];
  i.operand[2] = handle;
  i.operand[3] = c01;
  i.operand[4] = c23;
  i.operand_count = 5;
  emit(i);
  if (direct) return true;
  for (size_t pair = 0; pair * 2 < dv.size(); ++pair) {
    NvSassInstruction u = base(in);
    u.guard = i.guard;
    u.guard_negate = i.guard_negate;
    u.opcode = NV_SASS_OP_UNPACK;
    u.type = NV_SASS_TYPE_B32;
    if (!value(dv[pair * 2], et, u.operand[0], in.line) || !value(dv[pair * 2 + 1], et, u.operand[1], in.line)) return false;
    u.operand[2] = d[pair];
    u.operand_count = 3;
    emit(u);
  }
  return true;
}

}  // namespace minicuda::ptx
