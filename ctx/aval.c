/* ctx/aval.c: abstract values. JAX counterpart: jax/_src/core.py ShapedArray
 * (str(aval)) and mlir.py dtype_to_ir_type. */
#include "lowersim/aval.h"
#include "support/raise.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;  /* JAX's short name */
  const char *mlir;  /* MLIR element type */
  const char *numpy; /* numpy's dtype.name */
  int itemsize;      /* numpy's dtype.itemsize */
} dtypes[LSIM_DTYPE_COUNT] = {
    [LSIM_DTYPE_BOOL] = {"bool", "i1", "bool", 1},       [LSIM_DTYPE_I8] = {"i8", "i8", "int8", 1},
    [LSIM_DTYPE_I16] = {"i16", "i16", "int16", 2},       [LSIM_DTYPE_I32] = {"i32", "i32", "int32", 4},
    [LSIM_DTYPE_I64] = {"i64", "i64", "int64", 8},       [LSIM_DTYPE_U8] = {"u8", "ui8", "uint8", 1},
    [LSIM_DTYPE_U16] = {"u16", "ui16", "uint16", 2},     [LSIM_DTYPE_U32] = {"u32", "ui32", "uint32", 4},
    [LSIM_DTYPE_U64] = {"u64", "ui64", "uint64", 8},     [LSIM_DTYPE_F16] = {"f16", "f16", "float16", 2},
    [LSIM_DTYPE_BF16] = {"bf16", "bf16", "bfloat16", 2}, [LSIM_DTYPE_F32] = {"f32", "f32", "float32", 4},
    [LSIM_DTYPE_F64] = {"f64", "f64", "float64", 8},
};

static bool valid_dtype(lsim_dtype d) { return (unsigned)d < LSIM_DTYPE_COUNT; }

const char *lsim_dtype_name(lsim_dtype dtype) { return valid_dtype(dtype) ? dtypes[dtype].name : NULL; }

const char *lsim_dtype_numpy_name(lsim_dtype dtype) {
  return valid_dtype(dtype) ? dtypes[dtype].numpy : NULL;
}

int lsim_dtype_itemsize(lsim_dtype dtype) { return valid_dtype(dtype) ? dtypes[dtype].itemsize : 0; }

const char *lsim_dtype_mlir_name(lsim_dtype dtype) {
  return valid_dtype(dtype) ? dtypes[dtype].mlir : NULL;
}

bool lsim_dtype_from_name(const char *name, lsim_dtype *out) {
  for (int i = 0; name && i < LSIM_DTYPE_COUNT; i++) {
    if (strcmp(dtypes[i].name, name) == 0) {
      *out = (lsim_dtype)i;
      return true;
    }
  }
  return false;
}

int lsim_aval_make(lsim_aval *out, lsim_dtype dtype, int rank, const int64_t *dims,
                   lsim_error *err) {
  if (!out || (rank > 0 && !dims))
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_aval_make: NULL argument");
  if (!valid_dtype(dtype))
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "invalid dtype %d", (int)dtype);
  if (rank < 0 || rank > LSIM_MAX_RANK)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "rank %d is outside [0, %d]", rank,
                     LSIM_MAX_RANK);
  int64_t count = 1;
  for (int i = 0; i < rank; i++) {
    if (dims[i] < 0)
      return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "dimension %d is negative (%lld)", i,
                       (long long)dims[i]);
    if (dims[i] > 0 && count > INT64_MAX / dims[i])
      return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                       "the element count of the shape overflows a 64-bit integer");
    count *= dims[i];
  }
  memset(out, 0, sizeof *out);
  out->dtype = dtype;
  out->rank = rank;
  if (rank)
    memcpy(out->dims, dims, (size_t)rank * sizeof(int64_t));
  return LSIM_OK;
}

int lsim_aval_parse_shape(lsim_aval *aval, const char *shape, lsim_error *err) {
  if (!aval || !shape)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_aval_parse_shape: NULL argument");
  int64_t dims[LSIM_MAX_RANK];
  int rank = 0;
  for (const char *p = shape; *p;) {
    if (rank == LSIM_MAX_RANK)
      return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "shape '%s' has more than %d dimensions",
                       shape, LSIM_MAX_RANK);
    if (*p < '0' || *p > '9')
      return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                       "shape '%s' is not a comma-separated list of non-negative integers", shape);
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (errno == ERANGE)
      return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "shape '%s' has a dimension beyond 64 bits",
                       shape);
    dims[rank++] = v;
    p = end;
    if (*p == ',' && p[1])
      p++;
    else if (*p)
      return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                       "shape '%s' is not a comma-separated list of non-negative integers", shape);
  }
  return lsim_aval_make(aval, aval->dtype, rank, dims, err);
}

int64_t lsim_aval_size(const lsim_aval *aval) {
  int64_t n = 1;
  for (int i = 0; i < aval->rank; i++)
    n *= aval->dims[i];
  return n;
}

bool lsim_aval_equal(const lsim_aval *a, const lsim_aval *b) {
  return a->memory_space == b->memory_space && lsim_aval_same_array(a, b);
}

bool lsim_aval_same_array(const lsim_aval *a, const lsim_aval *b) {
  return a->dtype == b->dtype && a->rank == b->rank &&
         memcmp(a->dims, b->dims, (size_t)a->rank * sizeof(int64_t)) == 0;
}

const char *lsim_memory_kind(lsim_memory_space space) {
  return space == LSIM_MEMORY_HOST ? "pinned_host" : "device";
}

static char *format_with(const char *name, const lsim_aval *aval, char *buf, size_t size) {
  if (!size)
    return buf;
  size_t used = (size_t)snprintf(buf, size, "%s%s[", name ? name : "?",
                                 aval->memory_space == LSIM_MEMORY_HOST ? "<host>" : "");
  for (int i = 0; i < aval->rank && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, i ? ",%lld" : "%lld",
                             (long long)aval->dims[i]);
  if (used < size)
    snprintf(buf + used, size - used, "]");
  return buf;
}

char *lsim_aval_format(const lsim_aval *aval, char *buf, size_t size) {
  return format_with(lsim_dtype_name(aval->dtype), aval, buf, size);
}

char *lsim_aval_str(const lsim_aval *aval, char *buf, size_t size) {
  return format_with(lsim_dtype_numpy_name(aval->dtype), aval, buf, size);
}
