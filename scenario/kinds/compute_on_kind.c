/* scenario/kinds/compute_on_kind.c: <compute_on compute_type="device_host"
 * op="sine" args="0" [out_memory_space="host"]/>: compute_on's function
 * form over one lax op, out_memory_spaces MemorySpace.Device or Host
 * (compute_on2 at 0.10.2, compute_on once the context manager was
 * deleted). */
#include "kinds.h"
#include "lowersim/alloc.h"
#include "lowersim/compute_on.h"

#include <stdlib.h>
#include <string.h>

static int read_eqn(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  lsimp_compute_on_params *p = e->params;
  int rc = lsimp_attr_required(r, node, "compute_type", &p->compute_type);
  if (!rc)
    rc = lsimp_read_op(r, node, "op", &p->op);
  if (!rc)
    rc = lsimp_check_operands(r, node, "op", p->op, e);
  char *space = NULL;
  if (!rc)
    rc = lsimp_attr_string(r, node, "out_memory_space", &space);
  p->host = space && strcmp(space, "host") == 0;
  free(space);
  if (!rc)
    rc = lsimp_implied_result(r, e);
  /* _compute_on_abstract_eval: the function's out aval in that space. */
  if (!rc)
    e->results[0].memory_space = p->host ? LSIM_MEMORY_HOST : LSIM_MEMORY_DEVICE;
  return rc;
}

static void write_eqn(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  const lsimp_compute_on_params *p = e->params;
  lsimp_write_attr_required(wr, "compute_type", p->compute_type);
  lsimp_write_attr_required(wr, "op", lsimp_op_name(p->op));
  lsimp_write_indices(wr, "args", e->args, e->num_args);
  if (p->host)
    lsimp_write_attr_required(wr, "out_memory_space", "host");
}

static int build_eqn(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  const lsimp_compute_on_params *p = e->params;
  lsim_compute_on_params *params = lsimp_build_alloc(b, 1, sizeof *params);
  const lsim_aval *operands = lsimp_build_operand_avals(b, e);
  const lsim_program *fn = params && operands ? lsimp_build_op_program(b, e, p->op, operands) : NULL;
  if (!fn)
    return LSIM_E_NO_MEMORY;
  *params = (lsim_compute_on_params){fn, p->compute_type,
                                     p->host ? LSIM_MEMORY_HOST : LSIM_MEMORY_DEVICE};
  lsim_compute_on_bind(out, params);
  return LSIM_OK;
}

static bool copy_params(void *to, const void *from) {
  lsimp_compute_on_params *d = to;
  const lsimp_compute_on_params *s = from;
  *d = (lsimp_compute_on_params){NULL, s->op, s->host};
  return lsimp_copy_string(&d->compute_type, s->compute_type);
}

static void clear_params(void *params) { free(((lsimp_compute_on_params *)params)->compute_type); }

static bool can_generate(lsim_scenario_gen *g) { return g->num_values > 0; }

static void generate_eqn(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  static const char *const types[] = {"device_host", "device", "tpu_sparsecore", "gpu_stream:2",
                                      "gpu_stream:0", "cpu"};
  lsimp_compute_on_params *p = e->params;
  p->compute_type = lsim_scenario_gen_text(
      g, lsim_scenario_gen_pick(g, types, sizeof types / sizeof *types));
  p->op = (lsimp_op)lsim_scenario_gen_below(g, LSIMP_OP_COUNT);
  lsimp_gen_op_operands(g, e, lsimp_op_arity(p->op));
  p->host = lsim_scenario_gen_chance(g, 30);
  if (e->results)
    e->results[0].memory_space = p->host ? LSIM_MEMORY_HOST : LSIM_MEMORY_DEVICE;
}

const lsim_scenario_kind lsimp_compute_on_kind = {
    .element = "compute_on",
    .summary = "compute_on(f, compute_type=T, out_memory_spaces=Device|Host) of one op kind (op=)",
    .params_size = sizeof(lsimp_compute_on_params),
    .implies_result = true,
    .weight = 3,
    .read = read_eqn,
    .write = write_eqn,
    .build = build_eqn,
    .copy = copy_params,
    .clear = clear_params,
    .can_generate = can_generate,
    .generate = generate_eqn,
};
