# cmake/MinicudaPackageTests.cmake: the tests of minicuda as a package (label "package").
#
#   package_find_package     installs this build into a temporary prefix, then configures,
#                            builds (-Wall -Wextra -Werror) and tests examples/saxpy against it
#                            through find_package(minicuda)
#   package_add_subdirectory configures examples/saxpy with minicuda's source tree added as a
#                            subdirectory (what FetchContent does), checks that minicuda's own
#                            tests, samples and benchmarks are off there, and compiles the
#                            project's test source with -Werror against minicuda's headers
#
# Both reuse this build's libraries or only compile the example's files, so that they stay fast
# without ccache: neither rebuilds minicuda. check_package.cmake does the work.
include_guard(GLOBAL)

set(_package_work "${PROJECT_BINARY_DIR}/package_tests")
set(_package_args -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DBUILD_DIR=${PROJECT_BINARY_DIR}
                  -DCXX_COMPILER=${CMAKE_CXX_COMPILER} -DLAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER})
add_test(NAME package_find_package
         COMMAND ${CMAKE_COMMAND} -DMODE=find_package -DWORK_DIR=${_package_work}/find_package
                 ${_package_args} -P ${PROJECT_SOURCE_DIR}/cmake/check_package.cmake)
add_test(NAME package_add_subdirectory
         COMMAND ${CMAKE_COMMAND} -DMODE=add_subdirectory -DWORK_DIR=${_package_work}/add_subdirectory
                 ${_package_args} -P ${PROJECT_SOURCE_DIR}/cmake/check_package.cmake)
set_tests_properties(package_find_package package_add_subdirectory PROPERTIES LABELS package TIMEOUT 600)
