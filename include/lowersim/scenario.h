/* lowersim/scenario.h: scenario files (XML), read and written.
 *
 * A scenario describes one lowering: the simulated runtime, which Pallas
 * backends are installed, the program and its lowering platforms, whether
 * host callbacks run afterwards, and optionally what is expected (which makes
 * it a test case).  The format is documented in docs/scenario-and-cli.md of
 * the shared docs and validated with testdata/schema/scenario.rng (compiled
 * into lowersim, so the command works outside the source tree).
 *
 * This header is plain data: reading fills it, writing serializes it, and the
 * scenario layer turns it into a runtime, a registry and a program.
 */
#ifndef LOWERSIM_SCENARIO_H
#define LOWERSIM_SCENARIO_H

#include "lowersim/aval.h"
#include "lowersim/error.h"
#include "lowersim/primitive.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lsim_scenario_backend {
  char *platform;
  int devices;          /* default 1 */
  bool has_priority;    /* priority given; else JAX's for the platform */
  int priority;
  bool has_fail_quietly;
  bool fail_quietly;
  char *error;          /* NULL: the backend initializes */
  int line;
} lsim_scenario_backend;

typedef struct lsim_scenario_runtime {
  bool present;          /* <runtime> given; else one cpu backend */
  char *jax_platforms;   /* NULL: unset */
  lsim_scenario_backend *backends;
  size_t num_backends;
} lsim_scenario_runtime;

typedef struct lsim_scenario_pallas {
  bool mosaic_tpu, triton, mosaic_gpu; /* installed; all true by default */
  bool use_mosaic_gpu;                 /* jax_pallas_use_mosaic_gpu; false by default */
} lsim_scenario_pallas;

typedef enum lsim_scenario_eqn_kind {
  LSIM_EQN_OP,              /* <op kind=...> */
  LSIM_EQN_PRIMITIVE,       /* <primitive> */
  LSIM_EQN_PLATFORM_DEPENDENT,
  LSIM_EQN_BUFFER_CALLBACK,
  LSIM_EQN_PURE_CALLBACK,
  LSIM_EQN_IO_CALLBACK,
  LSIM_EQN_DEBUG_CALLBACK,
  LSIM_EQN_PALLAS_CALL,
} lsim_scenario_eqn_kind;

/* The elementwise ops of <op kind=...> (and of platform_dependent branches). */
typedef enum lsim_op_kind {
  LSIM_OP_SINE,
  LSIM_OP_COSINE,
  LSIM_OP_NEGATE,
  LSIM_OP_EXPONENTIAL,
  LSIM_OP_ADD,
  LSIM_OP_MULTIPLY,
  LSIM_OP_SUBTRACT,
  LSIM_OP_COUNT
} lsim_op_kind;

typedef enum lsim_backend_access {
  LSIM_BACKEND_ACCESS_NONE,
  LSIM_BACKEND_ACCESS_REQUIRED, /* the rule calls get_backend(optional=False) */
  LSIM_BACKEND_ACCESS_OPTIONAL, /* get_backend(optional=True) */
} lsim_backend_access;

typedef enum lsim_compiler_params {
  LSIM_COMPILER_PARAMS_NONE,
  LSIM_COMPILER_PARAMS_MOSAIC_TPU,
  LSIM_COMPILER_PARAMS_TRITON,
  LSIM_COMPILER_PARAMS_MOSAIC_GPU,
} lsim_compiler_params;

typedef struct lsim_scenario_rule {
  char *platform; /* NULL for <default> */
  char *target;
  int line;
} lsim_scenario_rule;

typedef struct lsim_scenario_branch {
  char *platforms;   /* comma list as written; NULL for <default> */
  lsim_op_kind op;
  int line;
} lsim_scenario_branch;

typedef struct lsim_scenario_alias {
  long long input, output; /* as written (may be out of range: checked later) */
  int line;
} lsim_scenario_alias;

typedef struct lsim_scenario_eqn {
  lsim_scenario_eqn_kind kind;
  int line;
  size_t *args;       /* value indices */
  size_t num_args;
  lsim_aval *results; /* <result> children (and an op's implied result) */
  size_t num_results;

  lsim_op_kind op;    /* LSIM_EQN_OP */

  /* LSIM_EQN_PRIMITIVE */
  char *name;
  lsim_backend_access backend_access;
  lsim_scenario_rule *rules; /* <rule> and <default>, in document order */
  size_t num_rules;

  /* LSIM_EQN_PLATFORM_DEPENDENT */
  lsim_scenario_branch *branches; /* in document order; <default> last if present */
  size_t num_branches;

  /* callbacks */
  bool side_effect;      /* buffer_callback side_effect (default false) */
  bool command_buffer;   /* buffer_callback (default false) */
  bool returns_value;    /* buffer_callback (default false) */
  bool ordered;          /* io_callback, debug_callback (default false) */
  bool partitioned;      /* debug_callback (default false) */
  lsim_scenario_alias *aliases;
  size_t num_aliases;

  /* LSIM_EQN_PALLAS_CALL */
  char *kernel;          /* "add_one", "copy", ... */
  int64_t grid;          /* default 1 */
  bool interpret;        /* default false */
  lsim_compiler_params compiler_params;
  bool has_constants;    /* constants="true": the kernel captures constants */
} lsim_scenario_eqn;

typedef struct lsim_scenario_arg {
  lsim_aval aval;
  bool donated;
  int line;
} lsim_scenario_arg;

typedef struct lsim_scenario_expect {
  bool present;
  bool ok;               /* ok="true" */
  char *error;           /* the code name, e.g. "LSIM_E_TOO_MANY_CHANNELS" */
  char *message;         /* optional exact message */
  char **contains;
  size_t num_contains;
  char **absent;
  size_t num_absent;
  int line;
} lsim_scenario_expect;

typedef struct lsim_scenario {
  char *path;            /* as given to the reader ("<memory>" for buffers) */
  char *name;
  char *description;     /* <description> text, optional */
  lsim_scenario_runtime runtime;
  bool has_pallas;       /* <pallas> given */
  lsim_scenario_pallas pallas;

  char *function;        /* <lower function=...>, default "f" */
  char *platforms;       /* comma list as written; NULL: the default backend's platform */
  char *backend;         /* pinned backend; NULL: none */
  int lower_line;
  lsim_scenario_arg *args;
  size_t num_args;
  lsim_scenario_eqn *eqns;
  size_t num_eqns;
  bool has_return;
  size_t *returns;       /* <return values="..."> */
  size_t num_returns;
  int return_line;

  bool execute;          /* <execute/> */
  lsim_scenario_expect expect;
} lsim_scenario;

/* What the reader accepts; beyond these a scenario is invalid input. */
#define LSIM_SCENARIO_MAX_BYTES (8 * 1024 * 1024) /* file size */
#define LSIM_SCENARIO_MAX_DEVICES (1 << 20)       /* <backend devices> */
#define LSIM_SCENARIO_MAX_PRIORITY 1000000        /* |<backend priority>| */
#define LSIM_SCENARIO_MAX_GRID INT32_MAX          /* <pallas_call grid> */

/* An op kind's scenario spelling ("sine"), lax's primitive (&lsim_sin_p,
 * lowersim/lax.h) and its arity (1 or 2). */
const char *lsim_op_kind_name(lsim_op_kind op);
const lsim_primitive *lsim_op_kind_primitive(lsim_op_kind op);
int lsim_op_kind_arity(lsim_op_kind op);
bool lsim_op_kind_from_name(const char *name, lsim_op_kind *out);

/* The scenario spelling of the closed vocabularies: the element of an
 * equation kind ("buffer_callback"), backend_access ("optional") and
 * compiler_params ("mosaic_gpu").  Names are static; NULL / false when
 * invalid or unknown. */
const char *lsim_scenario_eqn_kind_name(lsim_scenario_eqn_kind kind);
bool lsim_scenario_eqn_kind_from_name(const char *name, lsim_scenario_eqn_kind *out);
const char *lsim_backend_access_name(lsim_backend_access access);
bool lsim_backend_access_from_name(const char *name, lsim_backend_access *out);
const char *lsim_compiler_params_name(lsim_compiler_params params);
bool lsim_compiler_params_from_name(const char *name, lsim_compiler_params *out);

/* The RelaxNG schema scenario files are validated with (the text of
 * testdata/schema/scenario.rng, compiled in); static, NUL-terminated.
 * `*size` (optional) receives its length. */
const char *lsim_scenario_schema(size_t *size);

/* Reads and validates a scenario file: well-formed XML, valid against the
 * RelaxNG schema, then meaningful (value indices in range, binary-op shapes
 * equal, dtypes known, shapes valid).  Fails with LSIM_E_INVALID_INPUT and a
 * message `PATH:LINE: what is wrong`, or LSIM_E_IO when the file cannot be
 * read.  `*out` is owned: free with lsim_scenario_destroy. */
int lsim_scenario_read_file(const char *path, lsim_scenario **out, lsim_error *err);

/* The same from memory; `name` stands for the path in messages. */
int lsim_scenario_read_memory(const char *data, size_t size, const char *name,
                              lsim_scenario **out, lsim_error *err);

/* Writes `s` as scenario XML that reads back to an equal scenario, every
 * attribute explicit.  Fails with LSIM_E_INVALID_ARGUMENT when `s` holds
 * something XML cannot carry (an invalid enum, a NULL name, text that is not
 * UTF-8 or has control characters), LSIM_E_IO when `out` fails. */
int lsim_scenario_write(const lsim_scenario *s, FILE *out, lsim_error *err);

/* The scenario's values: args first, then every result of every equation.
 * `*aval` receives value `index`'s aval; false when out of range. */
bool lsim_scenario_value_aval(const lsim_scenario *s, size_t index, lsim_aval *aval);

/* Frees `s` and everything it holds; NULL is accepted. */
void lsim_scenario_destroy(lsim_scenario *s);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_SCENARIO_H */
