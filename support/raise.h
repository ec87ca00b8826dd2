/* support/raise.h: how lowersim code fills an lsim_error.  Private.
 *
 * lsim_raise(err, CODE, values...) renders CODE's catalogue template: each
 * distinct {placeholder} takes the next value, in order of first appearance,
 * and a placeholder that appears again repeats its value.  So every message
 * text lives once, in the catalogue (support/error.c). */
#ifndef LOWERSIM_SUPPORT_RAISE_H
#define LOWERSIM_SUPPORT_RAISE_H

#include "lowersim/error.h"

#include <stddef.h>

int lsim_raise_values(lsim_error *err, lsim_status code, size_t n, const char *const *values);

#define lsim_raise(err, code, ...)                                                         \
  lsim_raise_values((err), (code), sizeof((const char *[]){__VA_ARGS__}) / sizeof(char *), \
                    (const char *const[]){__VA_ARGS__})
#define lsim_raise0(err, code) lsim_raise_values((err), (code), 0, NULL)

/* For lowersim's own codes, whose messages are free text. Returns `code`. */
int lsim_fail(lsim_error *err, lsim_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Records an allocation failure. Returns LSIM_E_NO_MEMORY. */
int lsim_fail_oom(lsim_error *err);

/* Moves `from` into `to` (either may be NULL); `from` is left cleared. */
void lsim_error_move(lsim_error *to, lsim_error *from);

#endif
