# cmake/MinicudaCuda.cmake: build CUDA (.cu) sources with g++ through minicuda_cu2cxx
# (tools/cu2cxx, docs/tools/cu2cxx.md), the way nvcc's front end turns them into host C++.
#
#   minicuda_add_executable(<name> [WIN32] [EXCLUDE_FROM_ALL] <sources...>)
#   minicuda_add_library(<name> [STATIC|SHARED|MODULE|OBJECT] [EXCLUDE_FROM_ALL] <sources...>)
#       add_executable / add_library where every source ending in .cu is translated at build
#       time into ${CMAKE_CURRENT_BINARY_DIR}/<name>.cu/<path of the .cu>.cpp (re-translated when
#       the .cu or the translator changes) and that file is compiled instead; other sources and
#       keywords pass through unchanged. The target links minicuda::cudart (PRIVATE for an
#       executable, PUBLIC for a library, since its users launch through the same runtime). An
#       executable is linked with -rdynamic (ENABLE_EXPORTS), for memcheck mode's host frames.
#       The library type defaults as for add_library (STATIC unless BUILD_SHARED_LIBS). Caveat of
#       a STATIC library, as with nvcc: a .cu's kernels register at start-up only if the linker
#       takes its object file, i.e. only if the program references a symbol defined in it (a
#       launch of one of its kernels does). Kernels found only by name at run time need OBJECT
#       or SHARED, or the archive linked whole ($<LINK_LIBRARY:WHOLE_ARCHIVE,name>).
#
#   minicuda_cu2cxx_sources(<name> <out_var> <sources...>)
#       The translation step alone: sets <out_var> to <sources> with each .cu replaced by its
#       generated .cpp. For targets that link their own runtime (the translator's tests).
#
# A generated .cpp is compiled with MINICUDA_CU_SOURCE defined (the runtime headers then route
# device-side printf through the simulated GPU) and starts with `#line 1 "<the .cu>"`, so
# compiler messages and gdb name the .cu and its lines. Each is compiled with its .cu's
# directory searched first for `#include "..."` (as nvcc does for the .cu itself), so headers
# next to the .cu (`foo.cuh`) are found. Headers included by a .cu are not translated: launches
# and `extern __shared__` belong in .cu files.
#
# The translator is the target minicuda::cu2cxx: built by this project from source, or imported
# from an installed package (find_package(minicuda), which includes this file).
include_guard(GLOBAL)

function(minicuda_cu2cxx_sources name out_var)
  set(result)
  foreach(source IN LISTS ARGN)
    if(NOT source MATCHES "\\.cu$")
      list(APPEND result "${source}")
      continue()
    endif()
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE
               OUTPUT_VARIABLE cu_path)
    # Keep the .cu's path below the source directory, so two a.cu in different folders do not
    # collide; a .cu from elsewhere keeps just its file name.
    cmake_path(RELATIVE_PATH cu_path BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
               OUTPUT_VARIABLE cu_relative)
    if(cu_relative MATCHES "^\\.\\." OR IS_ABSOLUTE "${cu_relative}")
      cmake_path(GET cu_path FILENAME cu_relative)
    endif()
    set(generated "${CMAKE_CURRENT_BINARY_DIR}/${name}.cu/${cu_relative}.cpp")
    cmake_path(GET cu_path PARENT_PATH cu_directory)
    cmake_path(GET generated PARENT_PATH generated_directory)
    file(MAKE_DIRECTORY "${generated_directory}")

    add_custom_command(
      OUTPUT "${generated}"
      COMMAND "$<TARGET_FILE:minicuda::cu2cxx>" "${cu_path}" "${generated}"
      DEPENDS "${cu_path}" "$<TARGET_FILE:minicuda::cu2cxx>"
      COMMENT "cu2cxx ${cu_relative}"
      VERBATIM)
    # MINICUDA_CU_SOURCE: the runtime headers' .cu mode (device-side printf goes through the
    # simulated GPU, buffered until the host synchronises, as CUDA's printf FIFO).
    set_source_files_properties("${generated}" PROPERTIES COMPILE_DEFINITIONS MINICUDA_CU_SOURCE)
    # The .cu's directory first for quoted includes (-iquote); plain include path otherwise.
    if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
      set_property(SOURCE "${generated}" APPEND PROPERTY COMPILE_OPTIONS "-iquote${cu_directory}")
    else()
      set_property(SOURCE "${generated}" APPEND PROPERTY INCLUDE_DIRECTORIES "${cu_directory}")
    endif()
    list(APPEND result "${generated}")
  endforeach()
  set(${out_var} "${result}" PARENT_SCOPE)
endfunction()

function(minicuda_add_executable name)
  minicuda_cu2cxx_sources(${name} sources ${ARGN})
  add_executable(${name} ${sources})
  target_link_libraries(${name} PRIVATE minicuda::cudart)
  # -rdynamic: the program's functions are in its dynamic symbol table, so that memcheck mode's
  # host backtraces name them even without addr2line (NVIDIA asks for -Xcompiler -rdynamic for
  # compute-sanitizer's host frames too).
  set_property(TARGET ${name} PROPERTY ENABLE_EXPORTS ON)
endfunction()

function(minicuda_add_library name)
  minicuda_cu2cxx_sources(${name} sources ${ARGN})
  add_library(${name} ${sources})
  if("INTERFACE" IN_LIST ARGN)
    target_link_libraries(${name} INTERFACE minicuda::cudart)
  else()
    target_link_libraries(${name} PUBLIC minicuda::cudart)
  endif()
endfunction()
