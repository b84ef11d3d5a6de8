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
