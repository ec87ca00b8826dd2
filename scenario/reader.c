/* scenario/reader.c: a valid scenario document becomes an lsim_scenario,
 * with what the schema cannot say checked on the way: numbers in range,
 * shapes and platform names well-formed, value indices naming values defined
 * before their use, operand counts and avals matching the op, error codes
 * known.
 *
 * Values are numbered as in a jaxpr: the args, then every result of every
 * equation in order.  The reader keeps a table of their avals as it goes. */
#include "lowersim/runtime.h"
#include "internal.h"
#include "support/raise.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
  const char *path;
  lsim_error *err;
  lsim_scenario *s;
  const lsim_aval **values; /* avals of the values defined so far (borrowed from s) */
  size_t num_values, cap_values;
} reader;

static int fail_at(reader *r, const xmlNode *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_at(reader *r, const xmlNode *node, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = lsim_input_failv(r->err, r->path, lsim_xml_line(node), fmt, ap);
  va_end(ap);
  return rc;
}

/* Re-raises a library check's complaint about attribute `name`="`value`"
 * of `node`; `detail` is cleared. */
static int fail_with_detail(reader *r, const xmlNode *node, const char *name, const char *value,
                            lsim_error *detail) {
  int rc = detail->code == LSIM_E_NO_MEMORY ? lsimp_fail_oom(r->err)
                                            : fail_at(r, node, "<%s> %s=\"%s\": %s", node->name,
                                                      name, value, lsim_error_message(detail));
  lsim_error_clear(detail);
  return rc;
}

static void *alloc_array(reader *r, size_t n, size_t size, int *rc) {
  void *p = n ? calloc(n, size) : NULL;
  *rc = n && !p ? lsimp_fail_oom(r->err) : LSIM_OK;
  return p;
}

/* --- Elements and attributes --------------------------------------------- */

static bool is_element(const xmlNode *n, const char *name) {
  return n && n->type == XML_ELEMENT_NODE && (!name || xmlStrEqual(n->name, BAD_CAST name));
}

static xmlNode *next_element(xmlNode *n) {
  while (n && n->type != XML_ELEMENT_NODE)
    n = n->next;
  return n;
}

#define for_each_child(child, parent)                                                              \
  for (xmlNode *child = next_element((parent)->children); child; child = next_element(child->next))

static xmlNode *find_child(const xmlNode *parent, const char *name) {
  for_each_child (c, parent) {
    if (is_element(c, name))
      return c;
  }
  return NULL;
}

static size_t count_children(const xmlNode *parent, const char *name) {
  size_t n = 0;
  for_each_child (c, parent) {
    n += is_element(c, name);
  }
  return n;
}

/* Reads one child element into `item`; `ctx` is the caller's. */
typedef int (*child_reader)(reader *r, const xmlNode *node, void *item, const void *ctx);

/* Reads the children named `name` or `other` (NULL: none), in document
 * order, into a new array of `size`-byte items; `*count` is its length even
 * when a child fails, so the scenario frees what was read. */
static void *read_children(reader *r, const xmlNode *parent, const char *name, const char *other,
                           size_t size, child_reader read, const void *ctx, size_t *count,
                           int *rc) {
  size_t n = count_children(parent, name) + (other ? count_children(parent, other) : 0);
  char *items = alloc_array(r, n, size, rc);
  *count = items ? n : 0;
  size_t i = 0;
  for_each_child (c, parent) {
    if (!*rc && (is_element(c, name) || (other && is_element(c, other))))
      *rc = read(r, c, items + size * i++, ctx);
  }
  return items;
}

/* `*out` receives the attribute's value (owned), or NULL when absent. */
static int attr_string(reader *r, const xmlNode *node, const char *name, char **out) {
  *out = NULL;
  xmlAttr *a = xmlHasNsProp(node, BAD_CAST name, NULL);
  if (!a)
    return LSIM_OK;
  xmlChar *value = xmlNodeGetContent((xmlNode *)a);
  *out = value ? strdup((const char *)value) : NULL;
  xmlFree(value);
  return *out ? LSIM_OK : lsimp_fail_oom(r->err);
}

/* As attr_string, for an attribute that must be present and not empty. */
static int attr_required(reader *r, const xmlNode *node, const char *name, char **out) {
  int rc = attr_string(r, node, name, out);
  if (!rc && !*out)
    rc = fail_at(r, node, "<%s> needs the attribute '%s'", node->name, name);
  else if (!rc && !**out)
    rc = fail_at(r, node, "<%s> %s=\"\" must not be empty", node->name, name);
  return rc;
}

/* A "true"/"false" attribute (the schema allows nothing else). */
static int attr_bool(reader *r, const xmlNode *node, const char *name, bool fallback, bool *out,
                     bool *present) {
  char *text;
  int rc = attr_string(r, node, name, &text);
  if (rc)
    return rc;
  *out = text ? strcmp(text, "true") == 0 : fallback;
  if (present)
    *present = text != NULL;
  if (text && !*out && strcmp(text, "false") != 0)
    rc = fail_at(r, node, "<%s> %s=\"%s\" is not true or false", node->name, name, text);
  free(text);
  return rc;
}

/* Strict decimal: an optional '-' and digits, nothing else, within range. */
static bool parse_decimal(const char *text, long long *out) {
  const char *digits = text[0] == '-' ? text + 1 : text;
  if (*digits < '0' || *digits > '9' || strspn(digits, "0123456789") != strlen(digits))
    return false;
  errno = 0;
  *out = strtoll(text, NULL, 10);
  return errno != ERANGE;
}

static int attr_int(reader *r, const xmlNode *node, const char *name, long long min, long long max,
                    long long fallback, long long *out, bool *present) {
  char *text;
  int rc = attr_string(r, node, name, &text);
  if (rc)
    return rc;
  *out = fallback;
  if (present)
    *present = text != NULL;
  if (text && (!parse_decimal(text, out) || *out < min || *out > max))
    rc = fail_at(r, node, "<%s> %s=\"%s\" is not an integer from %lld to %lld", node->name, name,
                 text, min, max);
  free(text);
  return rc;
}

/* `platform`, one name in attribute `name`="`value`", is well-formed
 * (lsim_check_platform_name: unknown names are for the lowering to report). */
static int check_platform(reader *r, const xmlNode *node, const char *name, const char *value,
                          const char *platform) {
  lsim_error detail = LSIM_ERROR_INIT;
  if (lsim_check_platform_name(platform, &detail))
    return fail_with_detail(r, node, name, value, &detail);
  return LSIM_OK;
}

/* A comma-separated list of platform names. */
static int check_platform_list(reader *r, const xmlNode *node, const char *name, const char *list) {
  lsimp_strbuf item = LSIMP_STRBUF_INIT;
  int rc = LSIM_OK;
  for (const char *p = list; !rc;) {
    size_t n = strcspn(p, ",");
    lsimp_strbuf_reset(&item);
    lsimp_strbuf_append(&item, p, n);
    rc = lsimp_strbuf_failed(&item) ? lsimp_fail_oom(r->err)
                                   : check_platform(r, node, name, list, lsimp_strbuf_cstr(&item));
    if (!p[n])
      break;
    p += n + 1;
  }
  lsimp_strbuf_free(&item);
  return rc;
}

/* An optional attribute holding one platform name, or a comma list. */
static int attr_platforms(reader *r, const xmlNode *node, const char *name, bool list, char **out) {
  int rc = attr_string(r, node, name, out);
  if (rc || !*out)
    return rc;
  return list ? check_platform_list(r, node, name, *out)
              : check_platform(r, node, name, *out, *out);
}

/* --- Values -------------------------------------------------------------- */

static int define_value(reader *r, const lsim_aval *aval) {
  if (r->num_values == r->cap_values) {
    size_t cap = r->cap_values ? r->cap_values * 2 : 64;
    const lsim_aval **grown = realloc(r->values, cap * sizeof *grown);
    if (!grown)
      return lsimp_fail_oom(r->err);
    r->values = grown;
    r->cap_values = cap;
  }
  r->values[r->num_values++] = aval;
  return LSIM_OK;
}

/* Parses value indices "0,2" ("" for none), each below r->num_values. */
static int parse_indices(reader *r, const xmlNode *node, const char *name, const char *text,
                         size_t **out, size_t *count) {
  size_t n = *text ? 1 : 0;
  for (const char *p = text; *p; p++)
    n += *p == ',';
  int rc;
  size_t *indices = alloc_array(r, n, sizeof *indices, &rc);
  const char *p = text;
  for (size_t i = 0; !rc && i < n; i++) {
    size_t len = strcspn(p, ",");
    char *end = NULL;
    errno = 0;
    unsigned long long v = len && p[0] >= '0' && p[0] <= '9' ? strtoull(p, &end, 10) : 0;
    if (!len || p[0] < '0' || p[0] > '9' || end != p + len || errno == ERANGE)
      rc = fail_at(r, node, "<%s> %s=\"%s\" is not a comma-separated list of value indices",
                   node->name, name, text);
    else if (v >= r->num_values)
      rc = fail_at(r, node,
                   "<%s> %s=\"%s\": value %llu is outside the range [0, %zu) of values defined "
                   "before it",
                   node->name, name, text, v, r->num_values);
    else
      indices[i] = (size_t)v;
    p += len + 1;
  }
  if (rc) {
    free(indices);
    return rc;
  }
  *out = indices;
  *count = n;
  return LSIM_OK;
}

/* dtype= and shape= of an <arg> or <result>. */
static int read_aval(reader *r, const xmlNode *node, lsim_aval *out) {
  char *dtype, *shape = NULL;
  int rc = attr_string(r, node, "dtype", &dtype);
  if (!rc)
    rc = attr_string(r, node, "shape", &shape);
  memset(out, 0, sizeof *out);
  if (!rc && (!dtype || !lsim_dtype_from_name(dtype, &out->dtype)))
    rc = fail_at(r, node, "<%s> dtype=\"%s\" is not a dtype JAX knows", node->name,
                 dtype ? dtype : "");
  lsim_error detail = LSIM_ERROR_INIT;
  if (!rc && !shape)
    rc = fail_at(r, node, "<%s> needs the attribute 'shape'", node->name);
  else if (!rc && lsim_aval_parse_shape(out, shape, &detail))
    rc = fail_with_detail(r, node, "shape", shape, &detail);
  free(dtype);
  free(shape);
  return rc;
}

static int read_result(reader *r, const xmlNode *node, void *item, const void *ctx) {
  (void)ctx;
  return read_aval(r, node, item);
}

static int read_results(reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  int rc;
  e->results = read_children(r, node, "result", NULL, sizeof *e->results, read_result, NULL,
                             &e->num_results, &rc);
  return rc;
}

/* An op's single result, implied: the aval of its (first) operand. */
static int implied_result(reader *r, lsim_scenario_eqn *e) {
  int rc;
  e->results = alloc_array(r, 1, sizeof *e->results, &rc);
  if (!rc) {
    e->num_results = 1;
    e->results[0] = *r->values[e->args[0]];
  }
  return rc;
}

/* `op` applied to the equation's operands: the arity matches and a binary
 * op's operands have equal avals (lax's add_p etc. do not broadcast). */
static int check_operands(reader *r, const xmlNode *node, const char *attr, lsim_op_kind op,
                          const lsim_scenario_eqn *e) {
  int arity = lsim_op_kind_arity(op);
  const char *name = lsim_op_kind_name(op);
  if ((size_t)arity != e->num_args)
    return fail_at(r, node, "<%s %s=\"%s\"> takes %d operand%s, not %zu", node->name, attr, name,
                   arity, arity == 1 ? "" : "s", e->num_args);
  if (arity == 2 && !lsim_aval_equal(r->values[e->args[0]], r->values[e->args[1]])) {
    char a[LSIM_AVAL_TEXT_MAX], b[LSIM_AVAL_TEXT_MAX];
    return fail_at(r, node, "<%s %s=\"%s\"> operands have different avals: %s and %s", node->name,
                   attr, name, lsim_aval_format(r->values[e->args[0]], a, sizeof a),
                   lsim_aval_format(r->values[e->args[1]], b, sizeof b));
  }
  return LSIM_OK;
}

static int attr_op_kind(reader *r, const xmlNode *node, const char *name, lsim_op_kind *out) {
  char *text;
  int rc = attr_required(r, node, name, &text);
  if (!rc && !lsim_op_kind_from_name(text, out))
    rc = fail_at(r, node, "<%s> %s=\"%s\" is not an op kind", node->name, name, text);
  free(text);
  return rc;
}

/* --- Equations ----------------------------------------------------------- */

static int read_op(reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  int rc = attr_op_kind(r, node, "kind", &e->op);
  if (!rc)
    rc = check_operands(r, node, "kind", e->op, e);
  return rc ? rc : implied_result(r, e);
}

/* A <rule platform target> or the <default target>. */
static int read_rule(reader *r, const xmlNode *node, void *item, const void *ctx) {
  (void)ctx;
  lsim_scenario_rule *rule = item;
  rule->line = (int)lsim_xml_line(node);
  int rc = LSIM_OK;
  if (is_element(node, "rule")) {
    rc = attr_required(r, node, "platform", &rule->platform);
    if (!rc)
      rc = check_platform(r, node, "platform", rule->platform, rule->platform);
  }
  return rc ? rc : attr_required(r, node, "target", &rule->target);
}

static int read_primitive(reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  char *access;
  int rc = attr_required(r, node, "name", &e->name);
  if (!rc)
    rc = attr_string(r, node, "backend_access", &access);
  if (rc)
    return rc;
  if (access && !lsim_backend_access_from_name(access, &e->backend_access))
    rc = fail_at(r, node, "<primitive> backend_access=\"%s\" is not none, required or optional",
                 access);
  free(access);
  if (rc)
    return rc;
  e->rules = read_children(r, node, "rule", "default", sizeof *e->rules, read_rule, NULL,
                           &e->num_rules, &rc);
  return rc ? rc : read_results(r, node, e);
}

/* A <branch platforms op> or the <default op>, applied to the operands of
 * the platform_dependent `ctx`. */
static int read_branch(reader *r, const xmlNode *node, void *item, const void *ctx) {
  const lsim_scenario_eqn *e = ctx;
  lsim_scenario_branch *b = item;
  b->line = (int)lsim_xml_line(node);
  int rc = LSIM_OK;
  if (is_element(node, "branch")) {
    rc = attr_required(r, node, "platforms", &b->platforms);
    if (!rc)
      rc = check_platform_list(r, node, "platforms", b->platforms);
  }
  if (!rc)
    rc = attr_op_kind(r, node, "op", &b->op);
  return rc ? rc : check_operands(r, node, "op", b->op, e);
}

/* lax.platform_dependent: every branch applies to the same operands, so the
 * result has the first operand's aval whichever branch is taken. */
static int read_platform_dependent(reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  int rc;
  e->branches = read_children(r, node, "branch", "default", sizeof *e->branches, read_branch, e,
                              &e->num_branches, &rc);
  if (!rc && !e->num_branches)
    rc = fail_at(r, node, "<platform_dependent> needs a <branch> element");
  return rc ? rc : implied_result(r, e);
}

static int read_alias(reader *r, const xmlNode *node, void *item, const void *ctx) {
  (void)ctx;
  lsim_scenario_alias *alias = item;
  alias->line = (int)lsim_xml_line(node);
  int rc = attr_int(r, node, "input", LLONG_MIN, LLONG_MAX, 0, &alias->input, NULL);
  return rc ? rc : attr_int(r, node, "output", LLONG_MIN, LLONG_MAX, 0, &alias->output, NULL);
}

/* Alias indices are kept as written: buffer_callback itself reports one out
 * of range (LSIM_E_ALIAS_INPUT_RANGE), as JAX does. */
static int read_buffer_callback(reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  int rc = attr_bool(r, node, "side_effect", false, &e->side_effect, NULL);
  if (!rc)
    rc = attr_bool(r, node, "command_buffer", false, &e->command_buffer, NULL);
  if (!rc)
    rc = attr_bool(r, node, "returns_value", false, &e->returns_value, NULL);
  if (!rc)
    rc = read_results(r, node, e);
  if (!rc)
    e->aliases = read_children(r, node, "alias", NULL, sizeof *e->aliases, read_alias, NULL,
                               &e->num_aliases, &rc);
  return rc;
}

static int read_pure_callback(reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  return read_results(r, node, e);
}

static int read_io_callback(reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  int rc = attr_bool(r, node, "ordered", false, &e->ordered, NULL);
  return rc ? rc : read_results(r, node, e);
}

static int read_debug_callback(reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  int rc = attr_bool(r, node, "ordered", false, &e->ordered, NULL);
  return rc ? rc : attr_bool(r, node, "partitioned", false, &e->partitioned, NULL);
}

static int read_pallas_call(reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  char *params = NULL;
  long long grid;
  int rc = attr_required(r, node, "kernel", &e->kernel);
  if (!rc)
    rc = attr_int(r, node, "grid", 1, LSIM_SCENARIO_MAX_GRID, 1, &grid, NULL);
  e->grid = rc ? 1 : (int64_t)grid;
  if (!rc)
    rc = attr_bool(r, node, "interpret", false, &e->interpret, NULL);
  if (!rc)
    rc = attr_bool(r, node, "constants", false, &e->has_constants, NULL);
  if (!rc)
    rc = attr_string(r, node, "compiler_params", &params);
  if (!rc && params && !lsim_compiler_params_from_name(params, &e->compiler_params))
    rc = fail_at(r, node, "<pallas_call> compiler_params=\"%s\" is not a known kind", params);
  free(params);
  return rc ? rc : read_results(r, node, e);
}

typedef int (*eqn_reader)(reader *r, const xmlNode *node, lsim_scenario_eqn *e);

static const eqn_reader eqn_readers[] = {
    [LSIM_EQN_OP] = read_op,
    [LSIM_EQN_PRIMITIVE] = read_primitive,
    [LSIM_EQN_PLATFORM_DEPENDENT] = read_platform_dependent,
    [LSIM_EQN_BUFFER_CALLBACK] = read_buffer_callback,
    [LSIM_EQN_PURE_CALLBACK] = read_pure_callback,
    [LSIM_EQN_IO_CALLBACK] = read_io_callback,
    [LSIM_EQN_DEBUG_CALLBACK] = read_debug_callback,
    [LSIM_EQN_PALLAS_CALL] = read_pallas_call,
};

static bool is_equation(const xmlNode *node) {
  lsim_scenario_eqn_kind kind;
  return is_element(node, NULL) &&
         lsim_scenario_eqn_kind_from_name((const char *)node->name, &kind);
}

static int read_eqn(reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  e->line = (int)lsim_xml_line(node);
  lsim_scenario_eqn_kind_from_name((const char *)node->name, &e->kind);
  e->grid = 1;
  char *args;
  int rc = attr_string(r, node, "args", &args);
  if (!rc && !args)
    rc = fail_at(r, node, "<%s> needs the attribute 'args'", node->name);
  if (!rc)
    rc = parse_indices(r, node, "args", args, &e->args, &e->num_args);
  free(args);
  if (!rc)
    rc = eqn_readers[e->kind](r, node, e);
  for (size_t i = 0; !rc && i < e->num_results; i++)
    rc = define_value(r, &e->results[i]);
  return rc;
}

/* --- The document -------------------------------------------------------- */

static int read_backend(reader *r, const xmlNode *node, void *item, const void *ctx) {
  (void)ctx;
  lsim_scenario_backend *b = item;
  long long devices, priority;
  b->line = (int)lsim_xml_line(node);
  int rc = attr_required(r, node, "platform", &b->platform);
  if (!rc)
    rc = check_platform(r, node, "platform", b->platform, b->platform);
  if (!rc && lsim_is_platform_alias(b->platform))
    rc =
        fail_at(r, node, "<backend> platform=\"%s\" is an alias, not a platform a backend can have",
                b->platform);
  if (!rc)
    rc = attr_int(r, node, "devices", 0, LSIM_SCENARIO_MAX_DEVICES, 1, &devices, NULL);
  if (!rc)
    rc = attr_int(r, node, "priority", -LSIM_SCENARIO_MAX_PRIORITY, LSIM_SCENARIO_MAX_PRIORITY, 0,
                  &priority, &b->has_priority);
  if (!rc)
    rc = attr_bool(r, node, "fail_quietly", false, &b->fail_quietly, &b->has_fail_quietly);
  if (!rc)
    rc = attr_string(r, node, "error", &b->error);
  b->devices = rc ? 1 : (int)devices;
  b->priority = rc ? 0 : (int)priority;
  return rc;
}

static int read_runtime(reader *r, const xmlNode *node) {
  lsim_scenario_runtime *rt = &r->s->runtime;
  rt->present = true;
  int rc = attr_string(r, node, "jax_platforms", &rt->jax_platforms);
  if (!rc && rt->jax_platforms && *rt->jax_platforms)
    rc = check_platform_list(r, node, "jax_platforms", rt->jax_platforms);
  if (!rc)
    rt->backends = read_children(r, node, "backend", NULL, sizeof *rt->backends, read_backend, NULL,
                                 &rt->num_backends, &rc);
  return rc;
}

static int read_pallas(reader *r, const xmlNode *node) {
  lsim_scenario_pallas *p = &r->s->pallas;
  r->s->has_pallas = true;
  int rc = attr_bool(r, node, "mosaic_tpu", true, &p->mosaic_tpu, NULL);
  if (!rc)
    rc = attr_bool(r, node, "triton", true, &p->triton, NULL);
  if (!rc)
    rc = attr_bool(r, node, "mosaic_gpu", true, &p->mosaic_gpu, NULL);
  return rc ? rc : attr_bool(r, node, "use_mosaic_gpu", false, &p->use_mosaic_gpu, NULL);
}

static int read_arg(reader *r, const xmlNode *node, lsim_scenario_arg *arg) {
  arg->line = (int)lsim_xml_line(node);
  int rc = read_aval(r, node, &arg->aval);
  if (!rc)
    rc = attr_bool(r, node, "donated", false, &arg->donated, NULL);
  return rc ? rc : define_value(r, &arg->aval);
}

static int read_return(reader *r, const xmlNode *node) {
  char *values;
  r->s->has_return = true;
  r->s->return_line = (int)lsim_xml_line(node);
  int rc = attr_string(r, node, "values", &values);
  if (!rc && !values)
    rc = fail_at(r, node, "<return> needs the attribute 'values'");
  if (!rc)
    rc = parse_indices(r, node, "values", values, &r->s->returns, &r->s->num_returns);
  free(values);
  return rc;
}

static int read_lower_attributes(reader *r, const xmlNode *node) {
  lsim_scenario *s = r->s;
  s->lower_line = (int)lsim_xml_line(node);
  int rc = attr_string(r, node, "function", &s->function);
  if (!rc && s->function && !*s->function)
    rc = fail_at(r, node, "<lower> function=\"\" must not be empty");
  if (!rc && !s->function && !(s->function = strdup("f")))
    rc = lsimp_fail_oom(r->err);
  if (!rc)
    rc = attr_platforms(r, node, "platforms", true, &s->platforms);
  return rc ? rc : attr_platforms(r, node, "backend", false, &s->backend);
}

static int read_lower(reader *r, const xmlNode *node) {
  lsim_scenario *s = r->s;
  int rc = read_lower_attributes(r, node);
  if (rc)
    return rc;
  size_t num_args = count_children(node, "arg"), num_eqns = 0;
  for_each_child (c, node) {
    num_eqns += is_equation(c);
  }
  s->args = alloc_array(r, num_args, sizeof *s->args, &rc);
  s->num_args = s->args ? num_args : 0;
  if (!rc)
    s->eqns = alloc_array(r, num_eqns, sizeof *s->eqns, &rc);
  s->num_eqns = s->eqns ? num_eqns : 0;
  size_t arg = 0, eqn = 0;
  for_each_child (c, node) {
    if (rc)
      break;
    if (is_element(c, "arg"))
      rc = read_arg(r, c, &s->args[arg++]);
    else if (is_equation(c))
      rc = read_eqn(r, c, &s->eqns[eqn++]);
    else if (is_element(c, "return"))
      rc = read_return(r, c);
  }
  return rc;
}

/* The text content of an element, exactly as written. */
static int read_text(reader *r, const xmlNode *node, void *item, const void *ctx) {
  (void)ctx;
  char **out = item;
  xmlChar *text = xmlNodeGetContent(node);
  *out = text ? strdup((const char *)text) : NULL;
  xmlFree(text);
  return *out ? LSIM_OK : lsimp_fail_oom(r->err);
}

/* error="CODE" (message= optional), or ok="true" with <contains>/<absent>. */
static int check_expect(reader *r, const xmlNode *node) {
  const lsim_scenario_expect *x = &r->s->expect;
  if (x->error && lsim_status_from_name(x->error) == LSIM_OK)
    return fail_at(r, node,
                   "<expect> error=\"%s\" is not a lowersim error code (see `lowersim errors`)",
                   x->error);
  if (x->error && x->ok)
    return fail_at(r, node, "<expect> cannot have both error= and ok=\"true\"");
  if (!x->error && !x->ok)
    return fail_at(r, node, "<expect> needs error=\"CODE\" or ok=\"true\"");
  if (x->message && !x->error)
    return fail_at(r, node, "<expect> message= goes with error=, not ok=\"true\"");
  if (x->error && (x->num_contains || x->num_absent))
    return fail_at(
        r, node,
        "<expect error=\"%s\"> cannot have <contains> or <absent>: they check the module "
        "of a successful lowering",
        x->error);
  return LSIM_OK;
}

static int read_expect(reader *r, const xmlNode *node) {
  lsim_scenario_expect *x = &r->s->expect;
  x->present = true;
  x->line = (int)lsim_xml_line(node);
  int rc = attr_string(r, node, "error", &x->error);
  if (!rc)
    rc = attr_string(r, node, "message", &x->message);
  if (!rc)
    rc = attr_bool(r, node, "ok", false, &x->ok, NULL);
  if (!rc)
    x->contains = read_children(r, node, "contains", NULL, sizeof *x->contains, read_text, NULL,
                                &x->num_contains, &rc);
  if (!rc)
    x->absent = read_children(r, node, "absent", NULL, sizeof *x->absent, read_text, NULL,
                              &x->num_absent, &rc);
  return rc ? rc : check_expect(r, node);
}

static int read_scenario(reader *r, const xmlNode *root) {
  lsim_scenario *s = r->s;
  s->pallas = (lsim_scenario_pallas){.mosaic_tpu = true, .triton = true, .mosaic_gpu = true};
  int rc = attr_required(r, root, "name", &s->name);
  const xmlNode *lower = find_child(root, "lower");
  if (!rc && !lower)
    rc = fail_at(r, root, "<scenario> needs a <lower> element");
  for_each_child (c, root) {
    if (rc)
      break;
    if (is_element(c, "description"))
      rc = read_text(r, c, &s->description, NULL);
    else if (is_element(c, "runtime"))
      rc = read_runtime(r, c);
    else if (is_element(c, "pallas"))
      rc = read_pallas(r, c);
    else if (is_element(c, "lower"))
      rc = read_lower(r, c);
    else if (is_element(c, "execute"))
      s->execute = true;
    else if (is_element(c, "expect"))
      rc = read_expect(r, c);
  }
  return rc;
}

/* --- Entry points -------------------------------------------------------- */

int lsim_scenario_read_memory(const char *data, size_t size, const char *name, lsim_scenario **out,
                              lsim_error *err) {
  if (!out || (!data && size))
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_scenario_read_memory: NULL argument");
  *out = NULL;
  const char *path = name ? name : "<memory>";
  xmlDocPtr doc;
  int rc = lsim_scenario_parse(path, data ? data : "", size, &doc, err);
  if (rc)
    return rc;
  reader r = {.path = path, .err = err, .s = calloc(1, sizeof(lsim_scenario))};
  if (!r.s || !(r.s->path = strdup(path)))
    rc = lsimp_fail_oom(err);
  else
    rc = read_scenario(&r, xmlDocGetRootElement(doc));
  free(r.values);
  xmlFreeDoc(doc);
  if (rc) {
    lsim_scenario_destroy(r.s);
    return rc;
  }
  *out = r.s;
  return LSIM_OK;
}

int lsim_scenario_read_file(const char *path, lsim_scenario **out, lsim_error *err) {
  if (!path || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_scenario_read_file: NULL argument");
  *out = NULL;
  char *data;
  size_t size;
  int rc = lsim_scenario_load_file(path, &data, &size, err);
  if (rc)
    return rc;
  rc = lsim_scenario_read_memory(data, size, path, out, err);
  free(data);
  return rc;
}
