/* support/mlir_text.c: MLIR's text callbacks into an lsim_strbuf. */
#include "support/mlir_text.h"

void lsim_strbuf_append_mlir(MlirStringRef text, void *data) {
  lsim_strbuf_append(data, text.data, text.length);
}

MlirLogicalResult lsim_strbuf_collect_diagnostic(MlirDiagnostic diagnostic, void *data) {
  lsim_strbuf *sb = data;
  if (sb->len)
    lsim_strbuf_puts(sb, "; ");
  mlirDiagnosticPrint(diagnostic, lsim_strbuf_append_mlir, sb);
  return mlirLogicalResultSuccess();
}
