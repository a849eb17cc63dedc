# pkg-config files for our libraries: one installed, and for some one that points at the
# build tree (build/lib/pkgconfig, with an rpath), so programs can be built before installing.
#
# an2_pkgconfig(NAME n DESCRIPTION text LIBS flags [LIBS_PRIVATE flags] [REQUIRES pkgs]
#               [HEADERS] [UNINSTALLED])
#   HEADERS: Cflags name the installed include dir (our headers); without it the library's
#   header is the system's (<pvm3.h>) and Cflags stay empty.
include(GNUInstallDirs)
function(an2_pkgconfig)
  cmake_parse_arguments(PC "HEADERS;UNINSTALLED" "NAME;DESCRIPTION;LIBS;LIBS_PRIVATE;REQUIRES" "" ${ARGN})
  set(template ${PROJECT_SOURCE_DIR}/cmake/pkgconfig.pc.in)
  set(PC_INCLUDEDIR ${CMAKE_INSTALL_FULL_INCLUDEDIR})
  set(PC_CFLAGS "")
  if(PC_HEADERS)
    set(PC_CFLAGS "-I\${includedir}")
  endif()
  if(PC_UNINSTALLED)
    set(PC_LIBDIR ${CMAKE_BINARY_DIR}/lib)
    set(PC_RPATH "-Wl,-rpath,${CMAKE_BINARY_DIR}/lib")
    configure_file(${template} ${CMAKE_BINARY_DIR}/lib/pkgconfig/${PC_NAME}.pc @ONLY)
  endif()
  set(PC_LIBDIR ${CMAKE_INSTALL_FULL_LIBDIR})
  set(PC_RPATH "")
  configure_file(${template} ${CMAKE_BINARY_DIR}/lib/install/pkgconfig/${PC_NAME}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/lib/install/pkgconfig/${PC_NAME}.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
