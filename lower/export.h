/* lower/export.h: what jax.export adds to a lowering.  Private to lower/. */
#ifndef LSIMP_LOWER_EXPORT_H
#define LSIMP_LOWER_EXPORT_H

#include "lowersim/error.h"
#include "lowersim/module_context.h"

#include <stddef.h>

/* export/_export.py _export_lowered on a lowered module: _check_lowering
 * (host callbacks or keepalives: NotImplementedError), the module's
 * jax.uses_shape_polymorphism, _check_module with the disabled checks (each
 * as str(DisabledSafetyCheck)) against the profile's stable targets. */
int lsimp_export(lsim_module_context *mc, const char *const *disabled, size_t num_disabled,
                 lsim_error *err);

#endif
