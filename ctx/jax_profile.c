/* ctx/jax_profile.c: the JAX releases lowersim models (oldest first) and the
 * table of their version-dependent facts: a column per release (a profile,
 * each the previous one and the rows it changes), a row per fact (`facts`:
 * what it means, where JAX has it, its type), and the JAX commit behind each
 * change of a row (`changes`), from which `lowersim versions` prints and
 * compares the releases. */
#include "lowersim/jax_profile.h"
#include "support/strbuf.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define STRINGS(a) {(a), COUNT(a)}

/* --- values shared by several profiles ------------------------------------- */

/* export/_export.py _CUSTOM_CALL_TARGETS_GUARANTEED_STABLE, sorted: the same
 * 88 names at jax-v0.10.2, jax-v0.11.0 and cec06d116c (2026-08-08). */
static const char *const stable_custom_call_targets[] = {
    "AllocateBuffer", "ApproxTopK", "Eigh", "LuDecomposition",
    "ProductOfElementaryHouseholderReflectors", "Qr", "SPMDFullToShardShape",
    "SPMDShardToFullShape", "Sharding", "annotate_device_placement",
    "cu_lu_pivots_to_permutation", "cu_threefry2x32_ffi", "cusolver_geqrf_ffi",
    "cusolver_gesvd_ffi", "cusolver_gesvdj_ffi", "cusolver_getrf_ffi", "cusolver_orgqr_ffi",
    "cusolver_potrf_ffi", "cusolver_syevd_ffi", "cusolver_sytrd_ffi", "cusparse_gtsv2_ffi",
    "hip_lu_pivots_to_permutation", "hip_threefry2x32_ffi", "hipsolver_geqrf_ffi",
    "hipsolver_gesdd_ffi", "hipsolver_gesvd_ffi", "hipsolver_gesvdj_ffi", "hipsolver_getrf_ffi",
    "hipsolver_orgqr_ffi", "hipsolver_potrf_ffi", "hipsolver_syevd_ffi", "hipsolver_sytrd_ffi",
    "lapack_cgees_ffi", "lapack_cgeev_ffi", "lapack_cgehrd_ffi", "lapack_cgeqrf_ffi",
    "lapack_cgesdd_ffi", "lapack_cgetrf_ffi", "lapack_cgtsv_ffi", "lapack_cheevd_ffi",
    "lapack_chetrd_ffi", "lapack_cpotrf_ffi", "lapack_ctrsm_ffi", "lapack_cungqr_ffi",
    "lapack_dgees_ffi", "lapack_dgeev_ffi", "lapack_dgehrd_ffi", "lapack_dgeqrf_ffi",
    "lapack_dgesdd_ffi", "lapack_dgetrf_ffi", "lapack_dgtsv_ffi", "lapack_dorgqr_ffi",
    "lapack_dpotrf_ffi", "lapack_dsyevd_ffi", "lapack_dsytrd_ffi", "lapack_dtrsm_ffi",
    "lapack_sgees_ffi", "lapack_sgeev_ffi", "lapack_sgehrd_ffi", "lapack_sgeqrf_ffi",
    "lapack_sgesdd_ffi", "lapack_sgetrf_ffi", "lapack_sgtsv_ffi", "lapack_sorgqr_ffi",
    "lapack_spotrf_ffi", "lapack_ssyevd_ffi", "lapack_ssytrd_ffi", "lapack_strsm_ffi",
    "lapack_zgees_ffi", "lapack_zgeev_ffi", "lapack_zgehrd_ffi", "lapack_zgeqrf_ffi",
    "lapack_zgesdd_ffi", "lapack_zgetrf_ffi", "lapack_zgtsv_ffi", "lapack_zheevd_ffi",
    "lapack_zhetrd_ffi", "lapack_zpotrf_ffi", "lapack_ztrsm_ffi", "lapack_zungqr_ffi",
    "mosaic_gpu_v2", "shape_assertion", "stablehlo.dynamic_approx_top_k",
    "stablehlo.dynamic_reduce_window", "stablehlo.dynamic_rng_bit_generator",
    "stablehlo.dynamic_top_k", "tf.call_tf_function", "tpu_custom_call",
};

/* jaxlib's make_tpu_client on a machine without libtpu (0.10.2 and 0.11.0
 * alike; xla_bridge records it as the tpu factory's quiet failure). */
static const char tpu_without_libtpu[] =
    "INTERNAL: Failed to open libtpu.so: libtpu.so: cannot open shared object file: No such "
    "file or directory";

/* xla_bridge.make_ifrt_proxy_client without jax_backend_target (0.12.0). */
static const char proxy_without_target[] =
    "The 'proxy' backend requires the address of an IFRT Proxy server. Set it via the "
    "JAX_BACKEND_TARGET environment variable or the jax_backend_target config option, e.g. "
    "JAX_BACKEND_TARGET=grpc://localhost:29000.";

/* tpu_info.chip_version_from_device_kind's cases (jax/_src/pallas/mosaic/
 * tpu_info.py at 0.10.2; jax/_src/tpu_info.py from 0.11.1, with TPU8t). */
static const char *const tpu_kinds_0_10_2[] = {
    "TPU v2", "TPU v3", "TPU v4", "TPU v4 lite", "TPU v5e", "TPU v5 lite", "TPU v5", "TPU v5p",
    "TPU v6e", "TPU v6 lite", "TPU7", "TPU7x", "TPU8i"};
static const char *const tpu_kinds_0_11_1[] = {
    "TPU v2", "TPU v3", "TPU v4", "TPU v4 lite", "TPU v5e", "TPU v5 lite", "TPU v5",
    "TPU v5p", "TPU v6e", "TPU v6 lite", "TPU7", "TPU7x", "TPU8i", "TPU8t"};

/* gpu_info.GpuVersion's values (jax/_src/pallas/triton/gpu_info.py, from
 * 0.11.0). */
static const char *const gpu_kinds_0_11_0[] = {
    "NVIDIA A10", "NVIDIA A30", "NVIDIA A100", "NVIDIA H100", "NVIDIA H200",
    "NVIDIA GH200", "NVIDIA B200", "NVIDIA GB200", "NVIDIA B300", "NVIDIA GB300",
    "NVIDIA GB10", "NVIDIA L4", "NVIDIA L40", "Tesla T4", "NVIDIA GeForce RTX 4090",
    "NVIDIA RTX PRO 4500", "NVIDIA RTX PRO 5000", "NVIDIA RTX PRO 6000", "NVIDIA Thor"};
static const char *const gpu_kinds_0_12_0[] = {
    "NVIDIA A10", "NVIDIA A30", "NVIDIA A100", "NVIDIA H100", "NVIDIA H200",
    "NVIDIA GH200", "NVIDIA B200", "NVIDIA GB200", "NVIDIA B300", "NVIDIA GB300",
    "NVIDIA GB10", "NVIDIA L4", "NVIDIA L40", "Tesla T4", "NVIDIA GeForce RTX 4090",
    "NVIDIA RTX PRO 4500", "NVIDIA RTX PRO 5000", "NVIDIA RTX PRO 6000", "NVIDIA Thor",
    "NVIDIA VR200"};

/* mlir.py _platforms_with_donation. */
static const char *const donation_platforms_0_10_2[] = {"cpu", "cuda", "rocm", "tpu", "neuron"};
static const char *const donation_platforms_0_11_1[] = {"cpu",  "cuda",   "rocm",
                                                        "tpu",  "neuron", "oneapi"};

/* callback.py emit_python_callback's platform sets. */
static const char *const python_callback_platforms_0_10_2[] = {"cpu", "cuda", "rocm", "tpu"};
static const char *const python_callback_platforms_0_11_1[] = {"cpu", "cuda", "rocm", "tpu",
                                                               "oneapi"};
static const char *const partitioned_callback_platforms_0_10_2[] = {"cpu", "cuda", "rocm"};
static const char *const partitioned_callback_platforms_0_11_1[] = {"cpu", "cuda", "rocm",
                                                                    "oneapi"};

/* compute_on.py _compute_on_lowering: a `device` call's extra frontend
 * attribute. */
static const char *const compute_on_device_inlineable[] = {"inlineable", "false"};
static const char *const compute_on_device_backend_config[] = {"backend_config", "{}"};
static const char *const compute_on_attribute_types_0_10_2[] = {"device"};
static const char *const compute_on_attribute_types_0_12_0[] = {"device", "tpu_sparsecore"};

#define TPU_KIND_HINT                                                                              \
  ". If you are not running on a TPU device, you need to wrap your code in a "                    \
  "`jax.sharding.use_abstract_mesh` context manager whose `AbstractMesh` argument specifies "     \
  "the exact TPU version you intend to target."

/* --- the profiles: one column per release ---------------------------------

 * Each release's column is the previous release's and the rows it changes:
 * a macro of designated initializers, where a later initializer of a field
 * replaces an earlier one (C11 6.7.9p19).  GCC and Clang warn about such an
 * override (-Woverride-init, part of -Wextra); here it is the point, so the
 * warning is off for this file's columns alone.  Every row that changes has
 * an entry in `changes` below (the JAX commit that changed it), which the
 * test unit.context checks against the columns. */

#define JAX_0_10_2                                                                                 \
  .python_requires = ">=3.11", .minimum_jaxlib = "0.10.1",                                         \
  .export_stable_custom_call_targets = STRINGS(stable_custom_call_targets),                        \
  .tpu_factory_error = tpu_without_libtpu, .proxy_factory_error = NULL,                            \
  .export_custom_call_advice = false,                                                              \
  .export_custom_call_doc_url = "https://docs.jax.dev/en/latest/export/export.html"                \
                                "#compatibility-guarantees-for-custom-calls",                      \
  .platforms_with_donation = STRINGS(donation_platforms_0_10_2),                                   \
  .donation_doc_url = "https://docs.jax.dev/en/latest/faq.html#buffer-donation",                   \
  .use_shardy_partitioner = true, .buffer_callback_oneapi = false,                                 \
  .uncached_multi_platform_type_error = true,                                                      \
  .python_callback_platforms = STRINGS(python_callback_platforms_0_10_2),                          \
  .partitioned_callback_platforms = STRINGS(partitioned_callback_platforms_0_10_2),                \
  .callback_sharding_names_devices = false,                                                        \
  .platform_dependent_gpu_platforms = "'cuda' or 'rocm'",                                          \
  .pallas_triton_registered_on_import = false, .pallas_tpu_device_kind_hint = "",                  \
  .pallas_tpu_device_kinds = STRINGS(tpu_kinds_0_10_2), .pallas_mosaic_fwd_compat_version = 11,    \
  .pallas_mosaic_serde_version = 15, .pallas_mosaic_debug_locations = false,                      \
  .pallas_mosaic_module_sym_name = false, .pallas_triton_gpu_info = false,                         \
  .pallas_triton_deprecated = false, .pallas_mosaic_gpu_warpgroup_semantics = false,               \
  .pallas_mosaic_gpu_hopper_copies = false, .pallas_mosaic_gpu_arch_same_kind = false,             \
  .pallas_mosaic_gpu_serde_version = 6, .pallas_mosaic_gpu_fwd_compat_version = 2,                 \
  .pallas_triton_cache_evict = true, .pallas_triton_deprecated_in_lowering = false,                \
  .pallas_gpu_info_generic_nvidia = false,                                                         \
  .pallas_interpret_device_put = false, .pallas_interpret_alias_sync = false,                      \
  .pallas_call_dce_unused = false,                                                                 \
  .pallas_mosaic_gpu_pre_hopper_pipeline = false, .pallas_mosaic_gpu_dump_basename = false,        \
  .pallas_mosaic_gpu_expect_tx_constant = false,                                                   \
  .pallas_use_mosaic_gpu_option = true, .pallas_gpu_lowering_triton_only = false,                  \
  .compute_on_context_manager = true,                                                              \
  .compute_on_device_attribute = STRINGS(compute_on_device_inlineable),                            \
  .compute_on_attribute_types = STRINGS(compute_on_attribute_types_0_10_2),                        \
  .compute_on_sparsecore_device_wrapped = true

#define JAX_0_11_0                                                                                 \
  JAX_0_10_2, .python_requires = ">=3.12", .minimum_jaxlib = "0.11.0",                             \
  .pallas_triton_registered_on_import = true, .pallas_mosaic_fwd_compat_version = 13,              \
  .pallas_triton_gpu_info = true, .pallas_gpu_device_kinds = STRINGS(gpu_kinds_0_11_0),            \
  .pallas_triton_deprecated = true, .pallas_mosaic_gpu_warpgroup_semantics = true,                 \
  .pallas_mosaic_gpu_hopper_copies = true, .pallas_mosaic_gpu_arch_same_kind = true

#define JAX_0_11_1                                                                                 \
  JAX_0_11_0, .minimum_jaxlib = "0.11.1", .buffer_callback_oneapi = true,                          \
  .platforms_with_donation = STRINGS(donation_platforms_0_11_1),                                   \
  .python_callback_platforms = STRINGS(python_callback_platforms_0_11_1),                          \
  .partitioned_callback_platforms = STRINGS(partitioned_callback_platforms_0_11_1),                \
  .pallas_tpu_device_kind_hint = TPU_KIND_HINT, .pallas_tpu_device_kinds = STRINGS(tpu_kinds_0_11_1), \
  .pallas_mosaic_fwd_compat_version = 15, .pallas_mosaic_gpu_serde_version = 7,                   \
  .pallas_mosaic_gpu_fwd_compat_version = 6,                                                       \
  .pallas_mosaic_gpu_pre_hopper_pipeline = true, .pallas_mosaic_gpu_dump_basename = true,          \
  .pallas_mosaic_gpu_expect_tx_constant = true, .compute_on_context_manager = false

#define JAX_0_11_2                                                                                 \
  JAX_0_11_1, .minimum_jaxlib = "0.11.2", .export_custom_call_advice = true,                       \
  .compute_on_device_attribute = STRINGS(compute_on_device_backend_config),                        \
  .compute_on_sparsecore_device_wrapped = false,                                                   \
  .platform_dependent_gpu_platforms = "'cuda', 'rocm', or 'oneapi'",                               \
  .pallas_mosaic_serde_version = 17,                                                               \
  .pallas_triton_deprecated_in_lowering = true, .pallas_interpret_device_put = true,               \
  .pallas_interpret_alias_sync = true, .pallas_mosaic_gpu_serde_version = 9,                       \
  .pallas_use_mosaic_gpu_option = false, .pallas_gpu_lowering_triton_only = true,                  \
  .pallas_gpu_info_generic_nvidia = true

#define JAX_0_12_0                                                                                 \
  JAX_0_11_2, .proxy_factory_error = proxy_without_target,                                         \
  .compute_on_attribute_types = STRINGS(compute_on_attribute_types_0_12_0),                        \
  .callback_sharding_names_devices = true,                                                         \
  .donation_doc_url = "https://docs.jax.dev/en/latest/201/jit.html#jax-201-buffer-donation",       \
  .pallas_mosaic_serde_version = 18, .pallas_mosaic_debug_locations = true,                        \
  .pallas_mosaic_module_sym_name = true, .pallas_triton_cache_evict = false,                       \
  .pallas_call_dce_unused = true, .pallas_mosaic_gpu_fwd_compat_version = 9,                      \
  .export_custom_call_doc_url = "https://docs.jax.dev/en/latest/501/export.html"                   \
                                "#compatibility-guarantees-for-custom-calls",                      \
  .pallas_gpu_device_kinds = STRINGS(gpu_kinds_0_12_0)

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
#endif

const lsim_jax_profile lsim_jax_0_10_2 = {
    .name = "0.10.2",
    .commit = "990e6a0b84",
    .date = "2026-06-17",
    .summary = "the newest release for Python 3.11",
    JAX_0_10_2,
    .source_ref = "jax-v0.10.2",
};

const lsim_jax_profile lsim_jax_0_11_0 = {
    .name = "0.11.0",
    .commit = "a1521744c6",
    .date = "2026-07-16",
    .summary = "the first release for Python 3.12 and later only",
    JAX_0_11_0,
    .source_ref = "jax-v0.11.0",
};

const lsim_jax_profile lsim_jax_0_11_1 = {
    .name = "0.11.1",
    .commit = "2d66622450",
    .date = "2026-08-17",
    .summary = "oneapi donates and runs python callbacks; the first release with the seeds' facts",
    JAX_0_11_1,
    .source_ref = "jax-v0.11.1",
};

const lsim_jax_profile lsim_jax_0_11_2 = {
    .name = "0.11.2",
    .commit = "32544801e2",
    .date = "2026-09-17",
    .summary = "pl.pallas_call on GPU through Triton alone (jax_pallas_use_mosaic_gpu gone)",
    JAX_0_11_2,
    .source_ref = "jax-v0.11.2",
};

/* 0.12.0 (8dcb7aeced, 2026-10-16) differs from 0.12.0.1 in jaxlib's
 * compiled runtime alone (libjax_common.so; every Python file but
 * version.py is the same), not in anything lowersim models: it is an alias
 * of this profile (`aliases` below). */
const lsim_jax_profile lsim_jax_0_12_0_1 = {
    .name = "0.12.0.1",
    .commit = "dc4af68444",
    .date = "2026-10-20",
    .summary = "what `pip install jax` gives in December 2026; 0.12.0 lowers as it does",
    JAX_0_12_0,
    .source_ref = "jax-v0.12.0.1",
};

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static const lsim_jax_profile *const profiles[] = {&lsim_jax_0_10_2, &lsim_jax_0_11_0,
                                                   &lsim_jax_0_11_1, &lsim_jax_0_11_2,
                                                   &lsim_jax_0_12_0_1};

/* Releases lowersim takes by name that lower as another profile. */
static const lsim_jax_alias aliases[] = {
    {"0.12.0", "8dcb7aeced", &lsim_jax_0_12_0_1,
     "0.12.0.1 changed jaxlib's compiled runtime only (libjax_common.so), nothing that lowers"},
};

/* --- the changes: which JAX commit changed each row, at which release -------- */

static const lsim_jax_change changes[] = {
    {"environment.python_requires", "0.11.0",
     "5ab345f1b4 (2026-06-18) \"Drop support for Python 3.11 for the next JAX release (0.11.0 "
     "on July 15).\""},
    {"environment.minimum_jaxlib", "0.11.0",
     "a1521744c6 (2026-07-16) \"Prepare for JAX release 0.11.0\""},
    {"pallas.triton_registered_on_import", "0.11.0", "8fde3f3846 (2026-06-24)"},
    {"pallas.mosaic_fwd_compat_version", "0.11.0", "6e8d8e4f62 (2026-06-30)"},
    {"pallas.triton_gpu_info", "0.11.0", "9a42858685 (2026-06-30)"},
    {"pallas.gpu_device_kinds", "0.11.0", "9a42858685 (2026-06-30)"},
    {"pallas.triton_deprecated", "0.11.0", "c486c9d985 (2026-07-13)"},
    {"pallas.mosaic_gpu_warpgroup_semantics", "0.11.0",
     "32915de40f (2026-07-16) \"[Mosaic GPU] Turn WG on by default.\""},
    {"pallas.mosaic_gpu_hopper_copies", "0.11.0",
     "ea11dbfcc3 (2026-07-10) \"[Mosaic GPU] Add support for barriers on Ampere GPUs\""},
    {"pallas.mosaic_gpu_arch_same_kind", "0.11.0",
     "9b4aabf5d7 (2026-07-01) \"[Mosaic GPU] Improve GPU architecture detection\""},
    {"explain.source_ref", "0.11.0", "each release's own tag"},
    {"environment.minimum_jaxlib", "0.11.1", "the release jax-v0.11.1 (after jax-v0.11.0)"},
    {"callbacks.buffer_callback_oneapi", "0.11.1",
     "the release jax-v0.11.1 (after jax-v0.11.0; the seeds' commit 1e1c6a8fc0 has it too)"},
    {"lowering.platforms_with_donation", "0.11.1", "the release jax-v0.11.1 (after jax-v0.11.0)"},
    {"callbacks.python_callback_platforms", "0.11.1",
     "the release jax-v0.11.1 (after jax-v0.11.0)"},
    {"callbacks.partitioned_callback_platforms", "0.11.1",
     "the release jax-v0.11.1 (after jax-v0.11.0)"},
    {"pallas.tpu_device_kind_hint", "0.11.1", "1ebd186c61 (2026-08-03)"},
    {"pallas.tpu_device_kinds", "0.11.1", "a92b670a41 (2026-07-21): TPU8t"},
    {"pallas.mosaic_fwd_compat_version", "0.11.1",
     "the release jax-v0.11.1 (after jax-v0.11.0; the mirror's cec06d116c, 2026-08-08, has 13)"},
    {"pallas.mosaic_gpu_serde_version", "0.11.1", "4656473b67 (2026-08-05)"},
    {"pallas.mosaic_gpu_fwd_compat_version", "0.11.1", "7a6b8927fe (2026-07-31)"},
    {"pallas.mosaic_gpu_pre_hopper_pipeline", "0.11.1",
     "ecb82891c0 (2026-08-06) \"[pallas:mgpu] `emit_pipeline` now works on Ampere\""},
    {"pallas.mosaic_gpu_dump_basename", "0.11.1",
     "59335cd85d (2026-08-05) \"[Pallas/Mosaic GPU] Allow dumping module before and after layout "
     "inference.\" (with jaxlib 0.11.1's get_or_set_dump_options)"},
    {"pallas.mosaic_gpu_expect_tx_constant", "0.11.1",
     "3549c1e3ba (committed 2026-08-06) \"[Pallas][Mosaic GPU] Added predicate arg to "
     "copy_gmem_to_smem\" (with jaxlib 0.11.1's dynamic expect_tx)"},
    {"lowering.compute_on_context_manager", "0.11.1",
     "3a440c764b (2026-07-29) \"Delete compute_on as compute_on2 is the replacement.\""},
    {"explain.source_ref", "0.11.1", "each release's own tag"},
    {"environment.minimum_jaxlib", "0.11.2", "the release jax-v0.11.2 (after jax-v0.11.1)"},
    {"export.custom_call_advice", "0.11.2", "the release jax-v0.11.2 (after jax-v0.11.1)"},
    {"lowering.compute_on_device_attribute", "0.11.2",
     "the release jax-v0.11.2 (after jax-v0.11.1)"},
    {"lowering.compute_on_sparsecore_device_wrapped", "0.11.2",
     "the release jax-v0.11.2 (after jax-v0.11.1)"},
    {"pallas.gpu_info_generic_nvidia", "0.11.2", "the release jax-v0.11.2 (after jax-v0.11.1)"},
    {"lax.platform_dependent_gpu_platforms", "0.11.2",
     "the release jax-v0.11.2 (after jax-v0.11.1)"},
    {"pallas.mosaic_serde_version", "0.11.2",
     "the release jax-v0.11.2 (after jax-v0.11.1): jaxlib 0.11.2's mosaic-serde writes 17"},
    {"pallas.triton_deprecated_in_lowering", "0.11.2",
     "the release jax-v0.11.2 (after jax-v0.11.1): the warning moved from pallas_call.py "
     "gpu_lowering to triton/pallas_call_registration.py pallas_call_lowering"},
    {"pallas.interpret_device_put", "0.11.2",
     "the release jax-v0.11.2 (after jax-v0.11.1): hlo_interpreter.py "
     "pallas_call_hlo_interpret"},
    {"pallas.interpret_alias_sync", "0.11.2",
     "the release jax-v0.11.2 (after jax-v0.11.1): hlo_interpreter.py "
     "pallas_call_hlo_interpret (alias_input_written, alias_output_written)"},
    {"pallas.mosaic_gpu_serde_version", "0.11.2",
     "the release jax-v0.11.2 (after jax-v0.11.1): its jaxlib's mosaic_gpu-serde writes 9"},
    {"pallas.use_mosaic_gpu_option", "0.11.2", "the release jax-v0.11.2 (after jax-v0.11.1)"},
    {"pallas.gpu_lowering_triton_only", "0.11.2", "the release jax-v0.11.2 (after jax-v0.11.1)"},
    {"explain.source_ref", "0.11.2", "each release's own tag"},
    {"lowering.compute_on_attribute_types", "0.12.0.1",
     "the release jax-v0.12.0 (after jax-v0.11.2)"},
    {"callbacks.sharding_names_devices", "0.12.0.1",
     "the release jax-v0.12.0 (after jax-v0.11.2)"},
    {"export.custom_call_doc_url", "0.12.0.1",
     "the release jax-v0.12.0 (after jax-v0.11.2): the docs' 101/201/301/401/501 layout"},
    {"pallas.gpu_device_kinds", "0.12.0.1", "the release jax-v0.12.0 (after jax-v0.11.2): NVIDIA VR200"},
    {"runtime.proxy_factory_error", "0.12.0.1", "the release jax-v0.12.0 (after jax-v0.11.2)"},
    {"lowering.donation_doc_url", "0.12.0.1", "the release jax-v0.12.0 (after jax-v0.11.2)"},
    {"pallas.mosaic_serde_version", "0.12.0.1",
     "the release jax-v0.12.0 (after jax-v0.11.2): jaxlib 0.12.0's mosaic-serde writes 18"},
    {"pallas.mosaic_debug_locations", "0.12.0.1",
     "the release jax-v0.12.0 (after jax-v0.11.2): tpu_custom_call.py unzip_debug_locations, "
     "config jax_mosaic_unzip_debug_locations"},
    {"pallas.mosaic_module_sym_name", "0.12.0.1",
     "the release jax-v0.12.0 (after jax-v0.11.2): lowering.py sets the module's sym_name"},
    {"pallas.triton_cache_evict", "0.12.0.1",
     "the release jax-v0.12.0 (after jax-v0.11.2): jaxlib's Triton dialect takes a "
     "cache_policy, which triton/lowering.py _get_cache_policy leaves unset"},
    {"pallas.call_dce_unused", "0.12.0.1",
     "the release jax-v0.12.0 (after jax-v0.11.2): pallas_call.py _pallas_call_dce_rule, "
     "_has_side_effects"},
    {"pallas.mosaic_gpu_fwd_compat_version", "0.12.0.1",
     "the release jax-v0.12.0 (after jax-v0.11.2): FWD_COMPAT_IR_VERSION = 9"},
    {"explain.source_ref", "0.12.0.1", "each release's own tag"},
};

/* --- the facts --------------------------------------------------------------- */

#define FACT(field, type) LSIM_JAX_FACT_##type, offsetof(lsim_jax_profile, field)

static const lsim_jax_fact facts[] = {
    /* the environment */
    {"environment.python_requires", "the Python versions this JAX installs on (setup.py)",
     "setup.py: python_requires", FACT(python_requires, STRING)},
    {"environment.minimum_jaxlib", "the oldest jaxlib this JAX runs on",
     "jax/version.py: _minimum_jaxlib_version", FACT(minimum_jaxlib, STRING)},

    /* jit, export and the runtime */
    {"export.stable_custom_call_targets",
     "custom-call targets jax.export serializes without DisabledSafetyCheck.custom_call",
     "jax/_src/export/_export.py: _CUSTOM_CALL_TARGETS_GUARANTEED_STABLE, _check_module",
     FACT(export_stable_custom_call_targets, STRINGS)},
    {"export.custom_call_advice",
     "the custom-call error ends with the targets disabled_checks disabled, or how to disable one",
     "jax/_src/export/_export.py: _check_module", FACT(export_custom_call_advice, BOOL)},
    {"export.custom_call_doc_url", "the documentation link of the custom-call error",
     "jax/_src/export/_export.py: _check_module", FACT(export_custom_call_doc_url, STRING)},
    {"runtime.tpu_factory_error",
     "what the tpu factory xla_bridge registers on import raises without libtpu (a quiet "
     "failure)",
     "jax/_src/xla_bridge.py: register_backend_factory('tpu', ..., fail_quietly=True)",
     FACT(tpu_factory_error, STRING)},

    {"runtime.proxy_factory_error",
     "what the proxy factory xla_bridge registers on import (priority -1) raises without "
     "jax_backend_target (a quiet failure); None: no proxy factory",
     "jax/_src/xla_bridge.py: make_ifrt_proxy_client, register_backend_factory(\"proxy\", ...)",
     FACT(proxy_factory_error, STRING)},
    {"lowering.platforms_with_donation", "the platforms that support buffer donation",
     "jax/_src/interpreters/mlir.py: _platforms_with_donation",
     FACT(platforms_with_donation, STRINGS)},
    {"lowering.donation_doc_url", "the link that ends the unusable-donation warning",
     "jax/_src/interpreters/mlir.py: lower_jaxpr_to_module (warnings.warn)",
     FACT(donation_doc_url, STRING)},

    /* host callbacks, sharding and effects */
    {"callbacks.use_shardy_partitioner",
     "jax_use_shardy_partitioner's default: callbacks carry sdy.sharding and the module sdy.mesh "
     "(True since df8e17a549, 2025-07-20)",
     "jax/_src/config.py: use_shardy_partitioner", FACT(use_shardy_partitioner, BOOL)},
    {"callbacks.buffer_callback_oneapi",
     "buffer_callback lowers on oneapi (xla_buffer_python_gpu_callback, _cmd_buffer)",
     "jax/_src/buffer_callback.py: _buffer_callback_lowering", FACT(buffer_callback_oneapi, BOOL)},
    {"callbacks.uncached_multi_platform_type_error",
     "an uncacheable primitive (debug_callback) with two kept rules raises TypeError in "
     "lower_per_platform (since 38581b7f80, 2025-09-22)",
     "jax/_src/interpreters/mlir.py: lower_per_platform",
     FACT(uncached_multi_platform_type_error, BOOL)},
    {"callbacks.python_callback_platforms",
     "the platforms pure_callback, io_callback and debug callbacks lower for",
     "jax/_src/callback.py: emit_python_callback", FACT(python_callback_platforms, STRINGS)},
    {"callbacks.partitioned_callback_platforms",
     "the platforms whose python callbacks may be partitioned",
     "jax/_src/callback.py: emit_python_callback", FACT(partitioned_callback_platforms, STRINGS)},
    {"callbacks.sharding_names_devices",
     "a callback sharding's device outside the device assignment is reworded with both, not "
     "tuple.index's ValueError",
     "jax/_src/callback.py: _callback_op_sharding", FACT(callback_sharding_names_devices, BOOL)},
    /* lax */
    {"lax.platform_dependent_gpu_platforms",
     "the platforms named by platform_dependent's refusal of a 'gpu' branch",
     "jax/_src/lax/control_flow/conditionals.py: platform_dependent",
     FACT(platform_dependent_gpu_platforms, STRING)},
    /* Pallas */
    {"pallas.triton_registered_on_import",
     "Triton's CompilerParams are registered when jax.experimental.pallas.triton is imported "
     "(before: Triton params on tpu reach Mosaic TPU's rule, which asserts)",
     "jax/_src/pallas/triton/pallas_call_registration.py",
     FACT(pallas_triton_registered_on_import, BOOL)},
    {"pallas.tpu_device_kind_hint",
     "what follows \"Unsupported TPU device kind: KIND\" (the use_abstract_mesh hint)",
     "jax/_src/pallas/mosaic/tpu_info.py: get_tpu_info", FACT(pallas_tpu_device_kind_hint, STRING)},
    {"pallas.tpu_device_kinds", "the TPU device kinds Pallas's tpu_info knows",
     "jax/_src/tpu_info.py: chip_version_from_device_kind", FACT(pallas_tpu_device_kinds, STRINGS)},
    {"pallas.mosaic_fwd_compat_version",
     "stable_mosaic.version of a Mosaic TPU kernel for export or without a TPU backend",
     "jax/_src/tpu_custom_call.py: _FWD_COMPAT_VERSION", FACT(pallas_mosaic_fwd_compat_version, INT)},
    {"pallas.mosaic_serde_version", "stable_mosaic.version of a Mosaic TPU kernel otherwise",
     "jaxlib/mosaic/dialect/tpu/transforms/serde.h: kVersion",
     FACT(pallas_mosaic_serde_version, INT)},
    {"pallas.mosaic_debug_locations",
     "a Mosaic TPU kernel's locations leave its module for the backend config's "
     "\"debug_locations\" (not for jax.export)",
     "jax/_src/tpu_custom_call.py: _lower_mosaic_module_to_asm (unzip_debug_locations), "
     "CustomCallBackendConfig.to_json",
     FACT(pallas_mosaic_debug_locations, BOOL)},
    {"pallas.mosaic_module_sym_name",
     "a Mosaic TPU kernel's module is named after its kernel function (sym_name)",
     "jax/_src/pallas/mosaic/lowering.py: lower_jaxpr_to_pipelined_module",
     FACT(pallas_mosaic_module_sym_name, BOOL)},
    {"pallas.triton_gpu_info",
     "Triton takes its GPU from gpu_info.get_gpu_info() (the abstract mesh's or the default "
     "device; an unknown kind is a RuntimeError), not jax.local_devices(backend=\"gpu\")",
     "jax/_src/pallas/triton/pallas_call_registration.py: pallas_call_lowering",
     FACT(pallas_triton_gpu_info, BOOL)},
    {"pallas.gpu_info_generic_nvidia",
     "gpu_info takes an unlisted kind starting with NVIDIA when it is the default device's",
     "jax/_src/pallas/triton/gpu_info.py: get_gpu_info, _get_device_arch_name",
     FACT(pallas_gpu_info_generic_nvidia, BOOL)},
    {"pallas.gpu_device_kinds", "the GPU kinds gpu_info.GpuVersion knows",
     "jax/_src/pallas/triton/gpu_info.py: GpuVersion", FACT(pallas_gpu_device_kinds, STRINGS)},
    {"pallas.triton_deprecated",
     "gpu_lowering warns (DeprecationWarning) when it picks Triton itself",
     "jax/_src/pallas/pallas_call.py: gpu_lowering", FACT(pallas_triton_deprecated, BOOL)},
    {"pallas.mosaic_gpu_warpgroup_semantics",
     "Mosaic GPU lowers kernels with warpgroup semantics and layout inference",
     "jax/_src/pallas/mosaic_gpu/core.py", FACT(pallas_mosaic_gpu_warpgroup_semantics, BOOL)},
    {"pallas.mosaic_gpu_hopper_copies",
     "a TMA copy needs a Hopper GPU or newer (arrive_expect_tx's NotImplementedError)",
     "jax/experimental/mosaic/gpu/utils.py: BarrierRef.arrive_expect_tx",
     FACT(pallas_mosaic_gpu_hopper_copies, BOOL)},
    {"pallas.mosaic_gpu_arch_same_kind",
     "under an abstract device, Mosaic GPU's arch is the default device's when their device "
     "kinds are the same (else 9.0)",
     "jax/experimental/mosaic/gpu/core.py: _infer_arch",
     FACT(pallas_mosaic_gpu_arch_same_kind, BOOL)},
    {"pallas.mosaic_gpu_serde_version",
     "stable_mosaic_gpu.version a Mosaic GPU kernel is serialized at",
     "jaxlib/mosaic/gpu/serde.cc: kVersion", FACT(pallas_mosaic_gpu_serde_version, INT)},
    {"pallas.mosaic_gpu_fwd_compat_version", "the Mosaic GPU version for jax.export",
     "jax/experimental/mosaic/gpu/core.py: FWD_COMPAT_IR_VERSION",
     FACT(pallas_mosaic_gpu_fwd_compat_version, INT)},
    {"pallas.triton_cache_evict",
     "Triton's tt.load and tt.store carry cache = 1, evict = 1 (after: no cache_policy, "
     "which is unset for CacheModifier.NONE and EvictionPolicy.NORMAL)",
     "jax/_src/pallas/triton/lowering.py: _load, _store, _get_cache_policy",
     FACT(pallas_triton_cache_evict, BOOL)},
    {"pallas.triton_deprecated_in_lowering",
     "Triton's pallas_call_lowering warns (DeprecationWarning) first thing on every Triton "
     "lowering, registered params included; gpu_lowering no longer does",
     "jax/_src/pallas/triton/pallas_call_registration.py: pallas_call_lowering",
     FACT(pallas_triton_deprecated_in_lowering, BOOL)},
    {"pallas.interpret_device_put",
     "interpret=True puts each operand in device memory first (jax.device_put, a "
     "stablehlo.case per operand when a tpu or gpu platform is lowered for with another)",
     "jax/_src/pallas/hlo_interpreter.py: pallas_call_hlo_interpret; "
     "jax/_src/dispatch.py: _tpu_gpu_device_put_lowering",
     FACT(pallas_interpret_device_put, BOOL)},
    {"pallas.interpret_alias_sync",
     "interpret=True carries an aliased output's new buffer in its input's place after each "
     "grid step (the kernel writes the output, not the input)",
     "jax/_src/pallas/hlo_interpreter.py: pallas_call_hlo_interpret",
     FACT(pallas_interpret_alias_sync, BOOL)},
    {"pallas.call_dce_unused",
     "jit drops a pallas_call none of whose results is used unless its compiler params have "
     "side effects (before: every pallas_call is kept)",
     "jax/_src/pallas/pallas_call.py: _pallas_call_dce_rule, _has_side_effects",
     FACT(pallas_call_dce_unused, BOOL)},
    {"pallas.mosaic_gpu_pre_hopper_pipeline",
     "on a GPU before Hopper, emit_pipeline refuses pl.pallas_call's output blocks before the "
     "kernel is lowered (NotImplementedError)",
     "jax/_src/pallas/mosaic_gpu/pipeline.py: emit_pipeline",
     FACT(pallas_mosaic_gpu_pre_hopper_pipeline, BOOL)},
    {"pallas.mosaic_gpu_dump_basename",
     "a Mosaic GPU kernel module carries mosaic_gpu.dump_basename = \"NAME_N\" (N: the "
     "process's count of modules named before it)",
     "jax/experimental/mosaic/gpu/core.py: lower_mgpu_module (get_or_set_dump_options)",
     FACT(pallas_mosaic_gpu_dump_basename, BOOL)},
    {"pallas.mosaic_gpu_expect_tx_constant",
     "a Mosaic GPU kernel's block copy leaves its byte count as an unused i32 constant among "
     "the launch's hoisted constants",
     "jax/experimental/mosaic/gpu/utils.py: DialectBarrierRef.arrive_expect_tx",
     FACT(pallas_mosaic_gpu_expect_tx_constant, BOOL)},
    {"pallas.use_mosaic_gpu_option",
     "jax.config has jax_pallas_use_mosaic_gpu, which picks Mosaic GPU or Triton for a GPU "
     "pallas_call without compiler params",
     "jax/_src/config.py: jax_pallas_use_mosaic_gpu", FACT(pallas_use_mosaic_gpu_option, BOOL)},
    {"pallas.gpu_lowering_triton_only",
     "gpu_lowering needs Triton's registration, lowers a call without params with Triton's and "
     "asserts a registered rule for the params (Mosaic GPU's have none)",
     "jax/_src/pallas/pallas_call.py: _pallas_call_lowering.gpu_lowering",
     FACT(pallas_gpu_lowering_triton_only, BOOL)},
    /* rules that are not inlined, compute types, ffi_call */
    {"lowering.compute_on_context_manager",
     "jax.experimental.compute_on.compute_on(compute_type) is a context manager giving its "
     "equations a compute type (after: compute_on2's function wrapper, so "
     "compute_on('device_host') is a TypeError)",
     "jax/_src/compute_on.py: compute_on", FACT(compute_on_context_manager, BOOL)},
    {"lowering.compute_on_device_attribute",
     "the frontend attribute [name, value] a compute_on('device') call carries besides its "
     "compute type",
     "jax/_src/compute_on.py: _compute_on_lowering", FACT(compute_on_device_attribute, STRINGS)},
    {"lowering.compute_on_attribute_types",
     "the compute types whose compute_on calls carry that attribute",
     "jax/_src/compute_on.py: _compute_on_lowering", FACT(compute_on_attribute_types, STRINGS)},
    {"lowering.compute_on_sparsecore_device_wrapped",
     "a tpu_sparsecore call's device-memory results are wrapped with their memory kind",
     "jax/_src/compute_on.py: _compute_on_lowering",
     FACT(compute_on_sparsecore_device_wrapped, BOOL)},
    /* explain's source links */
    {"explain.source_ref",
     "the github.com/jax-ml/jax ref that explain's FILE:LINE links name (its lines read "
     "there by tools/gen_jax_source.py)",
     "ctx/jax_source_table.c (generated from JAX's source)", FACT(source_ref, STRING)},
};

/* --- lookups ----------------------------------------------------------------- */

size_t lsim_jax_profile_count(void) { return COUNT(profiles); }

const lsim_jax_profile *lsim_jax_profile_at(size_t i) {
  return i < COUNT(profiles) ? profiles[i] : NULL;
}

static bool is_hex_prefix(const char *name, const char *commit) {
  size_t n = strlen(name);
  if (n < 7 || n > 40)
    return false;
  for (size_t i = 0; i < n; i++)
    if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
      return false;
  /* The profile keeps 10 digits; a longer prefix must agree with them. */
  size_t m = strlen(commit);
  return strncmp(name, commit, n < m ? n : m) == 0;
}

const lsim_jax_profile *lsim_jax_profile_find(const char *name) {
  for (size_t i = 0; name && i < COUNT(profiles); i++)
    if (strcmp(profiles[i]->name, name) == 0)
      return profiles[i];
  for (size_t i = 0; name && i < COUNT(aliases); i++)
    if (strcmp(aliases[i].name, name) == 0)
      return aliases[i].profile;
  for (size_t i = 0; name && i < COUNT(profiles); i++)
    if (is_hex_prefix(name, profiles[i]->commit))
      return profiles[i];
  for (size_t i = 0; name && i < COUNT(aliases); i++)
    if (is_hex_prefix(name, aliases[i].commit))
      return aliases[i].profile;
  return NULL;
}

size_t lsim_jax_alias_count(void) { return COUNT(aliases); }

const lsim_jax_alias *lsim_jax_alias_at(size_t i) {
  return i < COUNT(aliases) ? &aliases[i] : NULL;
}

size_t lsim_jax_change_count(void) { return COUNT(changes); }

const lsim_jax_change *lsim_jax_change_at(size_t i) {
  return i < COUNT(changes) ? &changes[i] : NULL;
}

const lsim_jax_change *lsim_jax_change_find(const lsim_jax_fact *fact,
                                            const lsim_jax_profile *release) {
  for (size_t i = 0; fact && release && i < COUNT(changes); i++)
    if (strcmp(changes[i].fact, fact->name) == 0 && strcmp(changes[i].release, release->name) == 0)
      return &changes[i];
  return NULL;
}

const lsim_jax_profile *lsim_jax_profile_default(void) { return profiles[COUNT(profiles) - 1]; }

const lsim_jax_profile *lsim_jax_profile_or_default(const lsim_jax_profile *profile) {
  return profile ? profile : lsim_jax_profile_default();
}

size_t lsim_jax_profile_names(char *buf, size_t size) {
  size_t n = 0;
  for (size_t i = 0; i < COUNT(profiles); i++) {
    const char *sep = i ? ", " : "";
    for (const char *parts[] = {sep, profiles[i]->name}, **p = parts; p < parts + 2; p++)
      for (const char *c = *p; *c; c++, n++)
        if (buf && n + 1 < size)
          buf[n] = *c;
  }
  if (buf && size)
    buf[n < size ? n : size - 1] = '\0';
  return n;
}

size_t lsim_jax_fact_count(void) { return COUNT(facts); }

const lsim_jax_fact *lsim_jax_fact_at(size_t i) { return i < COUNT(facts) ? &facts[i] : NULL; }

const lsim_jax_fact *lsim_jax_fact_find(const char *name) {
  for (size_t i = 0; name && i < COUNT(facts); i++)
    if (strcmp(facts[i].name, name) == 0)
      return &facts[i];
  return NULL;
}

const void *lsim_jax_fact_value(const lsim_jax_fact *fact, const lsim_jax_profile *profile) {
  return (const char *)lsim_jax_profile_or_default(profile) + fact->offset;
}

static bool same_string(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

bool lsim_jax_fact_equal(const lsim_jax_fact *fact, const lsim_jax_profile *a,
                         const lsim_jax_profile *b) {
  const void *va = lsim_jax_fact_value(fact, a), *vb = lsim_jax_fact_value(fact, b);
  switch (fact->type) {
  case LSIM_JAX_FACT_STRING:
    return same_string(*(const char *const *)va, *(const char *const *)vb);
  case LSIM_JAX_FACT_BOOL:
    return *(const bool *)va == *(const bool *)vb;
  case LSIM_JAX_FACT_INT:
    return *(const int *)va == *(const int *)vb;
  case LSIM_JAX_FACT_STRINGS: {
    const lsim_jax_strings *la = va, *lb = vb;
    if (la->count != lb->count)
      return false;
    for (size_t i = 0; i < la->count; i++)
      if (!same_string(la->items[i], lb->items[i]))
        return false;
    return true;
  }
  }
  return false;
}

char *lsim_jax_fact_format(const lsim_jax_fact *fact, const lsim_jax_profile *profile) {
  const void *v = lsim_jax_fact_value(fact, profile);
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  switch (fact->type) {
  case LSIM_JAX_FACT_STRING: {
    const char *s = *(const char *const *)v;
    if (s)
      lsimp_py_str(&sb, s);
    else
      lsimp_strbuf_puts(&sb, "None");
    break;
  }
  case LSIM_JAX_FACT_BOOL:
    lsimp_strbuf_puts(&sb, *(const bool *)v ? "True" : "False");
    break;
  case LSIM_JAX_FACT_INT:
    lsimp_strbuf_printf(&sb, "%d", *(const int *)v);
    break;
  case LSIM_JAX_FACT_STRINGS: {
    const lsim_jax_strings *l = v;
    lsimp_py_list(&sb, l->items, l->count);
    break;
  }
  }
  return lsimp_strbuf_take(&sb);
}

bool lsim_jax_strings_contain(const lsim_jax_strings *list, const char *name) {
  for (size_t i = 0; list && name && i < list->count; i++)
    if (strcmp(list->items[i], name) == 0)
      return true;
  return false;
}
