/* lowersim/error.h: status codes, the error catalogue and the error object.
 *
 * Every fallible lowersim call returns an `int` status: 0 (LSIM_OK) or one of
 * the negative codes below.  The detail of a failure (JAX's exception class
 * and its exact message) goes into an `lsim_error` that the caller owns, never
 * into global state, so two lowerings can fail side by side on two threads.
 *
 * Codes never change meaning once published: new codes are only added.
 */
#ifndef LOWERSIM_ERROR_H
#define LOWERSIM_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lsim_status {
  LSIM_OK = 0,

  /* JAX's errors: the catalogue `lowersim errors` prints (support/error.c). */
  LSIM_E_BACKEND_PLATFORM_MISMATCH = -1,
  LSIM_E_MULTI_PLATFORM_BACKEND = -2,
  LSIM_E_TOO_MANY_CHANNELS = -3,
  LSIM_E_UNKNOWN_ALIAS_PLATFORM = -4,
  LSIM_E_UNKNOWN_BACKEND = -5,
  LSIM_E_BACKEND_FAILED = -6,
  LSIM_E_BACKEND_INIT = -7,
  LSIM_E_UNKNOWN_RULE_PLATFORM = -8,
  LSIM_E_NO_LOWERING_RULE = -9,
  LSIM_E_DONATION_MIXED = -10,
  LSIM_E_PLATFORM_DEPENDENT_GPU = -11,
  LSIM_E_BUFFER_CALLBACK_MULTI_PLATFORM = -12,
  LSIM_E_BUFFER_CALLBACK_UNSUPPORTED = -13,
  LSIM_E_CALLBACK_RETURNED_VALUES = -14,
  LSIM_E_ALIAS_INPUT_RANGE = -15,
  LSIM_E_ALIAS_OUTPUT_RANGE = -16,
  LSIM_E_ALIAS_AVAL_MISMATCH = -17,
  LSIM_E_PYTHON_CALLBACK_MULTI_PLATFORM = -18,
  LSIM_E_PYTHON_CALLBACK_UNSUPPORTED = -19,
  LSIM_E_PARTITIONED_CALLBACK_PLATFORM = -20,
  LSIM_E_PARTITIONED_CALLBACK_RESULTS = -21,
  LSIM_E_PALLAS_PARAMS_PLATFORM = -22,
  LSIM_E_PALLAS_CPU_NOT_INTERPRET = -23,
  LSIM_E_PALLAS_UNSUPPORTED_PLATFORM = -24,
  LSIM_E_PALLAS_MOSAIC_GPU_ROCM = -25,
  LSIM_E_PALLAS_CONSTANTS = -26,
  LSIM_E_NO_DEFAULT_BACKEND = -27,
  LSIM_E_PALLAS_FOREIGN_PARAMS = -28,

  /* Host callbacks, shardings and effects (from -40). */
  LSIM_E_CALLBACK_SHARDING_TYPE = -40,
  LSIM_E_CALLBACK_SHARDING_DEVICE = -41,
  LSIM_E_UNCACHED_MULTI_PLATFORM = -42,
  LSIM_E_ORDERED_EFFECTS_DEVICES = -43,
  LSIM_E_JIT_BACKEND_IN_SHARDINGS = -44,
  LSIM_E_DEVICE_INDEX = -45,
  /* jit, export and tracing (from -70). */
  LSIM_E_EXPORT_HOST_CALLBACKS = -70,
  LSIM_E_EXPORT_CUSTOM_CALL = -71,
  LSIM_E_DTYPE = -72,
  LSIM_E_DTYPE_AT = -73,
  LSIM_E_DTYPE_MISMATCH = -74,
  LSIM_E_SHAPE_MISMATCH = -75,
  /* Calling an exported function (from -80). */
  LSIM_E_EXPORT_CALL_PLATFORMS = -80,
  LSIM_E_EXPORT_CALL_RANK = -81,
  LSIM_E_EXPORT_CALL_DTYPE = -82,
  LSIM_E_EXPORT_CALL_SHAPE = -83,
  LSIM_E_EXPORT_CALL_ASSERTION = -84,
  /* Pallas's trace-time checks and its backends' kernel lowerings. */
  LSIM_E_PALLAS_CAPTURED_CONSTANTS = -50,
  LSIM_E_PALLAS_TPU_DEVICE_KIND = -51,
  LSIM_E_PALLAS_TRITON_POWER_OF_2 = -52,
  LSIM_E_PALLAS_TRITON_NO_GPU = -53,
  LSIM_E_PALLAS_TRITON_ARCH = -54,
  LSIM_E_PALLAS_MOSAIC_GPU_ARCH = -55,
  LSIM_E_PALLAS_MOSAIC_GPU_WARPGROUP = -56,
  LSIM_E_PALLAS_MOSAIC_GPU_LAYOUT = -57,
  LSIM_E_PALLAS_MOSAIC_GPU_8BIT = -58,
  LSIM_E_PALLAS_MOSAIC_GPU_TMA_DTYPE = -59,
  LSIM_E_PALLAS_MOSAIC_GPU_SMEM = -60,
  LSIM_E_PALLAS_MOSAIC_GPU_ASYNC_COPY = -61,
  LSIM_E_PALLAS_NO_COMPUTE_CAPABILITY = -62,
  LSIM_E_PALLAS_TRITON_GRID = -63,
  LSIM_E_PALLAS_MOSAIC_GPU_LAYOUT_INFERENCE = -64,
  LSIM_E_PALLAS_TRITON_PLATFORMS = -65,
  /* pallas_call's own arguments (issue 13 item 4). */
  LSIM_E_PALLAS_ALIAS_INPUT_RANGE = -90,
  LSIM_E_PALLAS_ALIAS_OUTPUT_RANGE = -91,
  /* scalar prefetch: the index maps' trace-time checks (issue 13 item 4). */
  LSIM_E_PALLAS_INDEX_MAP_NOT_INTEGER = -92,
  LSIM_E_PALLAS_INDICES_TOO_LONG = -93,
  /* input_output_aliases between avals that differ (issue 13 item 4). */
  LSIM_E_PALLAS_ALIAS_AVAL_MISMATCH = -94,
  /* Mosaic GPU's reduce_sum over an axis (issue 13 item 4). */
  LSIM_E_PALLAS_MOSAIC_GPU_REDUCE_AXES = -95,

  /* rules that are not inlined, compute types, ffi_call (from -110). */
  LSIM_E_INVALID_COMPUTE_TYPE = -110,
  LSIM_E_COMPUTE_ON_NOT_CONTEXT_MANAGER = -111,
  LSIM_E_FFI_VMAP_METHOD = -112,
  LSIM_E_FFI_LEGACY_BACKEND_CONFIG = -113,
  /* A TMA copy of a block whose array's rows are not 16-byte aligned. */
  LSIM_E_PALLAS_MOSAIC_GPU_TMA_STRIDES = -114,
  /* lax operands in different memory spaces (compute_on's host outputs). */
  LSIM_E_MEMORY_SPACE_MISMATCH = -115,
  /* host memory kinds in a main that returns tokens (JAX's own failure). */
  LSIM_E_MEMORY_KINDS_TOKENS = -116,
  /* A 2-D block Mosaic TPU does not take (last two dimensions not whole or
   * multiples of 8 and 128). */
  LSIM_E_PALLAS_TPU_BLOCK_SHAPE = -117,
  /* A kernel with scalar prefetch (PrefetchScalarGridSpec) on Triton or on
   * Mosaic GPU. */
  LSIM_E_PALLAS_TRITON_SCALAR_PREFETCH = -118,
  LSIM_E_PALLAS_MOSAIC_GPU_SCALAR_PREFETCH = -119,
  /* A Mosaic GPU kernel's TMA copy on a GPU before Hopper (newer JAX). */
  LSIM_E_PALLAS_MOSAIC_GPU_HOPPER = -120,
  /* A pl.pallas_call on Mosaic GPU on a GPU before Hopper: its pipeline has
   * output blocks (newer JAX). */
  LSIM_E_PALLAS_MOSAIC_GPU_PRE_HOPPER_PIPELINE = -121,
  /* gpu_lowering finds no rule registered for the call's compiler params
   * (plgpu.CompilerParams from JAX 0.11.2): a bare AssertionError. */
  LSIM_E_PALLAS_GPU_NO_RULE = -122,
  /* A callback's sharding names a device outside the device assignment,
   * as JAX 0.12.0 words it (LSIM_E_CALLBACK_SHARDING_DEVICE before). */
  LSIM_E_CALLBACK_SHARDING_DEVICE_ASSIGNMENT = -123,
  /* A Mosaic TPU kernel in a lowering over several devices without
   * shard_map (tpu_custom_call's ShardingContext check). */
  LSIM_E_PALLAS_MOSAIC_TPU_PARTITIONED = -124,
  /* A dynamic_slice larger than its operand (lax.dynamic_slice's shape
   * rule), e.g. the Pallas interpreter reading an empty scalar-prefetch
   * array. */
  LSIM_E_DYNAMIC_SLICE_SIZES = -125,

  /* lowersim's own codes. */
  LSIM_E_INVALID_ARGUMENT = -100,
  LSIM_E_NO_MEMORY = -101,
  LSIM_E_VERIFY = -102,
  LSIM_E_INVALID_INPUT = -103,
  LSIM_E_IO = -104,
} lsim_status;

/* The detail of a failure.  Initialize with LSIM_ERROR_INIT (or
 * lsim_error_init), pass to any number of calls, release with
 * lsim_error_clear.  A call that fails replaces what the object held. */
typedef struct lsim_error {
  lsim_status code;
  char *message; /* owned; NULL when code is LSIM_OK or allocation failed */
} lsim_error;

#define LSIM_ERROR_INIT {LSIM_OK, NULL}

/* Resets `err` to LSIM_OK without freeing (for fresh objects). */
void lsim_error_init(lsim_error *err);

/* Frees the message and resets `err` to LSIM_OK. NULL is accepted. */
void lsim_error_clear(lsim_error *err);

/* The message (borrowed; valid until the next call that uses `err`): JAX's
 * exact text for JAX's codes, "" for LSIM_OK. Never NULL. */
const char *lsim_error_message(const lsim_error *err);

/* JAX's exception class of `err`'s code, e.g. "ValueError" (static). */
const char *lsim_error_class(const lsim_error *err);

/* The facts `err`'s message gives its template's placeholders, "NAME =
 * VALUE, ..." (each name once, in the template's order; a value of
 * several lines as "(lines of the message)"), into `buf` as
 * snprintf does: "" when the template has none or the message does not
 * follow it (a lowersim code's free text).  Returns the facts' length. */
size_t lsim_error_facts(const lsim_error *err, char *buf, size_t size);

/* Fills `err` (NULL is accepted) with `code` and a message formatted as
 * printf does, replacing what it held; returns `code`, or LSIM_E_NO_MEMORY
 * (which `err` then holds) when the message cannot be made.  For lowersim's own
 * codes (their messages are free text) and for host callbacks that fail.
 * LSIM_E_NO_MEMORY ignores `fmt` and allocates nothing.  JAX's codes are
 * raised by the library with their catalogue message. */
int lsim_error_set(lsim_error *err, lsim_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* What a status means to a caller, so that callers keep no lists of codes. */
typedef enum lsim_kind {
  LSIM_KIND_OK,            /* LSIM_OK */
  LSIM_KIND_JAX_ERROR,     /* an error JAX raises: a typed lowering error */
  LSIM_KIND_INVALID_INPUT, /* the caller's input: an invalid argument or scenario, I/O */
  LSIM_KIND_NO_MEMORY,     /* an allocation failed */
  LSIM_KIND_LOWERSIM_BUG,  /* lowersim's own fault: verification failed, or not a code */
} lsim_kind;

/* The kind of `code`; LSIM_KIND_LOWERSIM_BUG for a value that is not a code. */
lsim_kind lsim_status_kind(int code);

/* Static facts about a code; NULL for a value that is not a code. */
const char *lsim_status_name(int code);      /* "LSIM_E_TOO_MANY_CHANNELS" */
const char *lsim_status_class(int code);     /* "RuntimeError" */
const char *lsim_status_template(int code);  /* message with {placeholders} */
const char *lsim_status_reference(int code); /* "mlir.py ModuleContext.new_channel" */
/* The section of the repository's docs that explains the code, a path from
 * the repository's root and an anchor: "docs/jax-behaviour.md#LSIM_E_IO"
 * (docs/scenario-format.md for LSIM_E_INVALID_INPUT). */
const char *lsim_status_doc(int code);

/* Looks a code up by its name; 0 (LSIM_OK) when the name is unknown. */
int lsim_status_from_name(const char *name);

/* The codes of the catalogue, in table order: lsim_status_count() of them,
 * the i-th from lsim_status_at(i) (LSIM_OK past the end). */
size_t lsim_status_count(void);
lsim_status lsim_status_at(size_t i);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_ERROR_H */
