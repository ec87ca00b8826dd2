/* fuzz/internal.h: what the files of fuzz/ share.  Private. */
#ifndef LOWERSIM_FUZZ_INTERNAL_H
#define LOWERSIM_FUZZ_INTERNAL_H

#include "fuzz/fuzz.h"

/* Where an isolated check's child reports: its result and its stderr, two
 * temporary files (descriptors; -1 when not isolated). */
typedef struct lsim_fuzz_isolation {
  int result_fd;
  int log_fd;
} lsim_fuzz_isolation;

/* Opens the two temporary files. */
int lsim_fuzz_isolation_open(lsim_fuzz_isolation *iso, lsim_error *err);
void lsim_fuzz_isolation_close(lsim_fuzz_isolation *iso);

/* lsim_fuzz_check in this process. */
int lsim_fuzz_check_here(lsim_fuzz_checker *c, const lsim_scenario *s, lsim_fuzz_result *res,
                         lsim_error *err);

/* lsim_fuzz_check_here in a child process. */
int lsim_fuzz_check_in_child(lsim_fuzz_checker *c, const lsim_fuzz_isolation *iso,
                             const lsim_scenario *s, lsim_fuzz_result *res, lsim_error *err);

#endif
