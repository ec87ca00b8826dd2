/* cli/progress.h: the one progress line of the command (matrix, fuzz,
 * check --impl): rewritten in place on standard error, and only when that
 * is a terminal: `WHAT: DONE/TOTAL UNIT (P%), R UNIT/s, ETA M:SS[, EXTRA]`.
 * Off, every call does nothing, so callers need no test of their own. */
#ifndef LOWERSIM_CLI_PROGRESS_H
#define LOWERSIM_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct cli_progress {
  const char *what; /* "matrix", "fuzz", "check --impl" */
  const char *unit; /* "cases", "scenarios" */
  uint64_t total;
  double start, shown; /* monotonic seconds: begun, last drawn */
  bool on;
} cli_progress;

/* Monotonic seconds. */
double cli_now(void);

/* Starts the clock; the line is drawn only when `wanted` and stderr is a
 * terminal. */
void cli_progress_begin(cli_progress *p, const char *what, const char *unit, uint64_t total,
                        bool wanted);

/* Draws the line for `done` of the total, at most 4 times a second (every
 * call when `force`); `extra` (NULL: none) ends it. */
void cli_progress_update(cli_progress *p, uint64_t done, const char *extra, bool force);

/* Erases the line, so that the report starts on a clean one. */
void cli_progress_end(cli_progress *p);

/* The rate in UNIT/s as the line and the reports print it ("850", "12.4k"),
 * into buf. */
void cli_progress_rate(double per_second, char *buf, int size);

#endif
