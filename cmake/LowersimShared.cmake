# The shared libraries: liblowersim.so (the objects of liblowersim.a) and
# liblowersim_scenario.so (those of liblowersim_scenario.a), each with a
# SONAME and a version script that exports the public API.
#
#   liblowersim.so            lsim_*, and lsimp_* under LOWERSIM_PRIVATE for
#                             liblowersim_scenario.so (cmake/liblowersim.map.in)
#   liblowersim_scenario.so   lsim_scenario_* (cmake/liblowersim_scenario.map.in)
#
# liblowersim.so links the MLIR C API archives into itself, hidden, over
# Debian's shared libMLIR.so and libLLVM.so, so that nothing of MLIR or the
# C++ runtime is in its link interface: a C program links -llowersim alone.
option(LOWERSIM_SHARED "Build liblowersim.so and liblowersim_scenario.so beside the archives" ON)
if(NOT LOWERSIM_SHARED)
  return()
endif()

# While the major version is 0, a minor version may change the ABI.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(LOWERSIM_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
else()
  set(LOWERSIM_SOVERSION ${PROJECT_VERSION_MAJOR})
endif()

# lowersim_shared_library(TARGET NAME objects...): lib<NAME>.so from the
# objects, exporting what cmake/lib<NAME>.map.in says.
function(lowersim_shared_library target name)
  set(map ${PROJECT_BINARY_DIR}/lib${name}.map)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/lib${name}.map.in ${map} @ONLY)
  add_library(${target} SHARED ${ARGN})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${name} EXPORT_NAME ${name}
    VERSION ${PROJECT_VERSION} SOVERSION ${LOWERSIM_SOVERSION}
    LINKER_LANGUAGE CXX LINK_DEPENDS ${map}
    ARCHIVE_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR} LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
  target_link_options(${target} PRIVATE -Wl,--version-script=${map})
  # Every symbol resolved at link time (clang's sanitizer runtimes are only
  # linked into executables, so not for instrumented builds).
  if(NOT LOWERSIM_SANITIZE AND NOT LOWERSIM_LIBFUZZER)
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endif()
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:lowersim_flags>)
endfunction()

# The MLIR C API archives by file (their imported targets would also bring
# MLIR's static archives), over the shared libMLIR.so and libLLVM.so.
set(_lsim_capi_archives)
foreach(lib ${LOWERSIM_MLIR_LIBS})
  list(APPEND _lsim_capi_archives $<TARGET_FILE:${lib}>)
endforeach()
set(_lsim_mlir_libdir ${MLIR_INSTALL_PREFIX}/lib)

lowersim_shared_library(lowersim_shared lowersim ${_lsim_object_files})
target_include_directories(lowersim_shared
  PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:include>)
target_include_directories(lowersim_shared SYSTEM PUBLIC ${MLIR_INCLUDE_DIRS})
target_link_libraries(lowersim_shared PRIVATE ${_lsim_capi_archives} MLIR LLVM PkgConfig::NETTLE
  Threads::Threads m)
set_target_properties(lowersim_shared PROPERTIES INSTALL_RPATH ${_lsim_mlir_libdir})

lowersim_shared_library(lowersim_scenario_shared lowersim_scenario
  $<TARGET_OBJECTS:lowersim_scenario>)
# The port judge (scenario/scenario_port.c) walks and parses modules: the C
# API archives again, hidden, over the same libMLIR.so.
target_link_libraries(lowersim_scenario_shared PUBLIC lowersim_shared
  PRIVATE ${_lsim_capi_archives} MLIR LLVM LibXml2::LibXml2 Threads::Threads)
set_target_properties(lowersim_scenario_shared PROPERTIES INSTALL_RPATH "$ORIGIN;${_lsim_mlir_libdir}")
