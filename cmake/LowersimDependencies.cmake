# MLIR 19 (C API), libxml2 and, for the tests, CUnit.
if(NOT MLIR_DIR)
  set(MLIR_DIR /usr/lib/llvm-19/lib/cmake/mlir)
endif()
find_package(MLIR REQUIRED CONFIG)
message(STATUS "MLIR ${MLIR_PACKAGE_VERSION} from ${MLIR_DIR}")

# The MLIR C API libraries lowersim uses: the IR core and the upstream dialects
# that Pallas kernel bodies are written in.
set(LOWERSIM_MLIR_LIBS MLIRCAPIIR MLIRCAPIFunc MLIRCAPIArith MLIRCAPIMemRef MLIRCAPIVector)

find_package(LibXml2 REQUIRED)
find_package(Threads REQUIRED)

find_program(MLIR_OPT NAMES mlir-opt-19 mlir-opt PATHS /usr/lib/llvm-19/bin)
