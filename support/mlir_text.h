/* support/mlir_text.h: MLIR's text callbacks into an lsimp_strbuf.  Private. */
#ifndef LSIMP_SUPPORT_MLIR_TEXT_H
#define LSIMP_SUPPORT_MLIR_TEXT_H

#include "support/strbuf.h"

#include <mlir-c/Diagnostics.h>
#include <mlir-c/Support.h>

/* An MlirStringCallback: appends the text to the lsimp_strbuf `data`. */
void lsimp_strbuf_append_mlir(MlirStringRef text, void *data);

/* An MlirDiagnosticHandler: appends the diagnostic to the lsimp_strbuf
 * `data`, "; " between diagnostics, and reports it handled. */
MlirLogicalResult lsimp_strbuf_collect_diagnostic(MlirDiagnostic diagnostic, void *data);

#endif
