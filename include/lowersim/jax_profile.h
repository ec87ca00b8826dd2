/* lowersim/jax_profile.h: the JAX releases lowersim models, and every fact
 * of JAX's that depends on the release, in one table.
 *
 * The table has a row per fact and a column per release.  A column is a
 * profile (lsim_jax_profile, ctx/jax_profile.c): each version-dependent fact
 * is one field of it.  A row is described by an lsim_jax_fact (its name, what
 * it means, where JAX has it, its type, from which its value is printed and
 * compared), and each change of a row between two consecutive columns by an
 * lsim_jax_change (the release and the JAX commit).  `lowersim versions A B`
 * is generated from the table: nothing lists the differences a second time.
 * Code reads a fact from the profile of its module context or registry,
 * never by testing a release name.  Functions that take a profile accept
 * NULL for the newest.
 *
 * Adding a fact: a field in the block of its area below, its value in the
 * oldest column and in each column that changes it, one row of the fact
 * table and one change per column that changes it (ctx/jax_profile.c).
 * Adding a release: docs/releases.md. */
#ifndef LOWERSIM_JAX_PROFILE_H
#define LOWERSIM_JAX_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A list of names (a fact's value). */
typedef struct lsim_jax_strings {
  const char *const *items;
  size_t count;
} lsim_jax_strings;

typedef struct lsim_jax_profile {
  /* --- the version ------------------------------------------------------ */
  const char *name;    /* as jax.__version__ spells it: "0.10.2" */
  const char *commit;  /* the JAX commit, as git abbreviates it there (10 hex digits) */
  const char *date;    /* the commit's date, YYYY-MM-DD */
  const char *summary; /* one line: what this version is and how it was checked */

  /* --- the environment (setup.py, jax/version.py) ----------------------- */
  const char *python_requires; /* setup.py python_requires: '>=3.12' since 5ab345f1b4 */
  const char *minimum_jaxlib;  /* jax/version.py _minimum_jaxlib_version */

  /* --- jit, export and the runtime (xla_bridge.py, pxla.py, pjit.py,
   *     export/_export.py, lax.py) -------------------------------------- */
  /* export/_export.py _CUSTOM_CALL_TARGETS_GUARANTEED_STABLE: the targets
   * _check_module lets through (the same 88 at 0.10.2 and at cec06d116c). */
  lsim_jax_strings export_stable_custom_call_targets;
  /* What xla_bridge's tpu factory (registered on import, fail_quietly)
   * raises on a machine without libtpu (jaxlib's make_tpu_client). */
  const char *tpu_factory_error;
  /* export/_export.py _check_module's custom-call error ends with a sentence
   * on disabled_checks (the targets it disabled, or how to disable one),
   * from 0.11.2. */
  bool export_custom_call_advice;
  /* The documentation link that error names (the docs' 501/ layout from
   * 0.12.0). */
  const char *export_custom_call_doc_url;
  /* xla_bridge's "proxy" factory (IFRT Proxy), registered on import after
   * tpu with priority -1 (never the default) and failing quietly without
   * jax_backend_target: what it raises, or NULL when the release registers
   * none (before 0.12.0).  Registered, it is a known platform. */
  const char *proxy_factory_error;
  /* mlir.py _platforms_with_donation: oneapi from 0.11.1. */
  lsim_jax_strings platforms_with_donation;
  /* The link ending mlir.py's "Some donated buffers were not usable" warning. */
  const char *donation_doc_url;

  /* --- host callbacks, sharding and effects (callback.py, debugging.py,
   *     buffer_callback.py, mlir.py) ------------------------------------ */
  /* config.py jax_use_shardy_partitioner's default (True since df8e17a549,
   * 2025-07-20): callbacks carry sdy.sharding (maximal on a device) and the
   * module sdy.mesh ops; else mhlo.sharding = "{maximal device=0}". */
  bool use_shardy_partitioner;
  /* buffer_callback.py _buffer_callback_lowering: oneapi has a target
   * (xla_buffer_python_gpu_callback) and takes the _cmd_buffer suffix; before,
   * it is "`buffer_callback` not supported on oneapi backend." (seed
   * 1e1c6a8f; not at 0.10.2, 0.11.0 or the mirror's HEAD cec06d116c). */
  bool buffer_callback_oneapi;
  /* mlir.py lower_per_platform: an equation lowered through
   * _uncached_lowering (a primitive registered with cacheable=False, e.g.
   * debug_callback) has a tuple avals_out, and `[token] * n + ctx.avals_out`
   * raises TypeError once two rules are kept (since 38581b7f80, 2025-09-22;
   * still at 0.11.0 and HEAD). */
  bool uncached_multi_platform_type_error;
  /* callback.py emit_python_callback: the platforms it lowers for, and those
   * whose callbacks may be partitioned (oneapi in both from 0.11.1). */
  lsim_jax_strings python_callback_platforms;
  lsim_jax_strings partitioned_callback_platforms;
  /* callback.py _callback_op_sharding: a sharding's device outside the
   * device assignment is reworded with both (from 0.12.0), not tuple.index's
   * own ValueError. */
  bool callback_sharding_names_devices;

  /* --- lax (lax/control_flow/conditionals.py) --------------------------- */
  /* The platforms lax.platform_dependent's refusal of a 'gpu' branch names
   * ("Use {them} for lax.platform_dependent."). */
  const char *platform_dependent_gpu_platforms;

  /* --- Pallas (pallas/): pallas_call.py, the backends' registrations,
   * tpu_info.py, tpu_custom_call.py, triton/gpu_info.py --------------------- */

  /* Triton's CompilerParams class is registered when
   * jax.experimental.pallas.triton is imported (it imports
   * CUSTOM_CALL_TARGET_NAME from triton/pallas_call_registration.py), not only
   * by the first gpu lowering that picks Triton: 8fde3f3846 (2026-06-24,
   * after 0.10.2).  Before, Triton params reaching tpu_lowering find no rule
   * and Mosaic TPU's rule asserts on them. */
  bool pallas_triton_registered_on_import;
  /* What tpu_info.get_tpu_info appends to "Unsupported TPU device kind:
   * {kind}": nothing, then the use_abstract_mesh hint from 1ebd186c61
   * (2026-08-03, after 0.11.0). */
  const char *pallas_tpu_device_kind_hint;
  /* The device kinds tpu_info.chip_version_from_device_kind knows; "TPU8t"
   * from a92b670a41 (2026-07-21, after 0.11.0). */
  lsim_jax_strings pallas_tpu_device_kinds;
  /* tpu_custom_call._FWD_COMPAT_VERSION: the stable_mosaic.version a Mosaic
   * TPU kernel is serialized at for jax.export or without a TPU backend
   * (get_backend(optional=True) is None): 11, then 13 from 6e8d8e4f62
   * (2026-06-30, 0.11.0), 15 from 0.11.1 (after the mirror's 2026-08-08). */
  int pallas_mosaic_fwd_compat_version;
  /* MosaicSerdePass::kVersion (jaxlib/mosaic/dialect/tpu/transforms/
   * serde.h, compiled into jaxlib), the version otherwise: 15, then 17 from
   * 0.11.2 and 18 from 0.12.0 (measured: a kernel lowered with a TPU
   * backend).  get_ir_version's libtpu checks (0.11.2: below 0.0.48 the
   * forward-compatible version; 0.12.0: below 0.0.50, 17) hold only on a
   * Cloud TPU VM, which lowersim does not model (is_libtpu_at_least is true
   * elsewhere). */
  int pallas_mosaic_serde_version;
  /* tpu_custom_call._lower_mosaic_module_to_asm unzips the kernel's
   * locations (jaxlib's tpu.private_unzip_debug_locations) unless the
   * lowering is for jax.export (jax_mosaic_unzip_debug_locations, on by
   * default): the kernel is serialized with every location unknown and
   * the backend config carries "debug_locations", the bytecode of an
   * empty module whose `tpu.locs` lists them in a pre-order walk (each
   * op, then its regions' block arguments, then the ops inside), after
   * every compiler param.  From 0.12.0; before, and for export, the
   * locations stay in the kernel. */
  bool pallas_mosaic_debug_locations;
  /* pallas/mosaic/lowering.py lower_jaxpr_to_pipelined_module names the
   * kernel's module after its kernel function (the module's sym_name):
   * from 0.12.0. */
  bool pallas_mosaic_module_sym_name;
  /* Triton takes the GPU from gpu_info.get_gpu_info() (the abstract mesh's
   * device or the default device; an unknown kind is a RuntimeError)
   * instead of jax.local_devices(backend="gpu") with a 9.0 fallback:
   * 9a42858685 (2026-06-30, 0.11.0). */
  bool pallas_triton_gpu_info;
  /* gpu_info.get_gpu_info takes a GPU kind it does not list but that starts
   * with "NVIDIA" when it is the default device's (its arch: the device's
   * compute capability), from 0.11.2. */
  bool pallas_gpu_info_generic_nvidia;
  /* With pallas_triton_gpu_info: the GPU kinds gpu_info.GpuVersion knows. */
  lsim_jax_strings pallas_gpu_device_kinds;
  /* gpu_lowering warns (DeprecationWarning) when it picks Triton itself:
   * c486c9d985 (2026-07-13, 0.11.0). */
  bool pallas_triton_deprecated;
  /* Mosaic GPU lowers pl.pallas_call kernels with warpgroup semantics and
   * layout inference: 32915de40f "[Mosaic GPU] Turn WG on by default."
   * (2026-07-16, 0.11.0).  A block whose loads do not fill a warpgroup then
   * fails layout inference, before the copy checks. */
  bool pallas_mosaic_gpu_warpgroup_semantics;
  /* Mosaic GPU's barriers can wait on a GPU before Hopper, but not
   * arrive_expect_tx, which a TMA copy into shared memory needs: its
   * NotImplementedError (ea11dbfcc3, 2026-07-10, 0.11.0); before, the arch
   * was not checked there. */
  bool pallas_mosaic_gpu_hopper_copies;
  /* Mosaic GPU's _infer_arch under an abstract device takes the default
   * device's compute capability when both have the same device kind
   * (9b4aabf5d7, 2026-07-01, 0.11.0); before, the abstract device's, which
   * has none: 9.0. */
  bool pallas_mosaic_gpu_arch_same_kind;
  /* mosaic_gpu-serde's kVersion (jaxlib/mosaic/gpu/serde.cc), the
   * stable_mosaic_gpu.version a Mosaic GPU kernel is serialized at: 6, then
   * 7 from 4656473b67 (2026-08-05, after 0.11.0), 9 at 0.11.2 (the pass run
   * in each release's jaxlib).  From version 7 a kernel's gpu.launch has
   * LLVM's asyncObject operand segment (12 operandSegmentSizes, serde.cc
   * gpu_launch_upgrade); mosaic_gpu.c reads that from the version it
   * writes, the forward-compatible one included.  From 0.11.2 pallas_call
   * never reaches Mosaic GPU (pallas_gpu_lowering_triton_only): the later
   * values are the releases', not observable through lowersim. */
  int pallas_mosaic_gpu_serde_version;
  /* mosaic/gpu/core.py FWD_COMPAT_IR_VERSION, the version for jax.export
   * (ctx.is_forward_compat()): 2, then 6 from 7a6b8927fe (2026-07-31, after
   * 0.11.0), 9 at 0.12.0. */
  int pallas_mosaic_gpu_fwd_compat_version;
  /* Pallas's Triton lowering and interpret mode (triton/lowering.py,
   * triton/pallas_call_registration.py, hlo_interpreter.py) and
   * pallas_call's dce rule (pallas_call.py): */
  /* Triton's tt.load and tt.store carry `cache = 1, evict = 1`
   * (CacheModifier.NONE, EvictionPolicy.NORMAL: lowering.py _load and
   * _store pass them to jaxlib's Triton dialect); from 0.12.0 that dialect
   * takes a cache_policy instead, which _get_cache_policy leaves unset for
   * NONE and NORMAL, so the ops carry neither (the release jax-v0.12.0). */
  bool pallas_triton_cache_evict;
  /* Triton's own pallas_call_lowering warns that the Triton backend is
   * deprecated, first thing, on every Triton lowering (registered params
   * included, before its own checks); gpu_lowering no longer does
   * (pallas_triton_deprecated: only when it picked Triton itself).  The
   * release jax-v0.11.2. */
  bool pallas_triton_deprecated_in_lowering;
  /* hlo_interpreter.py pallas_call_hlo_interpret puts each operand in
   * device memory first (jax.device_put(x, MemorySpace.Device)): a
   * device_put equation per operand, whose tpu and gpu rule returns it
   * as it is unless the module has a memory kind other than the
   * default's (then annotate_device_placement "device") and whose default
   * rule returns it, so a lowering for a tpu or gpu platform and another
   * dispatches it with lower_per_platform's two stablehlo.case ops (the
   * release jax-v0.11.2). */
  bool pallas_interpret_device_put;
  /* pallas_call_hlo_interpret syncs each aliased input/output pair after
   * every grid step from the kernel's write effects: the output is
   * written and the input is not, so the loop carries the output's new
   * buffer in the input's place too (the release jax-v0.11.2). */
  bool pallas_interpret_alias_sync;
  /* pallas_call.py _pallas_call_dce_rule drops a call none of whose
   * results is used, unless it writes a live ref, has effects or its
   * compiler params have side effects (Mosaic TPU's has_side_effects=True);
   * before, every call was kept (the release jax-v0.12.0). */
  bool pallas_call_dce_unused;
  /* Mosaic GPU's emit_pipeline, which lowers pl.pallas_call's grid, takes
   * only input blocks on a GPU before Hopper (compute capability below 9.0,
   * _infer_arch): every pallas_call kernel has an output, so it raises
   * "emit_pipeline on pre-Hopper GPUs only supports input-only pipelines"
   * while the pipeline is traced, after the scalar-prefetch check and the
   * GPU's arch and before anything of the kernel is lowered (shared memory,
   * layouts, copies): ecb82891c0 (2026-08-06, 0.11.1). */
  bool pallas_mosaic_gpu_pre_hopper_pipeline;
  /* lower_mgpu_module names a warpgroup-semantics module for dumps
   * (jaxlib's get_or_set_dump_options, from jaxlib 0.11.1: 59335cd85d,
   * 2026-08-05): the attribute mosaic_gpu.dump_basename = "NAME_N" on the
   * kernel module, NAME its sym_name and N the process's count of modules
   * named before it (jaxlib/mosaic/gpu/dump.cc GetOrSetDumpOptionsForModule). */
  bool pallas_mosaic_gpu_dump_basename;
  /* With warpgroup semantics the block copy's barrier arrive
   * (utils.py DialectBarrierRef.arrive_expect_tx) makes its byte count an
   * i32 constant of the launch's constant cache, hoisted with the others
   * and left unused once the dialect is lowered (jaxlib 0.11.1's dynamic
   * expect_tx): 3549c1e3ba (committed 2026-08-06, 0.11.1). */
  bool pallas_mosaic_gpu_expect_tx_constant;
  /* config.py jax_pallas_use_mosaic_gpu (default True) exists: gpu_lowering
   * reads it for a call without compiler params.  Gone at 0.11.2; a
   * scenario that sets it for a release without it is refused
   * (docs/scenario-format.md). */
  bool pallas_use_mosaic_gpu_option;
  /* pallas_call.py gpu_lowering lowers through Triton alone: it imports
   * Triton's pallas_call_registration (without it "Cannot lower pallas_call
   * on platform: gpu"), gives a call without compiler params Triton's
   * CompilerParams() and asserts that get_lowering_rule(type(params),
   * "gpu") found a rule (a bare AssertionError for plgpu.CompilerParams:
   * Mosaic GPU's pallas_call_registration registers no pallas_call rule any
   * more; none for ROCm either).  Before, a registered rule first, then
   * Mosaic GPU (its params, or none and the flag; ValueError on ROCm), then
   * Triton (its params, or none and no flag).  The release jax-v0.11.2. */
  bool pallas_gpu_lowering_triton_only;

  /* --- rules that are not inlined, compute types, ffi_call (mlir.py,
   *     compute_on.py, ffi.py) ------------------------------------------- */
  /* compute_on.py: the context manager compute_on(compute_type) (its
   * equations' ctx.compute_type); deleted by 3a440c764b (2026-07-29, after
   * 0.11.0: "Delete compute_on as compute_on2 is the replacement."), since
   * when compute_on(...) is compute_on2's function wrapper and
   * `compute_on('device_host')` raises TypeError. */
  bool compute_on_context_manager;
  /* compute_on.py _compute_on_lowering: the frontend attribute (name,
   * value) a `device` call carries besides its compute type: inlineable =
   * "false", then backend_config = "{}" from 0.11.2. */
  lsim_jax_strings compute_on_device_attribute;
  /* The compute types whose calls carry it: `device`, and `tpu_sparsecore`
   * from 0.12.0. */
  lsim_jax_strings compute_on_attribute_types;
  /* Whether a `tpu_sparsecore` call's results in device memory are wrapped
   * with their memory kind (wrap_with_memory_kind), as every other's are:
   * until 0.11.1. */
  bool compute_on_sparsecore_device_wrapped;

  /* --- explain's source links (ctx/jax_source.c, lowersim explain) ------- */
  /* The ref of github.com/jax-ml/jax that explain's FILE:LINE links name
   * (each release's tag): the file lines of ctx/jax_source_table.c are read
   * at that release by tools/gen_jax_source.py. */
  const char *source_ref;
  /* Other areas add their blocks here, each with a header like the one above. */
} lsim_jax_profile;

/* The releases lowersim models, oldest first (ctx/jax_profile.c holds the
 * columns; lsim_jax_profile_at lists them). */
extern const lsim_jax_profile lsim_jax_0_10_2;   /* 990e6a0b84, 2026-06-17 */
extern const lsim_jax_profile lsim_jax_0_11_0;   /* a1521744c6, 2026-07-16 */
extern const lsim_jax_profile lsim_jax_0_11_1;   /* 2d66622450, 2026-08-17 */
extern const lsim_jax_profile lsim_jax_0_11_2;   /* 32544801e2, 2026-09-17 */
extern const lsim_jax_profile lsim_jax_0_12_0_1; /* dc4af68444, 2026-10-20 (0.12.0: an alias) */

/* The line of FUNCTION's `def` ("Class.method" for a method) in FILE, a
 * path of the JAX repository ("jax/_src/interpreters/mlir.py"), at
 * `profile`'s source_ref (NULL: the newest profile); 0 when lowersim's
 * table of the functions its narration names has no row for it. */
int lsim_jax_source_line(const lsim_jax_profile *profile, const char *file,
                         const char *function);

/* The link to that line,
 * https://github.com/jax-ml/jax/blob/REF/FILE#LLINE (#L dropped when the
 * line is not known), into `buf` as snprintf does; returns what snprintf
 * returns. */
int lsim_jax_source_url(const lsim_jax_profile *profile, const char *file, const char *function,
                        char *buf, size_t size);

/* The profiles, oldest first: lsim_jax_profile_count() of them. */
size_t lsim_jax_profile_count(void);
const lsim_jax_profile *lsim_jax_profile_at(size_t i); /* NULL past the end */

/* The profile `name` names: its version string, or a prefix of at least 7
 * hex digits of its commit, or an alias's name or commit prefix (a release
 * that lowers as another: lsim_jax_alias_at).  NULL when none does. */
const lsim_jax_profile *lsim_jax_profile_find(const char *name);

/* The newest profile: what NULL stands for. */
const lsim_jax_profile *lsim_jax_profile_default(void);

/* `profile`, or the newest when it is NULL. */
const lsim_jax_profile *lsim_jax_profile_or_default(const lsim_jax_profile *profile);

/* The profiles' names, ", "-joined ("0.10.2, 0.11.0, ..."), for messages
 * about an unknown version, into `buf` (`size` bytes, NUL-terminated, cut
 * short when it does not fit; NULL to measure).  Returns the full length. */
size_t lsim_jax_profile_names(char *buf, size_t size);

/* A release lowersim takes by name that lowers exactly as a profile does
 * (its differences are in nothing lowersim models). */
typedef struct lsim_jax_alias {
  const char *name;                /* as jax.__version__ spells it: "0.12.0" */
  const char *commit;              /* 10 hex digits */
  const lsim_jax_profile *profile; /* what it lowers as */
  const char *why;                 /* one line: what differs, and why that does not count */
} lsim_jax_alias;

size_t lsim_jax_alias_count(void);
const lsim_jax_alias *lsim_jax_alias_at(size_t i); /* NULL past the end */

/* --- The facts ----------------------------------------------------------- */

typedef enum lsim_jax_fact_type {
  LSIM_JAX_FACT_STRING,  /* const char * (NULL: none) */
  LSIM_JAX_FACT_BOOL,    /* bool */
  LSIM_JAX_FACT_INT,     /* int */
  LSIM_JAX_FACT_STRINGS, /* lsim_jax_strings */
} lsim_jax_fact_type;

typedef struct lsim_jax_fact {
  const char *name;       /* dotted, by area: "export.stable_custom_call_targets" */
  const char *meaning;    /* what the value says, one sentence */
  const char *jax_code;   /* where JAX has it: file: function or name */
  lsim_jax_fact_type type;
  size_t offset;          /* offsetof(lsim_jax_profile, the field) */
} lsim_jax_fact;

size_t lsim_jax_fact_count(void);
const lsim_jax_fact *lsim_jax_fact_at(size_t i); /* NULL past the end */
const lsim_jax_fact *lsim_jax_fact_find(const char *name);

/* One change of a fact: the release whose column first has the new value,
 * and the JAX commit that made it.  Every fact whose value differs between
 * two consecutive profiles has exactly one change at the newer of them (the
 * test unit.context checks it). */
typedef struct lsim_jax_change {
  const char *fact;    /* the fact's name */
  const char *release; /* the profile that first has the new value */
  const char *by;      /* "COMMIT (DATE) \"title\"" when known, else what is */
} lsim_jax_change;

size_t lsim_jax_change_count(void);
const lsim_jax_change *lsim_jax_change_at(size_t i); /* NULL past the end, oldest first */

/* The change of `fact` at `release` (a profile), NULL when it has none. */
const lsim_jax_change *lsim_jax_change_find(const lsim_jax_fact *fact,
                                            const lsim_jax_profile *release);

/* Whether the fact has the same value in both profiles. */
bool lsim_jax_fact_equal(const lsim_jax_fact *fact, const lsim_jax_profile *a,
                         const lsim_jax_profile *b);

/* The fact's value in `profile` as text (owned, caller frees; NULL when out
 * of memory): a string in quotes, true/false, a number, a list as
 * ['a', 'b']. */
char *lsim_jax_fact_format(const lsim_jax_fact *fact, const lsim_jax_profile *profile);

/* The value itself, for code that reads a fact by its row. */
const void *lsim_jax_fact_value(const lsim_jax_fact *fact, const lsim_jax_profile *profile);

/* Whether `name` is in the list. */
bool lsim_jax_strings_contain(const lsim_jax_strings *list, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_JAX_PROFILE_H */
