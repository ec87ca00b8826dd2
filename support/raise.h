/* support/raise.h: how lowersim code fills an lsim_error with JAX's messages.
 * Private (lowersim's own codes take free text: lsim_error_set).
 *
 * lsimp_raise(err, CODE, values...) renders CODE's catalogue template: each
 * distinct {placeholder} takes the next value, in order of first appearance,
 * and a placeholder that appears again repeats its value.  So every message
 * text lives once, in the catalogue (support/error.c).  When the message
 * cannot be made (out of memory), `err` holds LSIM_E_NO_MEMORY and that is
 * what is returned: out of memory is never reported as a JAX error. */
#ifndef LSIMP_SUPPORT_RAISE_H
#define LSIMP_SUPPORT_RAISE_H

#include "lowersim/error.h"

#include <stddef.h>

int lsimp_raise_values(lsim_error *err, lsim_status code, size_t n, const char *const *values);

#define lsimp_raise(err, code, ...)                                                         \
  lsimp_raise_values((err), (code), sizeof((const char *[]){__VA_ARGS__}) / sizeof(char *), \
                    (const char *const[]){__VA_ARGS__})
#define lsimp_raise0(err, code) lsimp_raise_values((err), (code), 0, NULL)

/* Records an allocation failure. Returns LSIM_E_NO_MEMORY. */
int lsimp_fail_oom(lsim_error *err);

/* Moves `from` into `to` (either may be NULL); `from` is left cleared. */
void lsimp_error_move(lsim_error *to, lsim_error *from);

#endif
