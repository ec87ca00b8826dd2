# MLIR 19 (C API), Nettle (SHA-256, base64), libxml2 and, for the tests, CUnit.
if(NOT MLIR_DIR)
  set(MLIR_DIR /usr/lib/llvm-19/lib/cmake/mlir)
endif()
find_package(MLIR REQUIRED CONFIG)
message(STATUS "MLIR ${MLIR_PACKAGE_VERSION} from ${MLIR_DIR}")

# The MLIR C API libraries lowersim uses: the IR core and the upstream dialects
# that Pallas kernel bodies are written in.
set(LOWERSIM_MLIR_LIBS MLIRCAPIIR MLIRCAPIFunc MLIRCAPIArith MLIRCAPIMemRef MLIRCAPIVector)

find_package(PkgConfig REQUIRED)
pkg_check_modules(NETTLE REQUIRED IMPORTED_TARGET nettle)

find_package(LibXml2 REQUIRED)
find_package(Threads REQUIRED)

find_program(MLIR_OPT NAMES mlir-opt-19 mlir-opt PATHS /usr/lib/llvm-19/bin)

# What the C++ driver links beyond the C driver's libraries (libstdc++ and
# libm with GCC): a C program linking the static archives needs it.
set(LOWERSIM_CXX_RUNTIME)
foreach(lib ${CMAKE_CXX_IMPLICIT_LINK_LIBRARIES})
  if(NOT lib IN_LIST CMAKE_C_IMPLICIT_LINK_LIBRARIES AND NOT lib IN_LIST LOWERSIM_CXX_RUNTIME)
    list(APPEND LOWERSIM_CXX_RUNTIME ${lib})
  endif()
endforeach()

# The lowersim command links LLVM's support libraries statically (ON by
# default): MLIR's archives name the shared libLLVM, whose dynamic linking was
# 74% of a one-op `lowersim lower` (14-17 ms, 54 MB peak).  Each MLIR target
# of lowersim's closure gets, instead of `LLVM`, a generator expression that
# picks the static archives for a consuming target whose property
# LOWERSIM_STATIC_LLVM is true (the command) and the shared libLLVM for every
# other (liblowersim.so, the Python bindings, the tests): the property is read
# on the target being linked.  The installed package's targets are untouched.
option(LOWERSIM_STATIC_LLVM "link LLVM's support libraries statically into the lowersim command" ON)
set(_lsim_llvm_archives ${LLVM_LIBRARY_DIR}/libLLVMSupport.a ${LLVM_LIBRARY_DIR}/libLLVMDemangle.a)
set(LOWERSIM_STATIC_LLVM_USED OFF)
if(LOWERSIM_STATIC_LLVM AND TARGET LLVM)
  set(LOWERSIM_STATIC_LLVM_USED ON)
  foreach(a ${_lsim_llvm_archives})
    if(NOT EXISTS ${a})
      message(STATUS "lowersim: ${a} missing: the command links the shared libLLVM")
      set(LOWERSIM_STATIC_LLVM_USED OFF)
    endif()
  endforeach()
endif()
if(LOWERSIM_STATIC_LLVM_USED)
  find_package(ZLIB REQUIRED)
  # What LLVMSupport's own imported target links, less libz3 (only its SMT
  # solver, which MLIR does not reach, uses it): zlib and zstd (LLVM's
  # configuration found zstd::libzstd_shared).
  add_library(lowersim_llvm_static INTERFACE)
  target_link_libraries(lowersim_llvm_static INTERFACE ${_lsim_llvm_archives} ZLIB::ZLIB
                        $<TARGET_NAME_IF_EXISTS:zstd::libzstd_shared> Threads::Threads
                        ${CMAKE_DL_LIBS} rt m)
  set(_lsim_pick "$<IF:$<BOOL:$<TARGET_PROPERTY:LOWERSIM_STATIC_LLVM>>,lowersim_llvm_static,LLVM>")
  set(_lsim_todo ${LOWERSIM_MLIR_LIBS})
  set(_lsim_seen)
  while(_lsim_todo)
    list(POP_FRONT _lsim_todo t)
    if(t IN_LIST _lsim_seen OR NOT TARGET ${t} OR t STREQUAL "LLVM")
      continue()
    endif()
    list(APPEND _lsim_seen ${t})
    get_target_property(deps ${t} INTERFACE_LINK_LIBRARIES)
    if(NOT deps)
      continue()
    endif()
    list(APPEND _lsim_todo ${deps})
    if("LLVM" IN_LIST deps)
      list(TRANSFORM deps REPLACE "^LLVM$" "${_lsim_pick}")
      set_target_properties(${t} PROPERTIES INTERFACE_LINK_LIBRARIES "${deps}")
    endif()
  endwhile()
endif()

# The command also links libxml2 (with the ICU, zlib and liblzma it needs),
# Nettle and the C++ runtime statically (LOWERSIM_STATIC_DEPS, ON by
# default, where Debian's archives are installed): with LLVM linked in,
# loading those shared libraries and relocating libstdc++ and ICU was 42% of
# a one-op `lowersim lower` (3.2M of 7.2M instructions).  The choice is made
# as for LLVM above: lowersim and lowersim_scenario link
# LOWERSIM_NETTLE_LINK and LOWERSIM_XML2_LINK, which pick the archives for a
# target whose property LOWERSIM_STATIC_DEPS is true (the command) and the
# shared libraries for every other; the installed package names the shared
# ones.  ICU's data archive adds 30 MB to the command, which is never read
# unless libxml2 meets an encoding that iconv does not know.
option(LOWERSIM_STATIC_DEPS
       "link libxml2, ICU, zlib, liblzma, Nettle and libstdc++ statically into the lowersim command" ON)
set(LOWERSIM_XML2_LINK LibXml2::LibXml2)
set(LOWERSIM_NETTLE_LINK PkgConfig::NETTLE)
set(LOWERSIM_STATIC_DEPS_USED OFF)
if(LOWERSIM_STATIC_DEPS AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(LOWERSIM_STATIC_DEPS_USED ON)
  foreach(lib xml2 icuuc icudata lzma z nettle)
    find_library(LOWERSIM_ARCHIVE_${lib} NAMES lib${lib}.a)
    if(NOT LOWERSIM_ARCHIVE_${lib})
      message(STATUS "lowersim: lib${lib}.a missing: the command links the shared libraries")
      set(LOWERSIM_STATIC_DEPS_USED OFF)
    endif()
  endforeach()
endif()
if(LOWERSIM_STATIC_DEPS_USED)
  add_library(lowersim_xml2_static INTERFACE)
  target_link_libraries(lowersim_xml2_static INTERFACE ${LOWERSIM_ARCHIVE_xml2}
    ${LOWERSIM_ARCHIVE_icuuc} ${LOWERSIM_ARCHIVE_icudata} ${LOWERSIM_ARCHIVE_lzma}
    ${LOWERSIM_ARCHIVE_z} Threads::Threads ${CMAKE_DL_LIBS} m)
  target_include_directories(lowersim_xml2_static SYSTEM INTERFACE ${LIBXML2_INCLUDE_DIRS})
  add_library(lowersim_nettle_static INTERFACE)
  target_link_libraries(lowersim_nettle_static INTERFACE ${LOWERSIM_ARCHIVE_nettle})
  target_include_directories(lowersim_nettle_static SYSTEM INTERFACE ${NETTLE_INCLUDE_DIRS})
  set(_lsim_static_deps "$<BOOL:$<TARGET_PROPERTY:LOWERSIM_STATIC_DEPS>>")
  set(LOWERSIM_XML2_LINK
      "$<BUILD_INTERFACE:$<IF:${_lsim_static_deps},lowersim_xml2_static,LibXml2::LibXml2>>"
      "$<INSTALL_INTERFACE:LibXml2::LibXml2>")
  set(LOWERSIM_NETTLE_LINK
      "$<BUILD_INTERFACE:$<IF:${_lsim_static_deps},lowersim_nettle_static,PkgConfig::NETTLE>>"
      "$<INSTALL_INTERFACE:PkgConfig::NETTLE>")
endif()
