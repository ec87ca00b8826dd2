/* ctx/module_context.c: ModuleContext.
 * JAX counterpart: jax/_src/interpreters/mlir.py ModuleContext (get_backend,
 * new_channel, add_host_callback, add_keepalive, replace); aval_to_ir_type
 * is mlir.aval_to_ir_type with the module's aval_to_ir_types_cache. */
#include "lowersim/alloc.h"
#include "lowersim/module_context.h"
#include "support/emit_cache.h"
#include "support/name_index.h"
#include "support/options.h"
#include "support/raise.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Dialect/Func.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "support/strbuf.h"

typedef struct keepalive {
  void *object;
  void (*destroy)(void *);
} keepalive;

typedef struct type_cache_entry {
  lsim_aval aval;
  MlirType type;
  bool used;
} type_cache_entry;

/* A host callback and the primitive that added it (for explain). */
typedef struct host_callback {
  lsim_host_callback cb;
  const char *primitive;
} host_callback;

/* The narration's anchors for the module's ops: each op the step that was
 * running when the op was put into the module: the last step narrated, or,
 * once a nested step has closed, the step around it (at the top: the
 * context's first step, lower_jaxpr_to_module's, which makes the return).
 * The emitters tell the context of each op as they append it (the emit
 * cache's `made`); the module is walked only at the first step (what was
 * there before any) and when asked after lines were narrated (what no
 * emitter made, the module itself), so the anchors cost time linear in the
 * ops, where a walk at every step cost steps x ops.  An open-addressing set
 * keyed by the op. */
#define EXPLAIN_MAX_DEPTH 64
typedef struct explain_ops {
  const void **keys; /* MlirOperation.ptr; NULL: a free slot */
  long *lines;       /* the step's line, counted from the context's first */
  size_t count, cap; /* cap: 0 or a power of two */
  size_t lines_sent; /* how many lines this context has narrated */
  long step;         /* the running step's line; -1: none yet */
  long steps[EXPLAIN_MAX_DEPTH]; /* the last step narrated at each depth */
  long first_step;   /* the context's first step (lower_jaxpr_to_module's) */
  bool walked;       /* no line narrated since the last walk */
  bool failed;       /* out of memory: anchors are no longer recorded */
} explain_ops;

/* What a context shares with the copies replace() makes. */
typedef struct shared_state {
  int refs;
  MlirContext mlir;
  bool owns_mlir;
  MlirModule module;
  int64_t next_channel;
  host_callback *callbacks;
  size_t n_callbacks, cap_callbacks;
  keepalive *keepalives;
  size_t n_keepalives, cap_keepalives;
  type_cache_entry *types; /* open addressing, power-of-two capacity */
  size_t n_types, cap_types;
  lsim_explain_fn explain;
  void *explain_data;
  int explain_depth;
  explain_ops ops; /* which narrated step made each op (explain --html) */
  lsim_device *devices; /* the axis context's device assignment; NULL: not yet known */
  size_t num_devices;
  lsim_mesh *meshes;    /* in the order first named */
  size_t n_meshes, cap_meshes;
  bool has_abstract_device;
  lsim_abstract_device abstract_device; /* its strings owned */
  bool memory_kinds;                    /* not all_default_mem_kind */
  MlirSymbolTable symbols;              /* ModuleContext.symbol_table; made on first use */
  void *lowering_cache;                 /* mlir.py ModuleContext.lowering_cache, the engine's */
  void (*lowering_cache_destroy)(void *);
  lsim_emit_cache emit_cache; /* the emitters' types and attributes of `mlir` */
} shared_state;

struct lsim_module_context {
  shared_state *shared;
  lsim_runtime *runtime;
  const lsim_backend *backend;
  const lsim_jax_profile *profile;
  lsim_lowering_parameters params;
  size_t num_platforms;
  const char **platforms; /* point into names */
  char *names;            /* the canonical platform names, NUL-separated */
  lsimp_name_index platform_index; /* name -> its first place in platforms */
};

static void shared_release(shared_state *s) {
  if (!s || --s->refs > 0)
    return;
  if (s->lowering_cache && s->lowering_cache_destroy)
    s->lowering_cache_destroy(s->lowering_cache);
  if (s->symbols.ptr)
    mlirSymbolTableDestroy(s->symbols);
  for (size_t i = s->n_keepalives; i-- > 0;)
    if (s->keepalives[i].destroy)
      s->keepalives[i].destroy(s->keepalives[i].object);
  free(s->keepalives);
  free(s->ops.keys);
  free(s->ops.lines);
  free(s->callbacks);
  free(s->devices);
  free(s->meshes);
  free(s->types);
  free((char *)s->abstract_device.platform);
  free((char *)s->abstract_device.device_kind);
  if (!mlirModuleIsNull(s->module))
    mlirModuleDestroy(s->module);
  if (s->owns_mlir)
    mlirContextDestroy(s->mlir);
  free(s);
}

static void op_made(void *data, MlirOperation op);

static int shared_create(MlirContext borrowed, shared_state **out, lsim_error *err) {
  shared_state *s = lsim_calloc(1, sizeof *s);
  if (!s)
    return lsimp_fail_oom(err);
  s->refs = 1;
  s->next_channel = LSIM_FIRST_CHANNEL;
  s->ops.step = s->ops.first_step = -1;
  for (int i = 0; i < EXPLAIN_MAX_DEPTH; i++)
    s->ops.steps[i] = -1;
  if (mlirContextIsNull(borrowed)) {
    s->mlir = mlirContextCreateWithThreading(false);
    s->owns_mlir = true;
    mlirContextSetAllowUnregisteredDialects(s->mlir, true);
    mlirDialectHandleLoadDialect(mlirGetDialectHandle__func__(), s->mlir);
  } else {
    s->mlir = borrowed;
  }
  s->module = mlirModuleCreateEmpty(mlirLocationUnknownGet(s->mlir));
  s->emit_cache.mlir = s->mlir;
  *out = s;
  return LSIM_OK;
}

/* Canonicalizes `names` and stores copies in ctx->platforms. */
static int set_platforms(lsim_module_context *ctx, lsim_runtime *rt, const char *const *names,
                         size_t n, lsim_error *err) {
  if (!names || n == 0)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "a module context needs at least one platform");
  const char **list = lsim_malloc_array(n, sizeof(char *));
  if (!list)
    return lsimp_fail_oom(err);
  size_t bytes = 0;
  for (size_t i = 0; i < n; i++) {
    int rc = lsim_runtime_canonicalize_platform(rt, names[i], &list[i], err);
    if (rc) {
      free(list);
      return rc;
    }
    bytes += strlen(list[i]) + 1;
  }
  char *store = lsim_malloc(bytes);
  if (!store) {
    free(list);
    return lsimp_fail_oom(err);
  }
  char *p = store;
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(list[i]) + 1;
    memcpy(p, list[i], len);
    list[i] = p;
    p += len;
  }
  lsimp_name_index index = LSIMP_NAME_INDEX_INIT;
  bool indexed = lsimp_name_index_reserve(&index, n);
  for (size_t i = 0; indexed && i < n; i++) {
    size_t at = i;
    lsimp_name_index_add(&index, list[i], &at); /* reserved: cannot fail */
  }
  if (!indexed) {
    lsimp_name_index_free(&index);
    free(store);
    free(list);
    return lsimp_fail_oom(err);
  }
  free(ctx->names);
  free(ctx->platforms);
  lsimp_name_index_free(&ctx->platform_index);
  ctx->names = store;
  ctx->platforms = list;
  ctx->num_platforms = n;
  ctx->platform_index = index;
  return LSIM_OK;
}

/* A copy of the device assignment (none given: left to be looked up). */
static int set_devices(shared_state *s, const lsim_device *devices, size_t n, lsim_error *err) {
  if (!devices || n == 0)
    return LSIM_OK;
  s->devices = lsim_malloc_array(n, sizeof *s->devices);
  if (!s->devices)
    return lsimp_fail_oom(err);
  memcpy(s->devices, devices, n * sizeof *devices);
  s->num_devices = n;
  return LSIM_OK;
}

/* The lowering parameters `given` (NULL: the defaults) into `out`. */
static int copy_params(lsim_lowering_parameters *out, const lsim_lowering_parameters *given,
                       lsim_error *err) {
  return lsimp_options_copy(out, sizeof *out, given, "lsim_lowering_parameters", err);
}

static int set_abstract_device(shared_state *s, const lsim_abstract_device *given,
                               lsim_error *err) {
  if (!given->platform || !given->device_kind || given->num_cores < 0)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "an abstract device needs a platform, a device kind and num_cores >= 0");
  s->abstract_device.platform = lsim_strdup(given->platform);
  s->abstract_device.device_kind = lsim_strdup(given->device_kind);
  s->abstract_device.num_cores = given->num_cores;
  s->has_abstract_device = true;
  return s->abstract_device.platform && s->abstract_device.device_kind ? LSIM_OK
                                                                       : lsimp_fail_oom(err);
}

int lsim_module_context_create(const lsim_module_context_options *given,
                               lsim_module_context **out, lsim_error *err) {
  lsim_module_context_options options;
  if (!given || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_module_context_create: NULL argument");
  *out = NULL;
  int rc = lsimp_options_copy(&options, sizeof options, given, "lsim_module_context_options", err);
  if (rc)
    return rc;
  if (!options.runtime)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_module_context_create: no runtime");
  lsim_module_context *ctx = lsim_calloc(1, sizeof *ctx);
  if (!ctx)
    return lsimp_fail_oom(err);
  ctx->runtime = options.runtime;
  ctx->backend = options.backend;
  ctx->profile = lsim_jax_profile_or_default(options.profile);
  rc = copy_params(&ctx->params, options.lowering_parameters, err);
  if (rc == LSIM_OK)
    rc = set_platforms(ctx, options.runtime, options.platforms, options.num_platforms, err);
  if (rc == LSIM_OK)
    rc = shared_create(options.mlir_context, &ctx->shared, err);
  if (rc == LSIM_OK) {
    ctx->shared->explain = options.explain;
    ctx->shared->explain_data = options.explain_data;
    ctx->shared->ops.failed = !options.explain_ops; /* not asked: nothing recorded */
    if (options.explain_ops) {
      ctx->shared->emit_cache.made = op_made;
      ctx->shared->emit_cache.made_data = ctx->shared;
    }
    ctx->shared->memory_kinds = options.memory_kinds;
    rc = set_devices(ctx->shared, options.device_assignment, options.num_devices, err);
    if (!rc && options.abstract_device)
      rc = set_abstract_device(ctx->shared, options.abstract_device, err);
  }
  if (rc) {
    lsim_module_context_destroy(ctx);
    return rc;
  }
  *out = ctx;
  return LSIM_OK;
}

void lsim_module_context_destroy(lsim_module_context *ctx) {
  if (!ctx)
    return;
  shared_release(ctx->shared);
  free(ctx->names);
  free(ctx->platforms);
  lsimp_name_index_free(&ctx->platform_index);
  free(ctx);
}

int lsim_module_context_replace(const lsim_module_context *ctx,
                                const lsim_module_context_changes *given,
                                lsim_module_context **out, lsim_error *err) {
  lsim_module_context_changes changes;
  if (!ctx || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_module_context_replace: NULL argument");
  *out = NULL;
  int rc = lsimp_options_copy(&changes, sizeof changes, given, "lsim_module_context_changes", err);
  if (rc)
    return rc;
  lsim_module_context *copy = lsim_calloc(1, sizeof *copy);
  if (!copy)
    return lsimp_fail_oom(err);
  copy->runtime = ctx->runtime;
  copy->profile = ctx->profile;
  copy->backend = changes.set_backend ? changes.backend : ctx->backend;
  copy->params = ctx->params;
  if (changes.lowering_parameters)
    rc = copy_params(&copy->params, changes.lowering_parameters, err);
  bool new_platforms = changes.platforms != NULL;
  if (!rc)
    rc = set_platforms(copy, ctx->runtime, new_platforms ? changes.platforms : ctx->platforms,
                       new_platforms ? changes.num_platforms : ctx->num_platforms, err);
  if (rc) {
    lsim_module_context_destroy(copy);
    return rc;
  }
  copy->shared = ctx->shared;
  copy->shared->refs++;
  *out = copy;
  return LSIM_OK;
}

bool lsim_module_context_platform_index(const lsim_module_context *ctx, const char *platform,
                                        size_t *at) {
  return lsimp_name_index_find(&ctx->platform_index, platform, at);
}

const char *const *lsim_module_context_platforms(const lsim_module_context *ctx, size_t *count) {
  *count = ctx->num_platforms;
  return ctx->platforms;
}

lsim_runtime *lsim_module_context_runtime(const lsim_module_context *ctx) { return ctx->runtime; }

const lsim_backend *lsim_module_context_pinned_backend(const lsim_module_context *ctx) {
  return ctx->backend;
}

const lsim_jax_profile *lsim_module_context_profile(const lsim_module_context *ctx) {
  return ctx->profile;
}

const lsim_abstract_device *lsim_module_context_abstract_device(const lsim_module_context *ctx) {
  return ctx->shared->has_abstract_device ? &ctx->shared->abstract_device : NULL;
}

bool lsim_module_context_all_default_mem_kind(const lsim_module_context *ctx) {
  return !ctx->shared->memory_kinds;
}

const lsim_lowering_parameters *
lsim_module_context_lowering_parameters(const lsim_module_context *ctx) {
  return &ctx->params;
}

MlirContext lsim_module_context_mlir_context(const lsim_module_context *ctx) {
  return ctx->shared->mlir;
}

MlirModule lsim_module_context_module(const lsim_module_context *ctx) { return ctx->shared->module; }

lsim_insertion_point lsim_module_context_insertion_point(const lsim_module_context *ctx) {
  MlirContext mlir = ctx->shared->mlir;
  return (lsim_insertion_point){mlir, mlirModuleGetBody(ctx->shared->module),
                                mlirLocationUnknownGet(mlir), &ctx->shared->emit_cache};
}

int lsim_module_context_get_backend(const lsim_module_context *ctx, bool optional,
                                    const lsim_backend **out, lsim_error *err) {
  if (!ctx || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                     "lsim_module_context_get_backend: NULL argument");
  *out = NULL;
  if (ctx->num_platforms > 1)
    return optional ? LSIM_OK : lsimp_raise0(err, LSIM_E_MULTI_PLATFORM_BACKEND);
  if (ctx->backend) {
    const char *backend_platform;
    int rc = lsim_runtime_canonicalize_platform(ctx->runtime, ctx->backend->platform,
                                                &backend_platform, err);
    if (rc)
      return rc;
    if (strcmp(backend_platform, ctx->platforms[0]) != 0) {
      if (optional)
        return LSIM_OK;
      lsim_module_context_explain(ctx, LSIM_EXPLAIN_DETAIL, 0,
                                  "get_backend: ModuleContext.backend is a %s device (platform %s, "
                                  "canonicalized), the lowering platform is %s: the check "
                                  "backend's platform == platforms[0] fails",
                                  ctx->backend->platform, backend_platform, ctx->platforms[0]);
      return lsimp_raise(err, LSIM_E_BACKEND_PLATFORM_MISMATCH, backend_platform,
                         ctx->platforms[0]);
    }
    *out = ctx->backend;
    return LSIM_OK;
  }
  return lsim_runtime_get_backend(ctx->runtime, ctx->platforms[0], out, err);
}


int lsim_module_context_device_assignment(lsim_module_context *ctx, const lsim_device **out,
                                          size_t *count, lsim_error *err) {
  shared_state *s = ctx->shared;
  if (!s->devices) {
    const lsim_backend *b = ctx->backend;
    int rc = b ? LSIM_OK : lsim_runtime_get_backend(ctx->runtime, NULL, &b, err);
    if (rc)
      return rc;
    if (!(s->devices = lsim_malloc(sizeof *s->devices)))
      return lsimp_fail_oom(err);
    s->devices[0] = (lsim_device){b, 0};
    s->num_devices = 1;
  }
  *out = s->devices;
  *count = s->num_devices;
  return LSIM_OK;
}

size_t lsim_module_context_num_devices(const lsim_module_context *ctx) {
  return ctx->shared->devices ? ctx->shared->num_devices : 1;
}

static bool mesh_equal(const lsim_mesh *a, const lsim_mesh *b) {
  return a->kind == b->kind && (a->kind != LSIM_MESH_MAXIMAL || a->device == b->device) &&
         (a->kind != LSIM_MESH_AXIS || a->size == b->size);
}

int lsim_module_context_use_mesh(lsim_module_context *ctx, const lsim_mesh *mesh,
                                 lsim_error *err) {
  shared_state *s = ctx->shared;
  for (size_t i = 0; i < s->n_meshes; i++)
    if (mesh_equal(&s->meshes[i], mesh))
      return LSIM_OK;
  if (!lsim_grow_array(&s->meshes, &s->cap_meshes, s->n_meshes + 1, sizeof *s->meshes))
    return lsimp_fail_oom(err);
  s->meshes[s->n_meshes++] = *mesh;
  return LSIM_OK;
}

size_t lsim_module_context_mesh_count(const lsim_module_context *ctx) {
  return ctx->shared->n_meshes;
}

const lsim_mesh *lsim_module_context_mesh_at(const lsim_module_context *ctx, size_t i) {
  return i < ctx->shared->n_meshes ? &ctx->shared->meshes[i] : NULL;
}

int lsim_module_context_new_channel(lsim_module_context *ctx, int64_t *out, lsim_error *err) {
  if (!ctx || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                     "lsim_module_context_new_channel: NULL argument");
  /* next(self.channel_iterator) advances even when the id is refused. */
  int64_t channel = ctx->shared->next_channel;
  if (channel <= LSIM_MAX_CHANNEL)
    ctx->shared->next_channel++;
  if (channel > LSIM_MAX_CHANNEL)
    return lsimp_raise0(err, LSIM_E_TOO_MANY_CHANNELS);
  lsim_module_context_explain_source(ctx, LSIM_JAX_SOURCE("jax/_src/interpreters/mlir.py", "ModuleContext.new_channel"));
  lsim_module_context_explain(ctx, LSIM_EXPLAIN_ALLOC, 0, "new_channel() -> %lld",
                              (long long)channel);
  *out = channel;
  return LSIM_OK;
}

int64_t lsim_module_context_channel_count(const lsim_module_context *ctx) {
  return ctx->shared->next_channel - LSIM_FIRST_CHANNEL;
}

int lsim_module_context_add_host_callback(lsim_module_context *ctx, const lsim_host_callback *cb,
                                          const char *primitive, uint64_t *index,
                                          lsim_error *err) {
  if (!ctx || !cb || !index)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                     "lsim_module_context_add_host_callback: NULL argument");
  shared_state *s = ctx->shared;
  if (!lsim_grow_array(&s->callbacks, &s->cap_callbacks, s->n_callbacks + 1, sizeof *s->callbacks))
    return lsimp_fail_oom(err);
  s->callbacks[s->n_callbacks] = (host_callback){*cb, primitive};
  *index = s->n_callbacks++;
  lsim_module_context_explain_source(ctx, LSIM_JAX_SOURCE("jax/_src/interpreters/mlir.py", "ModuleContext.add_host_callback"));
  lsim_module_context_explain(ctx, LSIM_EXPLAIN_ALLOC, 0, "add_host_callback(%s) -> index %llu",
                              primitive ? primitive : "callback", (unsigned long long)*index);
  return LSIM_OK;
}

size_t lsim_module_context_host_callback_count(const lsim_module_context *ctx) {
  return ctx->shared->n_callbacks;
}

const lsim_host_callback *lsim_module_context_host_callback_at(const lsim_module_context *ctx,
                                                               size_t i) {
  return i < ctx->shared->n_callbacks ? &ctx->shared->callbacks[i].cb : NULL;
}

size_t lsim_module_context_keepalive_count(const lsim_module_context *ctx) {
  return ctx ? ctx->shared->n_keepalives : 0;
}

int lsim_module_context_add_keepalive(lsim_module_context *ctx, void *object,
                                      void (*destroy)(void *), lsim_error *err) {
  if (!ctx)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                     "lsim_module_context_add_keepalive: NULL argument");
  shared_state *s = ctx->shared;
  if (!lsim_grow_array(&s->keepalives, &s->cap_keepalives, s->n_keepalives + 1, sizeof(keepalive))) {
    if (destroy)
      destroy(object);
    return lsimp_fail_oom(err);
  }
  s->keepalives[s->n_keepalives++] = (keepalive){object, destroy};
  return LSIM_OK;
}

/* --- Narration ------------------------------------------------------------ */

bool lsim_module_context_explaining(const lsim_module_context *ctx) {
  return ctx && ctx->shared->explain;
}


static size_t op_slot(const explain_ops *o, const void *key) {
  size_t i = ((uintptr_t)key >> 4) * 0x9E3779B97F4A7C15ull & (o->cap - 1);
  while (o->keys[i] && o->keys[i] != key)
    i = (i + 1) & (o->cap - 1);
  return i;
}

static bool ops_grow(explain_ops *o) {
  size_t cap = o->cap ? o->cap * 2 : 64;
  const void **keys = lsim_calloc(cap, sizeof *keys);
  long *lines = lsim_malloc_array(cap, sizeof *lines);
  if (!keys || !lines) {
    free(keys);
    free(lines);
    return false;
  }
  explain_ops grown = *o;
  grown.keys = keys;
  grown.lines = lines;
  grown.cap = cap;
  for (size_t i = 0; i < o->cap; i++)
    if (o->keys[i]) {
      size_t j = op_slot(&grown, o->keys[i]);
      keys[j] = o->keys[i];
      lines[j] = o->lines[i];
    }
  free(o->keys);
  free(o->lines);
  *o = grown;
  return true;
}

typedef struct ops_walk {
  explain_ops *ops;
  long line;
  bool made; /* the ops were just made: an earlier anchor of their address is stale */
} ops_walk;

static MlirWalkResult record_op(MlirOperation op, void *data) {
  ops_walk *w = data;
  explain_ops *o = w->ops;
  if ((o->count + 1) * 2 > o->cap && !ops_grow(o)) {
    o->failed = true;
    return MlirWalkResultInterrupt;
  }
  size_t i = op_slot(o, op.ptr);
  if (!o->keys[i]) {
    o->keys[i] = op.ptr;
    o->lines[i] = w->line;
    o->count++;
  } else if (w->made) {
    o->lines[i] = w->line;
  }
  return MlirWalkResultAdvance;
}

/* Every op not seen yet was made by the last step narrated (the one about
 * to be narrated, `next`, when there was none). */
static void record_ops(shared_state *s, long next) {
  if (s->ops.failed || mlirModuleIsNull(s->module))
    return;
  ops_walk w = {&s->ops, s->ops.step >= 0 ? s->ops.step : next, false};
  mlirOperationWalk(mlirModuleGetOperation(s->module), record_op, &w, MlirWalkPreOrder);
  s->ops.walked = true;
}

/* The emit cache's `made`: `op` (and what it holds: a function merged
 * whole) was put into the module, by the step running.  Before the first
 * step, the first step's walk finds it. */
static void op_made(void *data, MlirOperation op) {
  shared_state *s = data;
  if (s->ops.failed || s->ops.step < 0)
    return;
  ops_walk w = {&s->ops, s->ops.step, true};
  mlirOperationWalk(op, record_op, &w, MlirWalkPreOrder);
}

long lsim_module_context_explain_op_line(const lsim_module_context *ctx, MlirOperation op) {
  if (!lsim_module_context_explaining(ctx) || mlirOperationIsNull(op))
    return -1;
  shared_state *s = ctx->shared;
  if (!s->ops.walked) /* the ops made since the last line: once, not per op */
    record_ops(s, -1);
  if (s->ops.failed || !s->ops.cap)
    return -1;
  size_t i = op_slot(&s->ops, op.ptr);
  return s->ops.keys[i] ? s->ops.lines[i] : -1;
}

/* The depth changes from `s->explain_depth` by `change`: a step that closes
 * hands the ops made since to itself, then the step around it runs. */
static void change_depth(shared_state *s, int change) {
  int depth = s->explain_depth + change;
  if (change < 0) {
    if (depth > 0 && depth <= EXPLAIN_MAX_DEPTH)
      s->ops.step = s->ops.steps[depth - 1];
    else if (depth == 0)
      s->ops.step = s->ops.first_step;
  }
  s->explain_depth = depth;
}

void lsim_module_context_explain_nest(const lsim_module_context *ctx, int depth_change) {
  if (lsim_module_context_explaining(ctx))
    change_depth(ctx->shared, depth_change);
}

size_t lsim_module_context_explain_line_count(const lsim_module_context *ctx) {
  return lsim_module_context_explaining(ctx) ? ctx->shared->ops.lines_sent : 0;
}

void lsim_module_context_explain_source(const lsim_module_context *ctx, const char *source) {
  if (!lsim_module_context_explaining(ctx))
    return;
  shared_state *s = ctx->shared;
  s->ops.lines_sent++;
  s->ops.walked = false;
  s->explain(s->explain_data, LSIM_EXPLAIN_SOURCE, s->explain_depth, source);
}

void lsim_explain_error(lsim_explain_fn fn, void *data, int depth, const lsim_error *err,
                        const lsim_jax_profile *profile) {
  if (!fn || !err || !err->code)
    return;
  const char *reference = lsim_status_reference(err->code);
  char source[256], facts[1024];
  lsim_jax_source_of_reference(profile, reference, source, sizeof source);
  lsim_error_facts(err, facts, sizeof facts);
  const char *function = source[0] ? strchr(source, ' ') + 1 : NULL;
  lsimp_strbuf line = LSIMP_STRBUF_INIT;
  /* The reference's words after its function (a note: "(its
   * wrapped_callback)", "(at trace time)") say where in it. */
  const char *note = function ? strchr(reference, ' ') + 1 + strlen(function) : "";
  note += strspn(note, " :");
  if (function && *note)
    lsimp_strbuf_printf(&line, "cause: the check in %s %s fails", function, note);
  else if (function)
    lsimp_strbuf_printf(&line, "cause: the check in %s fails", function);
  else
    lsimp_strbuf_printf(&line, "cause: %s", reference ? reference : "an unknown status");
  if (facts[0])
    lsimp_strbuf_printf(&line, " on %s", facts);
  fn(data, LSIM_EXPLAIN_DETAIL, depth, lsimp_strbuf_cstr(&line));
  lsimp_strbuf_reset(&line);
  if (function)
    fn(data, LSIM_EXPLAIN_SOURCE, depth, source);
  lsimp_strbuf_printf(&line, "%s: %s", lsim_error_class(err), lsim_error_message(err));
  fn(data, LSIM_EXPLAIN_ERROR, depth, lsimp_strbuf_cstr(&line));
  lsimp_strbuf_free(&line);
}

/* lsim_explain_error's lines through the context, counted as its own. */
static void explain_through(void *data, lsim_explain_kind kind, int depth, const char *text) {
  (void)depth;
  if (kind == LSIM_EXPLAIN_SOURCE)
    lsim_module_context_explain_source(data, text);
  else
    lsim_module_context_explain(data, kind, 0, "%s", text);
}

void lsim_module_context_explain_error(const lsim_module_context *ctx, const lsim_error *err) {
  if (lsim_module_context_explaining(ctx))
    lsim_explain_error(explain_through, (void *)ctx, 0, err, lsim_module_context_profile(ctx));
}

void lsim_module_context_explain(const lsim_module_context *ctx, lsim_explain_kind kind,
                                 int depth_change, const char *fmt, ...) {
  if (!lsim_module_context_explaining(ctx))
    return;
  shared_state *s = ctx->shared;
  if (kind == LSIM_EXPLAIN_STEP) {
    long line = (long)s->ops.lines_sent;
    if (s->ops.first_step < 0) { /* what is there already is the first step's */
      record_ops(s, line);
      s->ops.first_step = line;
    }
    s->ops.step = line;
    if (s->explain_depth >= 0 && s->explain_depth < EXPLAIN_MAX_DEPTH)
      s->ops.steps[s->explain_depth] = line;
  }
  s->ops.lines_sent++;
  s->ops.walked = false;
  lsimp_strbuf line = LSIMP_STRBUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  lsimp_strbuf_vprintf(&line, fmt, ap);
  va_end(ap);
  s->explain(s->explain_data, kind, s->explain_depth, lsimp_strbuf_cstr(&line));
  lsimp_strbuf_free(&line);
  change_depth(s, depth_change);
}

/* --- aval -> IR type, cached ---------------------------------------------- */

static uint64_t aval_hash(const lsim_aval *a) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)a->dtype;
  h = (h ^ (uint64_t)a->rank) * 1099511628211ull;
  for (int i = 0; i < a->rank; i++)
    h = (h ^ (uint64_t)a->dims[i]) * 1099511628211ull;
  return h ^ (h >> 29);
}

static type_cache_entry *type_slot(type_cache_entry *table, size_t cap, const lsim_aval *aval) {
  size_t i = aval_hash(aval) & (cap - 1);
  while (table[i].used && !lsim_aval_equal(&table[i].aval, aval))
    i = (i + 1) & (cap - 1);
  return &table[i];
}

static void *type_place(void *table, size_t cap, const void *old) {
  const type_cache_entry *e = old;
  return e->used ? type_slot(table, cap, &e->aval) : NULL;
}

static bool grow_type_cache(shared_state *s) {
  return lsim_hash_grow(&s->types, &s->cap_types, s->cap_types + 1, 16, sizeof *s->types,
                        type_place);
}

static MlirType element_type(MlirContext mlir, lsim_dtype dtype) {
  switch (dtype) {
  case LSIM_DTYPE_BOOL: return mlirIntegerTypeGet(mlir, 1);
  case LSIM_DTYPE_I8: return mlirIntegerTypeGet(mlir, 8);
  case LSIM_DTYPE_I16: return mlirIntegerTypeGet(mlir, 16);
  case LSIM_DTYPE_I32: return mlirIntegerTypeGet(mlir, 32);
  case LSIM_DTYPE_I64: return mlirIntegerTypeGet(mlir, 64);
  case LSIM_DTYPE_U8: return mlirIntegerTypeUnsignedGet(mlir, 8);
  case LSIM_DTYPE_U16: return mlirIntegerTypeUnsignedGet(mlir, 16);
  case LSIM_DTYPE_U32: return mlirIntegerTypeUnsignedGet(mlir, 32);
  case LSIM_DTYPE_U64: return mlirIntegerTypeUnsignedGet(mlir, 64);
  case LSIM_DTYPE_F16: return mlirF16TypeGet(mlir);
  case LSIM_DTYPE_BF16: return mlirBF16TypeGet(mlir);
  case LSIM_DTYPE_F32: return mlirF32TypeGet(mlir);
  case LSIM_DTYPE_F64: return mlirF64TypeGet(mlir);
  default: return (MlirType){NULL};
  }
}

static MlirType tensor_type(MlirContext mlir, const lsim_aval *aval) {
  MlirType elt = element_type(mlir, aval->dtype);
  return mlirTypeIsNull(elt)
             ? elt
             : mlirRankedTensorTypeGet(aval->rank, aval->dims, elt, (MlirAttribute){NULL});
}

/* The cache only saves MLIR's own uniquing: when it cannot grow, the type
 * is made uncached, so out of memory never yields a null type. */
MlirType lsim_module_context_aval_to_ir_type(lsim_module_context *ctx, const lsim_aval *aval) {
  shared_state *s = ctx->shared;
  if (s->n_types * 4 >= s->cap_types * 3 && !grow_type_cache(s))
    return tensor_type(s->mlir, aval);
  type_cache_entry *slot = type_slot(s->types, s->cap_types, aval);
  if (!slot->used) {
    MlirType type = tensor_type(s->mlir, aval);
    if (mlirTypeIsNull(type))
      return type;
    slot->aval = *aval;
    slot->type = type;
    slot->used = true;
    s->n_types++;
  }
  return slot->type;
}

size_t lsim_module_context_type_cache_size(const lsim_module_context *ctx) {
  return ctx->shared->n_types;
}

int lsim_module_context_insert_symbol(lsim_module_context *ctx, MlirOperation op,
                                      MlirStringRef *name, lsim_error *err) {
  shared_state *s = ctx->shared;
  if (!s->symbols.ptr) {
    s->symbols = mlirSymbolTableCreate(mlirModuleGetOperation(s->module));
    if (mlirSymbolTableIsNull(s->symbols))
      return lsim_error_set(err, LSIM_E_NO_MEMORY, "out of memory");
  }
  *name = mlirStringAttrGetValue(mlirSymbolTableInsert(s->symbols, op));
  return LSIM_OK;
}

void *lsim_module_context_lowering_cache(const lsim_module_context *ctx) {
  return ctx->shared->lowering_cache;
}

void lsim_module_context_set_lowering_cache(lsim_module_context *ctx, void *cache,
                                            void (*destroy)(void *)) {
  shared_state *s = ctx->shared;
  if (s->lowering_cache && s->lowering_cache_destroy && s->lowering_cache != cache)
    s->lowering_cache_destroy(s->lowering_cache);
  s->lowering_cache = cache;
  s->lowering_cache_destroy = destroy;
}
