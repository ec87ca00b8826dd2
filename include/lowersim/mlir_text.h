/* lowersim/mlir_text.h: MLIR modules as text, for callers that compare
 * modules (the conformance checker, the fuzzer, the bench).
 *
 * Output is owned text, as the MLIR C API writes it through its string
 * callbacks; parse failures carry MLIR's diagnostics in the error. */
#ifndef LOWERSIM_MLIR_TEXT_H
#define LOWERSIM_MLIR_TEXT_H

#include "lowersim/error.h"

#include <mlir-c/IR.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `op` printed as MLIR prints it, with a final newline (owned: free), or
 * NULL when out of memory. */
char *lsim_mlir_print(MlirOperation op);

/* Parses `text` (MLIR text or bytecode) as a module in `mlir`; `*out` is
 * owned (mlirModuleDestroy).  Fails with LSIM_E_INVALID_INPUT whose message
 * holds what MLIR's parser said, or, before MLIR sees it, why lowersim
 * refuses a text that would overflow the parser's or the printer's stack or
 * print without bound: "the module does not parse: it is nested deeper than
 * 256 levels at line L, ..." (brackets of every kind, affine operators and
 * what its aliases add where they are used count), "... its aliases print
 * as more than N bytes ...". */
int lsim_mlir_parse_module(MlirContext mlir, const char *text, MlirModule *out, lsim_error *err);

/* `text` parsed as a module in `mlir` and printed back as MLIR prints it
 * (owned: free): the form in which two implementations' modules compare.
 * Fails as lsim_mlir_parse_module does, or with LSIM_E_NO_MEMORY; `*out` is
 * then NULL. */
int lsim_mlir_reprint(MlirContext mlir, const char *text, char **out, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_MLIR_TEXT_H */
