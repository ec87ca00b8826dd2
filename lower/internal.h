/* lower/internal.h: what the files of lower/ share.  Private. */
#ifndef LOWERSIM_LOWER_INTERNAL_H
#define LOWERSIM_LOWER_INTERNAL_H

#include "lowersim/lower.h"

/* Runs the trace-time check registered for `primitive`, if any. */
int lsim_registry_trace_check(const lsim_registry *reg, const char *primitive,
                              const lsim_aval *avals_in, size_t num_in, const lsim_aval *avals_out,
                              size_t num_out, const void *params, lsim_error *err);

/* Registers the engine's own primitives: the elementwise ops (sin, cos,
 * neg, exp, add, mul, sub) and platform_dependent. */
int lsim_register_builtin_rules(lsim_registry *reg, lsim_error *err);

#endif
