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
