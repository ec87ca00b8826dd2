/* scenario/elements.c: the elements and attributes every part of the format
 * shares (booleans, integers, platform lists, value indices, avals, an
 * equation's <result>s), read with what the schema cannot say checked
 * (numbers in range, shapes and platform names well-formed, value indices
 * naming values defined before their use), and written back, every
 * attribute explicit. */
#include "internal.h"
#include "support/raise.h"

#include "lowersim/alloc.h"

#include <libxml/chvalid.h>
#include <libxml/xmlwriter.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* --- Reading --------------------------------------------------------------- */

int lsimp_read_fail(lsimp_reader *r, const xmlNode *node, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = lsimp_input_failv(r->err, r->path, lsimp_xml_line(node), fmt, ap);
  va_end(ap);
  return rc;
}

/* Re-raises a library check's complaint about attribute `name`="`value`"
 * of `node`; `detail` is cleared. */
int lsimp_read_fail_detail(lsimp_reader *r, const xmlNode *node, const char *name, const char *value,
                            lsim_error *detail) {
  int rc = detail->code == LSIM_E_NO_MEMORY ? lsimp_fail_oom(r->err)
                                            : lsimp_read_fail(r, node, "<%s> %s=\"%s\": %s", node->name,
                                                      name, value, lsim_error_message(detail));
  lsim_error_clear(detail);
  return rc;
}

void *lsimp_read_alloc(lsimp_reader *r, size_t n, size_t size, int *rc) {
  void *p = n ? lsim_calloc(n, size) : NULL;
  *rc = n && !p ? lsimp_fail_oom(r->err) : LSIM_OK;
  return p;
}

/* --- Elements and attributes --------------------------------------------- */
bool lsimp_is_element(const xmlNode *n, const char *name) {
  return n && n->type == XML_ELEMENT_NODE && (!name || xmlStrEqual(n->name, BAD_CAST name));
}

xmlNode *lsimp_next_element(xmlNode *n) {
  while (n && n->type != XML_ELEMENT_NODE)
    n = n->next;
  return n;
}

size_t lsimp_count_children(const xmlNode *parent, const char *name) {
  size_t n = 0;
  lsimp_for_each_child (c, parent) {
    n += lsimp_is_element(c, name);
  }
  return n;
}

/* Reads the children named `name` or `other` (NULL: none), in document
 * order, into a new array of `size`-byte items; `*count` is its length even
 * when a child fails, so the scenario frees what was read. */
void *lsimp_read_children(lsimp_reader *r, const xmlNode *parent, const char *name, const char *other,
                           size_t size, lsimp_child_reader read, const void *ctx, size_t *count,
                           int *rc) {
  size_t n = lsimp_count_children(parent, name) + (other ? lsimp_count_children(parent, other) : 0);
  char *items = lsimp_read_alloc(r, n, size, rc);
  *count = items ? n : 0;
  size_t i = 0;
  lsimp_for_each_child (c, parent) {
    if (!*rc && (lsimp_is_element(c, name) || (other && lsimp_is_element(c, other))))
      *rc = read(r, c, items + size * i++, ctx);
  }
  return items;
}

/* `*out` receives the attribute's value (owned), or NULL when absent. */
int lsimp_attr_string(lsimp_reader *r, const xmlNode *node, const char *name, char **out) {
  *out = NULL;
  xmlAttr *a = xmlHasNsProp(node, BAD_CAST name, NULL);
  if (!a)
    return LSIM_OK;
  xmlChar *value = xmlNodeGetContent((xmlNode *)a);
  *out = value ? lsim_strdup((const char *)value) : NULL;
  xmlFree(value);
  return *out ? LSIM_OK : lsimp_fail_oom(r->err);
}

/* As lsimp_attr_string, for an attribute that must be present and not empty. */
int lsimp_attr_required(lsimp_reader *r, const xmlNode *node, const char *name, char **out) {
  int rc = lsimp_attr_string(r, node, name, out);
  if (!rc && !*out)
    rc = lsimp_read_fail(r, node, "<%s> needs the attribute '%s'", node->name, name);
  else if (!rc && !**out)
    rc = lsimp_read_fail(r, node, "<%s> %s=\"\" must not be empty", node->name, name);
  return rc;
}

/* A "true"/"false" attribute (the schema allows nothing else). */
int lsimp_attr_bool(lsimp_reader *r, const xmlNode *node, const char *name, bool fallback, bool *out,
                     bool *present) {
  char *text;
  int rc = lsimp_attr_string(r, node, name, &text);
  if (rc)
    return rc;
  *out = text ? strcmp(text, "true") == 0 : fallback;
  if (present)
    *present = text != NULL;
  if (text && !*out && strcmp(text, "false") != 0)
    rc = lsimp_read_fail(r, node, "<%s> %s=\"%s\" is not true or false", node->name, name, text);
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

int lsimp_attr_int(lsimp_reader *r, const xmlNode *node, const char *name, long long min, long long max,
                    long long fallback, long long *out, bool *present) {
  char *text;
  int rc = lsimp_attr_string(r, node, name, &text);
  if (rc)
    return rc;
  *out = fallback;
  if (present)
    *present = text != NULL;
  if (text && (!parse_decimal(text, out) || *out < min || *out > max))
    rc = lsimp_read_fail(r, node, "<%s> %s=\"%s\" is not an integer from %lld to %lld", node->name, name,
                 text, min, max);
  free(text);
  return rc;
}

/* `platform`, one name in attribute `name`="`value`", is well-formed
 * (lsim_check_platform_name: unknown names are for the lowering to report). */
int lsimp_check_platform(lsimp_reader *r, const xmlNode *node, const char *name, const char *value,
                          const char *platform) {
  lsim_error detail = LSIM_ERROR_INIT;
  if (lsim_check_platform_name(platform, &detail))
    return lsimp_read_fail_detail(r, node, name, value, &detail);
  return LSIM_OK;
}

/* A comma-separated list of platform names. */
int lsimp_check_platform_list(lsimp_reader *r, const xmlNode *node, const char *name, const char *list) {
  lsimp_strbuf item = LSIMP_STRBUF_INIT;
  int rc = LSIM_OK;
  for (const char *p = list; !rc;) {
    size_t n = strcspn(p, ",");
    lsimp_strbuf_reset(&item);
    lsimp_strbuf_append(&item, p, n);
    rc = lsimp_strbuf_failed(&item) ? lsimp_fail_oom(r->err)
                                   : lsimp_check_platform(r, node, name, list, lsimp_strbuf_cstr(&item));
    if (!p[n])
      break;
    p += n + 1;
  }
  lsimp_strbuf_free(&item);
  return rc;
}

/* An optional attribute holding one platform name, or a comma list. */
int lsimp_attr_platforms(lsimp_reader *r, const xmlNode *node, const char *name, bool list, char **out) {
  int rc = lsimp_attr_string(r, node, name, out);
  if (rc || !*out)
    return rc;
  return list ? lsimp_check_platform_list(r, node, name, *out)
              : lsimp_check_platform(r, node, name, *out, *out);
}

/* --- Values -------------------------------------------------------------- */
int lsimp_define_value(lsimp_reader *r, const lsim_aval *aval) {
  if (!lsim_grow_array(&r->values, &r->cap_values, r->num_values + 1, sizeof *r->values))
    return lsimp_fail_oom(r->err);
  r->values[r->num_values++] = aval;
  return LSIM_OK;
}

/* Parses value indices "0,2" ("" for none), each below r->num_values. */
int lsimp_parse_indices(lsimp_reader *r, const xmlNode *node, const char *name, const char *text,
                         size_t **out, size_t *count) {
  size_t n = *text ? 1 : 0;
  for (const char *p = text; *p; p++)
    n += *p == ',';
  int rc;
  size_t *indices = lsimp_read_alloc(r, n, sizeof *indices, &rc);
  const char *p = text;
  for (size_t i = 0; !rc && i < n; i++) {
    size_t len = strcspn(p, ",");
    char *end = NULL;
    errno = 0;
    unsigned long long v = len && p[0] >= '0' && p[0] <= '9' ? strtoull(p, &end, 10) : 0;
    if (!len || p[0] < '0' || p[0] > '9' || end != p + len || errno == ERANGE)
      rc = lsimp_read_fail(r, node, "<%s> %s=\"%s\" is not a comma-separated list of value indices",
                   node->name, name, text);
    else if (v >= r->num_values)
      rc = lsimp_read_fail(r, node,
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
int lsimp_read_aval(lsimp_reader *r, const xmlNode *node, lsim_aval *out) {
  char *dtype, *shape = NULL;
  int rc = lsimp_attr_string(r, node, "dtype", &dtype);
  if (!rc)
    rc = lsimp_attr_string(r, node, "shape", &shape);
  memset(out, 0, sizeof *out);
  if (!rc && (!dtype || !lsim_dtype_from_name(dtype, &out->dtype)))
    rc = lsimp_read_fail(r, node, "<%s> dtype=\"%s\" is not a dtype JAX knows", node->name,
                 dtype ? dtype : "");
  lsim_error detail = LSIM_ERROR_INIT;
  if (!rc && !shape)
    rc = lsimp_read_fail(r, node, "<%s> needs the attribute 'shape'", node->name);
  else if (!rc && lsim_aval_parse_shape(out, shape, &detail))
    rc = lsimp_read_fail_detail(r, node, "shape", shape, &detail);
  free(dtype);
  free(shape);
  return rc;
}

static int read_result(lsimp_reader *r, const xmlNode *node, void *item, const void *ctx) {
  (void)ctx;
  return lsimp_read_aval(r, node, item);
}

int lsimp_read_results(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  int rc;
  e->results = lsimp_read_children(r, node, "result", NULL, sizeof *e->results, read_result, NULL,
                             &e->num_results, &rc);
  return rc;
}

/* An op's single result, implied: the aval of its (first) operand. */
int lsimp_implied_result(lsimp_reader *r, lsim_scenario_eqn *e) {
  int rc;
  e->results = lsimp_read_alloc(r, 1, sizeof *e->results, &rc);
  if (!rc) {
    e->num_results = 1;
    e->results[0] = lsimp_implied_aval(r->values[e->args[0]]);
  }
  return rc;
}

const lsim_aval *lsimp_value_aval(const lsimp_reader *r, size_t index) {
  return r->values[index];
}

/* --- Writing --------------------------------------------------------------- */

void lsimp_write_invalid(lsimp_writer *wr, const char *what, const char *name) {
  if (!wr->rc)
    wr->rc =
        lsim_error_set(wr->err, LSIM_E_INVALID_ARGUMENT, "lsim_scenario_write: <%s> %s%s",
                  wr->depth > 0 && wr->depth <= LSIMP_WRITER_MAX_DEPTH ? wr->open[wr->depth - 1] : "scenario",
                  what, name ? name : "");
}

static void check(lsimp_writer *wr, int libxml_rc) {
  if (libxml_rc < 0)
    wr->failed = true;
}

/* XML 1.0 can carry the text: UTF-8 of characters XML allows. */
static bool is_xml_text(const char *text) {
  const unsigned char *p = (const unsigned char *)text;
  int left = (int)strlen(text);
  while (left > 0) {
    int len = left;
    int c = xmlGetUTF8Char(p, &len);
    if (c < 0 || !xmlIsCharQ(c))
      return false;
    p += len;
    left -= len;
  }
  return true;
}

static bool text_ok(lsimp_writer *wr, const char *name, const char *text) {
  if (is_xml_text(text))
    return true;
  lsimp_write_invalid(wr, "has text that is not UTF-8 XML can carry (control characters?) in ", name);
  return false;
}

void lsimp_write_start(lsimp_writer *wr, const char *name) {
  if (wr->depth < LSIMP_WRITER_MAX_DEPTH)
    wr->open[wr->depth] = name;
  wr->depth++;
  check(wr, xmlTextWriterStartElement(wr->w, BAD_CAST name));
}

void lsimp_write_end(lsimp_writer *wr) {
  wr->depth--;
  check(wr, xmlTextWriterEndElement(wr->w));
}

/* An optional attribute: nothing is written for NULL. */
void lsimp_write_attr(lsimp_writer *wr, const char *name, const char *value) {
  if (value && text_ok(wr, name, value))
    check(wr, xmlTextWriterWriteAttribute(wr->w, BAD_CAST name, BAD_CAST value));
}

/* A required attribute (NULL: an invalid enum value or a missing string). */
void lsimp_write_attr_required(lsimp_writer *wr, const char *name, const char *value) {
  if (!value)
    lsimp_write_invalid(wr, "has no valid ", name);
  else
    lsimp_write_attr(wr, name, value);
}

void lsimp_write_bool(lsimp_writer *wr, const char *name, bool value) {
  lsimp_write_attr(wr, name, value ? "true" : "false");
}

void lsimp_write_int(lsimp_writer *wr, const char *name, long long value) {
  check(wr, xmlTextWriterWriteFormatAttribute(wr->w, BAD_CAST name, "%lld", value));
}

void lsimp_write_indices(lsimp_writer *wr, const char *name, const size_t *indices, size_t n) {
  lsimp_strbuf text = LSIMP_STRBUF_INIT;
  for (size_t i = 0; i < n; i++)
    lsimp_strbuf_printf(&text, i ? ",%zu" : "%zu", indices[i]);
  if (lsimp_strbuf_failed(&text))
    wr->failed = true;
  else
    lsimp_write_attr(wr, name, lsimp_strbuf_cstr(&text));
  lsimp_strbuf_free(&text);
}

void lsimp_write_aval(lsimp_writer *wr, const lsim_aval *aval) {
  lsimp_write_attr_required(wr, "dtype", lsim_dtype_name(aval->dtype));
  if (aval->rank < 0 || aval->rank > LSIM_MAX_RANK) {
    lsimp_write_invalid(wr, "has a rank outside [0, LSIM_MAX_RANK]", NULL);
    return;
  }
  lsimp_strbuf shape = LSIMP_STRBUF_INIT;
  for (int i = 0; i < aval->rank; i++)
    lsimp_strbuf_printf(&shape, i ? ",%lld" : "%lld", (long long)aval->dims[i]);
  if (lsimp_strbuf_failed(&shape))
    wr->failed = true;
  else
    lsimp_write_attr(wr, "shape", lsimp_strbuf_cstr(&shape));
  lsimp_strbuf_free(&shape);
}

/* --- Equations ----------------------------------------------------------- */
void lsimp_write_results(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  for (size_t i = 0; i < e->num_results; i++) {
    lsimp_write_start(wr, "result");
    lsimp_write_aval(wr, &e->results[i]);
    lsimp_write_end(wr);
  }
}

void lsimp_write_text(lsimp_writer *wr, const char *text) {
  if (text_ok(wr, "text", text))
    check(wr, xmlTextWriterWriteString(wr->w, BAD_CAST text));
}
