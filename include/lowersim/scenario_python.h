/* lowersim/scenario_python.h: a scenario as the JAX Python program it means.
 *
 * The one rendering of a scenario as JAX code: imports, the scenario's own
 * primitives and their lowering rules, the callbacks' Python functions, the
 * traced function `f` (one statement per equation, each written by its
 * kind), its arguments, then `jax.jit(f, ...).trace(*args).lower(...)` (or
 * jax.export), leaving `lowered` (or `exported`) defined: the last
 * lowering's outcome.  <execute/> (the runtime calling the host callbacks)
 * is not part of the program.  `lowersim
 * explain` prints it first, `explain --python` alone. */
#ifndef LOWERSIM_SCENARIO_PYTHON_H
#define LOWERSIM_SCENARIO_PYTHON_H

#include "lowersim/error.h"
#include "lowersim/jax_profile.h"
#include "lowersim/scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The program of `s` for its JAX release (its jax=, else `fallback`, else
 * the newest), runnable Python owned by the caller in *out; an equation
 * of a kind without a rendering would be LSIM_E_INVALID_ARGUMENT, saying
 * which (every kind has one); LSIM_E_NO_MEMORY.  A <pallas_call> is the
 * program's `pallas` helper over pl.pallas_call and the kernel library's
 * Python sources (compiled as kernels.py).  A session is
 * its lowerings in turn, those before the last in a try (a JAX process
 * goes on after a failed lowering), each export kept in `exports[K]` for
 * <call_exported lowering="K">. */
int lsim_scenario_python(const lsim_scenario *s, const lsim_jax_profile *fallback, char **out,
                         lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_SCENARIO_PYTHON_H */
