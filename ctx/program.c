/* ctx/program.c: straight-line jaxprs (core.Jaxpr): values numbered args
 * first, then every equation's results. */
#include "lowersim/alloc.h"
#include "lowersim/program.h"
#include "support/raise.h"

#include <stdlib.h>
#include <string.h>

int lsim_program_check(const lsim_program *prog, lsim_error *err) {
  size_t num_values = prog->num_args;
  if (prog->num_args && !prog->args)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "the program's args are missing");
  for (size_t i = 0; i < prog->num_eqns; i++) {
    const lsim_eqn *e = &prog->eqns[i];
    if (!e->primitive || !e->primitive->name)
      return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "equation %zu has no primitive", i);
    for (size_t j = 0; j < e->num_operands; j++)
      if (e->operands[j] >= num_values)
        return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                              "equation %zu (%s) uses value %zu, which is not defined before it",
                              i, e->primitive->name, e->operands[j]);
    num_values += e->num_results;
  }
  if (prog->has_outputs && prog->num_outputs && !prog->outputs)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "the program's outputs are missing");
  for (size_t i = 0; prog->has_outputs && i < prog->num_outputs; i++)
    if (prog->outputs[i] >= num_values)
      return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                            "output %zu is value %zu, which is undefined", i, prog->outputs[i]);
  return LSIM_OK;
}

size_t lsim_program_num_values(const lsim_program *prog) {
  size_t n = prog->num_args;
  for (size_t i = 0; i < prog->num_eqns; i++)
    n += prog->eqns[i].num_results;
  return n;
}

bool lsim_program_has_ordered_effects(const lsim_program *prog) {
  for (size_t i = 0; i < prog->num_eqns; i++)
    if (prog->eqns[i].ordered_effect)
      return true;
  return false;
}

lsim_effect_kind lsim_eqn_effect_kind(const lsim_eqn *eqn) {
  const lsim_effect *effect = eqn->primitive ? eqn->primitive->ordered_effect : NULL;
  return (lsim_effect_kind){effect, effect ? NULL : eqn->primitive};
}

bool lsim_effect_kind_equal(lsim_effect_kind a, lsim_effect_kind b) {
  return a.effect == b.effect && a.primitive == b.primitive;
}

const char *lsim_effect_kind_name(lsim_effect_kind kind) {
  return kind.effect ? kind.effect->name : kind.primitive ? kind.primitive->name : "";
}

size_t lsim_program_ordered_effects(const lsim_program *prog, lsim_effect_kind *out, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < prog->num_eqns; i++) {
    if (!prog->eqns[i].ordered_effect)
      continue;
    lsim_effect_kind kind = lsim_eqn_effect_kind(&prog->eqns[i]);
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++)
      seen = prog->eqns[j].ordered_effect &&
             lsim_effect_kind_equal(lsim_eqn_effect_kind(&prog->eqns[j]), kind);
    if (seen)
      continue;
    if (n < max)
      out[n] = kind;
    n++;
  }
  return n;
}

size_t lsim_program_num_outputs(const lsim_program *prog) {
  if (prog->has_outputs)
    return prog->num_outputs;
  return prog->num_eqns ? prog->eqns[prog->num_eqns - 1].num_results : 0;
}

size_t lsim_program_output(const lsim_program *prog, size_t num_values, size_t i) {
  if (prog->has_outputs)
    return prog->outputs[i];
  return num_values - prog->eqns[prog->num_eqns - 1].num_results + i;
}

void lsim_program_value_avals(const lsim_program *prog, lsim_aval *out) {
  size_t k = 0;
  if (prog->num_args)
    memcpy(out, prog->args, prog->num_args * sizeof *out);
  k = prog->num_args;
  for (size_t i = 0; i < prog->num_eqns; i++) {
    const lsim_eqn *e = &prog->eqns[i];
    if (e->num_results)
      memcpy(out + k, e->results, e->num_results * sizeof *out);
    k += e->num_results;
  }
}

/* Entering compute_on(compute_type) around the equation: _check_valid, or,
 * once the context manager is gone, compute_on's TypeError. */
static int check_compute_type(const char *c_type, const lsim_jax_profile *profile,
                              lsim_error *err) {
  if (!c_type)
    return LSIM_OK;
  if (!lsim_jax_profile_or_default(profile)->compute_on_context_manager)
    return lsimp_raise0(err, LSIM_E_COMPUTE_ON_NOT_CONTEXT_MANAGER);
  if (strcmp(c_type, "device_host") == 0 || strcmp(c_type, "device") == 0 ||
      strcmp(c_type, "tpu_sparsecore") == 0 || strncmp(c_type, "gpu_stream:", 11) == 0)
    return LSIM_OK;
  return lsimp_raise(err, LSIM_E_INVALID_COMPUTE_TYPE, c_type);
}

int lsim_program_trace(const lsim_program *prog, lsim_error *err) {
  return lsim_program_trace_for(prog, NULL, err);
}

int lsim_program_trace_for(const lsim_program *prog, const lsim_jax_profile *profile,
                           lsim_error *err) {
  size_t num_values = lsim_program_num_values(prog);
  lsim_aval *avals = lsim_malloc_array(num_values + 1, sizeof *avals);
  lsim_aval *in = NULL;
  int rc = avals ? LSIM_OK : lsimp_fail_oom(err);
  if (!rc)
    lsim_program_value_avals(prog, avals);
  for (size_t i = 0; i < prog->num_eqns && !rc; i++) {
    const lsim_eqn *e = &prog->eqns[i];
    rc = check_compute_type(e->compute_type, profile, err);
    if (rc || !e->primitive->trace_check)
      continue;
    lsim_aval *grown = lsim_realloc_array(in, e->num_operands + 1, sizeof *in);
    if (!grown)
      rc = lsimp_fail_oom(err);
    in = grown ? grown : in;
    for (size_t j = 0; !rc && j < e->num_operands; j++)
      in[j] = avals[e->operands[j]];
    if (!rc)
      rc = e->primitive->trace_check(in, e->num_operands, e->results, e->num_results, e->params,
                                     profile, err);
  }
  free(in);
  free(avals);
  return rc;
}
