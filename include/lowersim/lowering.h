/* lowersim/lowering.h: lowering a program: the lowerer, the request and the
 * lowering it gives.
 *
 * lsim_lower is jax.jit(f).trace(*args).lower(lowering_platforms=...): the
 * checks JAX makes while tracing, jit's dead-code elimination (equations
 * nothing uses and that have no effects, then unused arguments), the pinned
 * or default backend (pxla's device assignment), then mlir.py's
 * lower_jaxpr_to_module (donation, the main function, each equation
 * through jaxpr_subcomp and lower_per_platform, verification).  A lowering is mlir.py's
 * LoweringResult: the module and its module context (host callbacks,
 * channels, keepalives); it owns what it references. */
#ifndef LOWERSIM_LOWERING_H
#define LOWERSIM_LOWERING_H

#include "lowersim/error.h"
#include "lowersim/module_context.h"
#include "lowersim/program.h"
#include "lowersim/registry.h"

#include <mlir-c/IR.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reuses one MLIR context (threading off, unregistered dialects allowed,
 * `func` loaded) across lowerings; use one lowerer per thread.  The context
 * lives until the lowerer and every lowering made with it are destroyed. */
typedef struct lsim_lowerer lsim_lowerer;
int lsim_lowerer_create(lsim_lowerer **out, lsim_error *err);
void lsim_lowerer_destroy(lsim_lowerer *lowerer);
MlirContext lsim_lowerer_mlir_context(const lsim_lowerer *lowerer);

typedef struct lsim_lowering_request {
  size_t struct_size;              /* LSIM_LOWERING_REQUEST_INIT */
  const lsim_registry *registry;   /* borrowed: the rules, the runtime and the JAX profile */
  const lsim_program *program;     /* borrowed, for the call only */
  const char *const *platforms;    /* lowering platforms; 0 of them: the default backend's */
  size_t num_platforms;
  const char *backend;             /* pinned backend (jit(backend=...)), or NULL */
  /* jit(f, in_shardings=NamedSharding(Mesh(devices, ("x",)), P())): every
   * arg replicated over these devices (the first num_devices of one
   * backend, in order; borrowed), which become the device assignment when
   * the program has args.  NULL: none (the default or pinned backend's
   * first device). */
  const lsim_device *devices;
  size_t num_devices;
  bool keep_unused;                /* jit(keep_unused=True): no dead-code elimination (no
                                      argument or equation is dropped) */
  bool enable_x64;                 /* jax_enable_x64 (needed for 64-bit avals): the
                                      platform index is an int64 */
  bool for_export;                 /* jax.export.export(jit(f), platforms=...)(*args):
                                      LoweringParameters.for_export, then export's checks
                                      and its jax.uses_shape_polymorphism */
  const char *const *disabled_checks; /* with for_export: DisabledSafetyCheck's, each as
                                         str() spells it: "platform", "custom_call:T" */
  size_t num_disabled_checks;
  lsim_explain_fn explain;         /* optional narration (lowersim explain) */
  void *explain_data;
  bool skip_verify;                /* benchmarks only: no verification */
  /* The use_abstract_mesh block the lowering runs in (borrowed, for the
   * call only); NULL: none. */
  const lsim_abstract_device *abstract_device;
  bool explain_ops;                /* with explain: anchor each op to its step
                                      (lsim_module_context_explain_op_line) */
  /* For a lowering that is printed and not looked at otherwise: when the
   * program has at least this many equations (0: never), main's body is
   * printed while it is lowered, each op verified first, into an unlinked
   * temporary file ($TMPDIR, else /tmp), and each op freed once no later
   * equation reads its results, so memory stays about flat in the number
   * of equations.  Printing gives the same text; lsim_lowering_module's
   * main then holds an op "lsimp.spilled_body" in place of its body.  Not
   * with for_export, explain or skip_verify, and not when no temporary
   * file can be made (the lowering then holds the whole module). */
  size_t stream_min_eqns;
} lsim_lowering_request;

#define LSIM_LOWERING_REQUEST_INIT(...) \
  {.struct_size = sizeof(lsim_lowering_request), __VA_ARGS__}

/* Whether `check` spells a jax.export DisabledSafetyCheck: "platform" or
 * "custom_call:TARGET" (TARGET "ALL" allows every target); else
 * LSIM_E_INVALID_ARGUMENT saying what the spellings are. */
int lsim_check_disabled_safety_check(const char *check, lsim_error *err);

/* A lowered module and its module context. */
typedef struct lsim_lowering lsim_lowering;

/* Lowers request->program (see the top of this header).  On failure nothing
 * is returned.  The lowering (owned) can be printed, executed and destroyed
 * at any time later: it needs only its host callbacks' user data. */
int lsim_lower(lsim_lowerer *lowerer, const lsim_lowering_request *request, lsim_lowering **out,
               lsim_error *err);
void lsim_lowering_destroy(lsim_lowering *lowering);

MlirModule lsim_lowering_module(const lsim_lowering *lowering);
/* Borrowed; its get_backend needs the request's runtime alive. */
lsim_module_context *lsim_lowering_module_context(const lsim_lowering *lowering);

/* Whether the module takes the program's argument `i` (jit dropped the
 * arguments nothing uses unless keep_unused: Exported.module_kept_var_idx). */
bool lsim_lowering_arg_kept(const lsim_lowering *lowering, size_t i);

/* The module as MLIR text (owned, caller frees), or NULL when out of memory. */
char *lsim_lowering_print(const lsim_lowering *lowering);

/* The same text written to `out` as it is printed, in chunks of 16 KiB, so
 * the whole text is never held in memory.  LSIM_OK, LSIM_E_IO when a write
 * to `out` failed (ferror), or LSIM_E_NO_MEMORY (a streamed lowering's
 * printer needs 128 KiB); on failure the caller discards what `out`
 * received. */
int lsim_lowering_write(const lsim_lowering *lowering, FILE *out, lsim_error *err);

/* The same text handed to `write(data, chunk, n)` as it is printed, in chunks
 * of up to 16 KiB (never NUL-terminated); `write` returns false to stop the
 * writes.  True when every write succeeded (a caller that only hashes or
 * counts the text never holds it whole). */
typedef bool (*lsim_text_writer)(void *data, const char *chunk, size_t n);
bool lsim_lowering_print_to(const lsim_lowering *lowering, lsim_text_writer write, void *data);

/* Runs the host callbacks once each, in index order, as the runtime would;
 * the first failure stops the run. */
int lsim_lowering_execute(lsim_lowering *lowering, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_LOWERING_H */
