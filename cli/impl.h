/* cli/impl.h: `check --impl`'s side: running another implementation (a
 * port) on scenario files and judging what it answers.  The command's one
 * process runner: `--normalize jax` runs its normalizer through it too.
 *
 * Two ways to run a port.  One process per scenario: `/bin/sh -c COMMAND`
 * with the file's path in the environment variable LOWERSIM_SCENARIO and
 * each {scenario} replaced by a reference to it, quoted for where it stands
 * (outside quotes, in double quotes or in single quotes:
 * lsim_scenario_port_command, which the pytest plugin calls too), so that
 * the path is always one argument and nothing in it is run; stdin /dev/null, its
 * exit status, stdout and stderr are the answer.  The batch protocol: COMMAND
 * is started once per job and stays up; for each scenario lowersim writes one
 * request line on its stdin, the path and a newline, and the port answers on
 * its stdout with one header line `EXIT OUT_BYTES ERR_BYTES` (decimal)
 * followed by exactly that many bytes of what it would have printed on
 * stdout and then on stderr (python/lowersim/port.py speaks it for ports
 * written in Python).  In both ways up to `jobs` ports run at once, each
 * answer within `timeout` seconds or the port's process group is ended.
 *
 * Every pipe is non-blocking on lowersim's side and one poll loop serves
 * them all, with the time-outs (per request in the batch protocol) and the
 * ending signals: a port that answers without reading its requests cannot
 * stop lowersim.  What an answer may write is bounded (`max_output`, stdout
 * and stderr together, the batch header aside): past it the port is ended
 * and the scenario fails with `the implementation's output exceeds N bytes`.
 * Answers are bytes with their lengths (a NUL byte is judged, not an end).
 * A port's process group is ended by SIGTERM, then SIGKILL after
 * IMPL_GRACE seconds: on a time-out, on -x, at the end of the run and on
 * SIGINT, SIGTERM and SIGHUP to the command (which then ends by the
 * signal). */
#ifndef LOWERSIM_CLI_IMPL_H
#define LOWERSIM_CLI_IMPL_H

#include "lowersim/error.h"
#include "lowersim/scenario_port.h"

#include <mlir-c/IR.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The default bound on what one answer may write (stdout and stderr). */
#define IMPL_MAX_OUTPUT ((size_t)64 << 20)
/* Seconds between SIGTERM and SIGKILL to a port's process group. */
#define IMPL_GRACE 0.5
/* Seconds a port's children may hold its pipes open after it ended. */
#define IMPL_LINGER 1.0
/* The longest batch header line, its newline included. */
#define IMPL_FRAME_HEADER_MAX 64

struct impl_answer;

typedef struct impl_options {
  const char *command;
  bool batch;       /* the batch protocol; else one process per scenario */
  unsigned jobs;    /* ports at once (>= 1) */
  double timeout;   /* seconds per answer; 0: none */
  size_t max_output; /* bytes one answer may write; 0: IMPL_MAX_OUTPUT */
  bool progress;    /* a progress line with the ETA on stderr (a terminal only) */
  const char *what; /* the progress line's name for the work ("check --impl") */
  /* Called with each answer as it arrives (may be NULL); true stops the
   * run: the ports still running are killed, and their scenarios and those
   * not started keep zeroed answers (`out` NULL).  For -x. */
  bool (*answered)(void *data, size_t index, const struct impl_answer *a);
  void *data;
  /* `answered` judged each answer: its out and err are emptied ("") once
   * it returns, so that a run keeps at most `jobs` answers' bytes, not one
   * per scenario. */
  bool release_answered;
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
  char *out, *err; /* owned, never NULL after impl_run_all ("" when empty), a NUL after */
  size_t out_len, err_len; /* their bytes (0 with a non-empty text: strlen) */
  double seconds;
} impl_answer;

/* Runs the port on paths[i] for every i with paths[i] != NULL, into
 * answers[i] (the others are left zeroed; so are those not run when
 * `answered` stopped the run).  0, or LSIM_E_NO_MEMORY. */
int impl_run_all(const impl_options *o, const char *const *paths, size_t n, impl_answer *answers);
void impl_answer_clear(impl_answer *a);

/* A batch answer at the start of `data` (`len` bytes): the header line
 * `EXIT OUT_BYTES ERR_BYTES` (decimal, single spaces, EXIT at most 255, at
 * most IMPL_FRAME_HEADER_MAX bytes with its newline), then OUT_BYTES of
 * stdout and ERR_BYTES of stderr. */
typedef struct impl_frame {
  int code;
  size_t head;     /* the header's bytes, its newline included */
  size_t out, err; /* the bytes of stdout, then of stderr, after it */
} impl_frame;
enum {
  IMPL_FRAME_PARTIAL = 0,    /* not all of it yet */
  IMPL_FRAME_WHOLE = 1,      /* all of it: `f` says where */
  IMPL_FRAME_MALFORMED = -1, /* not a header */
  IMPL_FRAME_TOO_LARGE = -2, /* it announces more than `max` bytes */
};
int impl_frame_parse(const char *data, size_t len, size_t max, impl_frame *f);

/* `len` bytes of a port's text as shown to a person (owned; NULL when out
 * of memory): control characters but newline and tab (C0, DEL, C1) and
 * bytes that are not UTF-8 written \xNN, so that no escape sequence of
 * the port reaches a terminal; with `colour`, the judge's own word marks
 * (bold red, bold green, reset) are kept. */
char *impl_shown(const char *text, size_t len, bool colour);

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
