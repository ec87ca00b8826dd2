/* lower/donation.h: donated arguments.  Private to lower/. */
#ifndef LSIMP_LOWER_DONATION_H
#define LSIMP_LOWER_DONATION_H

#include "lowersim/error.h"
#include "lowersim/module_context.h"
#include "lowersim/program.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the module's main does with each arg of a program. */
typedef struct lsimp_donation {
  int64_t *alias_of; /* per arg: the output it aliases (tf.aliasing_output), or -1 */
  bool *donor;       /* per arg: jax.buffer_donor */
} lsimp_donation;

/* lower_jaxpr_to_module's check: with a donated arg, either all or none of
 * the module context's lowering platforms support donation
 * (LSIM_E_DONATION_MIXED). */
int lsimp_check_donation(const lsim_module_context *mc, const lsim_program *program,
                         lsim_error *err);

/* _set_up_aliases into `d` (arrays of num_args items; on several devices
 * every donated arg is a buffer donor):
 * `avals` are the program's value avals (lsim_program_value_avals). */
int lsimp_set_up_aliases(lsim_module_context *mc, const lsim_program *program,
                         const lsim_aval *avals, size_t num_values, lsimp_donation *d,
                         lsim_error *err);

#endif
