/* lower/lowering.c: the lowerer, lsim_lower and the lowering it gives.
 * JAX counterparts: jax.jit(f, backend=...) (its deprecation warning, and
 * the backend resolved when tracing starts), jit(f).trace(*args) (the
 * checks tracing makes, each primitive's bind), .lower(): pxla's device
 * assignment (the pinned backend, else the default device's, which
 * initializes every backend; its platform is the lowering platform when none
 * are given), then mlir.py lower_jaxpr_to_module; with for_export,
 * export/_export.py's default platform (before tracing) and checks.  A
 * lowering is its LoweringResult. */
#include "lowersim/alloc.h"
#include "lowersim/lowering.h"
#include "lowersim/mlir_text.h"
#include "dce.h"
#include "export.h"
#include "lower_jaxpr_to_module.h"
#include "sanitize_name.h"
#include "spill.h"
#include "support/mlir_text.h"
#include "support/options.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <mlir-c/Diagnostics.h>
#include <mlir-c/Dialect/Func.h>

#include <locale.h>
#include <stdatomic.h>
#include <stdio.h>
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
  bool *kept_args; /* per program argument: the module takes it (kept_var_idx) */
  size_t num_args;
  bool verified; /* verified and not changed since: printed assuming it */
  lsimp_spill *spill; /* main's body printed as it was lowered, or NULL */
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
  lsim_lowerer *l = lsim_calloc(1, sizeof *l);
  shared_mlir *s = lsim_calloc(1, sizeof *s);
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

/* pjit.py _parse_jit_arguments: jax.jit(f, backend=...) warns (the text names
 * "cpu" whatever the backend; the same at 0.10.2 and at cec06d116c). */
static const char jit_backend_deprecated[] =
    "backend and device argument on jit is deprecated. You can use `jax.device_put(..., "
    "jax.local_devices(backend=\"cpu\")[0])` on the inputs to the jitted function to get the "
    "same behavior.";

/* Where the lowering runs: the pinned backend (jit(backend=), resolved when
 * tracing starts), else the default device's backend (pxla
 * _get_and_check_device_assignment -> get_default_device, which initializes
 * every backend); and the lowering platforms: the request's, else export's
 * default_export_platform() (looked up before tracing), else the device's
 * platform (jit's `lowering_platforms or (backend.platform,)`). */
typedef struct placement {
  const lsim_backend *device;
  const char *const *platforms;
  size_t num_platforms;
  const char *export_platform; /* export without platforms=: the default backend's */
} placement;

/* What happens before the function is traced, after jax.jit's arguments:
 * export's default platform, jit(backend=)'s backend. */
static int before_trace(const lsim_lowering_request *req, lsim_runtime *rt, placement *at,
                        lsim_error *err) {
  int rc = LSIM_OK;
  if (req->for_export && req->num_platforms == 0) {
    const lsim_backend *def = NULL;
    rc = lsim_runtime_get_backend(rt, NULL, &def, err);
    at->export_platform = rc ? NULL : def->platform;
  }
  if (!rc && req->backend)
    rc = lsim_runtime_get_backend(rt, req->backend, &at->device, err);
  return rc;
}

/* in_shardings over the request's devices apply when the kept program has
 * args to shard (pxla.py _get_and_check_device_assignment sees no sharding
 * else). */
static bool sharded(const lsim_lowering_request *req, const lsim_program *prog) {
  return req->num_devices && prog->num_args;
}

/* After tracing and dead-code elimination: pxla
 * _get_and_check_device_assignment.  jit(backend=) became the in and out
 * shardings of the kept arguments and the outputs; with none of them (no
 * argument kept, nothing returned) no sharding names a device and the
 * default device is taken after all.  in_shardings over devices name their
 * backend.  Then the lowering platforms. */
static int device_assignment(const lsim_lowering_request *req, const lsim_program *prog,
                             lsim_runtime *rt, placement *at, lsim_error *err) {
  if (at->device && prog->num_args == 0 && lsim_program_num_outputs(prog) == 0)
    at->device = NULL;
  if (sharded(req, prog))
    at->device = req->devices[0].backend;
  bool pinned = at->device != NULL;
  int rc = pinned ? LSIM_OK : lsim_runtime_get_backend(rt, NULL, &at->device, err);
  if (rc)
    return rc;
  if (req->explain) {
    char line[LSIM_PLATFORM_NAME_MAX + 160];
    snprintf(line, sizeof line, "device assignment: %s's first device (%s)",
             at->device->platform,
             pinned ? "jit(backend=...)'s, the shardings of the arguments and outputs"
                    : "get_default_device(), after initializing the backends");
    req->explain(req->explain_data, LSIM_EXPLAIN_SOURCE, 0,
                 LSIM_JAX_SOURCE("jax/_src/interpreters/pxla.py", "lower_sharding_computation"));
    req->explain(req->explain_data, LSIM_EXPLAIN_STEP, 0, line);
  }
  at->platforms = req->platforms;
  at->num_platforms = req->num_platforms;
  if (at->num_platforms == 0) {
    at->platforms = at->export_platform ? &at->export_platform : &at->device->platform;
    at->num_platforms = 1;
  }
  return LSIM_OK;
}

static int make_lowering(lsim_lowerer *l, lsim_module_context *mc, bool verified,
                         lsimp_spill *spill, lsim_lowering **out, lsim_error *err) {
  lsim_lowering *lowering = lsim_malloc(sizeof *lowering);
  if (!lowering) {
    lsim_module_context_destroy(mc);
    lsimp_spill_destroy(spill);
    return lsimp_fail_oom(err);
  }
  atomic_fetch_add(&l->shared->refs, 1);
  *lowering = (lsim_lowering){.module_context = mc, .shared = l->shared, .verified = verified,
                              .spill = spill};
  *out = lowering;
  return LSIM_OK;
}

/* jax.jit(f, backend=..., in_shardings=...) (pjit.py _parse_jit_arguments):
 * backend= warns first; with in_shardings too it is refused.  The devices of
 * in_shardings are the first N of one backend, in order. */
static int parse_jit_arguments(const lsim_lowering_request *req, lsim_runtime *rt,
                               lsim_error *err) {
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
  int rc = req->backend ? lsim_runtime_warn(rt, "DeprecationWarning", jit_backend_deprecated, err)
                        : LSIM_OK;
  if (!rc && req->backend && req->num_devices)
    rc = lsimp_raise0(err, LSIM_E_JIT_BACKEND_IN_SHARDINGS);
  return rc;
}

/* pxla.py lower_sharding_computation: on more than one device, the ordered
 * effects must all be shardable. */
static int check_ordered_effects(const lsim_program *prog, size_t num_devices, lsim_error *err) {
  if (num_devices <= 1)
    return LSIM_OK;
  size_t n = lsim_program_ordered_effects(prog, NULL, 0), unsupported = 0;
  lsim_effect_kind *kinds = lsim_malloc_array(n + 1, sizeof *kinds);
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

static int keep_kept_args(lsim_lowering *l, const lsim_program *prog, bool keep_unused,
                          const lsimp_dce_result *kept, lsim_error *err);

/* pxla._dce_jaxpr, narrated. */
static int dce(const lsim_lowering_request *req, lsimp_dce_result *out, lsim_error *err) {
  int rc = lsimp_dce(req->program, lsim_registry_profile(req->registry), req->keep_unused, out,
                     err);
  if (rc || !req->explain || (!out->dropped_eqns && !out->dropped_args))
    return rc;
  const lsim_program *prog = req->program;
  char line[LSIM_AVAL_TEXT_MAX + 160];
  snprintf(line, sizeof line,
           "jit's dead-code elimination (pxla._dce_jaxpr): %zu equation%s and %zu argument%s "
           "dropped",
           out->dropped_eqns, out->dropped_eqns == 1 ? "" : "s", out->dropped_args,
           out->dropped_args == 1 ? "" : "s");
  req->explain(req->explain_data, LSIM_EXPLAIN_SOURCE, 0,
               LSIM_JAX_SOURCE("jax/_src/interpreters/pxla.py", "_dce_jaxpr"));
  req->explain(req->explain_data, LSIM_EXPLAIN_STEP, 0, line);
  for (size_t i = 0; i < prog->num_eqns; i++) {
    if (out->kept_eqn[i])
      continue;
    snprintf(line, sizeof line, "equation %zu (%s): no result is used and it has no effects", i,
             prog->eqns[i].primitive->name);
    req->explain(req->explain_data, LSIM_EXPLAIN_DECISION, 0, line);
  }
  for (size_t a = 0; !req->keep_unused && a < prog->num_args; a++) {
    if (out->used_value[a])
      continue;
    char aval[LSIM_AVAL_TEXT_MAX];
    snprintf(line, sizeof line, "argument %zu (%s%s): unused (keep_unused=False)", a,
             lsim_aval_format(&prog->args[a], aval, sizeof aval),
             prog->donated && prog->donated[a] ? ", donated" : "");
    req->explain(req->explain_data, LSIM_EXPLAIN_DECISION, 0, line);
  }
  return rc;
}

/* Lowers `prog` (req's program checked, traced and DCE'd) once the device is
 * known. */
static int lower_module(lsim_lowerer *l, const lsim_lowering_request *req,
                        const lsim_program *prog, placement *at, lsimp_spill *spill,
                        lsim_module_context **mc, lsim_error *err) {
  lsim_runtime *rt = lsim_registry_runtime(req->registry);
  int rc = device_assignment(req, prog, rt, at, err);
  size_t num_devices = sharded(req, prog) ? req->num_devices : 1;
  if (!rc)
    rc = check_ordered_effects(prog, num_devices, err);
  if (rc)
    return rc;
  char *name = lsimp_module_name(prog->function_name ? prog->function_name : "f", l->utf8);
  if (!name)
    return lsimp_fail_oom(err);
  lsim_lowering_parameters params = LSIM_LOWERING_PARAMETERS_INIT(
      .for_export = req->for_export, .enable_x64 = req->enable_x64);
  lsim_module_context_options context = LSIM_MODULE_CONTEXT_OPTIONS_INIT(
          .runtime = rt, .profile = lsim_registry_profile(req->registry),
          .platforms = at->platforms, .num_platforms = at->num_platforms, .backend = at->device,
          .device_assignment = sharded(req, prog) ? req->devices : NULL,
          .num_devices = sharded(req, prog) ? req->num_devices : 0,
          .mlir_context = l->shared->mlir,
          .lowering_parameters = &params, .explain = req->explain,
          .explain_data = req->explain_data, .explain_ops = req->explain_ops,
          .abstract_device = req->abstract_device);
  /* jit(backend=) gives every arg and result a SingleDeviceSharding of the
   * backend's first device (pjit.py _create_sharding_with_device_backend):
   * replicated over the empty mesh. */
  static const lsim_mesh empty = {.kind = LSIM_MESH_EMPTY};
  const lsim_mesh *single_device = req->backend ? &empty : NULL;
  /* in_shardings: the args replicated over the devices' mesh; the results
   * unspecified. */
  lsim_mesh axis = {.kind = LSIM_MESH_AXIS, .size = (int64_t)num_devices};
  lsimp_module_request module = {name, prog, req->registry, &context,
                                 sharded(req, prog) ? &axis : single_device, single_device,
                                 !req->skip_verify, spill};
  rc = lsimp_lower_jaxpr_to_module(&module, mc, err);
  free(name);
  if (!rc && req->for_export &&
      (rc = lsimp_export(*mc, req->disabled_checks, req->num_disabled_checks, err))) {
    lsim_module_context_destroy(*mc);
    *mc = NULL;
  }
  return rc;
}

/* Whether main's body is to be printed as it is lowered (the request's
 * stream_min_eqns). */
static bool streams(const lsim_lowering_request *req, const lsim_program *prog) {
  return req->stream_min_eqns && prog->num_eqns >= req->stream_min_eqns && !req->for_export &&
         !req->explain && !req->skip_verify;
}

/* A spill, or NULL when there is no temporary file for one (the lowering
 * then holds the whole module) or no memory (which the lowering meets
 * again). */
static lsimp_spill *make_spill(void) {
  lsimp_spill *spill = NULL;
  lsim_error ignored = LSIM_ERROR_INIT;
  lsimp_spill_create(&spill, &ignored);
  lsim_error_clear(&ignored);
  return spill;
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
  unsigned long text_failures = lsimp_strbuf_failures();
  rc = lsim_program_check(req.program, err);
  placement at = {0};
  if (!rc)
    rc = parse_jit_arguments(&req, lsim_registry_runtime(req.registry), err);
  if (!rc)
    rc = before_trace(&req, lsim_registry_runtime(req.registry), &at, err);
  if (!rc)
    rc = lsim_program_trace_for(req.program, lsim_registry_profile(req.registry), err);
  lsimp_dce_result kept = {0};
  if (!rc)
    rc = dce(&req, &kept, err);
  lsim_module_context *mc = NULL;
  lsimp_spill *spill = NULL;
  if (!rc && streams(&req, &kept.program))
    spill = make_spill();
  if (!rc)
    rc = lower_module(l, &req, &kept.program, &at, spill, &mc, err);
  if (lsimp_strbuf_failures() != text_failures) { /* a name or a narration line lost */
    if (!rc)
      lsim_module_context_destroy(mc);
    rc = lsimp_fail_oom(err);
  }
  if (rc)
    lsimp_spill_destroy(spill);
  /* export's passes change the module after it was verified. */
  bool verified = !req.skip_verify && !req.for_export;
  if (!rc)
    rc = make_lowering(l, mc, verified, spill, out, err);
  if (!rc && (rc = keep_kept_args(*out, req.program, req.keep_unused, &kept, err)))
    *out = NULL;
  lsimp_dce_free(&kept);
  return rc;
}

/* Which arguments the module takes (what jax.export records as
 * module_kept_var_idx). */
static int keep_kept_args(lsim_lowering *l, const lsim_program *prog, bool keep_unused,
                          const lsimp_dce_result *kept, lsim_error *err) {
  l->num_args = prog->num_args;
  l->kept_args = lsim_calloc(prog->num_args ? prog->num_args : 1, sizeof *l->kept_args);
  if (!l->kept_args) {
    lsim_lowering_destroy(l);
    return lsimp_fail_oom(err);
  }
  for (size_t a = 0; a < prog->num_args; a++)
    l->kept_args[a] = keep_unused || kept->used_value[a];
  return LSIM_OK;
}

bool lsim_lowering_arg_kept(const lsim_lowering *lowering, size_t i) {
  return lowering && i < lowering->num_args && lowering->kept_args[i];
}

/* --- the lowering ---------------------------------------------------------------- */

void lsim_lowering_destroy(lsim_lowering *lowering) {
  if (!lowering)
    return;
  lsim_module_context_destroy(lowering->module_context);
  lsimp_spill_destroy(lowering->spill);
  release(lowering->shared);
  free(lowering->kept_args);
  free(lowering);
}

MlirModule lsim_lowering_module(const lsim_lowering *lowering) {
  return lsim_module_context_module(lowering->module_context);
}

lsim_module_context *lsim_lowering_module_context(const lsim_lowering *lowering) {
  return lowering->module_context;
}

/* A module lsim_lower verified is printed as lowersim's own (no aliases). */
static lsimp_print_mode print_mode(const lsim_lowering *lowering) {
  return lowering->verified ? LSIMP_PRINT_OWN : LSIMP_PRINT_CHECKED;
}

/* The module through `write`; main's body from the spill when it has one. */
static bool print_to(const lsim_lowering *lowering, lsimp_text_writer write, void *dest) {
  MlirOperation module = mlirModuleGetOperation(lsim_lowering_module(lowering));
  return lowering->spill
             ? lsimp_spill_print(lowering->spill, module, print_mode(lowering), write, dest)
             : lsimp_mlir_print_to(module, print_mode(lowering), write, dest);
}

char *lsim_lowering_print(const lsim_lowering *lowering) {
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  if (!print_to(lowering, lsimp_strbuf_write, &sb)) {
    lsimp_strbuf_free(&sb);
    return NULL;
  }
  return lsimp_strbuf_take(&sb);
}

bool lsim_lowering_print_to(const lsim_lowering *lowering, lsim_text_writer write, void *data) {
  return lowering && write && print_to(lowering, write, data);
}

static bool to_file(void *dest, const char *data, size_t n) {
  return fwrite(data, 1, n, dest) == n;
}

int lsim_lowering_write(const lsim_lowering *lowering, FILE *out, lsim_error *err) {
  if (!lowering || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_lowering_write: NULL argument");
  bool printed = print_to(lowering, to_file, out);
  if (ferror(out))
    return lsim_error_set(err, LSIM_E_IO, "the module could not be written");
  return printed ? LSIM_OK : lsimp_fail_oom(err);
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
