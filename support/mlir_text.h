/* support/mlir_text.h: MLIR's text callbacks into an lsimp_strbuf, and the
 * one buffered printer of modules.  Private. */
#ifndef LSIMP_SUPPORT_MLIR_TEXT_H
#define LSIMP_SUPPORT_MLIR_TEXT_H

#include "support/strbuf.h"

#include <mlir-c/Diagnostics.h>
#include <mlir-c/IR.h>
#include <mlir-c/Support.h>

#include <stdbool.h>
#include <stddef.h>

/* An MlirStringCallback: appends the text to the lsimp_strbuf `data`. */
void lsimp_strbuf_append_mlir(MlirStringRef text, void *data);

/* An MlirDiagnosticHandler: appends the diagnostic to the lsimp_strbuf
 * `data`, "; " between diagnostics, and reports it handled. */
MlirLogicalResult lsimp_strbuf_collect_diagnostic(MlirDiagnostic diagnostic, void *data);

/* Where printed text goes: `write(dest, data, n)` returns false on failure
 * (out of memory, a write error); the printer then stops writing. */
typedef bool (*lsimp_text_writer)(void *dest, const char *data, size_t n);

/* Prints `op` as mlirOperationPrint does, then a newline, through a 16 KiB
 * buffer: MLIR's C API calls its callback once per token (a few bytes), and
 * `write` sees whole chunks.  `verified`: the caller has verified `op` (and
 * not changed it since), so MLIR's printer does not verify it a second time
 * (OpPrintingFlags::assumeVerified); the text is the same either way for a
 * valid op, but an invalid one printed with `verified` is not in the generic
 * form the printer would fall back to.  False when `write` failed. */
bool lsimp_mlir_print_to(MlirOperation op, bool verified, lsimp_text_writer write, void *dest);

/* lsimp_mlir_print_to into owned text (free), or NULL when out of memory. */
char *lsimp_mlir_print(MlirOperation op, bool verified);

#endif
