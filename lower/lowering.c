/* lower/lowering.c: the lowerer, lsim_lower and the lowering it gives.
 * JAX counterparts: jit(f).trace(*args).lower(): the checks tracing makes
 * (each primitive's bind), pxla's device assignment (the pinned backend,
 * else the default device's, whose platform is the lowering platform when
 * none are given), then mlir.py lower_jaxpr_to_module; a lowering is its
 * LoweringResult. */
#include "lowersim/lowering.h"
#include "lowersim/mlir_text.h"
#include "lower_jaxpr_to_module.h"
#include "sanitize_name.h"
#include "support/options.h"
#include "support/raise.h"

#include <mlir-c/Diagnostics.h>
#include <mlir-c/Dialect/Func.h>

#include <locale.h>
#include <stdatomic.h>
#include <stdlib.h>

/* The MLIR context a lowerer and its lowerings share: it goes with the last
 * of them. */
typedef struct shared_mlir {
  atomic_int refs;
  MlirContext mlir;
} shared_mlir;

struct lsim_lowerer {
  shared_mlir *shared;
  locale_t utf8; /* C.UTF-8, for Unicode \w in module names; 0 if absent */
};

struct lsim_lowering {
  lsim_module_context *module_context;
  shared_mlir *shared;
};

static void release(shared_mlir *s) {
  if (s && atomic_fetch_sub(&s->refs, 1) == 1) {
    mlirContextDestroy(s->mlir);
    free(s);
  }
}

/* Diagnostics nobody asked for (verification attaches its own handler)
 * stay off stderr. */
static MlirLogicalResult ignore_diagnostic(MlirDiagnostic diagnostic, void *data) {
  (void)diagnostic, (void)data;
  return mlirLogicalResultSuccess();
}

int lsim_lowerer_create(lsim_lowerer **out, lsim_error *err) {
  if (!out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_lowerer_create: out is NULL");
  lsim_lowerer *l = calloc(1, sizeof *l);
  shared_mlir *s = calloc(1, sizeof *s);
  if (!l || !s) {
    free(l);
    free(s);
    return lsimp_fail_oom(err);
  }
  atomic_init(&s->refs, 1);
  s->mlir = mlirContextCreateWithThreading(false);
  mlirContextSetAllowUnregisteredDialects(s->mlir, true);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__func__(), s->mlir);
  mlirContextAttachDiagnosticHandler(s->mlir, ignore_diagnostic, NULL, NULL);
  l->shared = s;
  l->utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
  *out = l;
  return LSIM_OK;
}

void lsim_lowerer_destroy(lsim_lowerer *l) {
  if (!l)
    return;
  release(l->shared);
  if (l->utf8)
    freelocale(l->utf8);
  free(l);
}

MlirContext lsim_lowerer_mlir_context(const lsim_lowerer *l) { return l->shared->mlir; }

/* --- lsim_lower ----------------------------------------------------------------- */

/* What JAX raises while tracing, before any lowering: every equation's
 * trace-time check (its primitive's, as bind runs it), in program order. */
static int trace(const lsim_program *prog, lsim_error *err) {
  size_t num_values = lsim_program_num_values(prog);
  lsim_aval *avals = malloc((num_values + 1) * sizeof *avals);
  lsim_aval *in = NULL;
  int rc = avals ? LSIM_OK : lsimp_fail_oom(err);
  if (!rc)
    lsim_program_value_avals(prog, avals);
  for (size_t i = 0; i < prog->num_eqns && !rc; i++) {
    const lsim_eqn *e = &prog->eqns[i];
    if (!e->primitive->trace_check)
      continue;
    lsim_aval *grown = realloc(in, (e->num_operands + 1) * sizeof *in);
    if (!grown)
      rc = lsimp_fail_oom(err);
    in = grown ? grown : in;
    for (size_t j = 0; !rc && j < e->num_operands; j++)
      in[j] = avals[e->operands[j]];
    if (!rc)
      rc = e->primitive->trace_check(in, e->num_operands, e->results, e->num_results, e->params,
                                     err);
  }
  free(in);
  free(avals);
  return rc;
}

/* The pinned backend, then the lowering platforms (the default backend's
 * platform when none are given). */
static int device_assignment(const lsim_lowering_request *req, lsim_runtime *rt,
                             const lsim_backend **pinned, const char *const **platforms,
                             size_t *n, lsim_error *err) {
  *pinned = NULL;
  int rc = req->backend ? lsim_runtime_get_backend(rt, req->backend, pinned, err) : LSIM_OK;
  if (rc)
    return rc;
  *platforms = req->platforms;
  *n = req->num_platforms;
  if (*n == 0) {
    const lsim_backend *b = *pinned;
    if (!b && (rc = lsim_runtime_get_backend(rt, NULL, &b, err)))
      return rc;
    *platforms = &b->platform;
    *n = 1;
  }
  return LSIM_OK;
}

static int make_lowering(lsim_lowerer *l, lsim_module_context *mc, lsim_lowering **out,
                         lsim_error *err) {
  lsim_lowering *lowering = malloc(sizeof *lowering);
  if (!lowering) {
    lsim_module_context_destroy(mc);
    return lsimp_fail_oom(err);
  }
  atomic_fetch_add(&l->shared->refs, 1);
  *lowering = (lsim_lowering){mc, l->shared};
  *out = lowering;
  return LSIM_OK;
}

/* Lowers `req` (its program checked) once the backend is known. */
static int lower_module(lsim_lowerer *l, const lsim_lowering_request *req, lsim_module_context **mc,
                        lsim_error *err) {
  lsim_runtime *rt = lsim_registry_runtime(req->registry);
  const lsim_backend *pinned = NULL;
  const char *const *platforms = NULL;
  size_t n = 0;
  int rc = device_assignment(req, rt, &pinned, &platforms, &n, err);
  if (rc)
    return rc;
  const lsim_program *prog = req->program;
  char *name = lsimp_module_name(prog->function_name ? prog->function_name : "f", l->utf8);
  if (!name)
    return lsimp_fail_oom(err);
  lsim_lowering_parameters params = LSIM_LOWERING_PARAMETERS_INIT(.for_export = req->for_export,
                                                                  .enable_x64 = req->enable_x64);
  lsim_module_context_options context = LSIM_MODULE_CONTEXT_OPTIONS_INIT(
          .runtime = rt, .profile = lsim_registry_profile(req->registry), .platforms = platforms,
          .num_platforms = n, .backend = pinned, .mlir_context = l->shared->mlir,
          .lowering_parameters = &params, .explain = req->explain,
          .explain_data = req->explain_data, .abstract_device = req->abstract_device);
  lsimp_module_request module = {name, prog, req->registry, &context, !req->skip_verify};
  rc = lsimp_lower_jaxpr_to_module(&module, mc, err);
  free(name);
  return rc;
}

int lsim_lower(lsim_lowerer *l, const lsim_lowering_request *given, lsim_lowering **out,
               lsim_error *err) {
  lsim_lowering_request req;
  if (!l || !given || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_lower: NULL argument");
  *out = NULL;
  int rc = lsimp_options_copy(&req, sizeof req, given, "lsim_lowering_request", err);
  if (rc)
    return rc;
  if (!req.registry || !req.program)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "lsim_lower: the request needs a registry and a program");
  rc = lsim_program_check(req.program, err);
  if (!rc)
    rc = trace(req.program, err);
  lsim_module_context *mc = NULL;
  if (!rc)
    rc = lower_module(l, &req, &mc, err);
  return rc ? rc : make_lowering(l, mc, out, err);
}

/* --- the lowering ---------------------------------------------------------------- */

void lsim_lowering_destroy(lsim_lowering *lowering) {
  if (!lowering)
    return;
  lsim_module_context_destroy(lowering->module_context);
  release(lowering->shared);
  free(lowering);
}

MlirModule lsim_lowering_module(const lsim_lowering *lowering) {
  return lsim_module_context_module(lowering->module_context);
}

lsim_module_context *lsim_lowering_module_context(const lsim_lowering *lowering) {
  return lowering->module_context;
}

char *lsim_lowering_print(const lsim_lowering *lowering) {
  return lsim_mlir_print(mlirModuleGetOperation(lsim_lowering_module(lowering)));
}

int lsim_lowering_execute(lsim_lowering *lowering, lsim_error *err) {
  if (!lowering)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_lowering_execute: NULL argument");
  lsim_module_context *mc = lowering->module_context;
  for (size_t i = 0; i < lsim_module_context_host_callback_count(mc); i++) {
    const lsim_host_callback *cb = lsim_module_context_host_callback_at(mc, i);
    lsim_host_callback_call call = {.index = i, .error = err};
    int rc = cb->fn ? cb->fn(cb->user_data, &call) : LSIM_OK;
    if (rc)
      return rc;
  }
  return LSIM_OK;
}
