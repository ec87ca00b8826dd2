/* cli/impl.h: `check --impl`'s side: running another implementation (a
 * port) on scenario files and judging what it answers.
 *
 * Two ways to run a port.  One process per scenario: COMMAND with
 * {scenario} replaced by the file's shell-quoted path, stdin /dev/null, its
 * exit status, stdout and stderr are the answer.  The batch protocol: COMMAND
 * is started once per job and stays up; for each scenario lowersim writes one
 * request line on its stdin, the path and a newline, and the port answers on
 * its stdout with one header line `EXIT OUT_BYTES ERR_BYTES` (decimal)
 * followed by exactly that many bytes of what it would have printed on
 * stdout and then on stderr (python/lowersim/port.py speaks it for ports
 * written in Python).  In both ways up to `jobs` ports run at once, each
 * answer within `timeout` seconds or the port's process group is killed. */
#ifndef LOWERSIM_CLI_IMPL_H
#define LOWERSIM_CLI_IMPL_H

#include "lowersim/error.h"
#include "lowersim/scenario_port.h"

#include <mlir-c/IR.h>

#include <stdbool.h>
#include <stddef.h>

struct impl_answer;

typedef struct impl_options {
  const char *command;
  bool batch;       /* the batch protocol; else one process per scenario */
  unsigned jobs;    /* ports at once (>= 1) */
  double timeout;   /* seconds per answer; 0: none */
  bool progress;    /* a progress line with the ETA on stderr (a terminal only) */
  const char *what; /* the progress line's name for the work ("check --impl") */
  /* Called with each answer as it arrives (may be NULL); true stops the
   * run: the ports still running are killed, and their scenarios and those
   * not started keep zeroed answers (`out` NULL).  For -x. */
  bool (*answered)(void *data, size_t index, const struct impl_answer *a);
  void *data;
} impl_options;

typedef enum impl_how {
  IMPL_EXITED,    /* `code` is the exit status */
  IMPL_SIGNALLED, /* `code` is the signal that stopped it */
  IMPL_TIMED_OUT, /* killed after `timeout` seconds */
  IMPL_BROKEN,    /* no answer: `err` says why (could not run, broke the protocol, ...) */
} impl_how;

typedef struct impl_answer {
  impl_how how;
  int code;
  char *out, *err; /* owned, never NULL after impl_run_all ("" when empty) */
  double seconds;
} impl_answer;

/* Runs the port on paths[i] for every i with paths[i] != NULL, into
 * answers[i] (the others are left zeroed; so are those not run when
 * `answered` stopped the run).  0, or LSIM_E_NO_MEMORY. */
int impl_run_all(const impl_options *o, const char *const *paths, size_t n, impl_answer *answers);
void impl_answer_clear(impl_answer *a);

/* The python of the oracle's environment that `--normalize jax` runs
 * (owned), or NULL when there is none: $LOWERSIM_JAX_PYTHON, else beside
 * the lowersim executable or below the current folder
 * oracle-venvs/RELEASE/bin/python (the jaxlib of the release checked, whose
 * kernels' bytecode it reads; RELEASE may be NULL), else
 * oracle-venv/bin/python. */
char *impl_jax_python(const char *release);

/* The module in answers[i].out, for every i with want[i], is replaced by
 * its generic form as jaxlib's MLIR prints it with every attribute in the
 * attribute dictionary (oracle/mlir_text.py attribute_form), which
 * lowersim's MLIR reads, after one trip through the pretty form (so both
 * sides of a comparison leave out the same default attributes); what
 * jaxlib cannot parse is left as it was, and MLIR's diagnostic goes to
 * notes[i] (owned). */
int impl_normalize_jax(const char *python, impl_answer *answers, const bool *want, size_t n,
                       char **notes);

/* How an answer is judged. */
typedef struct impl_judging {
  bool normalizing;  /* --normalize jax */
  const char *note;  /* jaxlib's diagnostic when it could not read the port's module, or NULL */
  bool colour;       /* red and green word marks */
} impl_judging;

/* lowersim's outcome for one scenario (the module `ours`, or the error `err`
 * when `ours` is NULL) against the port's answer, by the library's one judge
 * (lsim_scenario_port_judge) into `v`.  0, or LSIM_E_NO_MEMORY. */
int impl_judge(MlirContext mlir, const char *ours, const lsim_error *err, const impl_answer *a,
               const impl_judging *how, lsim_scenario_port_verdict *v);

#endif
