# Install rules, pkg-config files and a CMake package, so another project,
# C or C++, can use lowersim with find_package(lowersim) or pkg-config.
#
#   lowersim::lowersim            liblowersim.so   (lowersim.pc)
#   lowersim::lowersim_scenario   liblowersim_scenario.so, needs libxml2 (lowersim_scenario.pc)
#   lowersim::lowersim_static, lowersim::lowersim_scenario_static   the archives
#
# Besides: the command, the headers and the scenario schema
# (share/lowersim/scenario.rng); the man page and the bash completion are
# installed by cmake/LowersimDocs.cmake.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(lowersim_scenario PROPERTIES EXPORT_NAME lowersim_scenario_static)
set(_lsim_installed_libraries lowersim lowersim_scenario)
if(TARGET lowersim_shared)
  list(APPEND _lsim_installed_libraries lowersim_shared lowersim_scenario_shared)
endif()
install(TARGETS ${_lsim_installed_libraries} EXPORT lowersimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS lowersim_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/lowersim DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES testdata/schema/scenario.rng DESTINATION ${CMAKE_INSTALL_DATADIR}/lowersim)
install(EXPORT lowersimTargets NAMESPACE lowersim::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lowersim)
configure_package_config_file(cmake/lowersimConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lowersimConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lowersim
  PATH_VARS CMAKE_INSTALL_DATADIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/lowersimConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/lowersimConfig.cmake
              ${PROJECT_BINARY_DIR}/lowersimConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lowersim)

# pkg-config.  The prefix is found from the .pc file's own folder, as many
# levels up as CMAKE_INSTALL_LIBDIR/pkgconfig is deep (lib/pkgconfig: two;
# lib/x86_64-linux-gnu/pkgconfig: three), so the installed tree can move.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(LOWERSIM_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(LOWERSIM_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  string(REGEX REPLACE "[^/]+" ".." _lsim_up "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
  string(REGEX REPLACE "/+$" "" _lsim_up "${_lsim_up}")
  set(LOWERSIM_PC_PREFIX "\${pcfiledir}/${_lsim_up}")
  set(LOWERSIM_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(LOWERSIM_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(LOWERSIM_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
# What linking the archive needs beyond itself: the MLIR C API archives,
# libMLIR and libLLVM (outside the default search path, hence the rpath),
# the C++ runtime.
set(_lsim_pc_mlir "-L${MLIR_INSTALL_PREFIX}/lib -Wl,-rpath,${MLIR_INSTALL_PREFIX}/lib")
foreach(lib ${LOWERSIM_MLIR_LIBS} MLIR LLVM ${LOWERSIM_CXX_RUNTIME})
  string(APPEND _lsim_pc_mlir " -l${lib}")
endforeach()
# With the shared libraries installed, -llowersim is the shared one and the
# rest is only for `pkg-config --static`; without, the archives need it always.
if(TARGET lowersim_shared)
  set(LOWERSIM_PC_LIBS "")
  set(LOWERSIM_PC_LIBS_PRIVATE "${_lsim_pc_mlir} -pthread")
  set(LOWERSIM_PC_REQUIRES "")
  set(LOWERSIM_PC_REQUIRES_PRIVATE "nettle")
  set(LOWERSIM_PC_SCENARIO_REQUIRES "")
  set(LOWERSIM_PC_SCENARIO_REQUIRES_PRIVATE "libxml-2.0")
else()
  set(LOWERSIM_PC_LIBS " ${_lsim_pc_mlir} -pthread")
  set(LOWERSIM_PC_LIBS_PRIVATE "")
  set(LOWERSIM_PC_REQUIRES "nettle")
  set(LOWERSIM_PC_REQUIRES_PRIVATE "")
  set(LOWERSIM_PC_SCENARIO_REQUIRES " libxml-2.0")
  set(LOWERSIM_PC_SCENARIO_REQUIRES_PRIVATE "")
endif()
foreach(pc lowersim lowersim_scenario)
  configure_file(cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
