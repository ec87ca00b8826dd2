/* lowersim/module_context.h: ModuleContext, as jax/_src/interpreters/mlir.py
 * has it.
 *
 * A module context holds what one module being lowered shares: the MLIR
 * context and module, the lowering platforms (canonicalized), an optional
 * pinned backend, the JAX profile, the channel counter, the host callbacks,
 * keepalives, the aval -> IR type cache, the lowering parameters and the
 * narration sink.  lsim_module_context_replace makes a copy with some fields
 * changed that shares the rest (the channel counter, host callbacks, caches,
 * module) with the original, as JAX's dataclasses.replace does.  A module
 * context and its copies belong to one thread.
 */
#ifndef LOWERSIM_MODULE_CONTEXT_H
#define LOWERSIM_MODULE_CONTEXT_H

#include "lowersim/aval.h"
#include "lowersim/error.h"
#include "lowersim/jax_profile.h"
#include "lowersim/runtime.h"

#include <mlir-c/IR.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* First channel id new_channel hands out (1 is reserved for collectives) and
 * the largest id PjRt accepts. */
#define LSIM_FIRST_CHANNEL 2
#define LSIM_MAX_CHANNEL 65535

/* --- Where ops go ---------------------------------------------------------- */

/* What lowersim's emitters build once per module context (types and
 * attributes every module repeats); opaque. */
typedef struct lsim_emit_cache lsim_emit_cache;

/* An insertion point: ops are appended to `block` at `location` in
 * `context` (mlir.py's `with ir.InsertionPoint(...)`).  Borrowed handles.
 * `cache` is the module context's (lsim_module_context_insertion_point and
 * lsim_insertion_point_in carry it) or NULL: the emitters then build every
 * type and attribute afresh.  The module is the same either way. */
typedef struct lsim_insertion_point {
  MlirContext context;
  MlirBlock block;
  MlirLocation location;
  lsim_emit_cache *cache;
} lsim_insertion_point;

/* --- Host callbacks ------------------------------------------------------ */

/* What the runtime passes a host callback when it invokes it. */
typedef struct lsim_host_callback_call {
  uint64_t index;         /* the callback's index in its module */
  size_t returned_values; /* out: how many values the callback returned */
  lsim_error *error;      /* where a failing callback describes its failure
                             (lsim_error_set) */
} lsim_host_callback_call;

/* A host callback as C sees it: a function and its user data.  It returns 0,
 * or a negative status that stops the execution. */
typedef int (*lsim_host_callback_fn)(void *user_data, lsim_host_callback_call *call);

typedef struct lsim_host_callback {
  lsim_host_callback_fn fn; /* may be NULL: then the callback does nothing */
  void *user_data;          /* borrowed: it must live as long as the lowering */
} lsim_host_callback;

/* --- Narration (lowersim explain) ---------------------------------------- */

typedef enum lsim_explain_kind {
  LSIM_EXPLAIN_STEP,     /* a step of the lowering */
  LSIM_EXPLAIN_DETAIL,   /* a fact under the current step */
  LSIM_EXPLAIN_DECISION, /* a choice JAX makes: a rule kept, a branch shared */
  LSIM_EXPLAIN_ALLOC,    /* a channel or host-callback index handed out */
  LSIM_EXPLAIN_ERROR,    /* the error that ends the lowering */
  LSIM_EXPLAIN_TEXT,     /* verbatim text, e.g. a kernel module */
  /* The JAX function the next line narrates, "FILE FUNCTION" (FILE a path
   * of the JAX repository, FUNCTION "name" or "Class.method"), as
   * LSIM_JAX_SOURCE spells it; lsim_jax_source_url makes it a link at a
   * profile's source.  A consumer that does not show links skips it. */
  LSIM_EXPLAIN_SOURCE,
} lsim_explain_kind;

/* The text of an LSIM_EXPLAIN_SOURCE line (a string literal). */
#define LSIM_JAX_SOURCE(file, function) file " " function

/* Receives one line of narration at nesting depth `depth` (borrowed text). */
typedef void (*lsim_explain_fn)(void *data, lsim_explain_kind kind, int depth, const char *text);

/* --- Meshes -------------------------------------------------------------- */

/* A device mesh that a Shardy sharding names, as the module's sdy.mesh op
 * declares it once sdy-lift-inlined-meshes has lifted it (mlir.py
 * lower_jaxpr_to_module): @empty_mesh, @maximal_mesh_<id>, @mesh. */
typedef enum lsim_mesh_kind {
  LSIM_MESH_EMPTY,   /* no axes, no devices: a SingleDeviceSharding's (jit(backend=)) */
  LSIM_MESH_MAXIMAL, /* no axes, one logical device: a callback's maximal sharding */
  LSIM_MESH_AXIS,    /* one axis "x" over the device assignment: Mesh(devices, ("x",)) */
} lsim_mesh_kind;

typedef struct lsim_mesh {
  lsim_mesh_kind kind;
  int64_t device; /* LSIM_MESH_MAXIMAL: the logical device id (an index in the assignment) */
  int64_t size;   /* LSIM_MESH_AXIS: the axis size */
} lsim_mesh;

/* --- The abstract device -------------------------------------------------- */

/* jax.sharding.AbstractDevice: inside `with use_abstract_mesh(AbstractMesh(
 * ..., abstract_device=AbstractDevice(device_kind, num_cores, platform)))`
 * get_abstract_mesh().abstract_device, which Pallas's backends read instead
 * of the default device (tpu_info.get_device_kind, gpu_info.get_device_kind,
 * Mosaic GPU's _infer_arch).  It carries no compute capability. */
typedef struct lsim_abstract_device {
  const char *platform;
  const char *device_kind;
  int num_cores; /* 0: None */
} lsim_abstract_device;

/* --- ModuleContext ------------------------------------------------------- */

/* mlir.LoweringParameters. */
typedef struct lsim_lowering_parameters {
  size_t struct_size; /* LSIM_LOWERING_PARAMETERS_INIT */
  bool for_export;    /* lowering for jax.export (LoweringParameters.for_export) */
  bool enable_x64;    /* jax_enable_x64: dtypes.default_int_dtype() is int64, so main's
                         platform-index argument is tensor<i64> (converted to i32 where
                         lower_per_platform dispatches on it), and Python integer
                         literals are int64 */
} lsim_lowering_parameters;

#define LSIM_LOWERING_PARAMETERS_INIT(...) \
  {.struct_size = sizeof(lsim_lowering_parameters), __VA_ARGS__}

typedef struct lsim_module_context_options {
  size_t struct_size;             /* LSIM_MODULE_CONTEXT_OPTIONS_INIT */
  lsim_runtime *runtime;          /* borrowed; must outlive the context */
  const lsim_jax_profile *profile; /* NULL: the newest */
  const char *const *platforms;   /* the lowering platforms; aliases allowed */
  size_t num_platforms;           /* at least 1 */
  const lsim_backend *backend;    /* pinned backend (borrowed) or NULL */
  /* The axis context, sharding_impls.ShardingContext(num_devices,
   * device_assignment): the devices (copied) the module runs on.  NULL: one,
   * the pinned backend's first device, else the default backend's (looked
   * up when first asked for). */
  const lsim_device *device_assignment;
  size_t num_devices;
  MlirContext mlir_context;       /* borrowed if non-null; else one is created and owned */
  const lsim_lowering_parameters *lowering_parameters; /* copied; NULL: the defaults */
  lsim_explain_fn explain;        /* optional narration, shared with copies */
  void *explain_data;
  /* The use_abstract_mesh block the lowering runs in (copied, shared with
   * copies); NULL: none. */
  const lsim_abstract_device *abstract_device;
  /* With explain: record which step made each op
   * (lsim_module_context_explain_op_line); costs a walk of the module at
   * each step line. */
  bool explain_ops;
  /* Not ModuleContext.all_default_mem_kind: some in or out sharding, or a
   * transfer in the jaxpr, has a memory kind other than "device" (pxla.py
   * are_all_shardings_default_mem_kind: a result in host memory). */
  bool memory_kinds;
} lsim_module_context_options;

#define LSIM_MODULE_CONTEXT_OPTIONS_INIT(...) \
  {.struct_size = sizeof(lsim_module_context_options), __VA_ARGS__}

typedef struct lsim_module_context lsim_module_context;

/* Creates a module context (owned): canonicalizes the platforms with the
 * runtime (which may fail, e.g. LSIM_E_UNKNOWN_ALIAS_PLATFORM) and creates an
 * empty MLIR module. */
int lsim_module_context_create(const lsim_module_context_options *options,
                               lsim_module_context **out, lsim_error *err);

/* Releases this context; what it shares with copies lives until the last
 * copy is destroyed.  NULL is accepted. */
void lsim_module_context_destroy(lsim_module_context *ctx);

/* What lsim_module_context_replace changes; a NULL/false field keeps the
 * original's value. */
typedef struct lsim_module_context_changes {
  size_t struct_size;           /* LSIM_MODULE_CONTEXT_CHANGES_INIT */
  const char *const *platforms; /* canonicalized like create's */
  size_t num_platforms;
  bool set_backend;
  const lsim_backend *backend;
  const lsim_lowering_parameters *lowering_parameters;
} lsim_module_context_changes;

#define LSIM_MODULE_CONTEXT_CHANGES_INIT(...) \
  {.struct_size = sizeof(lsim_module_context_changes), __VA_ARGS__}

/* ModuleContext.replace: a new context (owned) sharing the channel counter,
 * host callbacks, keepalives, caches and MLIR module with `ctx`. */
int lsim_module_context_replace(const lsim_module_context *ctx,
                                const lsim_module_context_changes *changes,
                                lsim_module_context **out, lsim_error *err);

/* Whether `platform` (canonical) is one of the lowering platforms, and its
 * first place among them (`at`, may be NULL): O(1), so that a rule for few
 * of thousands of platforms costs little (lower_per_platform). */
bool lsim_module_context_platform_index(const lsim_module_context *ctx, const char *platform,
                                        size_t *at);

/* The lowering platforms, canonicalized (borrowed). */
const char *const *lsim_module_context_platforms(const lsim_module_context *ctx, size_t *count);

lsim_runtime *lsim_module_context_runtime(const lsim_module_context *ctx);
const lsim_backend *lsim_module_context_pinned_backend(const lsim_module_context *ctx);
const lsim_jax_profile *lsim_module_context_profile(const lsim_module_context *ctx);
/* mesh_lib.get_abstract_mesh().abstract_device (borrowed), or NULL. */
const lsim_abstract_device *lsim_module_context_abstract_device(const lsim_module_context *ctx);
/* ModuleContext.all_default_mem_kind: the options' memory_kinds unset. */
bool lsim_module_context_all_default_mem_kind(const lsim_module_context *ctx);
const lsim_lowering_parameters *
lsim_module_context_lowering_parameters(const lsim_module_context *ctx);

/* The MLIR context and module (borrowed), and the insertion point at the end
 * of the module's body. */
MlirContext lsim_module_context_mlir_context(const lsim_module_context *ctx);
MlirModule lsim_module_context_module(const lsim_module_context *ctx);
lsim_insertion_point lsim_module_context_insertion_point(const lsim_module_context *ctx);

/* ModuleContext.get_backend(optional).  Outcomes, in JAX's order:
 * several platforms: *out = NULL if optional, else LSIM_E_MULTI_PLATFORM_BACKEND;
 * a pinned backend on another platform: NULL if optional, else
 * LSIM_E_BACKEND_PLATFORM_MISMATCH; a pinned backend: it; none pinned: the
 * runtime's get_backend(platforms[0]) (which may fail). */
int lsim_module_context_get_backend(const lsim_module_context *ctx, bool optional,
                                    const lsim_backend **out, lsim_error *err);

/* The device assignment of the axis context (borrowed, shared with copies):
 * the devices given at creation, else the pinned backend's first device,
 * else the default backend's first (which may initialize the runtime's
 * backends and fail as lsim_runtime_get_backend does). */
int lsim_module_context_device_assignment(lsim_module_context *ctx, const lsim_device **out,
                                          size_t *count, lsim_error *err);

/* How many devices the assignment has: as many as given at creation, else 1
 * (mhlo.num_partitions). */
size_t lsim_module_context_num_devices(const lsim_module_context *ctx);

/* Records that a sharding of the module names `mesh` (the inline mesh that
 * sdy-lift-inlined-meshes lifts into an sdy.mesh op); each mesh is recorded
 * once, in the order first named. */
int lsim_module_context_use_mesh(lsim_module_context *ctx, const lsim_mesh *mesh,
                                 lsim_error *err);
size_t lsim_module_context_mesh_count(const lsim_module_context *ctx);
const lsim_mesh *lsim_module_context_mesh_at(const lsim_module_context *ctx, size_t i);

/* ModuleContext.new_channel: 2, 3, ... 65535, then LSIM_E_TOO_MANY_CHANNELS
 * (every later call fails too). */
int lsim_module_context_new_channel(lsim_module_context *ctx, int64_t *out, lsim_error *err);

/* How many channels this module (and its copies) has handed out. */
int64_t lsim_module_context_channel_count(const lsim_module_context *ctx);

/* ModuleContext.add_host_callback: appends a copy of `cb`; `*index` receives
 * its position (0-based).  `primitive` (static, may be NULL) names the
 * primitive whose lowering adds it, for the explain output. */
int lsim_module_context_add_host_callback(lsim_module_context *ctx, const lsim_host_callback *cb,
                                          const char *primitive, uint64_t *index,
                                          lsim_error *err);

size_t lsim_module_context_host_callback_count(const lsim_module_context *ctx);
const lsim_host_callback *lsim_module_context_host_callback_at(const lsim_module_context *ctx,
                                                               size_t i);

/* ModuleContext.add_keepalive: takes ownership of `object`, which
 * `destroy(object)` frees when the last copy of the context is destroyed
 * (destroy may be NULL).  On failure `object` is destroyed at once. */
int lsim_module_context_add_keepalive(lsim_module_context *ctx, void *object,
                                      void (*destroy)(void *), lsim_error *err);
/* How many keepalives the lowering added (jax.export refuses any). */
size_t lsim_module_context_keepalive_count(const lsim_module_context *ctx);

/* mlir.aval_to_ir_type: the MLIR type of an aval (`tensor<4xf32>`,
 * `tensor<i1>`), cached per module context (shared with copies).  Never
 * null for a valid aval: when the cache cannot grow (out of memory) the
 * type is made without it.  Null only for a dtype lowersim does not know. */
MlirType lsim_module_context_aval_to_ir_type(lsim_module_context *ctx, const lsim_aval *aval);

/* How many distinct avals the type cache holds. */
size_t lsim_module_context_type_cache_size(const lsim_module_context *ctx);

/* Narrates one line (printf format) when the context has an explain
 * function; costs one branch otherwise.  `depth_change` is applied after the
 * line: +1 opens a nested step, -1 closes one. */
/* ModuleContext.lowering_cache (shared by the copies replace() makes): an
 * object of the engine's (lower/jaxpr_subcomp.c), owned by the context from
 * set on and destroyed with `destroy` before the module is (a new one
 * destroys the old). */
/* Inserts `op`, a symbol of the module's body, into the module's symbol
 * table (ModuleContext.symbol_table: one per module, shared by replace()'s
 * copies, its uniquing counter shared by every name), which renames it
 * NAME_N on a collision, N the counter's next value; *name: the name as
 * the table left it (the op's own attribute). */
int lsim_module_context_insert_symbol(lsim_module_context *ctx, MlirOperation op,
                                      MlirStringRef *name, lsim_error *err);

void *lsim_module_context_lowering_cache(const lsim_module_context *ctx);
void lsim_module_context_set_lowering_cache(lsim_module_context *ctx, void *cache,
                                            void (*destroy)(void *));

void lsim_module_context_explain(const lsim_module_context *ctx, lsim_explain_kind kind,
                                 int depth_change, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
bool lsim_module_context_explaining(const lsim_module_context *ctx);
/* Narrates the JAX function the next line is about (LSIM_EXPLAIN_SOURCE;
 * `source` as LSIM_JAX_SOURCE spells it). */
void lsim_module_context_explain_source(const lsim_module_context *ctx, const char *source);
/* The error step: "cause: the check in FUNCTION fails on NAME = VALUE,
 * ..." (the JAX function the error catalogue's reference names, the facts
 * the message gives its placeholders), then the error line "CLASS:
 * MESSAGE" with FUNCTION as its source at `profile`'s source_ref, each at
 * `depth` through `fn`.  Nothing for LSIM_OK.  For errors raised outside a
 * module context (tracing, execution) as for those inside it. */
void lsim_explain_error(lsim_explain_fn fn, void *data, int depth, const lsim_error *err,
                        const lsim_jax_profile *profile);
/* The same through the context's narration. */
void lsim_module_context_explain_error(const lsim_module_context *ctx, const lsim_error *err);
/* The narration's anchor for `op` of the module: the line (counted from
 * this context's first narrated line, 0) of the step that made it, i.e. the
 * step running when the op was first in the module: the last step line
 * narrated, or once a nested step has closed the step around it (at the
 * top, the context's first step); the module is walked at each step line,
 * when a nested step closes, and here once after the last line.  Ops that
 * were there before the first step are the first step's.  An op erased
 * during the lowering may leave its anchor to a later op at its address.  -1: not explaining, not asked for
 * (options.explain_ops), out of memory, or not in the module. */
long lsim_module_context_explain_op_line(const lsim_module_context *ctx, MlirOperation op);
/* How many lines this context (and its copies) have narrated. */
size_t lsim_module_context_explain_line_count(const lsim_module_context *ctx);
void lsim_module_context_explain_nest(const lsim_module_context *ctx, int depth_change);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_MODULE_CONTEXT_H */
