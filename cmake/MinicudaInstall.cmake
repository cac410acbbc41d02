# cmake/MinicudaInstall.cmake: minicuda as a package that other CMake projects use.
#
#   find_package(minicuda CONFIG REQUIRED)      after `cmake --install` (any prefix)
#   add_subdirectory(minicuda) / FetchContent    from source
#
# Either way a project gets the same names:
#   minicuda::cudart   libcudart look-alike (cuda_runtime.h); brings cxx_std_20
#   minicuda::cuda     libcuda look-alike (cuda.h)
#   minicuda::libc     the simulated C library (minicuda/libc.h)
#   minicuda::cu2cxx   the .cu translator (executable)
#   minicuda_add_executable / minicuda_add_library / minicuda_cu2cxx_sources (MinicudaCuda.cmake)
# and, installed, bin/minicuda-nvcc, the nvcc-compatible driver (tools/minicuda-nvcc), and
# <cmakedir>/minicuda-cuda-toolchain.cmake, for projects that use CMake's CUDA language.
#
# The headers install under <prefix>/include/minicuda (so that a real CUDA toolkit's cuda.h in
# /usr/include is never shadowed) and reach consumers as SYSTEM include directories: a project
# built with -Wall -Wextra sees no warning from minicuda's headers. The libraries are static, so
# the export carries the whole link closure (the layers below cudart) and the config file finds
# their third-party dependencies (fmt, spdlog, Boost.Context, Threads) again.
#
# The libraries are defined by the layers' own CMakeLists; this file only decides what is
# public. It walks the link graph from the entry libraries, so a library added to a layer later
# is exported without a change here.
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MINICUDA_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/minicuda" CACHE STRING
    "Where the minicuda package config files are installed, relative to the prefix")
set(MINICUDA_INSTALL_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}/minicuda")

# _minicuda_real_target(<name> <out>): <out> is the real target behind <name> (an alias resolved),
# or empty if <name> is not one of minicuda's own targets.
function(_minicuda_real_target name out)
  set(result "")
  string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" name "${name}")
  if(TARGET "${name}")
    get_target_property(aliased "${name}" ALIASED_TARGET)
    if(aliased)
      set(name "${aliased}")
    endif()
    get_target_property(imported "${name}" IMPORTED)
    if(NOT imported AND name MATCHES "^minicuda_")
      set(result "${name}")
    endif()
  endif()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# _minicuda_closure(<out> <public_only> <roots...>): the minicuda targets reachable from <roots>
# through link dependencies; with <public_only> TRUE only through usage requirements that are
# not link-only (the targets whose headers a consumer compiles against).
function(_minicuda_closure out public_only)
  set(seen "")
  set(queue ${ARGN})
  while(queue)
    list(POP_FRONT queue current)
    _minicuda_real_target("${current}" real)
    if(NOT real OR real IN_LIST seen)
      continue()
    endif()
    list(APPEND seen "${real}")
    get_target_property(deps "${real}" INTERFACE_LINK_LIBRARIES)
    if(NOT public_only)
      get_target_property(private_deps "${real}" LINK_LIBRARIES)
      list(APPEND deps ${private_deps})
    endif()
    foreach(dep IN LISTS deps)
      if(dep MATCHES "^\\$<LINK_ONLY:" AND public_only)
        continue()
      endif()
      if(dep)
        list(APPEND queue "${dep}")
      endif()
    endforeach()
  endwhile()
  set(${out} "${seen}" PARENT_SCOPE)
endfunction()

# _minicuda_visit(<target>): depth-first over link dependencies, appending each target to the
# global property _MINICUDA_POSTORDER after everything it links (used for the link order).
function(_minicuda_visit target)
  get_property(done GLOBAL PROPERTY _MINICUDA_VISITED)
  if(target IN_LIST done)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY _MINICUDA_VISITED ${target})
  get_target_property(deps ${target} INTERFACE_LINK_LIBRARIES)
  get_target_property(private_deps ${target} LINK_LIBRARIES)
  foreach(dep IN LISTS deps private_deps)
    _minicuda_real_target("${dep}" real)
    if(real)
      _minicuda_visit(${real})
    endif()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY _MINICUDA_POSTORDER ${target})
endfunction()

function(minicuda_setup_package)
  set(roots minicuda_cudart minicuda_libc)
  _minicuda_closure(all_targets FALSE ${roots})
  _minicuda_closure(public_targets TRUE ${roots})

  # The C++ standard the headers need is a usage requirement of every public library.
  foreach(target IN LISTS public_targets)
    target_compile_features(${target} INTERFACE cxx_std_20)
  endforeach()

  # Source-tree include directories are build-tree-only; the public ones are installed.
  set(header_directories "")
  foreach(target IN LISTS all_targets)
    get_target_property(directories ${target} INTERFACE_INCLUDE_DIRECTORIES)
    if(NOT directories)
      continue()
    endif()
    set(rewritten "")
    foreach(directory IN LISTS directories)
      if(directory MATCHES "^\\$<")
        list(APPEND rewritten "${directory}")
      else()
        list(APPEND rewritten "$<BUILD_INTERFACE:${directory}>")
        if(target IN_LIST public_targets)
          cmake_path(NORMAL_PATH directory OUTPUT_VARIABLE normal)
          list(APPEND header_directories "${normal}")
        endif()
      endif()
    endforeach()
    if(target IN_LIST public_targets)
      list(APPEND rewritten "$<INSTALL_INTERFACE:${MINICUDA_INSTALL_INCLUDEDIR}>")
    endif()
    set_property(TARGET ${target} PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${rewritten}")
    # Used from a parent project (add_subdirectory, FetchContent), the headers are SYSTEM for it,
    # as they are for users of the installed package (imported targets).
    if(NOT PROJECT_IS_TOP_LEVEL)
      set_property(TARGET ${target} PROPERTY SYSTEM ON)
    endif()
    string(REGEX REPLACE "^minicuda_" "" export_name "${target}")
    set_property(TARGET ${target} PROPERTY EXPORT_NAME "${export_name}")
  endforeach()
  list(REMOVE_DUPLICATES header_directories)
  # For tools/minicuda-nvcc, which links programs outside CMake: the headers and the archives.
  # In link order: every archive before the archives it needs (the reverse of a depth-first
  # post-order), so that a linker that reads each archive once resolves everything.
  foreach(root IN LISTS roots)
    _minicuda_visit(${root})
  endforeach()
  get_property(ordered GLOBAL PROPERTY _MINICUDA_POSTORDER)
  list(REVERSE ordered)
  set(archives "")
  foreach(target IN LISTS ordered)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "STATIC_LIBRARY")
      list(APPEND archives ${target})
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY MINICUDA_PACKAGE_INCLUDE_DIRS "${header_directories}")
  set_property(GLOBAL PROPERTY MINICUDA_PACKAGE_ARCHIVES "${archives}")
  set_property(TARGET minicuda_cu2cxx PROPERTY EXPORT_NAME cu2cxx)

  install(TARGETS ${all_targets} minicuda_cu2cxx EXPORT minicudaTargets
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  foreach(directory IN LISTS header_directories)
    install(DIRECTORY "${directory}/" DESTINATION ${MINICUDA_INSTALL_INCLUDEDIR}
            PATTERN "CMakeLists.txt" EXCLUDE)
  endforeach()
  install(EXPORT minicudaTargets NAMESPACE minicuda:: DESTINATION ${MINICUDA_INSTALL_CMAKEDIR})

  configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/minicudaConfig.cmake.in"
                                "${PROJECT_BINARY_DIR}/minicudaConfig.cmake"
                                INSTALL_DESTINATION ${MINICUDA_INSTALL_CMAKEDIR}
                                PATH_VARS MINICUDA_INSTALL_INCLUDEDIR)
  write_basic_package_version_file("${PROJECT_BINARY_DIR}/minicudaConfigVersion.cmake"
                                   COMPATIBILITY SameMinorVersion)
  install(FILES "${PROJECT_BINARY_DIR}/minicudaConfig.cmake"
                "${PROJECT_BINARY_DIR}/minicudaConfigVersion.cmake"
                "${PROJECT_SOURCE_DIR}/cmake/MinicudaCuda.cmake"
          DESTINATION ${MINICUDA_INSTALL_CMAKEDIR})
endfunction()
