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
#include "support/strbuf.h"

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

/* in_shardings over the request's devices apply when there are args to
 * shard (pxla.py _get_and_check_device_assignment sees no sharding else). */
static bool sharded(const lsim_lowering_request *req) {
  return req->num_devices && req->program->num_args;
}

/* The pinned backend (jit(backend=), or the sharded devices'), then the
 * lowering platforms (the default backend's platform when none are
 * given). */
static int device_assignment(const lsim_lowering_request *req, lsim_runtime *rt,
                             const lsim_backend **pinned, const char *const **platforms,
                             size_t *n, lsim_error *err) {
  *pinned = sharded(req) ? req->devices[0].backend : NULL;
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

/* The devices of jit's in_shardings: the first N of one backend, in order. */
static int check_devices(const lsim_lowering_request *req, lsim_error *err) {
  if (req->num_devices && !req->devices)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_lower: num_devices without devices");
  for (size_t i = 0; i < req->num_devices; i++) {
    const lsim_device *d = &req->devices[i];
    if (!d->backend || d->backend != req->devices[0].backend || d->id != (int)i ||
        d->id >= d->backend->device_count)
      return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                            "lsim_lower: the devices are to be the first %zu devices of one "
                            "backend, in order",
                            req->num_devices);
  }
  if (req->backend && req->num_devices)
    return lsimp_raise0(err, LSIM_E_JIT_BACKEND_IN_SHARDINGS);
  return LSIM_OK;
}

/* pxla.py lower_sharding_computation: on more than one device, the ordered
 * effects must all be shardable. */
static int check_ordered_effects(const lsim_program *prog, size_t num_devices, lsim_error *err) {
  if (num_devices <= 1)
    return LSIM_OK;
  size_t n = lsim_program_ordered_effects(prog, NULL, 0), unsupported = 0;
  lsim_effect_kind *kinds = malloc((n + 1) * sizeof *kinds);
  if (!kinds)
    return lsimp_fail_oom(err);
  lsim_program_ordered_effects(prog, kinds, n);
  lsimp_strbuf list = LSIMP_STRBUF_INIT;
  lsimp_strbuf_putc(&list, '[');
  for (size_t i = 0; i < n; i++) {
    if (kinds[i].effect && kinds[i].effect->shardable)
      continue;
    /* Effects have Python's default repr; the address is lowersim's own. */
    if (kinds[i].effect)
      lsimp_strbuf_printf(&list, "%s<%s object at 0x7f0000000000>", unsupported ? ", " : "",
                          kinds[i].effect->type);
    else
      lsimp_strbuf_printf(&list, "%s<the ordered effect of %s object at 0x7f0000000000>",
                          unsupported ? ", " : "", kinds[i].primitive->name);
    unsupported++;
  }
  lsimp_strbuf_putc(&list, ']');
  int rc = lsimp_strbuf_failed(&list) ? lsimp_fail_oom(err)
           : unsupported ? lsimp_raise(err, LSIM_E_ORDERED_EFFECTS_DEVICES, lsimp_strbuf_cstr(&list))
                         : LSIM_OK;
  lsimp_strbuf_free(&list);
  free(kinds);
  return rc;
}

/* Lowers `req` (its program checked) once the backend is known. */
static int lower_module(lsim_lowerer *l, const lsim_lowering_request *req, lsim_module_context **mc,
                        lsim_error *err) {
  lsim_runtime *rt = lsim_registry_runtime(req->registry);
  const lsim_backend *pinned = NULL;
  const char *const *platforms = NULL;
  size_t n = 0;
  int rc = device_assignment(req, rt, &pinned, &platforms, &n, err);
  size_t num_devices = sharded(req) ? req->num_devices : 1;
  if (!rc)
    rc = check_ordered_effects(req->program, num_devices, err);
  if (rc)
    return rc;
  const lsim_program *prog = req->program;
  char *name = lsimp_module_name(prog->function_name ? prog->function_name : "f", l->utf8);
  if (!name)
    return lsimp_fail_oom(err);
  lsim_lowering_parameters params = LSIM_LOWERING_PARAMETERS_INIT(.for_export = req->for_export);
  lsim_module_context_options context = LSIM_MODULE_CONTEXT_OPTIONS_INIT(
          .runtime = rt, .profile = lsim_registry_profile(req->registry), .platforms = platforms,
          .num_platforms = n, .backend = pinned,
          .device_assignment = sharded(req) ? req->devices : NULL,
          .num_devices = sharded(req) ? req->num_devices : 0, .mlir_context = l->shared->mlir,
          .lowering_parameters = &params, .explain = req->explain,
          .explain_data = req->explain_data);
  /* jit(backend=) gives every arg and result a SingleDeviceSharding of the
   * backend's first device (pjit.py _create_sharding_with_device_backend):
   * replicated over the empty mesh. */
  static const lsim_mesh empty = {.kind = LSIM_MESH_EMPTY};
  const lsim_mesh *single_device = req->backend ? &empty : NULL;
  /* in_shardings: the args replicated over the devices' mesh; the results
   * unspecified. */
  lsim_mesh axis = {.kind = LSIM_MESH_AXIS, .size = (int64_t)num_devices};
  lsimp_module_request module = {name, prog, req->registry, &context,
                                 sharded(req) ? &axis : single_device, single_device,
                                 !req->skip_verify};
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
    rc = check_devices(&req, err);
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
