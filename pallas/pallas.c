/* pallas/pallas.c: the Pallas state of a process and its compiler-params
 * registry.  JAX counterpart: pallas/core.py register_lowering_rule,
 * get_lowering_rule and the CompilerParams classes; the imports of the
 * backends' pallas_call_registration modules. */
#include "lowersim/alloc.h"
#include "lowersim/pallas.h"
#include "support/options.h"
#include "support/raise.h"

#include <stdlib.h>
#include <string.h>

const lsim_pallas_params_class lsim_mosaic_tpu_compiler_params = {"pltpu.CompilerParams"};
const lsim_pallas_params_class lsim_triton_compiler_params = {"pltriton.CompilerParams"};
const lsim_pallas_params_class lsim_mosaic_gpu_compiler_params = {"plgpu.CompilerParams"};

typedef struct registration {
  const lsim_pallas_params_class *cls;
  lsim_pallas_rule rule;
  char platform[LSIM_PLATFORM_NAME_MAX + 1];
} registration;

struct lsim_pallas {
  lsim_pallas_installed installed;
  registration *rules;
  size_t num_rules, cap_rules;
  bool imported[LSIM_PALLAS_BACKEND_COUNT]; /* pallas_call_registration modules imported */
  size_t dumped_modules; /* jaxlib's dumped_module_count (mosaic/gpu/dump.cc) */
};

int lsim_pallas_create(const lsim_pallas_installed *installed, lsim_pallas **out, lsim_error *err) {
  if (!installed || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_pallas_create: NULL argument");
  lsim_pallas *p = lsim_calloc(1, sizeof *p);
  if (!p)
    return lsimp_fail_oom(err);
  int rc = lsimp_options_copy(&p->installed, sizeof p->installed, installed,
                              "lsim_pallas_installed", err);
  if (rc) {
    free(p);
    return rc;
  }
  *out = p;
  return LSIM_OK;
}

void lsim_pallas_destroy(lsim_pallas *pallas) {
  if (!pallas)
    return;
  free(pallas->rules);
  free(pallas);
}

bool lsim_pallas_use_mosaic_gpu(const lsim_pallas *pallas) {
  return pallas->installed.use_mosaic_gpu;
}

size_t lsim_pallas_next_dumped_module(lsim_pallas *pallas) { return pallas->dumped_modules++; }

size_t lsim_pallas_dumped_modules(const lsim_pallas *pallas) { return pallas->dumped_modules; }

bool lsim_pallas_import(lsim_pallas *pallas, lsim_pallas_backend backend, bool *first) {
  const bool installed[] = {
      [LSIM_PALLAS_MOSAIC_TPU] = pallas->installed.mosaic_tpu,
      [LSIM_PALLAS_TRITON] = pallas->installed.triton,
      [LSIM_PALLAS_MOSAIC_GPU] = pallas->installed.mosaic_gpu,
  };
  *first = false;
  if ((unsigned)backend >= LSIM_PALLAS_BACKEND_COUNT || !installed[backend])
    return false;
  *first = !pallas->imported[backend];
  pallas->imported[backend] = true;
  return true;
}

bool lsim_pallas_imported(const lsim_pallas *pallas, lsim_pallas_backend backend) {
  return (unsigned)backend < LSIM_PALLAS_BACKEND_COUNT && pallas->imported[backend];
}

int lsim_pallas_register_lowering_rule(lsim_pallas *pallas, const lsim_pallas_params_class *cls,
                                       lsim_pallas_rule rule, const char *platform,
                                       lsim_error *err) {
  if (!pallas || !cls || !rule.fn)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "lsim_pallas_register_lowering_rule: NULL argument");
  int rc = lsim_check_platform_name(platform, err);
  if (rc)
    return rc;
  size_t i = 0;
  while (i < pallas->num_rules && pallas->rules[i].cls != cls)
    i++;
  if (i == pallas->num_rules) {
    if (!lsim_grow_array(&pallas->rules, &pallas->cap_rules, i + 1, sizeof *pallas->rules))
      return lsimp_fail_oom(err);
    pallas->num_rules++;
  }
  pallas->rules[i].cls = cls;
  pallas->rules[i].rule = rule;
  strcpy(pallas->rules[i].platform, platform);
  return LSIM_OK;
}

int lsim_pallas_get_lowering_rule(const lsim_pallas *pallas, const lsim_pallas_params_class *cls,
                                  const char *expected_platform, const lsim_pallas_rule **out,
                                  lsim_error *err) {
  if (!pallas || !cls || !expected_platform || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "lsim_pallas_get_lowering_rule: NULL argument");
  *out = NULL;
  for (size_t i = 0; i < pallas->num_rules; i++) {
    if (pallas->rules[i].cls != cls)
      continue;
    if (strcmp(pallas->rules[i].platform, expected_platform) != 0)
      return lsimp_raise(err, LSIM_E_PALLAS_PARAMS_PLATFORM, pallas->rules[i].platform,
                         expected_platform);
    *out = &pallas->rules[i].rule;
  }
  return LSIM_OK;
}
