/* cli/matrix.h: the platform-combination matrix: its cases, enumerated
 * deterministically by index, and running one case. */
#ifndef LOWERSIM_CLI_MATRIX_H
#define LOWERSIM_CLI_MATRIX_H

#include "lowersim/lowering.h"

#include "lowersim/jax_profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MATRIX_MAX_PLATFORMS 16
#define MATRIX_MAX_LEN 4

/* The feature axes.  New ones go last: a case's index then names the same
 * case of the older features as before. */
typedef enum matrix_feature {
  FEATURE_RULES,
  FEATURE_BUFFER_CALLBACK,
  FEATURE_PYTHON_CALLBACK,
  FEATURE_PALLAS,
  FEATURE_FFI_CALL,       /* jax.ffi.ffi_call: side effect x aliases x api version */
  FEATURE_COMPUTE_ON,     /* compute_on(T) around an ffi_call or a pure_callback */
  FEATURE_LOWERING_CACHE, /* register_lowering(inline=False): one or two identical calls */
  FEATURE_EFFECTS,        /* two callbacks: one token per ordered-effect kind */
  FEATURE_EXPORT,         /* jax.export.export's checks on a body */
  FEATURE_EXPORT_CALL,    /* calling an Exported from the case's lowering */
  FEATURE_SESSION,        /* two lowerings in one JAX process */
  FEATURE_PALLAS_KERNELS, /* the library's 2-D kernels x compiler params x interpret */
  FEATURE_COUNT
} matrix_feature;

typedef struct matrix_spec {
  const char *platforms[MATRIX_MAX_PLATFORMS]; /* lowering-platform choices */
  size_t num_platforms;
  int max_len;                                 /* tuples of length 1..max_len */
  bool features[FEATURE_COUNT];
  const lsim_jax_profile *profile;             /* --jax; NULL: the newest */
  /* derived */
  size_t num_tuples;
  size_t num_variants;
  uint64_t total;
} matrix_spec;

/* The default: cpu cuda rocm oneapi tpu gpu metal, tuples up to 2, every
 * feature. */
void matrix_spec_default(matrix_spec *spec);

/* Computes the derived counts; false when the spec is unusable. */
bool matrix_spec_finish(matrix_spec *spec);

/* Shard `shard` of `shards` of `total` cases, its first `limit` cases when
 * `limit` (0: all): the cases [*lo, *hi). */
void matrix_shard_range(uint64_t total, uint64_t shard, uint64_t shards, uint64_t limit,
                        uint64_t *lo, uint64_t *hi);

/* One case, decoded from its index. */
typedef struct matrix_case {
  uint64_t index;
  matrix_feature feature;
  int variant;                      /* within the feature */
  const char *tuple[MATRIX_MAX_LEN];
  int tuple_len;
  int pin;                          /* -1: none, else an index into matrix_backends */
  unsigned runtime;                 /* bit i: matrix_optional_backends[i] initializes */
  const lsim_jax_profile *profile;  /* the spec's */
} matrix_case;

extern const char *const matrix_backends[];          /* pin choices */
extern const size_t matrix_num_backends;
/* The runtime always has cpu, and each of these when its bit is set. */
extern const char *const matrix_optional_backends[];
extern const size_t matrix_num_optional_backends;

void matrix_decode(const matrix_spec *spec, uint64_t index, matrix_case *c);

/* "rules/gpu+default", "pallas/triton/installed=TR-/flag", ...: no commas,
 * shorter than MATRIX_VARIANT_NAME_MAX. */
#define MATRIX_VARIANT_NAME_MAX 96
void matrix_variant_name(matrix_feature f, int variant, char *buf, size_t size);
const char *matrix_feature_name(matrix_feature f);
/* How many variants feature `f` has. */
int matrix_feature_variants(matrix_feature f);

/* The outcome of one case. */
typedef struct matrix_outcome {
  int code;           /* 0: OK */
  uint64_t hash;      /* FNV-1a of the module text when OK */
  bool failure;       /* a lowersim failure (verification, memory, invalid input) */
} matrix_outcome;

/* True when a case's status is lowersim's failure rather than JAX's error:
 * invalid input, memory, verification (anything but OK and a JAX error). */
bool matrix_is_failure(int code);

/* The scenario that lowers as case `c` does, as XML into `f`: its runtime
 * (the case's backends over JAX's import-time ones: a tpu the case lacks is
 * JAX's quietly failing one there), Pallas state, the lowering before it
 * (export_call's export, session's first lowering), then its own.  False
 * when writing failed. */
bool matrix_write_scenario(const matrix_case *c, FILE *f);

/* The FNV-1a of a lowering's module text, as a case's outcome hashes it;
 * *ok false when printing failed. */
uint64_t matrix_hash_lowering(const lsim_lowering *lowering, bool *ok);

/* One thread's lowerer and the JAX process (runtime, Pallas state,
 * registry) its cases share while their process state is the same. */
typedef struct matrix_worker matrix_worker;
matrix_worker *matrix_worker_create(void); /* NULL when out of memory */
void matrix_worker_destroy(matrix_worker *w);

/* Lowers case `c` with worker `w` (cases in index order share the most). */
matrix_outcome matrix_run_case(matrix_worker *w, const matrix_case *c);

#endif
