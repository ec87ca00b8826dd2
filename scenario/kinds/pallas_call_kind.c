/* scenario/kinds/pallas_call_kind.c: <pallas_call args kernel grid interpret
 * compiler_params constants name num_warps num_stages metadata
 * vmem_limit_bytes allow_input_fusion has_side_effects ...> with <result>s,
 * <alias input output>s, <flag name type value>s, <cost_estimate> and
 * <metadata key value>s: pl.pallas_call(kernel, grid=(grid,),
 * interpret=..., compiler_params=pltpu/pltriton.CompilerParams(...),
 * input_output_aliases={...}, cost_estimate=..., metadata={...},
 * name=...)(*args), the kernel one of lowersim's library. */
#include "kinds.h"
#include "lowersim/alloc.h"
#include "lowersim/pallas_call.h"

#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* compiler_params: the CompilerParams class passed to pallas_call. */
#define COUNT(table) (sizeof(table) / sizeof(table)[0])

static const struct {
  const char *name;
  const lsim_pallas_params_class *cls;
} params_classes[] = {
    {"none", NULL},
    {"mosaic_tpu", &lsim_mosaic_tpu_compiler_params},
    {"triton", &lsim_triton_compiler_params},
    {"mosaic_gpu", &lsim_mosaic_gpu_compiler_params},
};

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

/* --- reading -------------------------------------------------------------------- */

typedef struct alias_item {
  lsim_pallas_alias alias;
} alias_item;

static int read_alias(lsimp_reader *r, const xmlNode *node, void *item, const void *ctx) {
  (void)ctx;
  lsim_pallas_alias *a = item;
  long long input = 0, output = 0;
  int rc = lsimp_attr_int(r, node, "input", LLONG_MIN, LLONG_MAX, 0, &input, NULL);
  if (!rc)
    rc = lsimp_attr_int(r, node, "output", LLONG_MIN, LLONG_MAX, 0, &output, NULL);
  *a = (lsim_pallas_alias){input, output};
  return rc;
}

static bool is_ascii(const char *s) {
  for (; s && *s; s++)
    if ((unsigned char)*s >= 0x80)
      return false;
  return true;
}

/* <flag name type value>: flags={name: value}; to_json writes the name as
 * ASCII. */
static int read_flag(lsimp_reader *r, const xmlNode *node, void *item, const void *ctx) {
  (void)ctx;
  lsim_mosaic_tpu_flag *f = item;
  char *name = NULL, *type = NULL, *value = NULL;
  int rc = lsimp_attr_required(r, node, "name", &name);
  f->name = name;
  if (!rc && !is_ascii(name))
    rc = lsimp_read_fail(r, node, "<flag> name=\"%s\" is not ASCII (to_json encodes it as ASCII)",
                         name);
  if (!rc)
    rc = lsimp_attr_required(r, node, "type", &type);
  if (!rc)
    rc = lsimp_attr_required(r, node, "value", &value);
  if (!rc && strcmp(type, "bool") == 0) {
    f->type = LSIM_MOSAIC_TPU_FLAG_BOOL;
    rc = lsimp_attr_bool(r, node, "value", false, &f->b, NULL);
  } else if (!rc && strcmp(type, "int") == 0) {
    long long v;
    f->type = LSIM_MOSAIC_TPU_FLAG_INT;
    rc = lsimp_attr_int(r, node, "value", LLONG_MIN, LLONG_MAX, 0, &v, NULL);
    f->i = rc ? 0 : v;
  } else if (!rc && strcmp(type, "float") == 0) {
    char *end;
    errno = 0;
    f->type = LSIM_MOSAIC_TPU_FLAG_FLOAT;
    f->d = strtod(value, &end);
    if (end == value || *end || errno == ERANGE)
      rc = lsimp_read_fail(r, node, "<flag> value=\"%s\" is not a float", value);
  } else if (!rc) {
    rc = lsimp_read_fail(r, node, "<flag> type=\"%s\" is not bool, int or float", type);
  }
  free(type);
  free(value);
  return rc;
}

static int read_metadata(lsimp_reader *r, const xmlNode *node, void *item, const void *ctx) {
  (void)ctx;
  lsim_pallas_metadata *m = item;
  char *key = NULL, *value = NULL;
  int rc = lsimp_attr_string(r, node, "key", &key);
  if (!rc)
    rc = lsimp_attr_string(r, node, "value", &value);
  if (!rc && (!key || !value))
    rc = lsimp_read_fail(r, node, "<metadata> needs key= and value=");
  m->key = key;
  m->value = value;
  return rc;
}

static int read_cost(lsimp_reader *r, const xmlNode *node, void *item, const void *ctx) {
  (void)ctx;
  lsim_pallas_cost_estimate *c = item;
  const char *names[] = {"flops", "transcendentals", "bytes_accessed", "remote_bytes_transferred"};
  int64_t *fields[] = {&c->flops, &c->transcendentals, &c->bytes_accessed,
                       &c->remote_bytes_transferred};
  for (int i = 0; i < 4; i++) {
    long long v;
    bool present;
    int rc = lsimp_attr_int(r, node, names[i], LLONG_MIN, LLONG_MAX, 0, &v, &present);
    if (!rc && !present && i < 3)
      rc = lsimp_read_fail(r, node, "<cost_estimate> needs %s=", names[i]);
    if (rc)
      return rc;
    *fields[i] = v;
  }
  return LSIM_OK;
}

/* A comma list of true/false ("" for []). */
static int read_bools(lsimp_reader *r, const xmlNode *node, const char *name, bool **out,
                      size_t *n) {
  char *text = NULL;
  int rc = lsimp_attr_string(r, node, name, &text);
  *out = NULL;
  *n = 0;
  if (rc || !text)
    return rc;
  size_t max = 1;
  for (const char *c = text; *c; c++)
    max += *c == ',';
  bool *items = lsim_malloc_array(max, sizeof *items);
  if (!items) {
    free(text);
    return lsim_error_set(r->err, LSIM_E_NO_MEMORY, "out of memory");
  }
  for (char *item = *text ? text : NULL, *next; item && !rc; item = next) {
    next = strchr(item, ',');
    if (next)
      *next++ = '\0';
    if (strcmp(item, "true") == 0 || strcmp(item, "false") == 0)
      items[(*n)++] = item[0] == 't';
    else
      rc = lsimp_read_fail(r, node, "%s: \"%s\" is not true or false", name, item);
  }
  free(text);
  *out = items;
  return rc;
}

/* pltpu.CompilerParams's fields (only with compiler_params="mosaic_tpu"). */
static const char *const tpu_attrs[] = {
    "vmem_limit_bytes", "allow_input_fusion", "has_side_effects", "internal_scratch_in_bytes",
    "disable_bounds_checks", "disable_semaphore_checks", "skip_device_barrier",
    "shape_invariant_numerics", "needs_layout_passes"};
static const char *const triton_attrs[] = {"num_warps", "num_stages"};

#define COUNT(table) (sizeof(table) / sizeof(table)[0])

static int check_params_class(lsimp_reader *r, const xmlNode *node,
                              const lsim_pallas_params_class *cls, bool *tpu_given) {
  *tpu_given = false;
  for (size_t i = 0; i < COUNT(tpu_attrs); i++) {
    if (!xmlHasProp(node, (const xmlChar *)tpu_attrs[i]))
      continue;
    if (cls != &lsim_mosaic_tpu_compiler_params)
      return lsimp_read_fail(r, node, "<pallas_call> %s= is a pltpu.CompilerParams field: it "
                                      "needs compiler_params=\"mosaic_tpu\"", tpu_attrs[i]);
    *tpu_given = true;
  }
  if (lsimp_count_children(node, "flag")) {
    if (cls != &lsim_mosaic_tpu_compiler_params)
      return lsimp_read_fail(r, node, "<pallas_call> <flag> is a pltpu.CompilerParams field: it "
                                      "needs compiler_params=\"mosaic_tpu\"");
    *tpu_given = true;
  }
  for (size_t i = 0; i < COUNT(triton_attrs); i++)
    if (xmlHasProp(node, (const xmlChar *)triton_attrs[i]) && cls != &lsim_triton_compiler_params)
      return lsimp_read_fail(r, node, "<pallas_call> %s= is a pltriton.CompilerParams field: it "
                                      "needs compiler_params=\"triton\"", triton_attrs[i]);
  return LSIM_OK;
}

static int read_tpu(lsimp_reader *r, const xmlNode *node, lsimp_pallas_call_params *lp) {
  lsim_mosaic_tpu_param_values *v = &lp->tpu;
  long long n;
  bool b, present;
  char *effects = NULL;
  int rc = lsimp_attr_int(r, node, "vmem_limit_bytes", 0, LLONG_MAX, 0, &n,
                          &v->has_vmem_limit_bytes);
  v->vmem_limit_bytes = v->has_vmem_limit_bytes ? n : 0;
  if (!rc)
    rc = lsimp_attr_int(r, node, "internal_scratch_in_bytes", 0, LLONG_MAX, 0, &n,
                        &v->has_internal_scratch_in_bytes);
  v->internal_scratch_in_bytes = !rc && v->has_internal_scratch_in_bytes ? n : 0;
  bool *fusion = NULL;
  if (!rc) {
    rc = read_bools(r, node, "allow_input_fusion", &fusion, &v->num_allow_input_fusion);
    v->allow_input_fusion = fusion;
    v->has_allow_input_fusion = xmlHasProp(node, (const xmlChar *)"allow_input_fusion") != NULL;
  }
  if (!rc)
    rc = lsimp_attr_string(r, node, "has_side_effects", &effects);
  if (!rc && effects) {
    if (strcmp(effects, "true") == 0)
      v->has_side_effects = LSIM_TPU_SIDE_EFFECTING;
    else if (strcmp(effects, "dataflow") == 0)
      v->has_side_effects = LSIM_TPU_DATAFLOW_SIDE_EFFECTING;
    else if (strcmp(effects, "false") != 0)
      rc = lsimp_read_fail(r, node, "has_side_effects=\"%s\" is not false, true or dataflow",
                           effects);
  }
  free(effects);
  if (!rc)
    rc = lsimp_attr_bool(r, node, "disable_bounds_checks", false, &v->disable_bounds_checks, NULL);
  if (!rc)
    rc = lsimp_attr_bool(r, node, "disable_semaphore_checks", false,
                         &v->disable_semaphore_checks, NULL);
  if (!rc)
    rc = lsimp_attr_bool(r, node, "skip_device_barrier", false, &v->skip_device_barrier, NULL);
  if (!rc && !(rc = lsimp_attr_bool(r, node, "shape_invariant_numerics", true, &b, &present)))
    v->shape_invariant_numerics_off = !b;
  if (!rc && !(rc = lsimp_attr_bool(r, node, "needs_layout_passes", true, &b, &present)))
    v->needs_layout_passes_off = !b;
  size_t num_flags = 0;
  lsim_mosaic_tpu_flag *flags =
      rc ? NULL
         : lsimp_read_children(r, node, "flag", NULL, sizeof *flags, read_flag, NULL, &num_flags,
                               &rc);
  v->flags = flags;
  v->num_flags = num_flags;
  v->has_flags = num_flags > 0;
  return rc;
}

/* The first of `n` names given before (its index), or n; through a hash
 * table, so thousands of <alias>es or <metadata> cost time linear in their
 * number.  Out of memory: n, with *rc set. */
static size_t first_repeated(const char *const *names, size_t n, int *rc, lsimp_reader *r) {
  lsimp_name_index seen = LSIMP_NAME_INDEX_INIT;
  size_t at = n;
  if (!lsimp_name_index_reserve(&seen, n))
    *rc = lsim_error_set(r->err, LSIM_E_NO_MEMORY, "out of memory");
  for (size_t i = 0; !*rc && at == n && i < n; i++) {
    size_t first = i;
    lsimp_name_index_add(&seen, names[i], &first); /* room reserved: cannot fail */
    if (first != i)
      at = i;
  }
  lsimp_name_index_free(&seen);
  return at;
}

static size_t first_repeated_key(const lsim_pallas_metadata *m, size_t n, int *rc,
                                 lsimp_reader *r) {
  const char **keys = lsim_malloc_array(n + 1, sizeof *keys);
  if (!keys) {
    *rc = lsim_error_set(r->err, LSIM_E_NO_MEMORY, "out of memory");
    return n;
  }
  for (size_t i = 0; i < n; i++)
    keys[i] = m[i].key;
  size_t at = first_repeated(keys, n, rc, r);
  free(keys);
  return at;
}

/* An input index as a name: its decimal text. */
enum { INDEX_TEXT = 24 };

static size_t first_repeated_input(const lsim_pallas_alias *a, size_t n, int *rc,
                                   lsimp_reader *r) {
  char *text = lsim_malloc_array(n + 1, INDEX_TEXT);
  const char **names = lsim_malloc_array(n + 1, sizeof *names);
  size_t at = n;
  if (!text || !names) {
    *rc = lsim_error_set(r->err, LSIM_E_NO_MEMORY, "out of memory");
  } else {
    for (size_t i = 0; i < n; i++) {
      snprintf(text + i * INDEX_TEXT, INDEX_TEXT, "%lld", (long long)a[i].input);
      names[i] = text + i * INDEX_TEXT;
    }
    at = first_repeated(names, n, rc, r);
  }
  free(text);
  free(names);
  return at;
}

static int read_eqn(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  lsimp_pallas_call_params *lp = e->params;
  lsim_pallas_call_params *p = &lp->params;
  char *kernel = NULL, *params = NULL, *name = NULL;
  long long grid, warps, stages;
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
  if (!rc)
    rc = lsimp_attr_string(r, node, "name", &name);
  p->name = name;
  if (!rc && name && !is_ascii(name))
    rc = lsimp_read_fail(r, node, "<pallas_call> name=\"%s\" is not ASCII (lowersim sanitizes "
                                  "ASCII names only)", name);
  char *block = NULL;
  if (!rc)
    rc = lsimp_attr_string(r, node, "block", &block);
  if (!rc && block) {
    long long rows, cols;
    char tail;
    if (sscanf(block, "%lld,%lld%c", &rows, &cols, &tail) != 2 || rows < 1 || cols < 1 ||
        rows > INT32_MAX || cols > INT32_MAX)
      rc = lsimp_read_fail(r, node, "<pallas_call> block=\"%s\" is not ROWS,COLS", block);
    else
      p->block[0] = rows, p->block[1] = cols;
  }
  free(block);
  if (!rc)
    rc = check_params_class(r, node, p->compiler_params, &lp->has_tpu);
  if (!rc)
    rc = lsimp_attr_int(r, node, "num_warps", 1, INT32_MAX, 0, &warps, NULL);
  p->num_warps = rc ? 0 : warps;
  if (!rc)
    rc = lsimp_attr_int(r, node, "num_stages", 1, INT32_MAX, 0, &stages, NULL);
  p->num_stages = rc ? 0 : stages;
  if (!rc && lp->has_tpu)
    rc = read_tpu(r, node, lp);
  if (!rc)
    rc = lsimp_read_results(r, node, e);
  size_t n = 0;
  lsim_pallas_alias *aliases =
      rc ? NULL
         : lsimp_read_children(r, node, "alias", NULL, sizeof *aliases, read_alias, NULL, &n, &rc);
  p->aliases = aliases;
  p->num_aliases = n;
  size_t again = rc ? n : first_repeated_input(aliases, n, &rc, r);
  if (again < n)
    rc = lsimp_read_fail(r, node, "<pallas_call> two <alias>es of input %lld: "
                                  "input_output_aliases is a dict",
                         (long long)aliases[again].input);
  n = 0;
  lsim_pallas_metadata *metadata =
      rc ? NULL
         : lsimp_read_children(r, node, "metadata", NULL, sizeof *metadata, read_metadata, NULL,
                               &n, &rc);
  p->metadata = metadata;
  p->num_metadata = n;
  again = rc ? n : first_repeated_key(metadata, n, &rc, r);
  if (again < n)
    rc = lsimp_read_fail(r, node, "<pallas_call> two <metadata> of key \"%s\": metadata is a "
                                  "dict", metadata[again].key);
  bool metadata_given = false;
  if (!rc)
    rc = lsimp_attr_bool(r, node, "metadata", false, &metadata_given, NULL);
  p->has_metadata = metadata_given || n > 0;
  lsim_pallas_cost_estimate *cost =
      rc ? NULL
         : lsimp_read_children(r, node, "cost_estimate", NULL, sizeof *cost, read_cost, NULL, &n,
                               &rc);
  if (!rc && n > 1)
    rc = lsimp_read_fail(r, node, "<pallas_call> has one <cost_estimate> at most");
  if (!rc && n == 1) {
    lp->has_cost = true;
    lp->cost = cost[0];
  }
  free(cost);
  return rc;
}

/* --- writing ---------------------------------------------------------------------- */

static void write_tpu(lsimp_writer *wr, const lsim_mosaic_tpu_param_values *v) {
  if (v->has_vmem_limit_bytes)
    lsimp_write_int(wr, "vmem_limit_bytes", (long long)v->vmem_limit_bytes);
  if (v->has_allow_input_fusion) {
    lsimp_strbuf list = LSIMP_STRBUF_INIT;
    for (size_t i = 0; i < v->num_allow_input_fusion; i++)
      lsimp_strbuf_printf(&list, "%s%s", i ? "," : "",
                          v->allow_input_fusion[i] ? "true" : "false");
    if (lsimp_strbuf_failed(&list))
      wr->failed = true; /* out of memory: the write fails, never writes "" */
    else
      lsimp_write_attr(wr, "allow_input_fusion", lsimp_strbuf_cstr(&list));
    lsimp_strbuf_free(&list);
  }
  static const char *const effects[] = {"false", "true", "dataflow"};
  if (v->has_side_effects != LSIM_TPU_PURE)
    lsimp_write_attr(wr, "has_side_effects", effects[v->has_side_effects]);
  if (v->has_internal_scratch_in_bytes)
    lsimp_write_int(wr, "internal_scratch_in_bytes", (long long)v->internal_scratch_in_bytes);
  if (v->disable_bounds_checks)
    lsimp_write_bool(wr, "disable_bounds_checks", true);
  if (v->disable_semaphore_checks)
    lsimp_write_bool(wr, "disable_semaphore_checks", true);
  if (v->skip_device_barrier)
    lsimp_write_bool(wr, "skip_device_barrier", true);
  if (v->shape_invariant_numerics_off)
    lsimp_write_bool(wr, "shape_invariant_numerics", false);
  if (v->needs_layout_passes_off)
    lsimp_write_bool(wr, "needs_layout_passes", false);
}

static void write_eqn(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  const lsimp_pallas_call_params *lp = e->params;
  const lsim_pallas_call_params *p = &lp->params;
  lsimp_write_indices(wr, "args", e->args, e->num_args);
  lsimp_write_attr_required(wr, "kernel", p->kernel);
  lsimp_write_int(wr, "grid", (long long)p->grid);
  lsimp_write_bool(wr, "interpret", p->interpret);
  lsimp_write_attr_required(wr, "compiler_params", lsimp_compiler_params_name(p->compiler_params));
  lsimp_write_bool(wr, "constants", p->has_constants);
  lsimp_write_attr(wr, "name", p->name);
  if (p->block[0] || p->block[1]) {
    char block[48];
    snprintf(block, sizeof block, "%lld,%lld", (long long)p->block[0], (long long)p->block[1]);
    lsimp_write_attr(wr, "block", block);
  }
  if (p->num_warps)
    lsimp_write_int(wr, "num_warps", (long long)p->num_warps);
  if (p->num_stages)
    lsimp_write_int(wr, "num_stages", (long long)p->num_stages);
  if (p->has_metadata && !p->num_metadata)
    lsimp_write_bool(wr, "metadata", true);
  if (lp->has_tpu)
    write_tpu(wr, &lp->tpu);
  lsimp_write_results(wr, e);
  for (size_t i = 0; i < p->num_aliases; i++) {
    lsimp_write_start(wr, "alias");
    lsimp_write_int(wr, "input", (long long)p->aliases[i].input);
    lsimp_write_int(wr, "output", (long long)p->aliases[i].output);
    lsimp_write_end(wr);
  }
  for (size_t i = 0; lp->has_tpu && i < lp->tpu.num_flags; i++) {
    const lsim_mosaic_tpu_flag *f = &lp->tpu.flags[i];
    char value[40]; /* "%.17g" of a double, or an int64 */
    static const char *const types[] = {"bool", "int", "float"};
    if (f->type == LSIM_MOSAIC_TPU_FLAG_BOOL)
      snprintf(value, sizeof value, "%s", f->b ? "true" : "false");
    else if (f->type == LSIM_MOSAIC_TPU_FLAG_INT)
      snprintf(value, sizeof value, "%lld", (long long)f->i);
    else
      snprintf(value, sizeof value, "%.17g", f->d);
    lsimp_write_start(wr, "flag");
    lsimp_write_attr_required(wr, "name", f->name);
    lsimp_write_attr(wr, "type", types[f->type]);
    lsimp_write_attr(wr, "value", value);
    lsimp_write_end(wr);
  }
  if (lp->has_cost) {
    lsimp_write_start(wr, "cost_estimate");
    lsimp_write_int(wr, "flops", (long long)lp->cost.flops);
    lsimp_write_int(wr, "transcendentals", (long long)lp->cost.transcendentals);
    lsimp_write_int(wr, "bytes_accessed", (long long)lp->cost.bytes_accessed);
    if (lp->cost.remote_bytes_transferred)
      lsimp_write_int(wr, "remote_bytes_transferred", (long long)lp->cost.remote_bytes_transferred);
    lsimp_write_end(wr);
  }
  for (size_t i = 0; i < p->num_metadata; i++) {
    lsimp_write_start(wr, "metadata");
    lsimp_write_attr_required(wr, "key", p->metadata[i].key);
    lsimp_write_attr_required(wr, "value", p->metadata[i].value);
    lsimp_write_end(wr);
  }
}

static int build_eqn(lsimp_builder *b, const lsim_scenario_eqn *e, lsim_eqn *out) {
  const lsimp_pallas_call_params *lp = e->params;
  lsim_pallas_call_params *params = lsimp_build_alloc(b, 1, sizeof *params);
  if (!params)
    return LSIM_E_NO_MEMORY;
  *params = lp->params;
  params->cost_estimate = lp->has_cost ? &lp->cost : NULL;
  params->mosaic_tpu = lp->has_tpu ? &lp->tpu : NULL;
  lsim_pallas_call_bind(out, params);
  return LSIM_OK;
}

/* --- copying and freeing ---------------------------------------------------------- */

static void clear_params(void *params) {
  lsimp_pallas_call_params *lp = params;
  free((char *)lp->params.kernel);
  free((char *)lp->params.name);
  free((void *)lp->params.aliases);
  for (size_t i = 0; i < lp->params.num_metadata; i++) {
    free((char *)lp->params.metadata[i].key);
    free((char *)lp->params.metadata[i].value);
  }
  free((void *)lp->params.metadata);
  for (size_t i = 0; i < lp->tpu.num_flags; i++)
    free((char *)lp->tpu.flags[i].name);
  free((void *)lp->tpu.flags);
  free((void *)lp->tpu.allow_input_fusion);
}

static void *copy_array(const void *from, size_t n, size_t size, bool *ok) {
  if (!n)
    return NULL;
  void *to = lsim_malloc_array(n, size);
  if (to)
    memcpy(to, from, n * size);
  else
    *ok = false;
  return to;
}

static bool copy_params(void *to, const void *from) {
  lsimp_pallas_call_params *d = to;
  const lsimp_pallas_call_params *s = from;
  *d = *s;
  bool ok = true;
  char *kernel = NULL, *name = NULL;
  ok &= lsimp_copy_string(&kernel, s->params.kernel);
  d->params.kernel = kernel;
  ok &= lsimp_copy_string(&name, s->params.name);
  d->params.name = name;
  d->params.aliases = copy_array(s->params.aliases, s->params.num_aliases,
                                 sizeof *s->params.aliases, &ok);
  lsim_pallas_metadata *metadata = copy_array(s->params.metadata, s->params.num_metadata,
                                              sizeof *metadata, &ok);
  lsim_mosaic_tpu_flag *flags = copy_array(s->tpu.flags, s->tpu.num_flags, sizeof *flags, &ok);
  d->params.metadata = metadata;
  d->tpu.flags = flags;
  d->tpu.allow_input_fusion = copy_array(s->tpu.allow_input_fusion, s->tpu.num_allow_input_fusion,
                                         sizeof *s->tpu.allow_input_fusion, &ok);
  if (!metadata)
    d->params.num_metadata = 0;
  if (!flags)
    d->tpu.num_flags = 0;
  if (!d->params.aliases)
    d->params.num_aliases = 0;
  if (!d->tpu.allow_input_fusion)
    d->tpu.num_allow_input_fusion = 0;
  for (size_t i = 0; i < d->params.num_metadata; i++) {
    char *key = NULL, *value = NULL;
    ok &= lsimp_copy_string(&key, s->params.metadata[i].key);
    ok &= lsimp_copy_string(&value, s->params.metadata[i].value);
    metadata[i] = (lsim_pallas_metadata){key, value};
  }
  for (size_t i = 0; i < d->tpu.num_flags; i++) {
    char *flag = NULL;
    ok &= lsimp_copy_string(&flag, s->tpu.flags[i].name);
    flags[i].name = flag;
  }
  return ok;
}

/* --- the minimizer's parts: the aliases, the flags, the metadata entries, the
 * cost estimate, the name ---------------------------------------------------------- */

static size_t num_parts(const lsim_scenario_eqn *e) {
  const lsimp_pallas_call_params *lp = e->params;
  return lp->params.num_aliases + lp->tpu.num_flags + lp->params.num_metadata + lp->has_cost +
         (lp->params.name != NULL);
}

static void drop_item(void *items, size_t *n, size_t i, size_t size) {
  char *base = items;
  memmove(base + i * size, base + (i + 1) * size, (*n - i - 1) * size);
  (*n)--;
}

static bool drop_part(lsim_scenario_eqn *e, size_t i) {
  lsimp_pallas_call_params *lp = e->params;
  lsim_pallas_call_params *p = &lp->params;
  if (i < p->num_aliases) {
    drop_item((void *)p->aliases, &p->num_aliases, i, sizeof *p->aliases);
    return true;
  }
  i -= p->num_aliases;
  if (i < lp->tpu.num_flags) {
    free((char *)lp->tpu.flags[i].name);
    drop_item((void *)lp->tpu.flags, &lp->tpu.num_flags, i, sizeof *lp->tpu.flags);
    lp->tpu.has_flags = lp->tpu.num_flags > 0;
    return true;
  }
  i -= lp->tpu.num_flags;
  if (i < p->num_metadata) {
    free((char *)p->metadata[i].key);
    free((char *)p->metadata[i].value);
    drop_item((void *)p->metadata, &p->num_metadata, i, sizeof *p->metadata);
    p->has_metadata = p->num_metadata > 0;
    return true;
  }
  i -= p->num_metadata;
  if (lp->has_cost && i == 0) {
    lp->has_cost = false;
    return true;
  }
  i -= lp->has_cost;
  if (p->name && i == 0) {
    free((char *)p->name);
    p->name = NULL;
    return true;
  }
  return false;
}

static const char *const kernels[] = {"add_one", "copy"};
static const char *const kernels_2d[] = {"tiled_add_one", "row_sum", "gather_rows"};

/* A value the 2-D kernels block: 2-D, non-empty, numeric (`ints`: f32 or
 * i32, as row_sum takes, when there is one). */
static bool find_2d(lsim_scenario_gen *g, bool ints, size_t *out) {
  size_t fit[LSIM_SCENARIO_GEN_MAX_VALUES], n = 0;
  for (int pass = ints ? 0 : 1; pass < 2 && !n; pass++)
    for (size_t i = 0; i < g->num_values; i++) {
      const lsim_aval *a = &g->values[i];
      if (a->rank == 2 && lsim_aval_size(a) > 0 && a->dtype != LSIM_DTYPE_BOOL &&
          (pass || a->dtype == LSIM_DTYPE_F32 || a->dtype == LSIM_DTYPE_I32))
        fit[n++] = i;
    }
  if (n)
    *out = fit[lsim_scenario_gen_below(g, n)];
  return n > 0;
}

/* The values that can be a scalar-prefetch index array: 1-D int32/int64
 * (into fit, when given); how many. */
static size_t index_values(const lsim_scenario_gen *g, size_t *fit) {
  size_t n = 0;
  for (size_t i = 0; i < g->num_values; i++) {
    const lsim_aval *a = &g->values[i];
    if (a->rank == 1 && (a->dtype == LSIM_DTYPE_I32 || a->dtype == LSIM_DTYPE_I64)) {
      if (fit)
        fit[n] = i;
      n++;
    }
  }
  return n;
}

/* A scalar-prefetch index array: mostly one of index_values when there is
 * one (else any value: JAX's index-map errors). */
static size_t find_index(lsim_scenario_gen *g) {
  size_t fit[LSIM_SCENARIO_GEN_MAX_VALUES];
  size_t n = index_values(g, fit);
  return n && lsim_scenario_gen_chance(g, 90) ? fit[lsim_scenario_gen_below(g, n)]
                                               : lsimp_gen_value(g);
}

/* Mostly where a kernel operand exists; else now and then anyway. */
static bool can_generate(lsim_scenario_gen *g) {
  size_t unused;
  return lsimp_gen_kernel_operand(g, &unused) || find_2d(g, false, &unused) ||
         !lsim_scenario_gen_chance(g, 80);
}

static const char *const gen_names[] = {"k", "my kernel", "v1.2-x", "a/b", "_"};
static const char *const gen_keys[] = {"b", "a", "caf\xc3\xa9", "q\"", ""};

/* pallas_call's own arguments and the params' fields, now and then: name=,
 * aliases (mostly in range), metadata, a cost estimate, the Triton or
 * Mosaic TPU fields of the params class chosen. */
static void generate_arguments(lsim_scenario_gen *g, lsimp_pallas_call_params *lp,
                               size_t num_in) {
  lsim_pallas_call_params *p = &lp->params;
  if (lsim_scenario_gen_chance(g, 15))
    p->name = lsim_scenario_gen_text(g, lsim_scenario_gen_pick(g, gen_names, COUNT(gen_names)));
  if (lsim_scenario_gen_chance(g, 15)) {
    lsim_pallas_alias *a = lsim_scenario_gen_alloc(g, 1, sizeof *a);
    if (a) {
      bool in_range = num_in && lsim_scenario_gen_chance(g, 85);
      /* out of range: mostly past the end, rarely negative (see
       * lsimp_gen_alias_index) */
      *a = in_range ? (lsim_pallas_alias){0, 0}
                    : (lsim_pallas_alias){(int64_t)lsim_scenario_gen_below(g, 3) -
                                              lsim_scenario_gen_chance(g, 8),
                                          (int64_t)lsim_scenario_gen_below(g, 3) -
                                              lsim_scenario_gen_chance(g, 8)};
      p->aliases = a;
      p->num_aliases = 1;
    }
  }
  if (lsim_scenario_gen_chance(g, 12)) {
    size_t n = (size_t)lsim_scenario_gen_below(g, 3);
    lsim_pallas_metadata *m = lsim_scenario_gen_alloc(g, n ? n : 1, sizeof *m);
    for (size_t i = 0; m && i < n; i++) { /* distinct keys */
      m[i].key = lsim_scenario_gen_text(g, gen_keys[(i * 2 + lsim_scenario_gen_below(g, 2)) %
                                                    COUNT(gen_keys)]);
      m[i].value = lsim_scenario_gen_text(g, gen_keys[lsim_scenario_gen_below(g, COUNT(gen_keys))]);
    }
    p->metadata = m;
    p->num_metadata = m ? n : 0;
    p->has_metadata = true;
  }
  if (lsim_scenario_gen_chance(g, 10)) {
    lp->has_cost = true;
    lp->cost = (lsim_pallas_cost_estimate){(int64_t)lsim_scenario_gen_below(g, 1u << 20),
                                           (int64_t)lsim_scenario_gen_below(g, 64),
                                           (int64_t)lsim_scenario_gen_below(g, 1u << 16),
                                           (int64_t)lsim_scenario_gen_below(g, 2)};
  }
  if (p->compiler_params == &lsim_triton_compiler_params && lsim_scenario_gen_chance(g, 40)) {
    p->num_warps = lsim_scenario_gen_chance(g, 50) ? (int64_t)1 << lsim_scenario_gen_below(g, 4) : 0;
    p->num_stages = lsim_scenario_gen_chance(g, 50) ? 1 + (int64_t)lsim_scenario_gen_below(g, 5) : 0;
  }
  if (p->compiler_params == &lsim_mosaic_tpu_compiler_params && lsim_scenario_gen_chance(g, 50)) {
    lsim_mosaic_tpu_param_values *v = &lp->tpu;
    lp->has_tpu = true;
    v->has_vmem_limit_bytes = lsim_scenario_gen_chance(g, 50);
    v->vmem_limit_bytes = v->has_vmem_limit_bytes ? (int64_t)1 << lsim_scenario_gen_below(g, 30) : 0;
    v->has_side_effects = (lsim_tpu_side_effect)lsim_scenario_gen_below(g, 3);
    if (lsim_scenario_gen_chance(g, 30)) {
      bool *fusion = lsim_scenario_gen_alloc(g, 1, sizeof *fusion);
      if (fusion) {
        *fusion = lsim_scenario_gen_chance(g, 50);
        v->allow_input_fusion = fusion;
        v->num_allow_input_fusion = 1;
        v->has_allow_input_fusion = true;
      }
    }
    v->has_internal_scratch_in_bytes = lsim_scenario_gen_chance(g, 15);
    v->internal_scratch_in_bytes = v->has_internal_scratch_in_bytes ? 8192 : 0;
    v->disable_bounds_checks = lsim_scenario_gen_chance(g, 15);
    v->skip_device_barrier = lsim_scenario_gen_chance(g, 10);
    v->shape_invariant_numerics_off = lsim_scenario_gen_chance(g, 10);
    if (lsim_scenario_gen_chance(g, 30)) {
      static const double floats[] = {1.5, 1e-05, 100.0, 1e16, 0.1, -2.0};
      size_t n = 1 + (size_t)lsim_scenario_gen_below(g, 3);
      lsim_mosaic_tpu_flag *f = lsim_scenario_gen_alloc(g, n, sizeof *f);
      static const char *const flag_names[] = {"xla_a", "xla_b", "xla_c"};
      for (size_t i = 0; f && i < n; i++) {
        f[i].name = lsim_scenario_gen_text(g, flag_names[i]);
        f[i].type = (lsim_mosaic_tpu_flag_type)lsim_scenario_gen_below(g, 3);
        f[i].b = lsim_scenario_gen_chance(g, 50);
        f[i].i = (int64_t)lsim_scenario_gen_below(g, 100) - 50;
        f[i].d = floats[lsim_scenario_gen_below(g, COUNT(floats))];
      }
      v->flags = f;
      v->num_flags = f ? n : 0;
      v->has_flags = v->num_flags > 0;
    }
  }
}

/* A block dimension of `n`: whole, or (mostly when it divides) a multiple
 * of `tile`; sometimes any divisor of `n` (which Mosaic TPU refuses with
 * its ValueError, the other backends lower); now and then one that does
 * not fit (lowersim's own refusal). */
static int64_t gen_block_dim(lsim_scenario_gen *g, int64_t n, int64_t tile) {
  if (lsim_scenario_gen_chance(g, 3))
    return 1 + (int64_t)lsim_scenario_gen_below(g, (uint64_t)n);
  if (lsim_scenario_gen_chance(g, 10)) {
    int64_t d = 1 + (int64_t)lsim_scenario_gen_below(g, (uint64_t)n);
    while (n % d)
      d++;
    return d;
  }
  int64_t k = tile * (lsim_scenario_gen_chance(g, 50) ? 1 : 2);
  return n % k == 0 && n > k && lsim_scenario_gen_chance(g, 60) ? k : n;
}

/* A 2-D kernel on a value `x` of the 2-D kind: tiled_add_one (blocks of
 * (8, 128) tiles, or any divisors), row_sum (whole rows, into (M, 1)),
 * gather_rows (an index array first, then whole rows); grid 1 (the blocks
 * make the grid). */
static void generate_2d(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  lsimp_pallas_call_params *lp = e->params;
  lsim_pallas_call_params *p = &lp->params;
  const char *kernel = lsim_scenario_gen_pick(g, kernels_2d, COUNT(kernels_2d));
  /* gather_rows mostly where an index array exists. */
  if (strcmp(kernel, "gather_rows") == 0 && !index_values(g, NULL) &&
      lsim_scenario_gen_chance(g, 75))
    kernel = lsim_scenario_gen_pick(g, kernels_2d, 2);
  bool reduction = strcmp(kernel, "row_sum") == 0, gather = strcmp(kernel, "gather_rows") == 0;
  size_t x = 0;
  find_2d(g, reduction, &x);
  lsim_aval a = g->values[x];
  e->args = lsim_scenario_gen_alloc(g, 2, sizeof *e->args);
  e->results = lsim_scenario_gen_alloc(g, 1, sizeof *e->results);
  if (!e->args || !e->results)
    return;
  if (gather)
    e->args[e->num_args++] = find_index(g);
  e->args[e->num_args++] = x;
  p->block[0] = gen_block_dim(g, a.dims[0], 8);
  p->block[1] = reduction || gather ? a.dims[1] : gen_block_dim(g, a.dims[1], 128);
  e->results[0] = a;
  if (reduction)
    e->results[0].dims[1] = 1;
  e->num_results = 1;
  p->kernel = lsim_scenario_gen_text(g, kernel);
  p->grid = 1;
  p->interpret = lsim_scenario_gen_chance(g, 20);
  p->compiler_params = params_classes[lsim_scenario_gen_below(g, COUNT(params_classes))].cls;
  /* The oracle's captured constant is like the whole array: one block only. */
  p->has_constants = p->block[0] == a.dims[0] && p->block[1] == a.dims[1] &&
                     lsim_scenario_gen_chance(g, 6);
  generate_arguments(g, lp, e->num_args);
}

/* Mostly a kernel that fits its operand; now and then one that does not. */
static void generate_eqn(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  lsim_pallas_call_params *p = &((lsimp_pallas_call_params *)e->params)->params;
  p->grid = 1;
  size_t v = 0;
  if (find_2d(g, false, &v) && lsim_scenario_gen_chance(g, 40)) {
    generate_2d(g, e);
    return;
  }
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
  generate_arguments(g, e->params, has_operand ? 1 : 0);
}

/* pltpu.CompilerParams's fields as given (the writer's: write_tpu). */
static void python_tpu_fields(lsimp_strbuf *sb, const lsim_mosaic_tpu_param_values *v) {
  if (v->has_vmem_limit_bytes)
    lsimp_strbuf_printf(sb, "'vmem_limit_bytes': %lld, ", (long long)v->vmem_limit_bytes);
  if (v->has_allow_input_fusion) {
    lsimp_strbuf_puts(sb, "'allow_input_fusion': [");
    for (size_t i = 0; i < v->num_allow_input_fusion; i++)
      lsimp_strbuf_printf(sb, "%s%s", i ? ", " : "", v->allow_input_fusion[i] ? "True" : "False");
    lsimp_strbuf_puts(sb, "], ");
  }
  static const char *const effects[] = {"false", "true", "dataflow"};
  if (v->has_side_effects != LSIM_TPU_PURE)
    lsimp_strbuf_printf(sb, "'has_side_effects': '%s', ", effects[v->has_side_effects]);
  if (v->has_internal_scratch_in_bytes)
    lsimp_strbuf_printf(sb, "'internal_scratch_in_bytes': %lld, ",
                        (long long)v->internal_scratch_in_bytes);
  if (v->disable_bounds_checks)
    lsimp_strbuf_puts(sb, "'disable_bounds_checks': True, ");
  if (v->disable_semaphore_checks)
    lsimp_strbuf_puts(sb, "'disable_semaphore_checks': True, ");
  if (v->skip_device_barrier)
    lsimp_strbuf_puts(sb, "'skip_device_barrier': True, ");
  if (v->shape_invariant_numerics_off)
    lsimp_strbuf_puts(sb, "'shape_invariant_numerics': False, ");
  if (v->needs_layout_passes_off)
    lsimp_strbuf_puts(sb, "'needs_layout_passes': False, ");
  if (v->has_flags) {
    lsimp_strbuf_puts(sb, "'flags': {");
    for (size_t i = 0; i < v->num_flags; i++) {
      const lsim_mosaic_tpu_flag *f = &v->flags[i];
      lsimp_strbuf_puts(sb, i ? ", " : "");
      lsimp_py_str(sb, f->name);
      if (f->type == LSIM_MOSAIC_TPU_FLAG_BOOL)
        lsimp_strbuf_printf(sb, ": %s", f->b ? "True" : "False");
      else if (f->type == LSIM_MOSAIC_TPU_FLAG_INT)
        lsimp_strbuf_printf(sb, ": %lld", (long long)f->i);
      else
        lsimp_strbuf_printf(sb, ": float('%.17g')", f->d);
    }
    lsimp_strbuf_puts(sb, "}, ");
  }
}

/* pallas(kernel, operands, out_shape, grid, ...): the program's helper
 * over pl.pallas_call (scenario/python.c), the params as given. */
static void python_eqn(lsimp_python *py, const lsim_scenario_eqn *e) {
  const lsimp_pallas_call_params *lp = e->params;
  const lsim_pallas_call_params *p = &lp->params;
  lsimp_strbuf *sb = &py->body;
  lsimp_strbuf_puts(sb, "  v += pallas(");
  lsimp_py_str(sb, p->kernel);
  lsimp_strbuf_puts(sb, ", [");
  lsimp_python_operands(py, e);
  lsimp_strbuf_puts(sb, "], [");
  for (size_t i = 0; i < e->num_results; i++) {
    lsimp_strbuf_puts(sb, i ? ", " : "");
    lsimp_python_struct(sb, &e->results[i]);
  }
  lsimp_strbuf_printf(sb, "], %lld", (long long)p->grid);
  if (p->block[0] || p->block[1])
    lsimp_strbuf_printf(sb, ", block=(%lld, %lld)", (long long)p->block[0],
                        (long long)p->block[1]);
  lsimp_strbuf_printf(sb, ", constants=%s, interpret=%s", p->has_constants ? "True" : "False",
                      p->interpret ? "True" : "False");
  const char *cls = p->compiler_params ? lsimp_compiler_params_name(p->compiler_params) : NULL;
  if (cls) {
    lsimp_strbuf_printf(sb, ", compiler_params=('%s', {", cls);
    if (lp->has_tpu)
      python_tpu_fields(sb, &lp->tpu);
    if (p->num_warps)
      lsimp_strbuf_printf(sb, "'num_warps': %lld, ", (long long)p->num_warps);
    if (p->num_stages)
      lsimp_strbuf_printf(sb, "'num_stages': %lld, ", (long long)p->num_stages);
    lsimp_strbuf_puts(sb, "})");
  }
  if (p->name) {
    lsimp_strbuf_puts(sb, ", name=");
    lsimp_py_str(sb, p->name);
  }
  if (p->has_metadata) {
    lsimp_strbuf_puts(sb, ", metadata={");
    for (size_t i = 0; i < p->num_metadata; i++) {
      lsimp_strbuf_puts(sb, i ? ", " : "");
      lsimp_py_str(sb, p->metadata[i].key);
      lsimp_strbuf_puts(sb, ": ");
      lsimp_py_str(sb, p->metadata[i].value);
    }
    lsimp_strbuf_putc(sb, '}');
  }
  if (lp->has_cost) {
    lsimp_strbuf_printf(sb, ", cost_estimate={'flops': %lld, 'transcendentals': %lld, "
                            "'bytes_accessed': %lld",
                        (long long)lp->cost.flops, (long long)lp->cost.transcendentals,
                        (long long)lp->cost.bytes_accessed);
    if (lp->cost.remote_bytes_transferred)
      lsimp_strbuf_printf(sb, ", 'remote_bytes_transferred': %lld",
                          (long long)lp->cost.remote_bytes_transferred);
    lsimp_strbuf_putc(sb, '}');
  }
  if (p->num_aliases) {
    lsimp_strbuf_puts(sb, ", input_output_aliases={");
    for (size_t i = 0; i < p->num_aliases; i++)
      lsimp_strbuf_printf(sb, "%s%lld: %lld", i ? ", " : "", (long long)p->aliases[i].input,
                          (long long)p->aliases[i].output);
    lsimp_strbuf_putc(sb, '}');
  }
  lsimp_strbuf_puts(sb, ")\n");
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
    .num_parts = num_parts,
    .drop_part = drop_part,
    .python = python_eqn,
};
