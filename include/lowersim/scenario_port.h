/* lowersim/scenario_port.h: judging another implementation (a port) of
 * JAX's lowering against lowersim, one scenario at a time.
 *
 * The one comparison of a port's answer with lowersim's outcome, which
 * `lowersim check --impl`, the Python bindings (lowersim.port.judge) and
 * the pytest plugin all call:
 *
 *  - lowersim lowers to a module: the port must exit 0 with a module on
 *    stdout; both are parsed and printed by lowersim's MLIR (the generic
 *    form) and compared line for line.  Pallas kernels carried inside
 *    custom calls are taken out first and compared as modules of their
 *    own: tpu_custom_call's `backend_config` JSON
 *    `custom_call_config.body` and `debug_locations` (base64 MLIR
 *    bytecode), Triton's `mhlo.backend_config` `ir` and Mosaic GPU's
 *    (`mosaic_gpu_v2`) `module`, whose `kernel_hash` must be the SHA-256 of
 *    the module on each side (the hashes themselves are not compared).
 *    Bytecode facts (the producer string, the bytecode version) are notes,
 *    never a difference.
 *  - lowersim gives JAX's error: the port must exit non-zero and the last
 *    line of its stderr of the form `[CODE: ]ErrorClass: message` must be
 *    JAX's class and message (a newline in the message written `\n`; the
 *    address in a Python default repr, ` object at 0x...>`, is not
 *    compared).
 *  - A port that could not run, was killed or timed out fails saying so.
 *  - A NUL byte on the port's stdout or stderr fails, saying where: no
 *    module or error line holds one, and what follows it would otherwise
 *    go unjudged.
 *
 * Warnings are not compared. */
#ifndef LOWERSIM_SCENARIO_PORT_H
#define LOWERSIM_SCENARIO_PORT_H

#include "lowersim/error.h"

#include <mlir-c/IR.h>

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How the port's process ended. */
typedef enum lsim_scenario_port_how {
  LSIM_SCENARIO_PORT_EXITED,    /* `code` is its exit status */
  LSIM_SCENARIO_PORT_SIGNALLED, /* `code` is the signal that stopped it */
  LSIM_SCENARIO_PORT_TIMED_OUT, /* killed after `seconds` */
  LSIM_SCENARIO_PORT_BROKEN,    /* no answer: `err` says why */
} lsim_scenario_port_how;

/* The port's answer for one scenario (borrowed). */
typedef struct lsim_scenario_port_answer {
  lsim_scenario_port_how how;
  int code;
  const char *out; /* its stdout; NULL: "" */
  const char *err; /* its stderr; NULL: "" */
  double seconds;
  /* The bytes of `out` and `err`: a NUL byte among them is judged (a
   * port's output holding one fails, saying where), not taken for the end.
   * 0 with a non-empty text: up to its first NUL (strlen). */
  size_t out_len, err_len;
} lsim_scenario_port_answer;

/* lowersim's outcome for the scenario (borrowed): `module` (the text
 * `lowersim lower` prints), or, when it is NULL, JAX's error. */
typedef struct lsim_scenario_port_expected {
  const char *module;
  const char *error_class;
  const char *error_message; /* newlines as they are; compared written \n */
} lsim_scenario_port_expected;

typedef struct lsim_scenario_port_options {
  size_t struct_size;         /* LSIM_SCENARIO_PORT_OPTIONS_INIT */
  bool colour;                /* red and green word marks instead of [-old-]{+new+} */
  bool normalizing;           /* both modules went through jaxlib's MLIR (--normalize jax) */
  const char *normalize_note; /* jaxlib's diagnostic when it could not read the port's module */
} lsim_scenario_port_options;

#define LSIM_SCENARIO_PORT_OPTIONS_INIT(...) \
  {.struct_size = sizeof(lsim_scenario_port_options), __VA_ARGS__}

/* The verdict; every string owned (lsim_scenario_port_verdict_clear). */
typedef struct lsim_scenario_port_verdict {
  bool passed;
  char *first;      /* one line: the first difference; NULL when passed */
  char *difference; /* `first`, then the whole story (a unified diff with
                     * the differing words marked, kernels as decoded
                     * text); NULL when passed */
  char *notes;      /* facts reported apart (bytecode producers and
                     * versions), one per line; NULL: none */
  /* What each side has where they first differ, for machine-readable
   * reports: the error's class and message, or the module's first
   * differing line; NULL where it does not apply. */
  char *expected_class, *expected_message, *expected_module;
  char *actual_class, *actual_message, *actual_module;
} lsim_scenario_port_verdict;

/* Judges `answer` against `expected`, parsing modules in `mlir` (a context
 * that allows unregistered dialects: lsim_lowerer_mlir_context).  0, or
 * LSIM_E_NO_MEMORY (`*verdict` then empty); a port that differs is a
 * verdict with `passed` false, not an error. */
int lsim_scenario_port_judge(MlirContext mlir, const lsim_scenario_port_expected *expected,
                             const lsim_scenario_port_answer *answer,
                             const lsim_scenario_port_options *options,
                             lsim_scenario_port_verdict *verdict, lsim_error *err);
void lsim_scenario_port_verdict_clear(lsim_scenario_port_verdict *verdict);

/* The environment variable holding the scenario's path for a port run per
 * scenario (`check --impl`, the pytest plugin). */
#define LSIM_SCENARIO_PORT_PATH_VAR "LOWERSIM_SCENARIO"

/* The shell command a port is run with: `command` with each {scenario}
 * replaced by a reference to $LOWERSIM_SCENARIO quoted for where it stands
 * (outside quotes "${VAR}", inside double quotes ${VAR}, inside single
 * quotes '"${VAR}"', the single quotes closed around it), so that, run by
 * `/bin/sh -c` with the path in that variable, the path is one argument
 * whatever quotes surround the placeholder, and nothing in it is expanded
 * or run (a parameter's value is never read again for `$(...)`,
 * backquotes, quotes or globs).  Owned (free); NULL when out of memory. */
char *lsim_scenario_port_command(const char *command);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_SCENARIO_PORT_H */
