/* scenario/kinds/pallas_call_kind.c: <pallas_call args kernel grid interpret
 * compiler_params constants> with <result>s: pl.pallas_call(kernel,
 * grid=(grid,), interpret=..., compiler_params=...)(*args), the kernel one of
 * lowersim's library. */
#include "kinds.h"
#include "lowersim/pallas_call.h"

#include <stdlib.h>
#include <string.h>

/* compiler_params: the CompilerParams class passed to pallas_call. */
static const struct {
  const char *name;
  const lsim_pallas_params_class *cls;
} params_classes[] = {
    {"none", NULL},
    {"mosaic_tpu", &lsim_mosaic_tpu_compiler_params},
    {"triton", &lsim_triton_compiler_params},
    {"mosaic_gpu", &lsim_mosaic_gpu_compiler_params},
};

#define COUNT(table) (sizeof(table) / sizeof(table)[0])

const char *lsimp_compiler_params_name(const lsim_pallas_params_class *cls) {
  for (size_t i = 0; i < COUNT(params_classes); i++)
    if (params_classes[i].cls == cls)
      return params_classes[i].name;
  return NULL;
}

bool lsimp_compiler_params_from_name(const char *name, const lsim_pallas_params_class **out) {
  for (size_t i = 0; name && i < COUNT(params_classes); i++) {
    if (strcmp(params_classes[i].name, name) == 0) {
      *out = params_classes[i].cls;
      return true;
    }
  }
  return false;
}

static int read_eqn(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  lsim_pallas_call_params *p = &((lsimp_pallas_call_params *)e->params)->params;
  char *kernel = NULL, *params = NULL;
  long long grid;
  int rc = lsimp_attr_required(r, node, "kernel", &kernel);
  p->kernel = kernel;
  if (!rc)
    rc = lsimp_attr_int(r, node, "grid", 1, LSIM_SCENARIO_MAX_GRID, 1, &grid, NULL);
  p->grid = rc ? 1 : (int64_t)grid;
  if (!rc)
    rc = lsimp_attr_bool(r, node, "interpret", false, &p->interpret, NULL);
  if (!rc)
    rc = lsimp_attr_bool(r, node, "constants", false, &p->has_constants, NULL);
  if (!rc)
    rc = lsimp_attr_string(r, node, "compiler_params", &params);
  if (!rc && params && !lsimp_compiler_params_from_name(params, &p->compiler_params))
    rc = lsimp_read_fail(r, node, "<pallas_call> compiler_params=\"%s\" is not a known kind",
                         params);
  free(params);
  return rc ? rc : lsimp_read_results(r, node, e);
}

static void write_eqn(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  const lsim_pallas_call_params *p = &((const lsimp_pallas_call_params *)e->params)->params;
  lsimp_write_indices(wr, "args", e->args, e->num_args);
  lsimp_write_attr_required(wr, "kernel", p->kernel);
  lsimp_write_int(wr, "grid", (long long)p->grid);
  lsimp_write_bool(wr, "interpret", p->interpret);
  lsimp_write_attr_required(wr, "compiler_params", lsimp_compiler_params_name(p->compiler_params));
  lsimp_write_bool(wr, "constants", p->has_constants);
  lsimp_write_results(wr, e);
}

static int build_eqn(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  (void)b;
  lsim_pallas_call_bind(out, &((const lsimp_pallas_call_params *)e->params)->params);
  return LSIM_OK;
}

static void clear_params(void *params) {
  free((char *)((lsimp_pallas_call_params *)params)->params.kernel);
}

static bool copy_params(void *to, const void *from) {
  lsimp_pallas_call_params *d = to;
  *d = *(const lsimp_pallas_call_params *)from;
  char *kernel;
  bool ok = lsimp_copy_string(&kernel, d->params.kernel);
  d->params.kernel = kernel;
  return ok;
}

static const char *const kernels[] = {"add_one", "copy"};

/* Mostly where a kernel operand exists; else now and then anyway. */
static bool can_generate(lsim_scenario_gen *g) {
  size_t unused;
  return lsimp_gen_kernel_operand(g, &unused) || !lsim_scenario_gen_chance(g, 80);
}

/* Mostly a kernel that fits its operand; now and then one that does not. */
static void generate_eqn(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  lsim_pallas_call_params *p = &((lsimp_pallas_call_params *)e->params)->params;
  p->grid = 1;
  size_t v = 0;
  bool has_operand = lsim_scenario_gen_chance(g, 92) && lsimp_gen_kernel_operand(g, &v);
  if (!has_operand && g->num_values && lsim_scenario_gen_chance(g, 60)) {
    v = lsimp_gen_value(g);
    has_operand = true;
  }
  e->args = lsim_scenario_gen_alloc(g, 1, sizeof *e->args);
  e->results = lsim_scenario_gen_alloc(g, 2, sizeof *e->results);
  if (!e->args || !e->results)
    return;
  if (has_operand)
    e->args[e->num_args++] = v;
  size_t n = lsim_scenario_gen_chance(g, 96) ? 1 : (size_t)lsim_scenario_gen_below(g, 2) * 2;
  for (size_t i = 0; i < n; i++) {
    if (has_operand && lsim_scenario_gen_chance(g, 94))
      e->results[i] = g->values[v];
    else
      lsimp_gen_result_aval(g, &e->results[i]);
    e->num_results++;
  }
  p->kernel = lsim_scenario_gen_text(g, lsim_scenario_gen_chance(g, 97)
                                            ? lsim_scenario_gen_pick(g, kernels, COUNT(kernels))
                                            : "no_such_kernel");
  p->grid = lsim_scenario_gen_chance(g, 5) ? LSIM_SCENARIO_MAX_GRID
                                           : 1 + (int64_t)lsim_scenario_gen_below(g, 8);
  p->interpret = lsim_scenario_gen_chance(g, 25);
  p->compiler_params = params_classes[lsim_scenario_gen_below(g, COUNT(params_classes))].cls;
  p->has_constants = lsim_scenario_gen_chance(g, 6);
}

const lsim_scenario_kind lsimp_pallas_call_kind = {
    .element = "pallas_call",
    .summary = "pl.pallas_call with a kernel of lowersim's library",
    .primitive = &lsim_pallas_call_p,
    .params_size = sizeof(lsimp_pallas_call_params),
    .weight = 13,
    .read = read_eqn,
    .write = write_eqn,
    .build = build_eqn,
    .copy = copy_params,
    .clear = clear_params,
    .can_generate = can_generate,
    .generate = generate_eqn,
};
