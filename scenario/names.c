/* scenario/names.c: the closed vocabularies of the scenario format (besides
 * op kinds, in ops.c), spelled as scenario files spell them. */
#include "lowersim/scenario.h"

#include <string.h>

static const char *const eqn_kinds[] = {
    [LSIM_EQN_OP] = "op",
    [LSIM_EQN_PRIMITIVE] = "primitive",
    [LSIM_EQN_PLATFORM_DEPENDENT] = "platform_dependent",
    [LSIM_EQN_BUFFER_CALLBACK] = "buffer_callback",
    [LSIM_EQN_PURE_CALLBACK] = "pure_callback",
    [LSIM_EQN_IO_CALLBACK] = "io_callback",
    [LSIM_EQN_DEBUG_CALLBACK] = "debug_callback",
    [LSIM_EQN_PALLAS_CALL] = "pallas_call",
};

/* mlir.py register_lowering's rule either ignores the backend or calls
 * ModuleContext.get_backend(optional=False / True). */
static const char *const backend_accesses[] = {
    [LSIM_BACKEND_ACCESS_NONE] = "none",
    [LSIM_BACKEND_ACCESS_REQUIRED] = "required",
    [LSIM_BACKEND_ACCESS_OPTIONAL] = "optional",
};

/* pallas/core.py: the CompilerParams class passed to pallas_call. */
static const char *const compiler_params[] = {
    [LSIM_COMPILER_PARAMS_NONE] = "none",
    [LSIM_COMPILER_PARAMS_MOSAIC_TPU] = "mosaic_tpu",
    [LSIM_COMPILER_PARAMS_TRITON] = "triton",
    [LSIM_COMPILER_PARAMS_MOSAIC_GPU] = "mosaic_gpu",
};

#define COUNT(table) (sizeof(table) / sizeof(table)[0])

static const char *name_at(const char *const *table, size_t n, int value) {
  return value >= 0 && (size_t)value < n ? table[value] : NULL;
}

static int index_of(const char *const *table, size_t n, const char *name) {
  for (size_t i = 0; name && i < n; i++)
    if (strcmp(table[i], name) == 0)
      return (int)i;
  return -1;
}

const char *lsim_scenario_eqn_kind_name(lsim_scenario_eqn_kind kind) {
  return name_at(eqn_kinds, COUNT(eqn_kinds), (int)kind);
}

bool lsim_scenario_eqn_kind_from_name(const char *name, lsim_scenario_eqn_kind *out) {
  int i = index_of(eqn_kinds, COUNT(eqn_kinds), name);
  if (i >= 0)
    *out = (lsim_scenario_eqn_kind)i;
  return i >= 0;
}

const char *lsim_backend_access_name(lsim_backend_access access) {
  return name_at(backend_accesses, COUNT(backend_accesses), (int)access);
}

bool lsim_backend_access_from_name(const char *name, lsim_backend_access *out) {
  int i = index_of(backend_accesses, COUNT(backend_accesses), name);
  if (i >= 0)
    *out = (lsim_backend_access)i;
  return i >= 0;
}

const char *lsim_compiler_params_name(lsim_compiler_params params) {
  return name_at(compiler_params, COUNT(compiler_params), (int)params);
}

bool lsim_compiler_params_from_name(const char *name, lsim_compiler_params *out) {
  int i = index_of(compiler_params, COUNT(compiler_params), name);
  if (i >= 0)
    *out = (lsim_compiler_params)i;
  return i >= 0;
}
