# Runs minicuda_cu2cxx on one file the way the build does and checks the result (a CTest script).
#   cmake -DTOOL=<minicuda_cu2cxx> -DINPUT=<file.cu> -DOUTPUT=<file.cpp>
#         [-DEXPECT_WARNING=<regex the stderr must match>] [-DHEADERS=<headers it inlines>]
#         -P check_cu2cxx_cli.cmake
# Checks: exit status 0; the output exists and starts with the runtime include and a #line that
# names the input's absolute path; it has the input's line count plus the two header lines (plus
# the registration block's two when it has one, plus per inlined header in HEADERS - none of
# which registers a kernel - its own lines, its `#line 1` and, for a `#pragma once` one, its
# guard's three); stderr is empty, or matches EXPECT_WARNING.
foreach(var TOOL INPUT OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_cu2cxx_cli.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE "${OUTPUT}")
execute_process(COMMAND "${TOOL}" "${INPUT}" "${OUTPUT}" RESULT_VARIABLE status ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "minicuda_cu2cxx exited with ${status}: ${errors}")
endif()
if(DEFINED EXPECT_WARNING)
  if(NOT errors MATCHES "${EXPECT_WARNING}")
    message(FATAL_ERROR "expected a warning matching '${EXPECT_WARNING}', got: '${errors}'")
  endif()
elseif(NOT errors STREQUAL "")
  message(FATAL_ERROR "unexpected warnings: ${errors}")
endif()
if(NOT EXISTS "${OUTPUT}")
  message(FATAL_ERROR "minicuda_cu2cxx did not write ${OUTPUT}")
endif()

file(READ "${OUTPUT}" generated)
cmake_path(ABSOLUTE_PATH INPUT NORMALIZE OUTPUT_VARIABLE input_path)
# nvcc's macros (__CUDACC__ and the version, four lines), the runtime include, #line 1.
set(prologue "#define __CUDACC__ 1\n#define __CUDACC_VER_MAJOR__ 13\n#define __CUDACC_VER_MINOR__ 0\n")
string(APPEND prologue "#define __CUDACC_VER_BUILD__ 88\n#include \"cuda_runtime.h\"\n#line 1 \"${input_path}\"\n")
string(FIND "${generated}" "${prologue}" header_at)
if(NOT header_at EQUAL 0)
  message(FATAL_ERROR "the output does not start with nvcc's macros, the runtime include and #line 1 \"${input_path}\"")
endif()

file(READ "${INPUT}" source)
string(REGEX REPLACE "[^\n]" "" input_newlines "${source}")
string(REGEX REPLACE "[^\n]" "" output_newlines "${generated}")
string(LENGTH "${input_newlines}" input_lines)
string(LENGTH "${output_newlines}" output_lines)
math(EXPR expected_lines "${input_lines} + 6")
foreach(header IN LISTS HEADERS)
  file(READ "${header}" header_text)
  string(REGEX REPLACE "[^\n]" "" header_newlines "${header_text}")
  string(LENGTH "${header_newlines}" header_lines)
  math(EXPR expected_lines "${expected_lines} + ${header_lines} + 1")
  if(header_text MATCHES "#pragma once")
    math(EXPR expected_lines "${expected_lines} + 3")
  endif()
endforeach()
if(generated MATCHES "\nMINICUDA_REGISTER_MODULE\\(")
  math(EXPR expected_lines "${expected_lines} + 2")
endif()
if(NOT output_lines EQUAL expected_lines)
  message(FATAL_ERROR "the output has ${output_lines} lines, expected ${expected_lines}")
endif()
message(STATUS "ok: ${OUTPUT} (${output_lines} lines)")
