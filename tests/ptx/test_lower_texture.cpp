// The lowering of the texture and surface instructions (driver/ptx/src/lower_texture.cpp) and
// their disassembly: tex/suld/sust in nvcc's spelling become TEX/SULD/SUST on register pairs
// with pack.b32/unpack.b32 around them; the forms the executor does not have are refused by name.
#include <gtest/gtest.h>

#include <string>

#include "minicuda/ptx/ptx.h"
#include "nv_sass.h"

namespace ptx = minicuda::ptx;

namespace {

// A kernel whose body is `body`, with 64-bit handle %rd1, floats %f1..%f8, ints %r1..%r8.
std::string kernel(const std::string& body) {
  return ".version 9.0\n.target sm_90\n.address_size 64\n"
         ".visible .entry k(.param .u64 k_param_0)\n{\n"
         "\t.reg .b16 %rs<8>;\n\t.reg .b32 %r<9>;\n\t.reg .f32 %f<9>;\n\t.reg .b64 %rd<4>;\n"
         "\tld.param.u64 %rd1, [k_param_0];\n" + body + "\tret;\n}\n";
}

const NvSassInstruction* first(const ptx::CompiledKernel& k, NvU16 opcode) {
  const auto& p = *static_cast<const NvSassProgram*>(k.sass.get());
  for (NvU32 n = 0; n < p.instruction_count; ++n)
    if (nv_sass_instructions(p)[n].opcode == opcode) return &nv_sass_instructions(p)[n];
  return nullptr;
}

TEST(PtxTextureLowering, Tex2DBecomesPackTexUnpack) {
  ptx::CompileResult r = ptx::compile(kernel("\ttex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];\n"
                                             "\tst.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};\n"), {});
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  const NvSassInstruction* t = first(r.kernels.at(0), NV_SASS_OP_TEX);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(nv_sass_tex_shape(t->mode), NV_SASS_TEX_2D);
  EXPECT_EQ(t->type, NV_SASS_TYPE_F32);
  EXPECT_EQ(t->stype, NV_SASS_TYPE_F32);
  EXPECT_EQ(t->operand[3].kind, NV_SASS_OPND_REG);   // {x, y} packed in one register
  EXPECT_EQ(t->operand[4].kind, NV_SASS_OPND_NONE);  // no second pair on 2-D
  const std::string listing = ptx::disassemble(r.kernels.at(0));
  EXPECT_NE(listing.find("pack.b32 R"), std::string::npos) << listing;
  EXPECT_NE(listing.find("tex.2d.v4.f32.f32 R"), std::string::npos) << listing;
  EXPECT_NE(listing.find("unpack.b32 R"), std::string::npos) << listing;
}

TEST(PtxTextureLowering, ShapesVariantsAndIntegerCoordinates) {
  ptx::CompileResult r = ptx::compile(
      kernel("\ttex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], %f7;\n"
             "\ttex.grad.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], {%f7, %f8}, {%f8, %f7};\n"
             "\ttex.acube.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%r5, %f5, %f6, %f7}];\n"
             "\ttex.1d.v4.u32.s32 {%r1, %r2, %r3, %r4}, [%rd1, {%r6}];\n"),
      {});
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  const std::string listing = ptx::disassemble(r.kernels.at(0));
  for (const char* s : {"tex.level.2d.v4.f32.f32", "tex.grad.2d.v4.f32.f32", "tex.acube.v4.s32.f32", "tex.1d.v4.u32.s32"})
    EXPECT_NE(listing.find(s), std::string::npos) << s << "\n" << listing;
}

TEST(PtxTextureLowering, SurfaceLoadsAndStoresKeepWidthAndBoundary) {
  ptx::CompileResult r = ptx::compile(
      kernel("\tsuld.b.2d.v4.b8.clamp {%rs1, %rs2, %rs3, %rs4}, [%rd1, {%r1, %r2}];\n"
             "\tsust.b.3d.v4.b32.zero [%rd1, {%r1, %r2, %r3, %r3}], {%r4, %r5, %r6, %r7};\n"
             "\tsuld.b.a1d.b16.trap {%rs5}, [%rd1, {%r1, %r2}];\n"
             "\tsust.b.2d.b64.trap [%rd1, {%r1, %r2}], {%rd2};\n"),
      {});
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  const NvSassInstruction* ld = first(r.kernels.at(0), NV_SASS_OP_SULD);
  ASSERT_NE(ld, nullptr);
  EXPECT_EQ(ld->vec, 4);
  EXPECT_EQ(ld->type, NV_SASS_TYPE_B8);
  EXPECT_EQ(nv_sass_tex_variant(ld->mode), NV_SASS_SURF_CLAMP);
  const std::string listing = ptx::disassemble(r.kernels.at(0));
  for (const char* s : {"suld.2d.clamp.v4.b8 R", "sust.3d.zero.v4.b32 [R", "suld.a1d.trap.b16 R", "sust.2d.trap.b64 [R"})
    EXPECT_NE(listing.find(s), std::string::npos) << s << "\n" << listing;
}

TEST(PtxTextureLowering, FormsWithoutSassAreRefusedByName) {
  const struct {
    const char* line;
    const char* named;
  } cases[] = {
      {"\ttld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];\n", "'tld4' (tex2Dgather)"},
      {"\ttxq.width.b32 %r1, [%rd1];\n", "the instruction 'txq'"},
      {"\tsuq.width.b32 %r1, [%rd1];\n", "the instruction 'suq'"},
      {"\tsuld.p.2d.v4.f32.trap {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2}];\n", "'suld.p'"},
      {"\ttex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2}];\n", "integer coordinates"},
  };
  for (const auto& c : cases) {
    ptx::CompileResult r = ptx::compile(kernel(c.line), {});
    EXPECT_EQ(r.status, ptx::Status::NotSupported) << c.line << r.error_log;
    EXPECT_NE(r.error_log.find(c.named), std::string::npos) << r.error_log;
    EXPECT_NE(r.error_log.find("is not supported by minicuda's JIT"), std::string::npos) << r.error_log;
  }
}

}  // namespace
