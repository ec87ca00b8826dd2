/* fuzz/internal.h: what the files of fuzz/ share.  Private. */
#ifndef LOWERSIM_FUZZ_INTERNAL_H
#define LOWERSIM_FUZZ_INTERNAL_H

#include "fuzz.h"
#include "lowersim/lowering.h"

#include <mlir-c/IR.h>

#include <stdbool.h>
#include <stdio.h>

/* Records an allocation failure in `err`; returns LSIM_E_NO_MEMORY. */
int lsim_fuzz_no_memory(lsim_error *err);

/* Text written with stdio into memory (open_memstream): print into `f`,
 * then take the text. */
typedef struct lsim_fuzz_text {
  FILE *f;
  char *data;
  size_t size;
} lsim_fuzz_text;

/* False when out of memory. */
bool lsim_fuzz_text_open(lsim_fuzz_text *t);

/* Closes the stream: the text (owned), or NULL when anything failed. */
char *lsim_fuzz_text_take(lsim_fuzz_text *t);

/* Where an isolated check's child reports: its result and its stderr, two
 * temporary files (descriptors; -1 when not isolated). */
typedef struct lsim_fuzz_isolation {
  int result_fd;
  int log_fd;
} lsim_fuzz_isolation;

/* Opens the two temporary files. */
int lsim_fuzz_isolation_open(lsim_fuzz_isolation *iso, lsim_error *err);
void lsim_fuzz_isolation_close(lsim_fuzz_isolation *iso);

/* The checker (checker.c). */
struct lsim_fuzz_checker {
  lsim_lowerer *lowerer;
  MlirContext parse;       /* where printed modules are parsed back */
  bool isolated;           /* checks run in a child process */
  lsim_fuzz_isolation iso;
};

/* lsim_fuzz_check in this process (check.c). */
int lsim_fuzz_check_here(lsim_fuzz_checker *c, const lsim_scenario *s, lsim_fuzz_result *res,
                         lsim_error *err);

/* lsim_fuzz_check_here in a child process (isolate.c). */
int lsim_fuzz_check_in_child(lsim_fuzz_checker *c, const lsim_fuzz_isolation *iso,
                             const lsim_scenario *s, lsim_fuzz_result *res, lsim_error *err);

#endif
