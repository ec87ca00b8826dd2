/* fuzz/checker.c: the checker: the lowerer the checks lower with, the MLIR
 * context printed modules are parsed back in, and where a check runs: in
 * this process (check.c) or in a child (isolate.c). */
#include "internal.h"

#include "lowersim/alloc.h"

#include <mlir-c/Dialect/Func.h>

#include <stdlib.h>

int lsim_fuzz_checker_create(lsim_fuzz_checker **out, lsim_error *err) {
  lsim_fuzz_checker *c = lsim_calloc(1, sizeof *c);
  if (!c)
    return lsim_error_set(err, LSIM_E_NO_MEMORY, "out of memory");
  int rc = lsim_lowerer_create(&c->lowerer, err);
  if (rc) {
    free(c);
    return rc;
  }
  c->parse = mlirContextCreateWithThreading(false);
  mlirContextSetAllowUnregisteredDialects(c->parse, true);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__func__(), c->parse);
  c->iso = (lsim_fuzz_isolation){-1, -1};
  *out = c;
  return LSIM_OK;
}

int lsim_fuzz_checker_isolate(lsim_fuzz_checker *c, lsim_error *err) {
  if (c->isolated)
    return LSIM_OK;
  int rc = lsim_fuzz_isolation_open(&c->iso, err);
  c->isolated = rc == LSIM_OK;
  return rc;
}

void lsim_fuzz_checker_destroy(lsim_fuzz_checker *c) {
  if (!c)
    return;
  lsim_fuzz_isolation_close(&c->iso);
  mlirContextDestroy(c->parse);
  lsim_lowerer_destroy(c->lowerer);
  free(c);
}

int lsim_fuzz_check(lsim_fuzz_checker *c, const lsim_scenario *s, lsim_fuzz_result *res,
                    lsim_error *err) {
  return c->isolated ? lsim_fuzz_check_in_child(c, &c->iso, s, res, err)
                     : lsim_fuzz_check_here(c, s, res, err);
}
