/* lowersim/aval.h: abstract values (JAX's ShapedArray): a dtype and a shape.
 * Printed as JAX prints them (`f32[4]`, `i32[]`, `bool[2,3]`). */
#ifndef LOWERSIM_AVAL_H
#define LOWERSIM_AVAL_H

#include "lowersim/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lsim_dtype {
  LSIM_DTYPE_BOOL,
  LSIM_DTYPE_I8,
  LSIM_DTYPE_I16,
  LSIM_DTYPE_I32,
  LSIM_DTYPE_I64,
  LSIM_DTYPE_U8,
  LSIM_DTYPE_U16,
  LSIM_DTYPE_U32,
  LSIM_DTYPE_U64,
  LSIM_DTYPE_F16,
  LSIM_DTYPE_BF16,
  LSIM_DTYPE_F32,
  LSIM_DTYPE_F64,
  LSIM_DTYPE_COUNT
} lsim_dtype;

#define LSIM_MAX_RANK 16
/* Longest text lsim_aval_format writes, with its terminator. */
#define LSIM_AVAL_TEXT_MAX (16 + LSIM_MAX_RANK * 21)

/* Where an array lives (JAX's core.MemorySpace): device memory, or pinned
 * host memory for the results of compute_on(..., out_memory_spaces=Host)
 * and what lax computes from them. */
typedef enum lsim_memory_space { LSIM_MEMORY_DEVICE, LSIM_MEMORY_HOST } lsim_memory_space;

typedef struct lsim_aval {
  lsim_dtype dtype;
  int rank;
  int64_t dims[LSIM_MAX_RANK];
  lsim_memory_space memory_space; /* 0: device */
} lsim_aval;

/* XLA's name of a memory space's kind: "device" or "pinned_host"
 * (core.mem_space_to_kind). */
const char *lsim_memory_kind(lsim_memory_space space);

/* JAX's short name ("f32", "bool") and its MLIR element type ("f32", "i1",
 * "ui32"); NULL for an invalid dtype. */
const char *lsim_dtype_name(lsim_dtype dtype);
const char *lsim_dtype_mlir_name(lsim_dtype dtype);

/* Parses a short name; false when unknown. */
bool lsim_dtype_from_name(const char *name, lsim_dtype *out);

/* Builds an aval; fails with LSIM_E_INVALID_ARGUMENT for a bad dtype, a rank
 * above LSIM_MAX_RANK, a negative dimension or an element count that
 * overflows int64. */
int lsim_aval_make(lsim_aval *out, lsim_dtype dtype, int rank, const int64_t *dims,
                   lsim_error *err);

/* Parses "4", "2,3" or "" (a scalar) into dims. */
int lsim_aval_parse_shape(lsim_aval *aval, const char *shape, lsim_error *err);

/* Number of elements (1 for a scalar). The aval must be valid. */
int64_t lsim_aval_size(const lsim_aval *aval);

bool lsim_aval_equal(const lsim_aval *a, const lsim_aval *b);
/* The same shape and dtype, whatever the memory spaces: what JAX compares
 * to match donated args and aliased operands with results (mlir.py
 * _set_up_aliases' strip_metadata, ffi._check_compatible_avals, pallas_call's
 * input_output_aliases check). */
bool lsim_aval_same_array(const lsim_aval *a, const lsim_aval *b);

/* Writes `f32[2,3]` into buf (LSIM_AVAL_TEXT_MAX bytes always suffice):
 * aval.str_short(short_dtypes=True), as jaxprs print avals, `f32<host>[2,3]`
 * in host memory; returns buf. */
char *lsim_aval_format(const lsim_aval *aval, char *buf, size_t size);

/* Writes `float32[2,3]`: str(aval), as JAX's error messages print avals
 * (str_short with the dtype's numpy name); returns buf. */
char *lsim_aval_str(const lsim_aval *aval, char *buf, size_t size);

/* numpy's dtype.itemsize: bytes per element (0 for an invalid dtype). */
int lsim_dtype_itemsize(lsim_dtype dtype);

/* numpy's dtype name: "float32", "bfloat16", "bool". */
const char *lsim_dtype_numpy_name(lsim_dtype dtype);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_AVAL_H */
