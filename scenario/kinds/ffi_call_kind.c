/* scenario/kinds/ffi_call_kind.c: <ffi_call args target has_side_effect
 * api_version legacy_backend_config vmap_method> with <result>s and
 * <alias input output>s: jax.ffi.ffi_call(target, result_shape_dtypes,
 * has_side_effect=..., vmap_method=..., input_output_aliases=...,
 * custom_call_api_version=..., legacy_backend_config=...)(*args), the
 * results being the result_shape_dtypes.  Alias indices are kept as
 * written: ffi_call reports one out of range, as JAX does. */
#include "kinds.h"
#include "lowersim/alloc.h"

#include <stdlib.h>
#include <string.h>

static int read_eqn(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  lsim_ffi_call_params *p = &((lsimp_ffi_call_params *)e->params)->params;
  char *target = NULL, *legacy = NULL, *vmap = NULL;
  int rc = lsimp_attr_required(r, node, "target", &target);
  p->target_name = target;
  if (!rc)
    rc = lsimp_attr_bool(r, node, "has_side_effect", false, &p->has_side_effect, NULL);
  long long version = 4;
  if (!rc)
    rc = lsimp_attr_int(r, node, "api_version", 1, 4, 4, &version, NULL);
  p->custom_call_api_version = (int)version;
  if (!rc)
    rc = lsimp_attr_string(r, node, "legacy_backend_config", &legacy);
  p->legacy_backend_config = legacy;
  if (!rc)
    rc = lsimp_attr_string(r, node, "vmap_method", &vmap);
  p->vmap_method = vmap;
  if (!rc)
    rc = lsimp_read_results(r, node, e);
  lsim_io_alias *aliases = NULL;
  if (!rc)
    rc = lsimp_read_aliases(r, node, &aliases, &p->num_aliases, NULL);
  p->aliases = aliases;
  return rc;
}

static void write_eqn(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  const lsim_ffi_call_params *p = &((const lsimp_ffi_call_params *)e->params)->params;
  lsimp_write_indices(wr, "args", e->args, e->num_args);
  lsimp_write_attr_required(wr, "target", p->target_name);
  lsimp_write_bool(wr, "has_side_effect", p->has_side_effect);
  if (p->custom_call_api_version && p->custom_call_api_version != 4)
    lsimp_write_int(wr, "api_version", p->custom_call_api_version);
  if (p->legacy_backend_config)
    lsimp_write_attr(wr, "legacy_backend_config", p->legacy_backend_config);
  if (p->vmap_method)
    lsimp_write_attr(wr, "vmap_method", p->vmap_method);
  lsimp_write_results(wr, e);
  lsimp_write_aliases(wr, p->aliases, p->num_aliases);
}

static int build_eqn(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  (void)b;
  lsim_ffi_call_bind(out, &((const lsimp_ffi_call_params *)e->params)->params);
  return LSIM_OK;
}

static void clear_params(void *params) {
  lsim_ffi_call_params *p = &((lsimp_ffi_call_params *)params)->params;
  free((char *)p->target_name);
  free((char *)p->legacy_backend_config);
  free((char *)p->vmap_method);
  free((void *)p->aliases);
}

static bool copy_params(void *to, const void *from) {
  lsim_ffi_call_params *d = &((lsimp_ffi_call_params *)to)->params;
  const lsim_ffi_call_params *s = &((const lsimp_ffi_call_params *)from)->params;
  *d = *s;
  char *target, *legacy, *vmap;
  bool ok = lsimp_copy_string(&target, s->target_name);
  ok = lsimp_copy_string(&legacy, s->legacy_backend_config) && ok;
  ok = lsimp_copy_string(&vmap, s->vmap_method) && ok;
  d->target_name = target;
  d->legacy_backend_config = legacy;
  d->vmap_method = vmap;
  lsim_io_alias *aliases = s->num_aliases ? lsim_malloc(s->num_aliases * sizeof *aliases) : NULL;
  if (s->num_aliases && !aliases) {
    d->num_aliases = 0;
    ok = false;
  } else if (s->num_aliases) {
    memcpy(aliases, s->aliases, s->num_aliases * sizeof *aliases);
  }
  d->aliases = aliases;
  return ok;
}

static const char *const targets[] = {"my_target", "lapack_sgetrf_ffi", "cu_threefry2x32_ffi"};
static const char *const vmap_methods[] = {"sequential", "expand_dims", "broadcast_all",
                                           "legacy_vectorized", "vectorized"};

static void generate_eqn(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  lsim_ffi_call_params *p = &((lsimp_ffi_call_params *)e->params)->params;
  lsimp_gen_operands(g, e, 2);
  lsimp_gen_results(g, e, LSIM_SCENARIO_GEN_MAX_RESULTS);
  p->target_name = lsim_scenario_gen_text(
      g, lsim_scenario_gen_pick(g, targets, sizeof targets / sizeof targets[0]));
  p->has_side_effect = lsim_scenario_gen_chance(g, 40);
  if (lsim_scenario_gen_chance(g, 20))
    p->custom_call_api_version = 1 + (int)lsim_scenario_gen_below(g, 4);
  if (lsim_scenario_gen_chance(g, 10))
    p->legacy_backend_config = lsim_scenario_gen_text(g, "opaque");
  if (lsim_scenario_gen_chance(g, 10))
    p->vmap_method = lsim_scenario_gen_text(
        g, lsim_scenario_gen_pick(g, vmap_methods, sizeof vmap_methods / sizeof *vmap_methods));
  if (lsim_scenario_gen_chance(g, 20)) {
    size_t n = 1 + (size_t)lsim_scenario_gen_below(g, 2);
    lsim_io_alias *aliases = lsim_scenario_gen_alloc(g, n, sizeof *aliases);
    for (size_t i = 0; aliases && i < n; i++) {
      aliases[i].input = lsimp_gen_alias_index(g, e->num_args);
      aliases[i].output = lsimp_gen_alias_index(g, e->num_results);
    }
    p->aliases = aliases;
    p->num_aliases = aliases ? n : 0;
  }
}

/* The minimizer drops aliases one at a time. */
static size_t num_parts(const lsim_scenario_eqn *e) {
  return ((const lsimp_ffi_call_params *)e->params)->params.num_aliases;
}

static bool drop_part(lsim_scenario_eqn *e, size_t i) {
  lsim_ffi_call_params *p = &((lsimp_ffi_call_params *)e->params)->params;
  lsim_io_alias *aliases = (lsim_io_alias *)p->aliases;
  memmove(&aliases[i], &aliases[i + 1], (p->num_aliases - i - 1) * sizeof *aliases);
  p->num_aliases--;
  return true;
}

static void python_eqn(lsimp_python *py, const lsim_scenario_eqn *e) {
  const lsim_ffi_call_params *p = &((const lsimp_ffi_call_params *)e->params)->params;
  lsimp_strbuf_puts(&py->body, "  v += list(jax.ffi.ffi_call(");
  lsimp_py_str(&py->body, p->target_name);
  lsimp_strbuf_puts(&py->body, ", ");
  lsimp_python_result_structs(&py->body, e);
  lsimp_strbuf_printf(&py->body, ", has_side_effect=%s, vmap_method=",
                      p->has_side_effect ? "True" : "False");
  if (p->vmap_method)
    lsimp_py_str(&py->body, p->vmap_method);
  else
    lsimp_strbuf_puts(&py->body, "None");
  lsimp_strbuf_puts(&py->body, ", input_output_aliases=");
  lsimp_python_aliases(&py->body, p->aliases, p->num_aliases);
  lsimp_strbuf_printf(&py->body, ", custom_call_api_version=%d, legacy_backend_config=",
                      p->custom_call_api_version ? p->custom_call_api_version : 4);
  if (p->legacy_backend_config)
    lsimp_py_str(&py->body, p->legacy_backend_config);
  else
    lsimp_strbuf_puts(&py->body, "None");
  lsimp_strbuf_puts(&py->body, ")(");
  lsimp_python_operands(py, e);
  lsimp_strbuf_puts(&py->body, "))\n");
}

const lsim_scenario_kind lsimp_ffi_call_kind = {
    .element = "ffi_call",
    .summary = "jax.ffi.ffi_call(target, result_shape_dtypes, has_side_effect=..., "
               "input_output_aliases=..., custom_call_api_version=..., legacy_backend_config=..., "
               "vmap_method=...)",
    .primitive = &lsim_ffi_call_p,
    .params_size = sizeof(lsimp_ffi_call_params),
    .weight = 8,
    .read = read_eqn,
    .write = write_eqn,
    .build = build_eqn,
    .copy = copy_params,
    .clear = clear_params,
    .generate = generate_eqn,
    .num_parts = num_parts,
    .drop_part = drop_part,
    .python = python_eqn,
};
