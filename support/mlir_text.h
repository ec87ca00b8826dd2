/* support/mlir_text.h: MLIR's text callbacks into an lsim_strbuf.  Private. */
#ifndef LOWERSIM_SUPPORT_MLIR_TEXT_H
#define LOWERSIM_SUPPORT_MLIR_TEXT_H

#include "support/strbuf.h"

#include <mlir-c/Diagnostics.h>
#include <mlir-c/Support.h>

/* An MlirStringCallback: appends the text to the lsim_strbuf `data`. */
void lsim_strbuf_append_mlir(MlirStringRef text, void *data);

/* An MlirDiagnosticHandler: appends the diagnostic to the lsim_strbuf
 * `data`, "; " between diagnostics, and reports it handled. */
MlirLogicalResult lsim_strbuf_collect_diagnostic(MlirDiagnostic diagnostic, void *data);

#endif
