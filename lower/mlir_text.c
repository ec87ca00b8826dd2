/* lower/mlir_text.c: MLIR modules as text (lowersim/mlir_text.h). */
#include "lowersim/mlir_text.h"
#include "support/mlir_text.h"
#include "support/raise.h"

#include <mlir-c/Diagnostics.h>

#include <string.h>

char *lsim_mlir_print(MlirOperation op) { return lsimp_mlir_print(op, LSIMP_PRINT_CHECKED); }

int lsim_mlir_parse_module(MlirContext mlir, const char *text, MlirModule *out, lsim_error *err) {
  *out = (MlirModule){NULL};
  lsim_error deep = LSIM_ERROR_INIT;
  if (lsimp_mlir_text_bound(text, strlen(text), &deep)) {
    int rc = deep.code == LSIM_E_NO_MEMORY
                 ? lsimp_fail_oom(err)
                 : lsim_error_set(err, LSIM_E_INVALID_INPUT, "the module does not parse: %s",
                                  lsim_error_message(&deep));
    lsim_error_clear(&deep);
    return rc;
  }
  lsimp_strbuf said = LSIMP_STRBUF_INIT;
  MlirDiagnosticHandlerID handler =
      mlirContextAttachDiagnosticHandler(mlir, lsimp_strbuf_collect_diagnostic, &said, NULL);
  *out = mlirModuleCreateParse(mlir, mlirStringRefCreateFromCString(text));
  mlirContextDetachDiagnosticHandler(mlir, handler);
  int rc = LSIM_OK;
  if (mlirModuleIsNull(*out))
    rc = lsimp_strbuf_failed(&said)
             ? lsimp_fail_oom(err)
             : lsim_error_set(err, LSIM_E_INVALID_INPUT, "the module does not parse: %s",
                              lsimp_strbuf_cstr(&said));
  lsimp_strbuf_free(&said);
  return rc;
}

int lsim_mlir_reprint(MlirContext mlir, const char *text, char **out, lsim_error *err) {
  MlirModule m;
  *out = NULL;
  int rc = lsim_mlir_parse_module(mlir, text, &m, err);
  if (rc)
    return rc;
  /* The parser has verified the module: the printer need not again. */
  *out = lsimp_mlir_print(mlirModuleGetOperation(m), LSIMP_PRINT_VERIFIED);
  mlirModuleDestroy(m);
  return *out ? LSIM_OK : lsimp_fail_oom(err);
}
