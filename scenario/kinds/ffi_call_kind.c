/* scenario/kinds/ffi_call_kind.c: <ffi_call args target has_side_effect> with
 * <result>s: jax.ffi.ffi_call(target, result_shape_dtypes,
 * has_side_effect=...)(*args), the results being the result_shape_dtypes. */
#include "kinds.h"

#include <stdlib.h>

static int read_eqn(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  lsim_ffi_call_params *p = &((lsimp_ffi_call_params *)e->params)->params;
  char *target = NULL;
  int rc = lsimp_attr_required(r, node, "target", &target);
  p->target_name = target;
  if (!rc)
    rc = lsimp_attr_bool(r, node, "has_side_effect", false, &p->has_side_effect, NULL);
  return rc ? rc : lsimp_read_results(r, node, e);
}

static void write_eqn(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  const lsim_ffi_call_params *p = &((const lsimp_ffi_call_params *)e->params)->params;
  lsimp_write_indices(wr, "args", e->args, e->num_args);
  lsimp_write_attr_required(wr, "target", p->target_name);
  lsimp_write_bool(wr, "has_side_effect", p->has_side_effect);
  lsimp_write_results(wr, e);
}

static int build_eqn(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  (void)b;
  lsim_ffi_call_bind(out, &((const lsimp_ffi_call_params *)e->params)->params);
  return LSIM_OK;
}

static bool copy_params(void *to, const void *from) {
  lsimp_ffi_call_params *d = to;
  *d = *(const lsimp_ffi_call_params *)from;
  char *target;
  bool ok = lsimp_copy_string(&target, d->params.target_name);
  d->params.target_name = target;
  return ok;
}

static void clear_params(void *params) {
  free((char *)((lsimp_ffi_call_params *)params)->params.target_name);
}

static const char *const targets[] = {"my_target", "lapack_sgetrf_ffi", "cu_threefry2x32_ffi"};

static void generate_eqn(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  lsim_ffi_call_params *p = &((lsimp_ffi_call_params *)e->params)->params;
  lsimp_gen_operands(g, e, 2);
  lsimp_gen_results(g, e, LSIM_SCENARIO_GEN_MAX_RESULTS);
  p->target_name = lsim_scenario_gen_text(
      g, lsim_scenario_gen_pick(g, targets, sizeof targets / sizeof targets[0]));
  p->has_side_effect = lsim_scenario_gen_chance(g, 40);
}

const lsim_scenario_kind lsimp_ffi_call_kind = {
    .element = "ffi_call",
    .summary = "jax.ffi.ffi_call(target, result_shape_dtypes, has_side_effect=...)",
    .primitive = &lsim_ffi_call_p,
    .params_size = sizeof(lsimp_ffi_call_params),
    .weight = 8,
    .read = read_eqn,
    .write = write_eqn,
    .build = build_eqn,
    .copy = copy_params,
    .clear = clear_params,
    .generate = generate_eqn,
};
