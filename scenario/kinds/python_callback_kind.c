/* scenario/kinds/python_callback_kind.c: <pure_callback args> and
 * <io_callback args ordered> with <result>s, and <debug_callback args
 * ordered partitioned> (no results): jax.pure_callback,
 * jax.experimental.io_callback and jax.debug.callback, which lower through
 * emit_python_callback.  Three kinds, one params struct. */
#include "kinds.h"
#include "lowersim/debugging.h"
#include "support/raise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sharding="device:K" (jax.sharding.SingleDeviceSharding(jax.devices()[K])),
 * "scalar_mesh:K" (NamedSharding(Mesh(jax.devices()[K], ()), P())) or
 * "mesh:N" (NamedSharding(Mesh(jax.devices()[:N], ("x",)), P())). */
static const struct {
  const char *prefix;
  lsim_callback_sharding_kind kind;
  int min;
} shardings[] = {
    {"device:", LSIM_CALLBACK_SHARDING_SINGLE_DEVICE, 0},
    {"scalar_mesh:", LSIM_CALLBACK_SHARDING_SCALAR_MESH, 0},
    {"mesh:", LSIM_CALLBACK_SHARDING_NAMED, 1},
};

#define NUM_SHARDINGS (sizeof shardings / sizeof shardings[0])

static int read_sharding(lsimp_reader *r, const xmlNode *node, lsimp_python_callback_params *p) {
  char *text = NULL;
  int rc = lsimp_attr_string(r, node, "sharding", &text);
  if (rc || !text)
    return rc;
  size_t i = 0;
  while (i < NUM_SHARDINGS && strncmp(text, shardings[i].prefix, strlen(shardings[i].prefix)))
    i++;
  const char *digits = i < NUM_SHARDINGS ? text + strlen(shardings[i].prefix) : "";
  char *end = NULL;
  long v = *digits >= '0' && *digits <= '9' ? strtol(digits, &end, 10) : -1;
  if (!end || *end || v < shardings[i < NUM_SHARDINGS ? i : 0].min ||
      v > LSIM_SCENARIO_MAX_DEVICES)
    rc = lsimp_read_fail(r, node,
                         "<%s> sharding=\"%s\" is not device:K, scalar_mesh:K or mesh:N (K from "
                         "0, N from 1, at most %d)",
                         (const char *)node->name, text, LSIM_SCENARIO_MAX_DEVICES);
  else
    p->params.sharding.kind = shardings[i].kind, p->sharding_arg = (int)v;
  free(text);
  return rc;
}

static void write_sharding(lsimp_writer *wr, const lsimp_python_callback_params *p) {
  for (size_t i = 0; i < NUM_SHARDINGS; i++) {
    if (shardings[i].kind != p->params.sharding.kind)
      continue;
    char text[48];
    snprintf(text, sizeof text, "%s%d", shardings[i].prefix, p->sharding_arg);
    lsimp_write_attr(wr, "sharding", text);
  }
}

static int read_pure(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  int rc = read_sharding(r, node, e->params);
  return rc ? rc : lsimp_read_results(r, node, e);
}

static int read_io(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  lsimp_python_callback_params *p = e->params;
  int rc = lsimp_attr_bool(r, node, "ordered", false, &p->params.ordered, NULL);
  if (!rc)
    rc = read_sharding(r, node, p);
  return rc ? rc : lsimp_read_results(r, node, e);
}

static int read_debug(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  lsimp_python_callback_params *p = e->params;
  int rc = lsimp_attr_bool(r, node, "ordered", false, &p->params.ordered, NULL);
  return rc ? rc : lsimp_attr_bool(r, node, "partitioned", false, &p->params.partitioned, NULL);
}

static void write_pure(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  lsimp_write_indices(wr, "args", e->args, e->num_args);
  write_sharding(wr, e->params);
  lsimp_write_results(wr, e);
}

static void write_io(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  const lsimp_python_callback_params *p = e->params;
  lsimp_write_indices(wr, "args", e->args, e->num_args);
  lsimp_write_bool(wr, "ordered", p->params.ordered);
  write_sharding(wr, p);
  lsimp_write_results(wr, e);
}

static void write_debug(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  const lsimp_python_callback_params *p = e->params;
  lsimp_write_indices(wr, "args", e->args, e->num_args);
  lsimp_write_bool(wr, "ordered", p->params.ordered);
  lsimp_write_bool(wr, "partitioned", p->params.partitioned);
}

/* The sharding's device, as the program takes it from jax.devices() (of the
 * default backend) before jit: initializing the backends, IndexError past
 * the last device. */
static int resolve_sharding(lsimp_builder *b, const lsimp_python_callback_params *p,
                            lsim_callback_sharding *out) {
  if (p->params.sharding.kind == LSIM_CALLBACK_SHARDING_NONE)
    return LSIM_OK;
  const lsim_backend *d;
  int rc = lsim_runtime_get_backend(lsim_registry_runtime(b->registry), NULL, &d, b->err);
  if (rc)
    return rc;
  if (p->params.sharding.kind == LSIM_CALLBACK_SHARDING_NAMED) {
    out->mesh_size = p->sharding_arg < d->device_count ? p->sharding_arg : d->device_count;
    return LSIM_OK;
  }
  if (p->sharding_arg >= d->device_count)
    return lsimp_raise0(b->err, LSIM_E_DEVICE_INDEX);
  out->device = (lsim_device){d, p->sharding_arg};
  return LSIM_OK;
}

/* The program makes the callbacks' shardings before anything else (before
 * it defines its primitives and registers their rules), so their devices
 * are looked up first, in equation order: a pre-pass of the builder. */
int lsimp_resolve_callback_sharding(lsimp_builder *b, const lsim_scenario_eqn *e) {
  if (e->kind != &lsimp_pure_callback_kind && e->kind != &lsimp_io_callback_kind)
    return LSIM_OK;
  lsim_callback_sharding ignored;
  return resolve_sharding(b, e->params, &ignored);
}

/* The library's params with the scenario's host callback and its sharding's
 * device; an ordered callback has the ordered effect. */
static int params_of(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out,
                     lsim_python_callback_params **params_out) {
  const lsimp_python_callback_params *p = e->params;
  lsim_python_callback_params *params = lsimp_build_alloc(b, 1, sizeof *params);
  if (!params)
    return LSIM_E_NO_MEMORY;
  *params = p->params;
  params->callback = lsimp_build_host_callback(false);
  out->ordered_effect = params->ordered;
  *params_out = params;
  return resolve_sharding(b, p, &params->sharding);
}

static int build_pure(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  lsim_python_callback_params *params = NULL;
  int rc = params_of(b, e, out, &params);
  if (!rc)
    lsim_pure_callback_bind(out, params);
  return rc;
}

static int build_io(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  lsim_python_callback_params *params = NULL;
  int rc = params_of(b, e, out, &params);
  if (!rc)
    lsim_io_callback_bind(out, params);
  return rc;
}

static int build_debug(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  lsim_python_callback_params *params = NULL;
  int rc = params_of(b, e, out, &params);
  if (!rc)
    lsim_debug_callback_bind(out, params);
  return rc;
}

static bool copy_params(void *to, const void *from) {
  *(lsimp_python_callback_params *)to = *(const lsimp_python_callback_params *)from;
  return true;
}

static void clear_params(void *params) { (void)params; }

/* Now and then a sharding: mostly a device the default backend has (0 or
 * 1), sometimes a scalar mesh or a mesh with an axis (refused). */
static void generate_sharding(lsim_scenario_gen *g, lsimp_python_callback_params *p) {
  if (!lsim_scenario_gen_chance(g, 20))
    return;
  size_t i = (size_t)lsim_scenario_gen_below(g, 10);
  p->params.sharding.kind = shardings[i < 6 ? 0 : i < 8 ? 1 : 2].kind;
  p->sharding_arg = (lsim_scenario_gen_chance(g, 30) ? 1 : 0) + (i >= 8 ? 1 : 0);
}

static void generate_pure(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  lsimp_gen_operands(g, e, 2);
  lsimp_gen_results(g, e, LSIM_SCENARIO_GEN_MAX_RESULTS);
  generate_sharding(g, e->params);
}

static void generate_io(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  lsimp_python_callback_params *p = e->params;
  lsimp_gen_operands(g, e, 2);
  lsimp_gen_results(g, e, LSIM_SCENARIO_GEN_MAX_RESULTS);
  p->params.ordered = lsim_scenario_gen_chance(g, 40);
  generate_sharding(g, p);
}

static void generate_debug(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  lsimp_python_callback_params *p = e->params;
  lsimp_gen_operands(g, e, 2);
  p->params.ordered = lsim_scenario_gen_chance(g, 40);
  p->params.partitioned = lsim_scenario_gen_chance(g, 30);
}

/* `, sharding=...`: made before jit, from jax.devices(), as the program
 * names it (sharding="device:K", "scalar_mesh:K", "mesh:N"). */
static void python_sharding(lsimp_python *py, const lsimp_python_callback_params *p) {
  lsimp_strbuf_puts(&py->body, ", sharding=");
  switch (p->params.sharding.kind) {
  case LSIM_CALLBACK_SHARDING_SINGLE_DEVICE:
    lsimp_strbuf_printf(&py->shardings, "sharding_%zu = jax.sharding.SingleDeviceSharding("
                                   "jax.devices()[%d])\n", py->eqn, p->sharding_arg);
    break;
  case LSIM_CALLBACK_SHARDING_SCALAR_MESH:
    lsimp_strbuf_printf(&py->shardings, "sharding_%zu = jax.sharding.NamedSharding(jax.sharding.Mesh("
                                   "np.array(jax.devices()[%d]), ()), jax.sharding.PartitionSpec())\n",
                        py->eqn, p->sharding_arg);
    break;
  case LSIM_CALLBACK_SHARDING_NAMED:
    lsimp_strbuf_printf(&py->shardings, "sharding_%zu = jax.sharding.NamedSharding(jax.sharding.Mesh("
                                   "np.array(jax.devices()[:%d]), ('x',)), "
                                   "jax.sharding.PartitionSpec())\n",
                        py->eqn, p->sharding_arg);
    break;
  default:
    lsimp_strbuf_puts(&py->body, "None");
    return;
  }
  lsimp_strbuf_printf(&py->body, "sharding_%zu", py->eqn);
}

/* zeros_callback([((4,), jnp.dtype('float32')), ...]), the results' structs
 * and the operands. */
static void python_callback_call(lsimp_python *py, const char *fn, const lsim_scenario_eqn *e) {
  lsimp_strbuf_printf(&py->body, "  v += list(%s(zeros_callback([", fn);
  for (size_t i = 0; i < e->num_results; i++) {
    lsimp_strbuf_puts(&py->body, i ? ", (" : "(");
    lsimp_py_shape(&py->body, e->results[i].dims, e->results[i].rank);
    lsimp_strbuf_printf(&py->body, ", jnp.dtype('%s'))", lsim_dtype_numpy_name(e->results[i].dtype));
  }
  lsimp_strbuf_puts(&py->body, "]), ");
  lsimp_python_result_structs(&py->body, e);
  if (e->num_args)
    lsimp_strbuf_puts(&py->body, ", ");
  lsimp_python_operands(py, e);
}

static void python_pure(lsimp_python *py, const lsim_scenario_eqn *e) {
  python_callback_call(py, "jax.pure_callback", e);
  python_sharding(py, e->params);
  lsimp_strbuf_puts(&py->body, "))\n");
}

static void python_io(lsimp_python *py, const lsim_scenario_eqn *e) {
  const lsimp_python_callback_params *p = e->params;
  python_callback_call(py, "io_callback", e);
  lsimp_strbuf_printf(&py->body, ", ordered=%s", p->params.ordered ? "True" : "False");
  python_sharding(py, p);
  lsimp_strbuf_puts(&py->body, "))\n");
}

static void python_debug(lsimp_python *py, const lsim_scenario_eqn *e) {
  const lsimp_python_callback_params *p = e->params;
  lsimp_strbuf_puts(&py->body, "  jax.debug.callback(debug_callback");
  if (e->num_args)
    lsimp_strbuf_puts(&py->body, ", ");
  lsimp_python_operands(py, e);
  lsimp_strbuf_printf(&py->body, ", ordered=%s, partitioned=%s)\n",
                      p->params.ordered ? "True" : "False", p->params.partitioned ? "True" : "False");
}

const lsim_scenario_kind lsimp_pure_callback_kind = {
    .element = "pure_callback",
    .summary = "jax.pure_callback (sharding=)",
    .primitive = &lsim_pure_callback_p,
    .params_size = sizeof(lsimp_python_callback_params),
    .weight = 10,
    .read = read_pure,
    .write = write_pure,
    .build = build_pure,
    .copy = copy_params,
    .clear = clear_params,
    .generate = generate_pure,
    .python = python_pure,
};

const lsim_scenario_kind lsimp_io_callback_kind = {
    .element = "io_callback",
    .summary = "jax.experimental.io_callback (ordered=, sharding=)",
    .primitive = &lsim_io_callback_p,
    .params_size = sizeof(lsimp_python_callback_params),
    .weight = 10,
    .read = read_io,
    .write = write_io,
    .build = build_io,
    .copy = copy_params,
    .clear = clear_params,
    .generate = generate_io,
    .python = python_io,
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
    .python = python_debug,
};
