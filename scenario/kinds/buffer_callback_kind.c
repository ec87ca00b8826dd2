/* scenario/kinds/buffer_callback_kind.c: <buffer_callback args side_effect
 * command_buffer returns_value> with <result>s and <alias input output>s:
 * jax.experimental.buffer_callback(callback, result_shape_dtypes,
 * input_output_aliases=..., command_buffer_compatible=...)(*args).  Alias
 * indices are kept as written: buffer_callback itself reports one out of
 * range (LSIM_E_ALIAS_INPUT_RANGE), as JAX does. */
#include "kinds.h"

#include "lowersim/alloc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct alias_item {
  lsim_io_alias alias;
  int line;
} alias_item;

static int read_alias(lsimp_reader *r, const xmlNode *node, void *item, const void *ctx) {
  (void)ctx;
  alias_item *a = item;
  a->line = (int)lsimp_xml_line(node);
  long long input, output;
  int rc = lsimp_attr_int(r, node, "input", LLONG_MIN, LLONG_MAX, 0, &input, NULL);
  if (!rc)
    rc = lsimp_attr_int(r, node, "output", LLONG_MIN, LLONG_MAX, 0, &output, NULL);
  a->alias = (lsim_io_alias){rc ? 0 : input, rc ? 0 : output};
  return rc;
}

int lsimp_read_aliases(lsimp_reader *r, const xmlNode *node, lsim_io_alias **aliases,
                       size_t *num_aliases, int **lines) {
  int rc = LSIM_OK;
  size_t n = 0;
  alias_item *items = lsimp_read_children(r, node, "alias", NULL, sizeof *items, read_alias, NULL,
                                          &n, &rc);
  *aliases = NULL;
  *num_aliases = 0;
  if (lines)
    *lines = NULL;
  if (!rc && n) {
    *aliases = lsim_malloc_array(n, sizeof **aliases);
    int *l = lines ? lsim_malloc_array(n, sizeof *l) : NULL;
    if (!*aliases || (lines && !l)) {
      free(*aliases);
      free(l);
      *aliases = NULL;
      rc = lsim_error_set(r->err, LSIM_E_NO_MEMORY, "out of memory");
    } else {
      for (size_t i = 0; i < n; i++) {
        (*aliases)[i] = items[i].alias;
        if (l)
          l[i] = items[i].line;
      }
      *num_aliases = n;
      if (lines)
        *lines = l;
    }
  }
  free(items);
  return rc;
}

void lsimp_write_aliases(lsimp_writer *wr, const lsim_io_alias *aliases, size_t n) {
  for (size_t i = 0; i < n; i++) {
    lsimp_write_start(wr, "alias");
    lsimp_write_int(wr, "input", aliases[i].input);
    lsimp_write_int(wr, "output", aliases[i].output);
    lsimp_write_end(wr);
  }
}

static int read_eqn(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  lsimp_buffer_callback_params *p = e->params;
  int rc = lsimp_attr_bool(r, node, "side_effect", false, &p->params.has_side_effect, NULL);
  if (!rc)
    rc = lsimp_attr_bool(r, node, "command_buffer", false, &p->params.command_buffer_compatible,
                         NULL);
  if (!rc)
    rc = lsimp_attr_bool(r, node, "returns_value", false, &p->returns_value, NULL);
  if (!rc)
    rc = lsimp_read_results(r, node, e);
  lsim_io_alias *aliases = NULL;
  if (!rc)
    rc = lsimp_read_aliases(r, node, &aliases, &p->params.num_aliases, &p->alias_lines);
  p->params.aliases = aliases;
  return rc;
}

static void write_eqn(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  const lsimp_buffer_callback_params *p = e->params;
  lsimp_write_indices(wr, "args", e->args, e->num_args);
  lsimp_write_bool(wr, "side_effect", p->params.has_side_effect);
  lsimp_write_bool(wr, "command_buffer", p->params.command_buffer_compatible);
  lsimp_write_bool(wr, "returns_value", p->returns_value);
  lsimp_write_results(wr, e);
  lsimp_write_aliases(wr, p->params.aliases, p->params.num_aliases);
}

static int build_eqn(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  const lsimp_buffer_callback_params *p = e->params;
  lsim_buffer_callback_params *params = lsimp_build_alloc(b, 1, sizeof *params);
  if (!params)
    return LSIM_E_NO_MEMORY;
  *params = p->params;
  params->callback = lsimp_build_host_callback(p->returns_value);
  lsim_buffer_callback_bind(out, params);
  return LSIM_OK;
}

static void clear_params(void *params) {
  lsimp_buffer_callback_params *p = params;
  free((void *)p->params.aliases);
  free(p->alias_lines);
}

static bool copy_params(void *to, const void *from) {
  lsimp_buffer_callback_params *d = to;
  const lsimp_buffer_callback_params *s = from;
  *d = *s;
  size_t n = s->params.num_aliases;
  lsim_io_alias *aliases = n ? lsim_malloc_array(n, sizeof *aliases) : NULL;
  int *lines = n ? lsim_malloc_array(n, sizeof *lines) : NULL;
  d->params.aliases = aliases;
  d->alias_lines = lines;
  if (n && (!aliases || !lines)) {
    d->params.num_aliases = 0;
    return false;
  }
  if (n) {
    memcpy(aliases, s->params.aliases, n * sizeof *aliases);
    memcpy(lines, s->alias_lines, n * sizeof *lines);
  }
  return true;
}

/* An alias index: mostly in range, sometimes just outside, rarely extreme
 * or negative (which lowersim refuses as not modelled: JAX indexes from the
 * end, then its verifier quotes Python source; such scenarios teach the
 * differential campaign nothing, so they stay rare). */
long long lsimp_gen_alias_index(lsim_scenario_gen *g, size_t n) {
  if (lsim_scenario_gen_chance(g, 1))
    return lsim_scenario_gen_chance(g, 50) ? LLONG_MIN : LLONG_MAX;
  if (n && lsim_scenario_gen_chance(g, 90))
    return (long long)lsim_scenario_gen_below(g, n);
  return lsim_scenario_gen_chance(g, 8) ? -1 : (long long)n + (long long)lsim_scenario_gen_below(g, 2);
}

static void generate_eqn(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  lsimp_buffer_callback_params *p = e->params;
  lsimp_gen_operands(g, e, 2);
  size_t n = (size_t)lsim_scenario_gen_below(g, LSIM_SCENARIO_GEN_MAX_RESULTS + 1);
  e->results = lsim_scenario_gen_alloc(g, n, sizeof *e->results);
  for (size_t i = 0; e->results && i < n; i++) {
    if (i < e->num_args && lsim_scenario_gen_chance(g, 60))
      e->results[i] = g->values[e->args[i]];
    else
      lsimp_gen_result_aval(g, &e->results[i]);
    e->num_results++;
  }
  p->params.has_side_effect = lsim_scenario_gen_chance(g, 50);
  p->params.command_buffer_compatible = lsim_scenario_gen_chance(g, 50);
  p->returns_value = lsim_scenario_gen_chance(g, 10);
  size_t k = lsim_scenario_gen_chance(g, 50) ? 1 + (size_t)lsim_scenario_gen_below(g, 2) : 0;
  lsim_io_alias *aliases = lsim_scenario_gen_alloc(g, k, sizeof *aliases);
  p->alias_lines = lsim_scenario_gen_alloc(g, k, sizeof *p->alias_lines);
  p->params.aliases = aliases;
  for (size_t i = 0; aliases && p->alias_lines && i < k; i++) {
    aliases[i].input = lsimp_gen_alias_index(g, e->num_args);
    aliases[i].output = lsimp_gen_alias_index(g, e->num_results);
    p->params.num_aliases++;
  }
}

static size_t num_parts(const lsim_scenario_eqn *e) {
  return ((const lsimp_buffer_callback_params *)e->params)->params.num_aliases;
}

static bool drop_part(lsim_scenario_eqn *e, size_t i) {
  lsimp_buffer_callback_params *p = e->params;
  lsim_io_alias *aliases = (lsim_io_alias *)p->params.aliases;
  size_t rest = p->params.num_aliases - i - 1;
  memmove(&aliases[i], &aliases[i + 1], rest * sizeof *aliases);
  memmove(&p->alias_lines[i], &p->alias_lines[i + 1], rest * sizeof *p->alias_lines);
  p->params.num_aliases--;
  return true;
}

static void python_eqn(lsimp_python *py, const lsim_scenario_eqn *e) {
  const lsimp_buffer_callback_params *p = e->params;
  lsimp_strbuf_printf(&py->body, "  v += list(buffer_callback(buffer_callback_fn(%s), ",
                      p->returns_value ? "True" : "False");
  lsimp_python_result_structs(&py->body, e);
  lsimp_strbuf_printf(&py->body, ", has_side_effect=%s, input_output_aliases=",
                      p->params.has_side_effect ? "True" : "False");
  lsimp_python_aliases(&py->body, p->params.aliases, p->params.num_aliases);
  lsimp_strbuf_printf(&py->body, ", command_buffer_compatible=%s)(",
                      p->params.command_buffer_compatible ? "True" : "False");
  lsimp_python_operands(py, e);
  lsimp_strbuf_puts(&py->body, "))\n");
}

const lsim_scenario_kind lsimp_buffer_callback_kind = {
    .element = "buffer_callback",
    .summary = "jax.experimental.buffer_callback",
    .primitive = &lsim_buffer_callback_p,
    .params_size = sizeof(lsimp_buffer_callback_params),
    .weight = 12,
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
