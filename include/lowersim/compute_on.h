/* lowersim/compute_on.h: compute_on's function form.
 *
 * JAX counterpart: jax/_src/compute_on.py compute_on_p, bound by
 * compute_on2(f, compute_type=..., out_memory_spaces=...) at 0.10.2 and by
 * compute_on(f, ...) once the context manager was deleted (3a440c764b): the
 * function is traced inside the compute type and lowered as a private
 * function "compute_on" (mlir.lower_called_computation) and a func.call
 * carrying the compute type, each result then annotated with its memory
 * kind (mlir.wrap_with_memory_kind). */
#ifndef LOWERSIM_COMPUTE_ON_H
#define LOWERSIM_COMPUTE_ON_H

#include "lowersim/error.h"
#include "lowersim/primitive.h"
#include "lowersim/program.h"
#include "lowersim/registry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* compute_on_p's params.  Its outputs' avals are in out_memory_space (the
 * equation's results say so too); each result is annotated with that
 * space's memory kind, and a host one makes jit give main's results theirs
 * (mhlo.memory_kind). */
typedef struct lsim_compute_on_params {
  const lsim_program *jaxpr; /* the function traced for the operands (borrowed); its
                                equations have the compute type unless their own */
  const char *compute_type;  /* device_host, device, tpu_sparsecore or gpu_stream:N */
  lsim_memory_space out_memory_space; /* out_memory_spaces, one for every output */
} lsim_compute_on_params;

extern const lsim_primitive lsim_compute_on_p;

/* Makes `eqn` a compute_on equation with `params` (borrowed). */
static inline void lsim_compute_on_bind(lsim_eqn *eqn, const lsim_compute_on_params *params) {
  eqn->primitive = &lsim_compute_on_p;
  eqn->params = params;
}

/* Registers compute_on_p's rule; the function's equations lower with
 * `reg`'s rules. */
int lsim_register_compute_on_rules(lsim_registry *reg, lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_COMPUTE_ON_H */
