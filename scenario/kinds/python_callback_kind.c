/* scenario/kinds/python_callback_kind.c: <pure_callback args> and
 * <io_callback args ordered> with <result>s, and <debug_callback args
 * ordered partitioned> (no results): jax.pure_callback,
 * jax.experimental.io_callback and jax.debug.callback, which lower through
 * emit_python_callback.  Three kinds, one params struct. */
#include "kinds.h"
#include "lowersim/debugging.h"

static int read_pure(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  return lsimp_read_results(r, node, e);
}

static int read_io(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  lsimp_python_callback_params *p = e->params;
  int rc = lsimp_attr_bool(r, node, "ordered", false, &p->params.ordered, NULL);
  return rc ? rc : lsimp_read_results(r, node, e);
}

static int read_debug(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  lsimp_python_callback_params *p = e->params;
  int rc = lsimp_attr_bool(r, node, "ordered", false, &p->params.ordered, NULL);
  return rc ? rc : lsimp_attr_bool(r, node, "partitioned", false, &p->params.partitioned, NULL);
}

static void write_pure(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  lsimp_write_indices(wr, "args", e->args, e->num_args);
  lsimp_write_results(wr, e);
}

static void write_io(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  const lsimp_python_callback_params *p = e->params;
  lsimp_write_indices(wr, "args", e->args, e->num_args);
  lsimp_write_bool(wr, "ordered", p->params.ordered);
  lsimp_write_results(wr, e);
}

static void write_debug(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  const lsimp_python_callback_params *p = e->params;
  lsimp_write_indices(wr, "args", e->args, e->num_args);
  lsimp_write_bool(wr, "ordered", p->params.ordered);
  lsimp_write_bool(wr, "partitioned", p->params.partitioned);
}

/* The library's params with the scenario's host callback; an ordered
 * callback has the ordered effect. */
static lsim_python_callback_params *params_of(lsimp_builder *b, const lsim_scenario_eqn *e,
                                              lsim_eqn *out) {
  const lsimp_python_callback_params *p = e->params;
  lsim_python_callback_params *params = lsimp_build_alloc(b, 1, sizeof *params);
  if (params) {
    *params = p->params;
    params->callback = lsimp_build_host_callback(false);
    out->ordered_effect = params->ordered;
  }
  return params;
}

static int build_pure(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  lsim_python_callback_params *params = params_of(b, e, out);
  if (!params)
    return LSIM_E_NO_MEMORY;
  lsim_pure_callback_bind(out, params);
  return LSIM_OK;
}

static int build_io(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  lsim_python_callback_params *params = params_of(b, e, out);
  if (!params)
    return LSIM_E_NO_MEMORY;
  lsim_io_callback_bind(out, params);
  return LSIM_OK;
}

static int build_debug(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  lsim_python_callback_params *params = params_of(b, e, out);
  if (!params)
    return LSIM_E_NO_MEMORY;
  lsim_debug_callback_bind(out, params);
  return LSIM_OK;
}

static bool copy_params(void *to, const void *from) {
  *(lsimp_python_callback_params *)to = *(const lsimp_python_callback_params *)from;
  return true;
}

static void clear_params(void *params) { (void)params; }

static void generate_pure(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  lsimp_gen_operands(g, e, 2);
  lsimp_gen_results(g, e, LSIM_SCENARIO_GEN_MAX_RESULTS);
}

static void generate_io(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  lsimp_python_callback_params *p = e->params;
  lsimp_gen_operands(g, e, 2);
  lsimp_gen_results(g, e, LSIM_SCENARIO_GEN_MAX_RESULTS);
  p->params.ordered = lsim_scenario_gen_chance(g, 40);
}

static void generate_debug(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  lsimp_python_callback_params *p = e->params;
  lsimp_gen_operands(g, e, 2);
  p->params.ordered = lsim_scenario_gen_chance(g, 40);
  p->params.partitioned = lsim_scenario_gen_chance(g, 30);
}

const lsim_scenario_kind lsimp_pure_callback_kind = {
    .element = "pure_callback",
    .summary = "jax.pure_callback",
    .primitive = &lsim_pure_callback_p,
    .params_size = sizeof(lsimp_python_callback_params),
    .weight = 10,
    .read = read_pure,
    .write = write_pure,
    .build = build_pure,
    .copy = copy_params,
    .clear = clear_params,
    .generate = generate_pure,
};

const lsim_scenario_kind lsimp_io_callback_kind = {
    .element = "io_callback",
    .summary = "jax.experimental.io_callback",
    .primitive = &lsim_io_callback_p,
    .params_size = sizeof(lsimp_python_callback_params),
    .weight = 10,
    .read = read_io,
    .write = write_io,
    .build = build_io,
    .copy = copy_params,
    .clear = clear_params,
    .generate = generate_io,
};

const lsim_scenario_kind lsimp_debug_callback_kind = {
    .element = "debug_callback",
    .summary = "jax.debug.callback",
    .primitive = &lsim_debug_callback_p,
    .params_size = sizeof(lsimp_python_callback_params),
    .weight = 8,
    .read = read_debug,
    .write = write_debug,
    .build = build_debug,
    .copy = copy_params,
    .clear = clear_params,
    .generate = generate_debug,
};
