# Per-target warnings: every target of this project calls asuka_set_warnings(<target>).
# Warnings are errors in CI builds (ASUKA_WERROR=ON) so a new warning cannot land silently.
option(ASUKA_WERROR "Treat warnings as errors" OFF)

function(asuka_set_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
    -Woverloaded-virtual -Wnull-dereference -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
  if(ASUKA_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# The folders under <dir> (relative to the source root) that hold a CMakeLists.txt, sorted: how
# frontends, extensions and tools are found. A new one is built by creating its folder.
function(asuka_discover dir out_var)
  file(GLOB children LIST_DIRECTORIES true RELATIVE ${PROJECT_SOURCE_DIR}/${dir} ${PROJECT_SOURCE_DIR}/${dir}/*)
  set(found "")
  foreach(child IN LISTS children)
    if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/${child} AND EXISTS ${PROJECT_SOURCE_DIR}/${dir}/${child}/CMakeLists.txt)
      list(APPEND found ${child})
    endif()
  endforeach()
  list(SORT found)
  set(${out_var} ${found} PARENT_SCOPE)
endfunction()

# Adds every discovered folder under <dir> that its option ASUKA_BUILD_<KIND>_<NAME> (ON) allows,
# and returns the names added in <out_var>.
function(asuka_add_discovered dir kind out_var)
  asuka_discover(${dir} names)
  set(added "")
  foreach(name IN LISTS names)
    string(TOUPPER ${name} name_upper)
    string(REPLACE "-" "_" name_upper ${name_upper})
    option(ASUKA_BUILD_${kind}_${name_upper} "Build ${dir}/${name}" ON)
    if(ASUKA_BUILD_${kind}_${name_upper})
      add_subdirectory(${PROJECT_SOURCE_DIR}/${dir}/${name} ${PROJECT_BINARY_DIR}/${dir}/${name})
      list(APPEND added ${name})
    endif()
  endforeach()
  set(${out_var} ${added} PARENT_SCOPE)
endfunction()

# A frontend plugin: libasuka_odometry_<name>.so, loaded at run time through its so_name.
function(asuka_add_frontend name)
  add_library(asuka_odometry_${name} MODULE ${ARGN})
  target_link_libraries(asuka_odometry_${name} PRIVATE asuka::asuka)
  asuka_set_warnings(asuka_odometry_${name})
  install(TARGETS asuka_odometry_${name} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()

# An extension module: libasuka_extension_<name>.so, loaded by name from config.json.
function(asuka_add_extension name)
  add_library(asuka_extension_${name} MODULE ${ARGN})
  target_link_libraries(asuka_extension_${name} PRIVATE asuka::asuka)
  asuka_set_warnings(asuka_extension_${name})
  install(TARGETS asuka_extension_${name} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()

# A gtest program whose tests ctest discovers, with one label (gtest_discover_tests flattens a
# list-valued LABELS property). Defined here, not in tests/, so that frontends, extensions and tools
# can keep their tests beside their code. Test-only plugins live in ${ASUKA_TEST_PLUGIN_DIR}.
set(ASUKA_TEST_PLUGIN_DIR ${CMAKE_BINARY_DIR}/test_plugins)
function(asuka_add_gtest target label)
  if(NOT ASUKA_BUILD_TESTS)
    return()
  endif()
  find_package(GTest REQUIRED)
  include(GoogleTest)
  add_executable(${target} ${ARGN})
  target_link_libraries(${target} PRIVATE asuka::asuka asuka::lio GTest::gtest GTest::gtest_main ${CMAKE_DL_LIBS})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${target} PRIVATE
    ASUKA_TEST_PLUGIN_DIR="${ASUKA_TEST_PLUGIN_DIR}"
    ASUKA_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    ASUKA_BINARY_DIR="${CMAKE_BINARY_DIR}")
  asuka_set_warnings(${target})
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "${label}" TIMEOUT 300)
  # One build target per label (asuka_tests_<label>, made in tests/CMakeLists.txt), so that a
  # sanitizer tree builds only the programs whose label it runs (scripts/test).
  set_property(GLOBAL APPEND PROPERTY ASUKA_GTEST_LABELS ${label})
  set_property(GLOBAL APPEND PROPERTY ASUKA_GTESTS_${label} ${target})
endfunction()
