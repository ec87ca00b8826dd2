/* scenario/reader.c: a valid scenario document becomes an lsim_scenario:
 * the runtime, the Pallas flags, the lowering and its arguments, each
 * equation by its kind (scenario_kind.c), the return and the expectation;
 * what the schema cannot say is checked on the way (elements.c).
 *
 * Values are numbered as in a jaxpr: the args, then every result of every
 * equation in order.  The reader keeps a table of their avals as it goes. */
#include "internal.h"
#include "lowersim/alloc.h"
#include "lowersim/jax_profile.h"
#include "lowersim/runtime.h"
#include "support/raise.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static xmlNode *find_child(const xmlNode *parent, const char *name) {
  lsimp_for_each_child (c, parent) {
    if (lsimp_is_element(c, name))
      return c;
  }
  return NULL;
}

/* --- The document -------------------------------------------------------- */
static int read_backend(lsimp_reader *r, const xmlNode *node, void *item, const void *ctx) {
  (void)ctx;
  lsim_scenario_backend *b = item;
  long long devices, priority;
  b->line = (int)lsimp_xml_line(node);
  int rc = lsimp_attr_required(r, node, "platform", &b->platform);
  if (!rc)
    rc = lsimp_check_platform(r, node, "platform", b->platform, b->platform);
  if (!rc && lsim_is_platform_alias(b->platform))
    rc =
        lsimp_read_fail(r, node, "<backend> platform=\"%s\" is an alias, not a platform a backend can have",
                b->platform);
  if (!rc)
    rc = lsimp_attr_int(r, node, "devices", 0, LSIM_SCENARIO_MAX_DEVICES, 1, &devices, NULL);
  if (!rc)
    rc = lsimp_attr_int(r, node, "priority", -LSIM_SCENARIO_MAX_PRIORITY, LSIM_SCENARIO_MAX_PRIORITY, 0,
                  &priority, &b->has_priority);
  if (!rc)
    rc = lsimp_attr_bool(r, node, "fail_quietly", false, &b->fail_quietly, &b->has_fail_quietly);
  if (!rc)
    rc = lsimp_attr_string(r, node, "error", &b->error);
  if (!rc)
    rc = lsimp_attr_string(r, node, "device_kind", &b->device_kind);
  if (!rc)
    rc = lsimp_attr_string(r, node, "compute_capability", &b->compute_capability);
  b->devices = rc ? 1 : (int)devices;
  b->priority = rc ? 0 : (int)priority;
  return rc;
}

static int read_runtime(lsimp_reader *r, const xmlNode *node) {
  lsim_scenario_runtime *rt = &r->s->runtime;
  rt->present = true;
  int rc = lsimp_attr_string(r, node, "jax_platforms", &rt->jax_platforms);
  if (!rc && rt->jax_platforms && *rt->jax_platforms)
    rc = lsimp_check_platform_list(r, node, "jax_platforms", rt->jax_platforms);
  if (!rc)
    rt->backends = lsimp_read_children(r, node, "backend", NULL, sizeof *rt->backends, read_backend, NULL,
                                 &rt->num_backends, &rc);
  return rc;
}

static int read_pallas(lsimp_reader *r, const xmlNode *node) {
  lsim_pallas_installed *p = &r->s->pallas;
  r->s->has_pallas = true;
  r->s->pallas_line = (int)lsimp_xml_line(node);
  int rc = lsimp_attr_bool(r, node, "mosaic_tpu", true, &p->mosaic_tpu, NULL);
  if (!rc)
    rc = lsimp_attr_bool(r, node, "triton", true, &p->triton, NULL);
  if (!rc)
    rc = lsimp_attr_bool(r, node, "mosaic_gpu", true, &p->mosaic_gpu, NULL);
  return rc ? rc
            : lsimp_attr_bool(r, node, "use_mosaic_gpu", true, &p->use_mosaic_gpu,
                              &r->s->has_use_mosaic_gpu);
}

static int read_arg(lsimp_reader *r, const xmlNode *node, lsim_scenario_arg *arg) {
  arg->line = (int)lsimp_xml_line(node);
  int rc = lsimp_read_aval(r, node, &arg->aval);
  if (!rc)
    rc = lsimp_attr_bool(r, node, "donated", false, &arg->donated, NULL);
  return rc ? rc : lsimp_define_value(r, &arg->aval);
}

/* <abstract_device platform device_kind num_cores>. */
static int read_abstract_device(lsimp_reader *r, const xmlNode *node) {
  lsim_scenario *s = r->s;
  lsim_abstract_device *d = &s->abstract_device;
  char *platform = NULL, *kind = NULL;
  long long cores;
  s->has_abstract_device = true;
  s->abstract_device_line = (int)lsimp_xml_line(node);
  int rc = lsimp_attr_required(r, node, "platform", &platform);
  d->platform = platform;
  if (!rc)
    rc = lsimp_check_platform(r, node, "platform", platform, platform);
  if (!rc)
    rc = lsimp_attr_required(r, node, "device_kind", &kind);
  d->device_kind = kind;
  if (!rc)
    rc = lsimp_attr_int(r, node, "num_cores", 1, 1 << 20, 0, &cores, NULL);
  d->num_cores = rc ? 0 : (int)cores;
  return rc;
}

static int read_return(lsimp_reader *r, const xmlNode *node) {
  char *values;
  r->s->has_return = true;
  r->s->return_line = (int)lsimp_xml_line(node);
  int rc = lsimp_attr_string(r, node, "values", &values);
  if (!rc && !values)
    rc = lsimp_read_fail(r, node, "<return> needs the attribute 'values'");
  if (!rc)
    rc = lsimp_parse_indices(r, node, "values", values, &r->s->returns, &r->s->num_returns);
  free(values);
  return rc;
}

/* disabled_checks="custom_call:t,platform": each as str(DisabledSafetyCheck). */
static int read_disabled_checks(lsimp_reader *r, const xmlNode *node, const char *list) {
  if (!list || !*list)
    return LSIM_OK;
  char *copy = lsim_strdup(list);
  if (!copy)
    return lsimp_fail_oom(r->err);
  int rc = LSIM_OK;
  for (char *item = copy; item && !rc;) {
    char *comma = strchr(item, ',');
    if (comma)
      *comma = '\0';
    lsim_error detail = LSIM_ERROR_INIT;
    if (lsim_check_disabled_safety_check(item, &detail))
      rc = lsimp_read_fail(r, node, "<lower> disabled_checks=\"%s\": %s", list,
                           lsim_error_message(&detail));
    lsim_error_clear(&detail);
    item = comma ? comma + 1 : NULL;
  }
  free(copy);
  return rc;
}

static int read_lower_attributes(lsimp_reader *r, const xmlNode *node) {
  lsim_scenario *s = r->s;
  s->lower_line = (int)lsimp_xml_line(node);
  int rc = lsimp_attr_string(r, node, "function", &s->function);
  if (!rc && s->function && !*s->function)
    rc = lsimp_read_fail(r, node, "<lower> function=\"\" must not be empty");
  if (!rc && !s->function && !(s->function = lsim_strdup("f")))
    rc = lsimp_fail_oom(r->err);
  if (!rc)
    rc = lsimp_attr_platforms(r, node, "platforms", true, &s->platforms);
  long long devices = 0;
  if (!rc)
    rc = lsimp_attr_int(r, node, "devices", 1, LSIM_SCENARIO_MAX_DEVICES, 0, &devices, NULL);
  s->devices = (int)devices;
  if (!rc)
    rc = lsimp_attr_platforms(r, node, "backend", false, &s->backend);
  if (!rc)
    rc = lsimp_attr_bool(r, node, "keep_unused", false, &s->keep_unused, NULL);
  if (!rc)
    rc = lsimp_attr_bool(r, node, "enable_x64", false, &s->enable_x64, &s->has_enable_x64);
  if (!rc)
    rc = lsimp_attr_bool(r, node, "export", false, &s->for_export, NULL);
  if (!rc)
    rc = lsimp_attr_string(r, node, "disabled_checks", &s->disabled_checks);
  if (!rc && s->disabled_checks && !s->for_export)
    rc = lsimp_read_fail(r, node, "<lower> disabled_checks= goes with export=\"true\"");
  return rc ? rc : read_disabled_checks(r, node, s->disabled_checks);
}

static int read_lower(lsimp_reader *r, const xmlNode *node) {
  lsim_scenario *s = r->s;
  int rc = read_lower_attributes(r, node);
  if (rc)
    return rc;
  size_t num_args = lsimp_count_children(node, "arg"), num_eqns = 0;
  lsimp_for_each_child (c, node) {
    num_eqns += lsimp_is_element(c, NULL) && lsim_scenario_kind_find((const char *)c->name);
  }
  s->args = lsimp_read_alloc(r, num_args, sizeof *s->args, &rc);
  s->num_args = s->args ? num_args : 0;
  if (!rc)
    s->eqns = lsimp_read_alloc(r, num_eqns, sizeof *s->eqns, &rc);
  s->num_eqns = s->eqns ? num_eqns : 0;
  size_t arg = 0, eqn = 0;
  lsimp_for_each_child (c, node) {
    if (rc)
      break;
    if (lsimp_is_element(c, "arg"))
      rc = read_arg(r, c, &s->args[arg++]);
    else if (lsim_scenario_kind_find((const char *)c->name))
      rc = lsimp_read_eqn(r, c, &s->eqns[eqn++]);
    else if (lsimp_is_element(c, "return"))
      rc = read_return(r, c);
    else if (lsimp_is_element(c, "abstract_device"))
      rc = read_abstract_device(r, c);
  }
  if (!rc && s->has_enable_x64 && !s->enable_x64 && lsim_scenario_has_64bit_values(s))
    rc = lsimp_read_fail(r, node,
                         "<lower enable_x64=\"false\"> has a 64-bit value: JAX without "
                         "jax_enable_x64 has no 64-bit arrays");
  return rc;
}

/* The text content of an element, exactly as written. */
static int read_text(lsimp_reader *r, const xmlNode *node, void *item, const void *ctx) {
  (void)ctx;
  char **out = item;
  xmlChar *text = xmlNodeGetContent(node);
  *out = text ? lsim_strdup((const char *)text) : NULL;
  xmlFree(text);
  return *out ? LSIM_OK : lsimp_fail_oom(r->err);
}

/* error="CODE" (message= optional), or ok="true" with <contains>/<absent>. */
static int check_expect(lsimp_reader *r, const xmlNode *node) {
  const lsim_scenario_expect *x = &r->s->expect;
  if (x->error && lsim_status_from_name(x->error) == LSIM_OK)
    return lsimp_read_fail(r, node,
                   "<expect> error=\"%s\" is not a lowersim error code (see `lowersim errors`)",
                   x->error);
  if (x->error && x->ok)
    return lsimp_read_fail(r, node, "<expect> cannot have both error= and ok=\"true\"");
  if (!x->error && !x->ok)
    return lsimp_read_fail(r, node, "<expect> needs error=\"CODE\" or ok=\"true\"");
  if (x->message && !x->error)
    return lsimp_read_fail(r, node, "<expect> message= goes with error=, not ok=\"true\"");
  if (x->error && (x->num_contains || x->num_absent))
    return lsimp_read_fail(
        r, node,
        "<expect error=\"%s\"> cannot have <contains> or <absent>: they check the module "
        "of a successful lowering",
        x->error);
  return LSIM_OK;
}

static int read_expect(lsimp_reader *r, const xmlNode *node) {
  lsim_scenario_expect *x = &r->s->expect;
  x->present = true;
  x->line = (int)lsimp_xml_line(node);
  int rc = lsimp_attr_string(r, node, "error", &x->error);
  if (!rc)
    rc = lsimp_attr_string(r, node, "message", &x->message);
  if (!rc)
    rc = lsimp_attr_bool(r, node, "ok", false, &x->ok, NULL);
  if (!rc)
    x->contains = lsimp_read_children(r, node, "contains", NULL, sizeof *x->contains, read_text, NULL,
                                &x->num_contains, &rc);
  if (!rc)
    x->absent = lsimp_read_children(r, node, "absent", NULL, sizeof *x->absent, read_text, NULL,
                              &x->num_absent, &rc);
  if (!rc)
    x->warnings = lsimp_read_children(r, node, "warning", NULL, sizeof *x->warnings, read_text,
                                      NULL, &x->num_warnings, &rc);
  return rc ? rc : check_expect(r, node);
}

/* jax="0.10.2": one of the profiles lowersim models. */
static int read_jax(lsimp_reader *r, const xmlNode *root) {
  int rc = lsimp_attr_string(r, root, "jax", &r->s->jax);
  if (rc || !r->s->jax || lsim_jax_profile_find(r->s->jax))
    return rc;
  lsimp_strbuf known = LSIMP_STRBUF_INIT;
  for (size_t i = 0; i < lsim_jax_profile_count(); i++)
    lsimp_strbuf_printf(&known, "%s%s", i ? ", " : "", lsim_jax_profile_at(i)->name);
  rc = lsimp_strbuf_failed(&known)
           ? lsimp_fail_oom(r->err)
           : lsimp_read_fail(r, root,
                             "<scenario> jax=\"%s\" is not a JAX version lowersim models (%s; "
                             "see `lowersim versions`)",
                             r->s->jax, lsimp_strbuf_cstr(&known));
  lsimp_strbuf_free(&known);
  return rc;
}

/* The first <lower> fills the scenario; each later one starts the next
 * lowering of the session (a node of its own, whose <execute/> and
 * <expect> follow it), with value numbering from 0 again. */
static int read_session_lower(lsimp_reader *r, const xmlNode *node) {
  if (r->s->lower_line) {
    if (r->s->step >= LSIM_SCENARIO_MAX_LOWERINGS)
      return lsimp_read_fail(r, node, "a session has at most %d <lower> elements",
                             LSIM_SCENARIO_MAX_LOWERINGS);
    lsim_scenario *next = lsim_calloc(1, sizeof *next);
    if (!next || !(next->path = lsim_strdup(r->path))) {
      free(next);
      return lsimp_fail_oom(r->err);
    }
    next->step = r->s->step + 1;
    next->pallas = lsim_scenario_default_pallas();
    r->s->next = next;
    r->s = next;
    r->num_values = 0;
  }
  return read_lower(r, node);
}

static int read_scenario(lsimp_reader *r, const xmlNode *root) {
  lsim_scenario *s = r->s;
  s->pallas = lsim_scenario_default_pallas();
  int rc = lsimp_attr_required(r, root, "name", &s->name);
  if (!rc)
    rc = read_jax(r, root);
  const xmlNode *lower = find_child(root, "lower");
  if (!rc && !lower)
    rc = lsimp_read_fail(r, root, "<scenario> needs a <lower> element");
  lsimp_for_each_child (c, root) {
    if (rc)
      break;
    if (lsimp_is_element(c, "description"))
      rc = read_text(r, c, &s->description, NULL);
    else if (lsimp_is_element(c, "runtime"))
      rc = read_runtime(r, c);
    else if (lsimp_is_element(c, "pallas"))
      rc = read_pallas(r, c);
    else if (lsimp_is_element(c, "lower"))
      rc = read_session_lower(r, c);
    else if (lsimp_is_element(c, "execute"))
      r->s->execute = true; /* the current lowering's */
    else if (lsimp_is_element(c, "expect"))
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
  int rc = lsimp_scenario_parse(path, data ? data : "", size, &doc, err);
  if (rc)
    return rc;
  lsimp_reader r = {.path = path, .err = err, .s = lsim_calloc(1, sizeof(lsim_scenario))};
  if (!r.s || !(r.s->path = lsim_strdup(path)))
    rc = lsimp_fail_oom(err);
  else {
    lsim_scenario *head = r.head = r.s;
    head->step = 1;
    rc = read_scenario(&r, xmlDocGetRootElement(doc));
    r.s = head;
  }
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
  int rc = lsimp_scenario_load_file(path, &data, &size, err);
  if (rc)
    return rc;
  rc = lsim_scenario_read_memory(data, size, path, out, err);
  free(data);
  return rc;
}
