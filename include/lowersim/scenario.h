/* lowersim/scenario.h: scenario files (XML), read and written.
 *
 * A scenario describes one lowering: the simulated runtime, which Pallas
 * backends are installed, the program and its lowering platforms, whether
 * host callbacks run afterwards, and optionally what is expected (which makes
 * it a test case).  The format is documented in docs/scenario-format.md (every
 * element and attribute, value numbering, what a scenario means where the
 * contract is silent; `lowersim lower --help` lists the elements) and
 * validated with testdata/schema/scenario.rng (compiled into lowersim, so the
 * command works outside the source tree).
 *
 * This header is plain data: reading fills it, writing serializes it, and the
 * scenario layer turns it into a runtime, a registry and a program.  Each kind
 * of equation is one descriptor (lowersim/scenario_kind.h).
 */
#ifndef LOWERSIM_SCENARIO_H
#define LOWERSIM_SCENARIO_H

#include "lowersim/aval.h"
#include "lowersim/error.h"
#include "lowersim/module_context.h"
#include "lowersim/pallas.h"

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
  char *device_kind;    /* NULL: lsim_default_device_kind */
  char *compute_capability; /* NULL: lsim_default_compute_capability */
  int line;
} lsim_scenario_backend;

typedef struct lsim_scenario_runtime {
  bool present;          /* <runtime> given; else one cpu backend */
  char *jax_platforms;   /* NULL: unset */
  lsim_scenario_backend *backends;
  size_t num_backends;
} lsim_scenario_runtime;

/* One kind of equation of the format (<op>, <primitive>, <buffer_callback>,
 * ...): a row of scenario/scenario_kind.c (lowersim/scenario_kind.h). */
typedef struct lsim_scenario_kind lsim_scenario_kind;

/* One equation element.  What only some kinds have lives in `params`, the
 * kind's own struct (scenario/kinds/kinds.h), which holds the library's
 * typed params of its primitive plus what only the file has (line numbers,
 * returns_value, platform lists as written). */
typedef struct lsim_scenario_eqn {
  const lsim_scenario_kind *kind;
  int line;
  size_t *args;       /* value indices */
  size_t num_args;
  lsim_aval *results; /* <result> children (or an op's implied result) */
  size_t num_results;
  void *params;       /* owned; the kind's struct */
  char *compute_type; /* owned; compute_on="...": traced inside compute_on(compute_type) */
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
  char **warnings;       /* <warning>: `CATEGORY: text`, in order; none: not checked */
  size_t num_warnings;
  int line;
} lsim_scenario_expect;

typedef struct lsim_scenario {
  char *path;            /* as given to the reader ("<memory>" for buffers) */
  char *name;
  char *jax;             /* <scenario jax=...>: the JAX version it pins, as written (a
                            profile's name or commit, lsim_jax_profile_find); NULL: none */
  char *description;     /* <description> text, optional */
  lsim_scenario_runtime runtime;
  bool has_pallas;       /* <pallas> given */
  lsim_pallas_installed pallas; /* every backend installed, the flag set, by default */
  bool has_use_mosaic_gpu; /* <pallas use_mosaic_gpu=...> given: refused for a JAX without
                              the option (lsim_jax_profile.pallas_use_mosaic_gpu_option) */
  int pallas_line;       /* <pallas>'s line (0: none) */

  char *function;        /* <lower function=...>, default "f" */
  char *platforms;       /* comma list as written; NULL: the default backend's platform */
  char *backend;         /* pinned backend; NULL: none */
  int devices;           /* <lower devices="N">: jit's in_shardings replicate the args over
                            jax.devices()[:N] (a mesh with axis "x"); 0: none */
  bool keep_unused;      /* <lower keep_unused="true">: jax.jit(f, keep_unused=True) */
  bool has_enable_x64;   /* <lower enable_x64=...> given; else jax_enable_x64 is on exactly
                            when some value has a 64-bit dtype */
  bool enable_x64;
  bool for_export;       /* <lower export="true">: jax.export.export(jax.jit(f), ...) */
  char *disabled_checks; /* export's disabled_checks= as written ("custom_call:t,platform");
                            NULL: none */
  int lower_line;
  bool has_abstract_device; /* <abstract_device>: lowered inside use_abstract_mesh */
  lsim_abstract_device abstract_device; /* its strings owned */
  int abstract_device_line;
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

  /* A process session: the lowerings written after this one (a <lower>,
   * its <execute/> and its <expect>, again), in order, each a node holding
   * only those (its path is the file's; name, jax=, <runtime> and <pallas>
   * are the first's).  They run in the first one's JAX process: one
   * runtime (backends initialized once, their errors kept), one Pallas
   * state and one registry (primitives and their rules).  NULL: one
   * lowering. */
  struct lsim_scenario *next;
  int step;              /* 1 for the first lowering, 2 for the next, ... */
} lsim_scenario;

/* What the reader accepts; beyond these a scenario is invalid input. */
#define LSIM_SCENARIO_MAX_BYTES (8 * 1024 * 1024) /* file size: the default limit */
#define LSIM_SCENARIO_MAX_DEVICES (1 << 20)       /* <backend devices> */
#define LSIM_SCENARIO_MAX_PRIORITY 1000000        /* |<backend priority>| */
#define LSIM_SCENARIO_MAX_GRID INT32_MAX          /* <pallas_call grid> */
#define LSIM_SCENARIO_MAX_ATTRIBUTES 64           /* attributes of one element */
#define LSIM_SCENARIO_MAX_CHILDREN 131072         /* child elements of one element */
#define LSIM_SCENARIO_MAX_DEPTH 64                /* elements inside elements */
#define LSIM_SCENARIO_MAX_LOWERINGS 1024          /* <lower>s of one session */

/* The RelaxNG schema scenario files are validated with (the text of
 * testdata/schema/scenario.rng, compiled in); static, NUL-terminated.
 * `*size` (optional) receives its length. */
const char *lsim_scenario_schema(size_t *size);

/* The file-size limit of the readers below (LSIM_SCENARIO_MAX_BYTES unless
 * set): a larger file is invalid input.  The setting is the process's; set
 * it before reading from several threads (`lowersim lower --max-bytes`).
 * 0 restores the default. */
size_t lsim_scenario_max_bytes(void);
void lsim_scenario_set_max_bytes(size_t limit);

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
 * something XML cannot carry (an invalid value, a NULL name, text that is not
 * UTF-8 or has control characters), LSIM_E_IO when `out` fails. */
int lsim_scenario_write(const lsim_scenario *s, FILE *out, lsim_error *err);

/* The scenario's values: args first, then every result of every equation.
 * `*aval` receives value `index`'s aval; false when out of range. */
bool lsim_scenario_value_aval(const lsim_scenario *s, size_t index, lsim_aval *aval);

/* Whether some lowering of `s` (a session's, any) has an <expect>: a test
 * case for lsim_scenario_check. */
bool lsim_scenario_expects(const lsim_scenario *s);

/* Whether a value of `s` (an arg or an equation's result) has a 64-bit
 * dtype, which JAX can express only with jax_enable_x64. */
bool lsim_scenario_has_64bit_values(const lsim_scenario *s);

/* Whether `s` lowers with jax_enable_x64: its enable_x64=, else
 * lsim_scenario_has_64bit_values. */
bool lsim_scenario_enable_x64(const lsim_scenario *s);

/* What an absent <pallas> means: every backend installed, and
 * jax_pallas_use_mosaic_gpu at JAX's default, True. */
lsim_pallas_installed lsim_scenario_default_pallas(void);

/* Frees `s` and everything it holds; NULL is accepted. */
void lsim_scenario_destroy(lsim_scenario *s);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_SCENARIO_H */
