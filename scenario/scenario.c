/* scenario/scenario.c: the scenario's values, its defaults, and freeing it. */
#include "lowersim/scenario.h"
#include "lowersim/scenario_kind.h"

#include <stdlib.h>

bool lsim_scenario_expects(const lsim_scenario *s) {
  for (; s; s = s->next)
    if (s->expect.present)
      return true;
  return false;
}

bool lsim_scenario_value_aval(const lsim_scenario *s, size_t index, lsim_aval *aval) {
  if (!s)
    return false;
  if (index < s->num_args) {
    if (aval)
      *aval = s->args[index].aval;
    return true;
  }
  index -= s->num_args;
  for (size_t i = 0; i < s->num_eqns; i++) {
    const lsim_scenario_eqn *e = &s->eqns[i];
    if (index < e->num_results) {
      if (aval)
        *aval = e->results[index];
      return true;
    }
    index -= e->num_results;
  }
  return false;
}

static bool is_64bit(lsim_dtype d) {
  return d == LSIM_DTYPE_I64 || d == LSIM_DTYPE_U64 || d == LSIM_DTYPE_F64;
}

/* Every value once, in one pass (not by index: lsim_scenario_value_aval is
 * linear in the equations). */
bool lsim_scenario_has_64bit_values(const lsim_scenario *s) {
  for (size_t a = 0; s && a < s->num_args; a++)
    if (is_64bit(s->args[a].aval.dtype))
      return true;
  for (size_t i = 0; s && i < s->num_eqns; i++)
    for (size_t r = 0; r < s->eqns[i].num_results; r++)
      if (is_64bit(s->eqns[i].results[r].dtype))
        return true;
  return false;
}

bool lsim_scenario_enable_x64(const lsim_scenario *s) {
  return s->has_enable_x64 ? s->enable_x64 : lsim_scenario_has_64bit_values(s);
}

static void free_strings(char **strings, size_t n) {
  for (size_t i = 0; strings && i < n; i++)
    free(strings[i]);
  free(strings);
}

lsim_pallas_installed lsim_scenario_default_pallas(void) {
  return (lsim_pallas_installed)LSIM_PALLAS_INSTALLED_INIT(
      .mosaic_tpu = true, .triton = true, .mosaic_gpu = true, .use_mosaic_gpu = true);
}

static void destroy_one(lsim_scenario *s);

/* A session's lowerings one after another (no recursion on the chain). */
void lsim_scenario_destroy(lsim_scenario *s) {
  while (s) {
    lsim_scenario *next = s->next;
    destroy_one(s);
    s = next;
  }
}

static void destroy_one(lsim_scenario *s) {
  free(s->path);
  free(s->name);
  free(s->jax);
  free(s->description);
  free(s->runtime.jax_platforms);
  for (size_t i = 0; s->runtime.backends && i < s->runtime.num_backends; i++) {
    free(s->runtime.backends[i].platform);
    free(s->runtime.backends[i].error);
    free(s->runtime.backends[i].device_kind);
    free(s->runtime.backends[i].compute_capability);
  }
  free(s->runtime.backends);
  free(s->function);
  free(s->platforms);
  free(s->backend);
  free(s->disabled_checks);
  free((char *)s->abstract_device.platform);
  free((char *)s->abstract_device.device_kind);
  free(s->args);
  for (size_t i = 0; s->eqns && i < s->num_eqns; i++)
    lsim_scenario_eqn_clear(&s->eqns[i]);
  free(s->eqns);
  free(s->returns);
  free(s->expect.error);
  free(s->expect.message);
  free_strings(s->expect.contains, s->expect.num_contains);
  free_strings(s->expect.absent, s->expect.num_absent);
  free_strings(s->expect.warnings, s->expect.num_warnings);
  free(s);
}
