/* support/mlir_text.c: MLIR's text callbacks into an lsimp_strbuf. */
#include "support/mlir_text.h"

void lsimp_strbuf_append_mlir(MlirStringRef text, void *data) {
  lsimp_strbuf_append(data, text.data, text.length);
}

MlirLogicalResult lsimp_strbuf_collect_diagnostic(MlirDiagnostic diagnostic, void *data) {
  lsimp_strbuf *sb = data;
  if (sb->len)
    lsimp_strbuf_puts(sb, "; ");
  mlirDiagnosticPrint(diagnostic, lsimp_strbuf_append_mlir, sb);
  return mlirLogicalResultSuccess();
}
