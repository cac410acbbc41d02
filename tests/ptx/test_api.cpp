// The compile API's edges: empty images, the hash the JIT cache keys on, Status names.
#include <gtest/gtest.h>

#include "minicuda/ptx/ptx.h"

namespace ptx = minicuda::ptx;

TEST(PtxApi, EmptyTextIsAnInvalidImage) {
  ptx::CompileResult r = ptx::compile("", {});
  EXPECT_EQ(r.status, ptx::Status::InvalidImage);
  EXPECT_TRUE(r.kernels.empty());
  EXPECT_EQ(ptx::compile(" \n\t\n", {}).status, ptx::Status::InvalidImage);
}

TEST(PtxApi, HashIsFnv1a64) {
  EXPECT_EQ(ptx::hash_ptx(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(ptx::hash_ptx("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(ptx::compile("x", {}).ptx_hash, ptx::hash_ptx("x"));
}

TEST(PtxApi, StatusNames) {
  EXPECT_STREQ(ptx::status_name(ptx::Status::Ok), "Ok");
  EXPECT_STREQ(ptx::status_name(ptx::Status::UnsupportedVersion), "UnsupportedVersion");
}
