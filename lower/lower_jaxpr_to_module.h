/* lower/lower_jaxpr_to_module.h: a program lowered to a module.  Private to
 * lower/. */
#ifndef LSIMP_LOWER_LOWER_JAXPR_TO_MODULE_H
#define LSIMP_LOWER_LOWER_JAXPR_TO_MODULE_H

#include "lowersim/error.h"
#include "lowersim/module_context.h"
#include "lowersim/program.h"
#include "lowersim/registry.h"
#include "spill.h"

#include <stdbool.h>

/* The arguments of mlir.py lower_jaxpr_to_module that lowersim models. */
typedef struct lsimp_module_request {
  const char *module_name;                   /* already sanitized */
  const lsim_program *jaxpr;                 /* checked (lsim_program_check) */
  const lsim_registry *registry;
  const lsim_module_context_options *context; /* platforms, backend, devices, parameters,
                                                 narration */
  const lsim_mesh *arg_mesh;    /* arg_shardings: each arg replicated over this mesh (a
                                   SingleDeviceSharding's empty mesh under jit(backend=)),
                                   or NULL for none */
  const lsim_mesh *result_mesh; /* result_shardings likewise, or NULL */
  bool verify;
  /* main's body printed as it is lowered, then sealed (spill.h; with
   * `verify`), or NULL. */
  lsimp_spill *spill;
} lsimp_module_request;

/* lower_jaxpr_to_module: a new module context (owned, `*out`) holding the
 * module, after the donation checks, main (lower_jaxpr_to_fun) and, with
 * `verify`, lsim_verify_module.  On failure nothing is returned and the
 * error is narrated. */
int lsimp_lower_jaxpr_to_module(const lsimp_module_request *req, lsim_module_context **out,
                                lsim_error *err);

#endif
