/* support/error.c: the error catalogue and the error object.
 *
 * Each row: code, name, JAX's exception class, the message template (exact
 * text, {placeholders} for substituted values) and where the behaviour lives
 * in JAX (file and function), and the section of the repository's docs that
 * explains it (docs/jax-behaviour.md, generated from this table by
 * tools/gen_jax_behaviour.py, or docs/scenario-format.md), anchored by the
 * code's name. */
#include "lowersim/error.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct catalogue_entry {
  lsim_status code;
  lsim_kind kind;
  const char *name;
  const char *cls;
  const char *template;
  const char *reference;
  const char *doc;
} catalogue_entry;

#define BEHAVIOUR_DOC "docs/jax-behaviour.md"
#define FORMAT_DOC "docs/scenario-format.md"
#define ROW(code, cls, template, reference) \
  {code, LSIM_KIND_JAX_ERROR, #code, cls, template, reference, BEHAVIOUR_DOC "#" #code}
#define OWN(code, kind, cls, template, reference, page) \
  {code, kind, #code, cls, template, reference, page "#" #code}

static const catalogue_entry catalogue[] = {
    ROW(LSIM_E_BACKEND_PLATFORM_MISMATCH, "ValueError",
        "the platform for the specified backend {backend_platform} is different from the "
        "lowering platform {platform}",
        "mlir.py ModuleContext.get_backend"),
    ROW(LSIM_E_MULTI_PLATFORM_BACKEND, "NotImplementedError",
        "accessing .backend in multi-lowering setting. This can occur when lowering a primitive "
        "that has not been adapted to multi-platform lowering",
        "mlir.py ModuleContext.get_backend"),
    ROW(LSIM_E_TOO_MANY_CHANNELS, "RuntimeError",
        "Host callback lowering created too many channels. PjRt does not support more than 65535 "
        "channels",
        "mlir.py ModuleContext.new_channel"),
    ROW(LSIM_E_UNKNOWN_ALIAS_PLATFORM, "RuntimeError",
        "Unknown backend: '{platform}' requested, but no platforms that are instances of "
        "{platform} are present. Platforms present are: {present}",
        "xla_bridge.py canonicalize_platform"),
    ROW(LSIM_E_UNKNOWN_BACKEND, "RuntimeError",
        "Unknown backend {platform}. Available backends are {available}",
        "xla_bridge.py _get_backend_uncached"),
    ROW(LSIM_E_BACKEND_FAILED, "RuntimeError",
        "Backend '{platform}' failed to initialize: {error}. Available backends are {available}",
        "xla_bridge.py _get_backend_uncached"),
    ROW(LSIM_E_BACKEND_INIT, "RuntimeError",
        "Unable to initialize backend '{platform}': {error} {advice}",
        "xla_bridge.py backends"),
    ROW(LSIM_E_UNKNOWN_RULE_PLATFORM, "NotImplementedError",
        "Registering an MLIR lowering rule for primitive {primitive} for an unknown platform "
        "{platform}. Known platforms are: {known}.",
        "mlir.py register_lowering"),
    ROW(LSIM_E_NO_LOWERING_RULE, "NotImplementedError",
        "MLIR translation rule for primitive '{description}' not found for {platforms}",
        "mlir.py lower_per_platform"),
    ROW(LSIM_E_DONATION_MIXED, "NotImplementedError",
        "In multi-platform lowering either all or no lowering platforms should support donation. "
        "Lowering for {platforms} of which only {supporting} support donation",
        "mlir.py lower_jaxpr_to_module"),
    ROW(LSIM_E_PLATFORM_DEPENDENT_GPU, "ValueError",
        "Use {platforms} for lax.platform_dependent.",
        "lax/control_flow/conditionals.py platform_dependent"),
    ROW(LSIM_E_BUFFER_CALLBACK_MULTI_PLATFORM, "NotImplementedError",
        "multi-platform lowering for buffer_callback",
        "buffer_callback.py _buffer_callback_lowering"),
    ROW(LSIM_E_BUFFER_CALLBACK_UNSUPPORTED, "ValueError",
        "`buffer_callback` not supported on {platform} backend.",
        "buffer_callback.py _buffer_callback_lowering"),
    ROW(LSIM_E_CALLBACK_RETURNED_VALUES, "ValueError",
        "buffer_callback callback must not return any values.",
        "buffer_callback.py _buffer_callback_lowering (its wrapped_callback)"),
    ROW(LSIM_E_ALIAS_INPUT_RANGE, "ValueError",
        "input_output_aliases contains the mapping '{input}:{output}' with input index {input} "
        "outside the range [0, {num_inputs}).",
        "buffer_callback.py buffer_callback"),
    ROW(LSIM_E_ALIAS_OUTPUT_RANGE, "ValueError",
        "input_output_aliases contains the mapping '{input}:{output}' with output index {output} "
        "outside the range [0, {num_outputs}).",
        "buffer_callback.py buffer_callback"),
    ROW(LSIM_E_ALIAS_AVAL_MISMATCH, "ValueError",
        "input_output_aliases contains the mapping '{input}:{output}' referring to an input with "
        "abstract value {input_aval} and an output with a different abstract value {output_aval}.",
        "buffer_callback.py buffer_callback"),
    ROW(LSIM_E_PYTHON_CALLBACK_MULTI_PLATFORM, "NotImplementedError",
        "multi-platform lowering for python_callback",
        "callback.py emit_python_callback"),
    ROW(LSIM_E_PYTHON_CALLBACK_UNSUPPORTED, "ValueError",
        "`EmitPythonCallback` not supported on {platform} backend.",
        "callback.py emit_python_callback"),
    ROW(LSIM_E_PARTITIONED_CALLBACK_PLATFORM, "NotImplementedError",
        "Partitioned callback not implemented on {platform} backend.",
        "callback.py emit_python_callback"),
    ROW(LSIM_E_PARTITIONED_CALLBACK_RESULTS, "ValueError",
        "Partitioned callback not supported with return values.",
        "callback.py emit_python_callback"),
    ROW(LSIM_E_PALLAS_PARAMS_PLATFORM, "ValueError",
        "Compiler params for platform {platform} cannot be used for {expected} lowering.",
        "pallas/core.py get_lowering_rule"),
    ROW(LSIM_E_PALLAS_CPU_NOT_INTERPRET, "ValueError",
        "Only interpret mode is supported on CPU backend.",
        "pallas/pallas_call.py _pallas_call_lowering"),
    ROW(LSIM_E_PALLAS_UNSUPPORTED_PLATFORM, "ValueError",
        "Cannot lower pallas_call on platform: {platform}. To use Pallas on GPU, install jaxlib "
        "GPU. To use Pallas on TPU, install jaxlib TPU and libtpu. See "
        "https://docs.jax.dev/en/latest/installation.html.",
        "pallas/pallas_call.py _pallas_call_lowering"),
    ROW(LSIM_E_PALLAS_MOSAIC_GPU_ROCM, "ValueError",
        "Mosaic GPU does not yet support AMD ROCm devices. Use "
        "``compiler_params=pltriton.CompilerParams()`` for ROCm.",
        "pallas/pallas_call.py _pallas_call_lowering"),
    ROW(LSIM_E_PALLAS_CONSTANTS, "ValueError",
        "Cannot lower a pallas_call with constants.",
        "pallas/pallas_call.py _pallas_call_lowering"),
    ROW(LSIM_E_NO_DEFAULT_BACKEND, "AssertionError", "",
        "xla_bridge.py backends (assert _default_backend is not None)"),
    ROW(LSIM_E_PALLAS_FOREIGN_PARAMS, "AssertionError", "",
        "pallas/mosaic/pallas_call_registration.py pallas_call_tpu_lowering_rule (assert "
        "isinstance(compiler_params, tpu_core.CompilerParams))"),
    ROW(LSIM_E_CALLBACK_SHARDING_TYPE, "NotImplementedError",
        "pure_callback only supports SingleDeviceSharding, but got {type}",
        "callback.py _callback_op_sharding (ShardingContext; io_callback's message too)"),
    ROW(LSIM_E_CALLBACK_SHARDING_DEVICE, "ValueError", "tuple.index(x): x not in tuple",
        "callback.py _callback_op_sharding: device_assignment.index(device) (its "
        "`except IndexError` does not catch tuple.index's ValueError)"),
    ROW(LSIM_E_UNCACHED_MULTI_PLATFORM, "TypeError",
        "can only concatenate list (not \"tuple\") to list",
        "mlir.py lower_per_platform: [core.abstract_token] * len(ordered_effects) + "
        "ctx.avals_out, a tuple for primitives registered with cacheable=False"),
    ROW(LSIM_E_ORDERED_EFFECTS_DEVICES, "ValueError",
        "The following ordered effects are not supported for more than 1 device: {effects}",
        "pxla.py lower_sharding_computation (effects not in shardable_ordered_effects)"),
    ROW(LSIM_E_JIT_BACKEND_IN_SHARDINGS, "ValueError",
        "If backend or device is specified on jit, then in_shardings should not be specified.",
        "pjit.py _parse_jit_arguments"),
    ROW(LSIM_E_DEVICE_INDEX, "IndexError", "list index out of range",
        "xla_bridge.py devices (the program's jax.devices()[i] for a device the default backend "
        "does not have)"),
    ROW(LSIM_E_EXPORT_HOST_CALLBACKS, "NotImplementedError",
        "serialization of host_callbacks is not yet implemented",
        "export/_export.py _check_lowering"),
    ROW(LSIM_E_EXPORT_CUSTOM_CALL, "ValueError",
        "Cannot serialize code with custom calls whose targets have no compatibility "
        "guarantees. See {link}. Examples are:\n{ops}.\n{advice}",
        "export/_export.py _check_module"),
    ROW(LSIM_E_DTYPE, "TypeError",
        "{primitive} does not accept dtype {dtype}. Accepted dtypes are subtypes of {accepted}.",
        "lax/lax.py naryop_dtype_rule (one operand)"),
    ROW(LSIM_E_DTYPE_AT, "TypeError",
        "{primitive} does not accept dtype {dtype} at position {position}. Accepted dtypes at "
        "position {position} are subtypes of {accepted}.",
        "lax/lax.py naryop_dtype_rule"),
    ROW(LSIM_E_DTYPE_MISMATCH, "TypeError",
        "lax.{primitive} requires arguments to have the same dtypes, got {dtypes}. (Tip: "
        "jnp.{jnp_name} is a similar function that does automatic type promotion on inputs).",
        "lax/lax.py check_same_dtypes"),
    ROW(LSIM_E_SHAPE_MISMATCH, "TypeError",
        "{primitive} got incompatible shapes for broadcasting: {shapes}.",
        "lax/lax.py broadcasting_shape_rule (ranks differ: '{primitive}: arrays must have the "
        "same number of dimensions, got {ranks}')"),
    ROW(LSIM_E_EXPORT_CALL_PLATFORMS, "ValueError",
        "Function '{fun_name}' was exported for platforms '{platforms}' but it is used on "
        "'{lowering_platforms}'.",
        "export/_export.py _call_exported_lowering"),
    ROW(LSIM_E_EXPORT_CALL_RANK, "ValueError",
        "Rank mismatch for {arg}: expected {expected} and called with {actual}",
        "export/_export.py _call_exported_abstract_eval"),
    ROW(LSIM_E_EXPORT_CALL_DTYPE, "ValueError",
        "Dtype mismatch for {arg}: expected {expected} and called with {actual}",
        "export/_export.py _call_exported_abstract_eval"),
    ROW(LSIM_E_EXPORT_CALL_SHAPE, "ValueError",
        "Shape mismatch for {arg} (expected same constant): expected {expected} and called "
        "with {actual}",
        "export/_export.py _call_exported_abstract_eval"),
    ROW(LSIM_E_EXPORT_CALL_ASSERTION, "AssertionError", "",
        "export/_export.py _call_exported_lowering: assert len(lowering_platforms) == 1 (a "
        "single-platform export called from several platforms, DisabledSafetyCheck.platform())"),
    ROW(LSIM_E_PALLAS_CAPTURED_CONSTANTS, "ValueError",
        "The kernel function in the pallas_call {kernel} at {source} captures constants "
        "[{avals}]. You should pass them as inputs.",
        "pallas/pallas_call.py _trace_kernel_to_jaxpr (at trace time)"),
    ROW(LSIM_E_PALLAS_TPU_DEVICE_KIND, "ValueError",
        "Unsupported TPU device kind: {device_kind}{hint}",
        "pallas/mosaic/tpu_info.py get_tpu_info (the hint from 1ebd186c61)"),
    ROW(LSIM_E_PALLAS_TRITON_POWER_OF_2, "ValueError",
        "The Pallas Triton lowering currently requires that all operations have array arguments "
        "and results whose size is a power of 2. Encountered an array of shape {shape}",
        "pallas/triton/lowering.py _check_tensor_size"),
    ROW(LSIM_E_PALLAS_TRITON_NO_GPU, "RuntimeError",
        "No supported GPU devices found, please specify an abstract GPU device using "
        "AbstractDevice. See jax.sharding.use_abstract_mesh method for example.",
        "pallas/triton/pallas_call_registration.py pallas_call_lowering (from 9a42858685)"),
    ROW(LSIM_E_PALLAS_TRITON_ARCH, "ValueError",
        "invalid literal for int() with base 10: '{arch}'",
        "pallas/triton/pallas_call_registration.py pallas_call_lowering (int(arch_name), "
        "before 9a42858685)"),
    ROW(LSIM_E_PALLAS_MOSAIC_GPU_ARCH, "ValueError",
        "Mosaic GPU does not yet support AMD ROCm devices. Got compute_capability: {arch}",
        "experimental/mosaic/gpu/core.py _infer_arch"),
    ROW(LSIM_E_PALLAS_MOSAIC_GPU_WARPGROUP, "NotImplementedError",
        "Only copies transferring a number of bytes divisible by the warpgroup size are "
        "supported. Got bytes={bytes} but warpgroup size is 128",
        "pallas/mosaic_gpu/primitives.py _copy_gmem_to_smem_lowering"),
    ROW(LSIM_E_PALLAS_MOSAIC_GPU_LAYOUT, "ValueError",
        "{memref} must have a number of elements that is a multiple of 128 (got {count})",
        "experimental/mosaic/gpu/fragmented_array.py FragmentedArray.load_strided (the WGMMA-row "
        "layout of a load)"),
    ROW(LSIM_E_PALLAS_MOSAIC_GPU_8BIT, "NotImplementedError",
        "Pointwise operations on 8-bit types are unsupported (except bitwise operations). "
        "Upcast to a 16- or 32-bit type before performing the operation.",
        "experimental/mosaic/gpu/fragmented_array.py FragmentedArray._pointwise"),
    ROW(LSIM_E_PALLAS_MOSAIC_GPU_TMA_DTYPE, "ValueError",
        "unsupported TMA dtype {dtype}",
        "experimental/mosaic/gpu/launch_context.py _tma_dma_type (TMA descriptors)"),
    ROW(LSIM_E_PALLAS_MOSAIC_GPU_SMEM, "ValueError",
        "Mosaic GPU kernel exceeds available shared memory: smem_bytes={bytes} > "
        "max_smem_bytes={max}",
        "experimental/mosaic/gpu/core.py _lower_as_gpu_kernel"),
    ROW(LSIM_E_PALLAS_MOSAIC_GPU_ASYNC_COPY, "ValueError",
        "Async copies only support copying <=256 elements along each dimension, got {shape}",
        "experimental/mosaic/gpu/launch_context.py LaunchContext.async_copy"),
    ROW(LSIM_E_PALLAS_NO_COMPUTE_CAPABILITY, "AttributeError", "",
        "pallas/triton/pallas_call_registration.py pallas_call_lowering (a jaxlib Device "
        "without compute_capability raises a bare AttributeError)"),
    ROW(LSIM_E_PALLAS_TRITON_GRID, "AssertionError",
        "Cannot fix pallas kernel launch grid within CUDA limits",
        "pallas/triton/lowering.py _process_grid_to_3d_grid"),
    ROW(LSIM_E_PALLAS_MOSAIC_GPU_LAYOUT_INFERENCE, "ValueError",
        "Failed to infer a possible set of layouts. This should only happen if user-provided "
        "layout casts are unsatisfiable.",
        "experimental/mosaic/gpu/layout_inference.py diagnose_unsatisfiable_system (warpgroup "
        "semantics, from 32915de40f)"),
    ROW(LSIM_E_PALLAS_TRITON_PLATFORMS, "ValueError",
        "too many values to unpack (expected 1)",
        "pallas/triton/pallas_call_registration.py pallas_call_lowering ([lowering_platform] = "
        "ctx.platforms or ctx.module_context.platforms: a platform listed twice)"),
    ROW(LSIM_E_PALLAS_ALIAS_INPUT_RANGE, "ValueError",
        "input_output_aliases contains the mapping '{input}:{output}' with input index {input} "
        "outside the range [0, {count})",
        "pallas/pallas_call.py _pallas_call (at trace time, after the kernel is traced)"),
    ROW(LSIM_E_PALLAS_ALIAS_OUTPUT_RANGE, "ValueError",
        "input_output_aliases contains the mapping '{input}:{output}' with output index {output} "
        "outside the range [0, {count})",
        "pallas/pallas_call.py _pallas_call (at trace time, after the kernel is traced)"),
    ROW(LSIM_E_PALLAS_INDEX_MAP_NOT_INTEGER, "ValueError",
        "Index map function {function} at {source} for {origin} must return integer scalars. "
        "Output[{index}] has type {aval}.",
        "pallas/core.py BlockSpec.to_block_mapping (tracing the index map, at trace time: "
        "outputs must be int32 or int64 scalars)"),
    ROW(LSIM_E_PALLAS_INDICES_TOO_LONG, "ValueError",
        "`indices` must not be longer than `shape`: indices={indices}, shape={shape}",
        "state/indexing.py NDIndexer.from_indices_shape (an index map indexing a rank-0 "
        "scalar-prefetch ref, at trace time)"),
    ROW(LSIM_E_PALLAS_ALIAS_AVAL_MISMATCH, "ValueError",
        "input_output_aliases contains the mapping '{input}:{output}' referring to "
        "input{input_path} with abstract value {input_aval} and to output{output_path} with a "
        "different abstract value {output_aval}.",
        "pallas/pallas_call.py _pallas_call (at trace time, after the range checks)"),
    ROW(LSIM_E_PALLAS_MOSAIC_GPU_REDUCE_AXES, "NotImplementedError", "No support for axes yet",
        "pallas/mosaic_gpu/lowering.py _reduce_sum_lowering_rule (jnp.sum(..., axis=1) in a "
        "kernel, after the block's copy and load checks)"),
    ROW(LSIM_E_INVALID_COMPUTE_TYPE, "ValueError",
        "Invalid compute type {compute_type}. Current supported values are `device_host`, "
        "`device`, `tpu_sparsecore`, and `gpu_stream:#`.",
        "compute_on.py _check_valid (entering compute_on(compute_type), while tracing)"),
    ROW(LSIM_E_COMPUTE_ON_NOT_CONTEXT_MANAGER, "TypeError",
        "compute_on() missing 2 required keyword-only arguments: 'compute_type' and "
        "'out_memory_spaces'",
        "compute_on.py compute_on(f=None, *, compute_type, out_memory_spaces) called as "
        "compute_on(compute_type) (3a440c764b)"),
    ROW(LSIM_E_FFI_VMAP_METHOD, "ValueError",
        "vmap_method must be on of the allowed methods ['sequential', 'sequential_unrolled', "
        "'expand_dims', 'broadcast_all', 'legacy_vectorized', None], but got: {vmap_method}",
        "ffi.py ffi_call (its allowed_vmap_methods; JAX's typo 'be on of')"),
    ROW(LSIM_E_FFI_LEGACY_BACKEND_CONFIG, "ValueError",
        "The use of the legacy_backend_config parameter requires custom_call_api_version < 4; "
        "got {custom_call_api_version}.",
        "ffi.py ffi_call"),
    ROW(LSIM_E_PALLAS_MOSAIC_GPU_TMA_STRIDES, "ValueError",
        "async_copy requires all GMEM strides except the last one to be a multiple of 16 bytes",
        "experimental/mosaic/gpu/launch_context.py LaunchContext._prepare_tma (a 2-D block's "
        "copy, before the 256-element limit; the array's rows must start 16 bytes apart)"),
    ROW(LSIM_E_MEMORY_SPACE_MISMATCH, "ValueError",
        "memory_space of all inputs passed to `{primitive}` must be the same. Got one operand "
        "with type: {first} and another operand with type: {second}",
        "lax/utils.py _default_memory_space_rule (binding add, mul or sub: after the shape and "
        "dtype rules; scalars are not compared)"),
    ROW(LSIM_E_MEMORY_KINDS_TOKENS, "ValueError",
        "safe_zip() argument 1 has length {results} but argument 0 has length {outputs}. All "
        "lengths: ({outputs}, {results}, {results})",
        "interpreters/mlir.py lower_jaxpr_to_fun (the result memory kinds get a None per token, "
        "the propagated ones do not: a host memory kind beside an ordered effect)"),
    ROW(LSIM_E_PALLAS_TPU_BLOCK_SHAPE, "ValueError",
        "The Pallas TPU lowering currently requires that the last two dimensions of your block "
        "shape are divisible by 8 and 128 respectively, or be equal to the respective "
        "dimensions of the overall array. Block spec for {origin} in pallas_call {kernel} at "
        "{source} has block shape (Blocked(block_size={rows}), Blocked(block_size={cols})), "
        "array shape {array}, and index_map {index_map}, in memory space "
        "<MemorySpace.DEFAULT: 'default'>.\nSee details at "
        "https://docs.jax.dev/en/latest/pallas/grid_blockspec.html#pallas-blockspec",
        "pallas/mosaic/lowering.py _check_block_mappings (the first blocked operand's "
        "block; the index map's jaxpr as it prints)"),
    ROW(LSIM_E_PALLAS_TRITON_SCALAR_PREFETCH, "NotImplementedError",
        "scalar prefetch not implemented in the Triton backend",
        "pallas/triton/pallas_call_registration.py pallas_call_lowering (its first check: "
        "grid_mapping.num_index_operands)"),
    ROW(LSIM_E_PALLAS_MOSAIC_GPU_SCALAR_PREFETCH, "NotImplementedError",
        "Scalar prefetch not supported in Mosaic GPU lowering.",
        "pallas/mosaic_gpu/lowering.py lower_pipelined_jaxpr_to_module (before the block "
        "checks and the GPU's arch)"),
    ROW(LSIM_E_PALLAS_MOSAIC_GPU_HOPPER, "NotImplementedError",
        "arrive_expect_tx is only supported on Hopper+ hardware",
        "experimental/mosaic/gpu/utils.py BarrierRef.arrive_expect_tx (from ea11dbfcc3: the "
        "block's TMA copy on a GPU whose compute capability is below 9, after the shared memory "
        "and layout checks)"),
    ROW(LSIM_E_PALLAS_MOSAIC_GPU_PRE_HOPPER_PIPELINE, "NotImplementedError",
        "emit_pipeline on pre-Hopper GPUs only supports input-only pipelines",
        "pallas/mosaic_gpu/pipeline.py emit_pipeline (from ecb82891c0: on a GPU whose "
        "compute capability is below 9.0, pl.pallas_call's pipeline has output blocks; after "
        "the scalar-prefetch check and the GPU's arch, before the kernel is lowered)"),
    ROW(LSIM_E_PALLAS_GPU_NO_RULE, "AssertionError", "",
        "pallas/pallas_call.py _pallas_call_lowering gpu_lowering (from JAX 0.11.2: assert "
        "rule is not None, for params whose class registered no rule, e.g. "
        "plgpu.CompilerParams)"),
    ROW(LSIM_E_CALLBACK_SHARDING_DEVICE_ASSIGNMENT, "ValueError",
        "Sharding provided to pure_callback specifies a device {device} that is not in the "
        "device assignment ({assignment})",
        "callback.py _callback_op_sharding (from 0.12.0: catches tuple.index's ValueError; "
        "str(device), then the assignment's repr; pure_callback whatever the callback)"),
    ROW(LSIM_E_PALLAS_MOSAIC_TPU_PARTITIONED, "NotImplementedError",
        "Mosaic kernels cannot be automatically partitioned. Please wrap the call in a "
        "shard_map.",
        "tpu_custom_call.py _tpu_custom_call_lowering (a ShardingContext of more than one "
        "device: jit over several devices, after the kernel is lowered)"),
    ROW(LSIM_E_DYNAMIC_SLICE_SIZES, "TypeError",
        "slice slice_sizes must be less than or equal to operand shape, got slice_sizes "
        "{slice_sizes} for operand shape {shape}.",
        "lax/slicing.py _dynamic_slice_shape_rule (e.g. the Pallas HLO interpreter's "
        "idx_ref[i] on an empty scalar-prefetch array, at lowering time)"),
    OWN(LSIM_E_INVALID_ARGUMENT, LSIM_KIND_INVALID_INPUT, "InvalidArgument", "{detail}",
        "lowersim: bad argument", BEHAVIOUR_DOC),
    OWN(LSIM_E_NO_MEMORY, LSIM_KIND_NO_MEMORY, "MemoryError", "out of memory",
        "lowersim: allocation failed", BEHAVIOUR_DOC),
    OWN(LSIM_E_VERIFY, LSIM_KIND_LOWERSIM_BUG, "VerificationError", "{detail}",
        "lowersim: an emitted module failed verification (a lowersim bug)", BEHAVIOUR_DOC),
    OWN(LSIM_E_INVALID_INPUT, LSIM_KIND_INVALID_INPUT, "InvalidInput", "{detail}",
        "lowersim: a scenario is invalid", FORMAT_DOC),
    OWN(LSIM_E_IO, LSIM_KIND_INVALID_INPUT, "OSError", "{detail}",
        "lowersim: reading or writing a file failed", BEHAVIOUR_DOC),
};

#define CATALOGUE_SIZE (sizeof catalogue / sizeof catalogue[0])

static const catalogue_entry *find(int code) {
  for (size_t i = 0; i < CATALOGUE_SIZE; i++)
    if ((int)catalogue[i].code == code)
      return &catalogue[i];
  return NULL;
}

const char *lsim_status_name(int code) {
  if (code == LSIM_OK)
    return "LSIM_OK";
  const catalogue_entry *e = find(code);
  return e ? e->name : NULL;
}

lsim_kind lsim_status_kind(int code) {
  if (code == LSIM_OK)
    return LSIM_KIND_OK;
  const catalogue_entry *e = find(code);
  return e ? e->kind : LSIM_KIND_LOWERSIM_BUG;
}

const char *lsim_status_class(int code) {
  const catalogue_entry *e = find(code);
  return e ? e->cls : NULL;
}

const char *lsim_status_template(int code) {
  const catalogue_entry *e = find(code);
  return e ? e->template : NULL;
}

const char *lsim_status_reference(int code) {
  const catalogue_entry *e = find(code);
  return e ? e->reference : NULL;
}

const char *lsim_status_doc(int code) {
  const catalogue_entry *e = find(code);
  return e ? e->doc : NULL;
}

int lsim_status_from_name(const char *name) {
  for (size_t i = 0; name && i < CATALOGUE_SIZE; i++)
    if (strcmp(catalogue[i].name, name) == 0)
      return catalogue[i].code;
  return LSIM_OK;
}

size_t lsim_status_count(void) { return CATALOGUE_SIZE; }

lsim_status lsim_status_at(size_t i) { return i < CATALOGUE_SIZE ? catalogue[i].code : LSIM_OK; }

void lsim_error_init(lsim_error *err) {
  if (err)
    *err = (lsim_error)LSIM_ERROR_INIT;
}

void lsim_error_clear(lsim_error *err) {
  if (!err)
    return;
  free(err->message);
  lsim_error_init(err);
}

const char *lsim_error_message(const lsim_error *err) {
  if (!err || err->code == LSIM_OK)
    return "";
  if (err->message)
    return err->message;
  return err->code == LSIM_E_NO_MEMORY ? "out of memory" : "";
}

const char *lsim_error_class(const lsim_error *err) {
  const char *cls = err ? lsim_status_class(err->code) : NULL;
  return cls ? cls : "";
}

/* Out of memory wins: an error whose message cannot be made is
 * LSIM_E_NO_MEMORY, never the error it was to be (issue 11). */
static int set_message(lsim_error *err, lsim_status code, lsimp_strbuf *text) {
  char *message = lsimp_strbuf_take(text);
  if (!message)
    return lsimp_fail_oom(err);
  free(err->message);
  err->code = code;
  err->message = message;
  return code;
}

/* The index of the value for placeholder `name`: distinct names in order of
 * first appearance in `template`. */
static size_t placeholder_index(const char *template, const char *name, size_t name_len) {
  size_t index = 0;
  for (const char *p = template; (p = strchr(p, '{')) != NULL;) {
    const char *end = strchr(p, '}');
    if (!end)
      break;
    size_t len = (size_t)(end - p - 1);
    if (len == name_len && strncmp(p + 1, name, len) == 0)
      return index;
    /* Count this name only at its first appearance. */
    bool seen = false;
    for (const char *q = template; q < p; q++)
      if (*q == '{' && strncmp(q + 1, p + 1, len) == 0 && q[len + 1] == '}')
        seen = true;
    if (!seen)
      index++;
    p = end + 1;
  }
  return index;
}

/* The value the message gives placeholder {name} at `m` (the message
 * matched up to it): up to the template's next literal text, `lit` of
 * length `lit_len` (the message's end when empty); its length, or
 * SIZE_MAX when the message does not follow the template. */
static size_t fact_length(const char *m, const char *lit, size_t lit_len) {
  if (!lit_len)
    return strlen(m);
  for (const char *q = m; *q; q++)
    if (strncmp(q, lit, lit_len) == 0)
      return (size_t)(q - m);
  return SIZE_MAX;
}

size_t lsim_error_facts(const lsim_error *err, char *buf, size_t size) {
  const char *template = err ? lsim_status_template(err->code) : NULL;
  const char *m = lsim_error_message(err);
  lsimp_strbuf out = LSIMP_STRBUF_INIT;
  bool ok = template != NULL;
  for (const char *p = template; ok && *p;) {
    const char *open = strchr(p, '{');
    const char *close = open ? strchr(open, '}') : NULL;
    size_t lit = close ? (size_t)(open - p) : strlen(p);
    ok = strncmp(m, p, lit) == 0;
    m += lit;
    if (!ok || !close)
      break;
    const char *next = strchr(close, '{');
    size_t next_lit = next ? (size_t)(next - close - 1) : strlen(close + 1);
    size_t n = next && next_lit == 0 ? SIZE_MAX : fact_length(m, close + 1, next_lit);
    ok = n != SIZE_MAX;
    /* Each name once, at its first appearance. */
    size_t name_len = (size_t)(close - open - 1);
    bool first = true;
    for (const char *q = template; ok && q < open; q++)
      if (*q == '{' && strncmp(q + 1, open + 1, name_len) == 0 && q[name_len + 1] == '}')
        first = false;
    if (ok && first && memchr(m, '\n', n))
      lsimp_strbuf_printf(&out, "%s%.*s = (lines of the message)", out.len ? ", " : "",
                          (int)name_len, open + 1);
    else if (ok && first)
      lsimp_strbuf_printf(&out, "%s%.*s = %.*s", out.len ? ", " : "",
                          (int)name_len, open + 1, (int)n, m);
    m += ok ? n : 0;
    p = close + 1;
  }
  size_t len = ok ? out.len : 0;
  if (size)
    snprintf(buf, size, "%s", ok ? lsimp_strbuf_cstr(&out) : "");
  lsimp_strbuf_free(&out);
  return len;
}

int lsimp_raise_values(lsim_error *err, lsim_status code, size_t n, const char *const *values) {
  if (!err)
    return code;
  const char *template = lsim_status_template(code);
  lsimp_strbuf text = LSIMP_STRBUF_INIT;
  for (const char *p = template ? template : "";;) {
    const char *open = strchr(p, '{');
    const char *close = open ? strchr(open, '}') : NULL;
    if (!close) {
      lsimp_strbuf_puts(&text, p);
      break;
    }
    lsimp_strbuf_append(&text, p, (size_t)(open - p));
    size_t i = placeholder_index(template, open + 1, (size_t)(close - open - 1));
    lsimp_strbuf_puts(&text, i < n && values[i] ? values[i] : "");
    p = close + 1;
  }
  return set_message(err, code, &text);
}

int lsim_error_set(lsim_error *err, lsim_status code, const char *fmt, ...) {
  if (!err)
    return code;
  if (code == LSIM_E_NO_MEMORY)
    return lsimp_fail_oom(err);
  lsimp_strbuf text = LSIMP_STRBUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  lsimp_strbuf_vprintf(&text, fmt, ap);
  va_end(ap);
  return set_message(err, code, &text);
}

int lsimp_fail_oom(lsim_error *err) {
  if (err) {
    free(err->message);
    err->code = LSIM_E_NO_MEMORY;
    err->message = NULL;
  }
  return LSIM_E_NO_MEMORY;
}

void lsimp_error_move(lsim_error *to, lsim_error *from) {
  if (!from)
    return;
  if (!to) {
    lsim_error_clear(from);
    return;
  }
  if (to == from)
    return;
  free(to->message);
  *to = *from;
  lsim_error_init(from);
}
