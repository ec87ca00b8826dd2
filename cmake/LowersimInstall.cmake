# Install rules, a pkg-config file and a CMake package, so another C project
# can use lowersim with find_package(lowersim) or pkg-config.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS lowersim lowersim_scenario EXPORT lowersimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS lowersim_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/lowersim DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT lowersimTargets NAMESPACE lowersim::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lowersim)
configure_package_config_file(cmake/lowersimConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lowersimConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lowersim)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/lowersimConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/lowersimConfig.cmake
              ${PROJECT_BINARY_DIR}/lowersimConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lowersim)

# pkg-config: the MLIR C API archives lowersim needs are listed explicitly.
set(LOWERSIM_PC_MLIR_LIBS "")
foreach(lib ${LOWERSIM_MLIR_LIBS})
  string(APPEND LOWERSIM_PC_MLIR_LIBS " -l${lib}")
endforeach()
configure_file(cmake/lowersim.pc.in ${PROJECT_BINARY_DIR}/lowersim.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/lowersim.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
