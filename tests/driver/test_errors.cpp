// cuGetErrorName / cuGetErrorString (driver/user/src/errors.cpp): probe_extra.txt drv.getError*.
#include "driver_fixtures.h"

namespace minicuda::testing {
namespace {

struct Row {
  CUresult code;
  const char* name;
  const char* message;
};

TEST(ErrorsTest, NamesAndStringsOfKnownCodes) {
  const Row rows[] = {
      {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
      {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},      // drv.getErrorString.1
      {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
      {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
      {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
      {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},  // .201
  };
  for (const Row& row : rows) {
    const char* s = nullptr;
    EXPECT_EQ(cuGetErrorName(row.code, &s), CUDA_SUCCESS) << row.name;
    EXPECT_STREQ(s, row.name);
    s = nullptr;
    EXPECT_EQ(cuGetErrorString(row.code, &s), CUDA_SUCCESS) << row.name;
    EXPECT_STREQ(s, row.message);
  }
  EXPECT_EQ(static_cast<int>(CUDA_ERROR_NOT_INITIALIZED), 3);
  EXPECT_EQ(static_cast<int>(CUDA_ERROR_INVALID_DEVICE), 101);
  EXPECT_EQ(static_cast<int>(CUDA_ERROR_INVALID_CONTEXT), 201);
}

TEST(ErrorsTest, UnknownCodeIsInvalidValueAndNull) {
  const char* s = "untouched";
  EXPECT_EQ(cuGetErrorName(static_cast<CUresult>(9999), &s), CUDA_ERROR_INVALID_VALUE);  // drv.getErrorName.9999
  EXPECT_EQ(s, nullptr);
  s = "untouched";
  EXPECT_EQ(cuGetErrorString(static_cast<CUresult>(9999), &s), CUDA_ERROR_INVALID_VALUE);  // .getErrorString.9999
  EXPECT_EQ(s, nullptr);
  s = "untouched";
  EXPECT_EQ(cuGetErrorName(static_cast<CUresult>(-1), &s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(s, nullptr);
}

TEST(ErrorsTest, NullOutputIsInvalidValue) {
  EXPECT_EQ(cuGetErrorName(CUDA_SUCCESS, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGetErrorString(CUDA_SUCCESS, nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST(ErrorsTest, NeedNoInit) {
  auto p = kernel::spawn_process();
  kernel::ProcessScope s(*p);
  const char* name = nullptr;
  EXPECT_EQ(cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &name), CUDA_SUCCESS);
  EXPECT_STREQ(name, "CUDA_ERROR_OUT_OF_MEMORY");
}

}  // namespace
}  // namespace minicuda::testing
