/* scenario/schema.c: the scenario schema, compiled in (see embed_text.cmake),
 * compiled once per process, and read back to explain RelaxNG errors.
 *
 * libxml2's RelaxNG messages say that something failed ("Element op failed
 * to validate attributes") but not what; the explanation walks the schema's
 * own grammar to say which attribute or child is unknown, missing or has a
 * value outside its choices, so no rule is written twice. */
#include "internal.h"
#include "support/raise.h"

#include <libxml/parser.h>

#include <pthread.h>
#include <stdint.h>
#include <string.h>

/* libxml2 initialized once, by whichever thread first reads or writes a
 * scenario (xmlInitParser is not safe to run twice at once: `lowersim fuzz
 * --jobs` starts its threads together). */
static pthread_once_t xml_once = PTHREAD_ONCE_INIT;

static void init_xml(void) { xmlInitParser(); }

void lsimp_xml_init(void) { pthread_once(&xml_once, init_xml); }

/* The one other piece of process state: the schema compiled from the
 * compact grammar, and the grammar as a document, parsed only when a
 * RelaxNG error is to be explained.  Both are read-only once set. */
static struct {
  pthread_mutex_t lock;
  xmlDocPtr grammar;
  xmlRelaxNGPtr schema;
} cache = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL};

const char *lsim_scenario_schema(size_t *size) {
  if (size)
    *size = lsimp_scenario_schema_rng_size;
  return (const char *)lsimp_scenario_schema_rng;
}

static void ignore_structured(void *data, lsimp_xml_error_ptr e) {
  (void)data;
  (void)e;
}

/* Compiles the embedded grammar; libxml2 says nothing (the grammar is tested,
 * so the only realistic failure is memory).  The parser context reads the
 * text itself: given a document, libxml2 would copy it first. */
static xmlRelaxNGPtr compile_schema(void) {
  lsimp_xml_handlers saved;
  lsimp_xml_capture_begin(&saved, ignore_structured, NULL);
  xmlRelaxNGParserCtxtPtr pc = xmlRelaxNGNewMemParserCtxt(
      (const char *)lsimp_scenario_schema_compact, (int)lsimp_scenario_schema_compact_size);
  xmlRelaxNGPtr schema = NULL;
  if (pc) {
    xmlRelaxNGSetParserStructuredErrors(pc, ignore_structured, NULL);
    schema = xmlRelaxNGParse(pc);
    xmlRelaxNGFreeParserCtxt(pc);
  }
  lsimp_xml_capture_end(&saved);
  return schema;
}

int lsimp_schema_get(xmlRelaxNGPtr *out, lsim_error *err) {
  pthread_mutex_lock(&cache.lock);
  if (!cache.schema) {
    lsimp_xml_init();
    cache.schema = compile_schema();
  }
  *out = cache.schema;
  pthread_mutex_unlock(&cache.lock);
  if (!*out)
    return lsim_error_set(err, LSIM_E_NO_MEMORY,
                     "the built-in scenario schema could not be compiled (out of memory?)");
  return LSIM_OK;
}

/* The grammar's root element, the document parsed on first use; NULL when
 * memory ran out (an explanation then falls back to libxml2's message). */
static const xmlNode *grammar_root(void) {
  pthread_mutex_lock(&cache.lock);
  if (!cache.grammar) {
    lsimp_xml_handlers saved;
    lsimp_xml_capture_begin(&saved, ignore_structured, NULL);
    cache.grammar = xmlReadMemory((const char *)lsimp_scenario_schema_compact,
                                  (int)lsimp_scenario_schema_compact_size, "scenario.rng", NULL,
                                  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    lsimp_xml_capture_end(&saved);
  }
  const xmlNode *root = cache.grammar ? xmlDocGetRootElement(cache.grammar) : NULL;
  pthread_mutex_unlock(&cache.lock);
  return root;
}

/* --- Reading the grammar ------------------------------------------------- */

static bool is_rng(const xmlNode *n, const char *pattern) {
  return n->type == XML_ELEMENT_NODE && xmlStrEqual(n->name, BAD_CAST pattern);
}

/* The name="..." of a grammar node (borrowed from the grammar), or NULL. */
static const char *rng_name(const xmlNode *n) {
  xmlAttr *a = xmlHasNsProp(n, BAD_CAST "name", NULL);
  return a && a->children && a->children->type == XML_TEXT_NODE ? (const char *)a->children->content
                                                                : NULL;
}

static const xmlNode *find_define(const char *name) {
  const xmlNode *root = grammar_root();
  for (const xmlNode *n = root ? root->children : NULL; n; n = n->next) {
    const char *define = is_rng(n, "define") ? rng_name(n) : NULL;
    if (define && name && strcmp(define, name) == 0)
      return n;
  }
  return NULL;
}

/* The attributes (or child elements) an <element> pattern allows, each with
 * whether it is required.  The scenario grammar has at most a dozen. */
#define MAX_ITEMS 32
typedef struct rng_items {
  const xmlNode *node[MAX_ITEMS];
  bool required[MAX_ITEMS];
  int choice[MAX_ITEMS]; /* > 0: one of a required <choice> of them (rule_body's target|lower_fun) */
  size_t n;
  int choices;
} rng_items;

/* Collects the `wanted` patterns ("attribute" or "element") under `pattern`,
 * following refs, without entering nested elements. */
static void collect_in(const xmlNode *pattern, const char *wanted, bool required, int choice,
                       int depth, rng_items *out) {
  if (depth > 16)
    return;
  for (const xmlNode *n = pattern->children; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    if (is_rng(n, wanted)) {
      if (out->n < MAX_ITEMS) {
        out->node[out->n] = n;
        out->choice[out->n] = choice;
        out->required[out->n++] = required;
      }
    } else if (is_rng(n, "choice")) {
      /* A required choice: one of its items is needed, none alone. */
      collect_in(n, wanted, false, required ? ++out->choices : 0, depth + 1, out);
    } else if (is_rng(n, "optional") || is_rng(n, "zeroOrMore")) {
      collect_in(n, wanted, false, 0, depth + 1, out);
    } else if (is_rng(n, "oneOrMore") || is_rng(n, "group") || is_rng(n, "interleave")) {
      collect_in(n, wanted, required, choice, depth + 1, out);
    } else if (is_rng(n, "ref")) {
      const xmlNode *define = find_define(rng_name(n));
      if (define)
        collect_in(define, wanted, required, choice, depth + 1, out);
    }
  }
}

static void collect(const xmlNode *pattern, const char *wanted, bool required, int depth,
                    rng_items *out) {
  collect_in(pattern, wanted, required, 0, depth, out);
}

/* The text of a grammar node with one text child (borrowed), or "". */
static const char *rng_text(const xmlNode *n) {
  return n->children && n->children->type == XML_TEXT_NODE ? (const char *)n->children->content
                                                           : "";
}

/* The <value> choices of an attribute pattern (none: it takes free text). */
typedef struct rng_values {
  const char *value[MAX_ITEMS];
  size_t n;
} rng_values;

static void collect_values(const xmlNode *pattern, int depth, rng_values *out) {
  for (const xmlNode *n = pattern->children; n && depth <= 16; n = n->next) {
    if (is_rng(n, "value") && out->n < MAX_ITEMS) {
      out->value[out->n++] = rng_text(n);
    } else if (is_rng(n, "choice")) {
      collect_values(n, depth + 1, out);
    } else if (is_rng(n, "ref")) {
      const xmlNode *define = find_define(rng_name(n));
      if (define)
        collect_values(define, depth + 1, out);
    }
  }
}

static bool is_one_of(const rng_values *values, const char *value) {
  for (size_t i = 0; i < values->n; i++)
    if (strcmp(values->value[i], value) == 0)
      return true;
  return false;
}

static bool named(const xmlNode *n, const char *name) {
  const char *own = rng_name(n);
  return own && name && strcmp(own, name) == 0;
}

static const xmlNode *enclosing_element(const xmlNode *n) {
  for (n = n->parent; n && n->type == XML_ELEMENT_NODE; n = n->parent)
    if (is_rng(n, "element"))
      return n;
  return NULL;
}

/* Depth-first search for the <element name=...> pattern of `node`.  A name
 * with several patterns (<default> of primitive and of platform_dependent) is
 * told apart by the element the pattern sits in. */
static void find_element_pattern(const xmlNode *from, const xmlNode *node, const xmlNode **best) {
  for (const xmlNode *n = from->children; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    if (is_rng(n, "element") && named(n, (const char *)node->name)) {
      const xmlNode *outer = enclosing_element(n);
      bool parent_matches = outer && node->parent && node->parent->type == XML_ELEMENT_NODE &&
                            named(outer, (const char *)node->parent->name);
      if (!*best || parent_matches)
        *best = n;
    }
    find_element_pattern(n, node, best);
  }
}

/* --- Explanations -------------------------------------------------------- */

static const xmlNode *item_named(const rng_items *items, const char *name) {
  for (size_t i = 0; i < items->n; i++)
    if (named(items->node[i], name))
      return items->node[i];
  return NULL;
}

static void list_names(const rng_items *items, lsimp_strbuf *out) {
  for (size_t i = 0; i < items->n; i++)
    lsimp_strbuf_printf(out, "%s%s", i ? ", " : "", rng_name(items->node[i]));
}

static bool explain_unknown_attribute(const xmlNode *node, const rng_items *attrs,
                                      lsimp_strbuf *out) {
  for (const xmlAttr *a = node->properties; a; a = a->next) {
    if (!a->ns && item_named(attrs, (const char *)a->name))
      continue;
    lsimp_strbuf_printf(out, "<%s> has no attribute '%s%s%s'; ", node->name,
                       a->ns && a->ns->prefix ? (const char *)a->ns->prefix : "",
                       a->ns && a->ns->prefix ? ":" : "", a->name);
    if (attrs->n) {
      lsimp_strbuf_puts(out, "it takes ");
      list_names(attrs, out);
    } else {
      lsimp_strbuf_puts(out, "it takes none");
    }
    return true;
  }
  return false;
}

/* Whether `node` has one of the attributes of choice `c`. */
static bool has_one_of(const xmlNode *node, const rng_items *attrs, int c) {
  for (size_t i = 0; i < attrs->n; i++)
    if (attrs->choice[i] == c && xmlHasNsProp(node, BAD_CAST rng_name(attrs->node[i]), NULL))
      return true;
  return false;
}

static bool explain_missing_attribute(const xmlNode *node, const rng_items *attrs,
                                      lsimp_strbuf *out) {
  for (size_t i = 0; i < attrs->n; i++) {
    const char *name = rng_name(attrs->node[i]);
    if (attrs->required[i] && !xmlHasNsProp(node, BAD_CAST name, NULL)) {
      lsimp_strbuf_printf(out, "<%s> needs the attribute '%s'", node->name, name);
      return true;
    }
  }
  for (int c = 1; c <= attrs->choices; c++) {
    if (has_one_of(node, attrs, c))
      continue;
    lsimp_strbuf_printf(out, "<%s> needs one of the attributes ", node->name);
    size_t k = 0;
    for (size_t i = 0; i < attrs->n; i++)
      if (attrs->choice[i] == c)
        lsimp_strbuf_printf(out, "%s'%s'", k++ ? " or " : "", rng_name(attrs->node[i]));
    return true;
  }
  return false;
}

static bool explain_attribute_value(const xmlNode *node, const rng_items *attrs, lsimp_strbuf *out) {
  for (size_t i = 0; i < attrs->n; i++) {
    const char *name = rng_name(attrs->node[i]);
    xmlAttr *a = xmlHasNsProp(node, BAD_CAST name, NULL);
    rng_values values = {0};
    collect_values(attrs->node[i], 0, &values);
    xmlChar *value = a && values.n ? xmlNodeGetContent((xmlNode *)a) : NULL;
    bool wrong = value && !is_one_of(&values, (const char *)value);
    if (wrong) {
      lsimp_strbuf_printf(out, "<%s> %s=\"%s\" is not one of: ", node->name, name, value);
      lsimp_join(out, values.value, values.n, ", ");
    }
    xmlFree(value);
    if (wrong)
      return true;
  }
  return false;
}

static bool has_child(const xmlNode *node, const char *name) {
  for (const xmlNode *c = node->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && xmlStrEqual(c->name, BAD_CAST name))
      return true;
  return false;
}

static bool explain_missing_child(const xmlNode *node, const xmlNode *pattern, lsimp_strbuf *out) {
  rng_items children = {0};
  collect(pattern, "element", true, 0, &children);
  for (size_t i = 0; i < children.n; i++) {
    const char *name = rng_name(children.node[i]);
    if (children.required[i] && name && !has_child(node, name)) {
      lsimp_strbuf_printf(out, "<%s> needs a <%s> element", node->name, name);
      return true;
    }
  }
  return false;
}

/* A known element in the wrong place: say where it is. */
static void explain_misplaced(const xmlNode *node, lsimp_strbuf *out) {
  const xmlNode *before = node->prev;
  while (before && before->type != XML_ELEMENT_NODE)
    before = before->prev;
  lsimp_strbuf_printf(out, "<%s> is not allowed here, in <%s> ", node->name,
                     node->parent ? (const char *)node->parent->name : "");
  if (before)
    lsimp_strbuf_printf(out, "after <%s>", before->name);
  else
    lsimp_strbuf_puts(out, "as the first element");
}

static void explain_unknown_element(const xmlNode *node, lsimp_strbuf *out) {
  const xmlNode *parent = node->parent;
  if (parent && parent->type == XML_ELEMENT_NODE)
    lsimp_strbuf_printf(out, "unknown element <%s> in <%s>", node->name, parent->name);
  else
    lsimp_strbuf_printf(out, "unknown root element <%s>; a scenario file's root is <scenario>",
                       node->name);
}

/* What is wrong with `node`'s attributes against its `pattern`: an unknown
 * one, a missing one, a value outside its choices; false when nothing. */
static bool explain_attributes(const xmlNode *node, const xmlNode *pattern, lsimp_strbuf *out) {
  rng_items attrs = {0};
  collect(pattern, "attribute", true, 0, &attrs);
  return explain_unknown_attribute(node, &attrs, out) ||
         explain_missing_attribute(node, &attrs, out) ||
         explain_attribute_value(node, &attrs, out);
}

void lsimp_schema_explain(const xmlNode *node, const char *message, lsimp_strbuf *out) {
  const xmlNode *root = node ? grammar_root() : NULL;
  if (!root || !node || node->type != XML_ELEMENT_NODE) {
    lsimp_strbuf_puts(out, message);
    return;
  }
  const xmlNode *pattern = NULL;
  find_element_pattern(root, node, &pattern);
  if (!pattern) {
    explain_unknown_element(node, out);
    return;
  }
  bool explained = true;
  if (strncmp(message, "Did not expect element", 22) == 0 && node->parent &&
      node->parent->type == XML_ELEMENT_NODE)
    explain_misplaced(node, out);
  else if (strncmp(message, "Did not expect text", 19) == 0)
    lsimp_strbuf_printf(out, "<%s> cannot contain text", node->name);
  else if (strstr(message, "attribute"))
    explained = explain_attributes(node, pattern, out);
  else if (strncmp(message, "Expecting an element", 20) == 0)
    explained = explain_missing_child(node, pattern, out);
  else if (strstr(message, "failed to validate content")) /* attributes are content too */
    explained = explain_attributes(node, pattern, out) || explain_missing_child(node, pattern, out);
  else
    explained = false;
  if (!explained)
    lsimp_strbuf_puts(out, message);
}

/* "Element NAME failed to validate ...": NAME into `name` (size bytes). */
static bool failed_element(const char *message, char *name, size_t size) {
  const char *prefix = "Element ";
  if (strncmp(message, prefix, strlen(prefix)) != 0 || !strstr(message, " failed to validate"))
    return false;
  const char *start = message + strlen(prefix);
  size_t n = strcspn(start, " ");
  if (n == 0 || n >= size)
    return false;
  memcpy(name, start, n);
  name[n] = '\0';
  return true;
}

/* The first element `name` under `node` (itself included), in document
 * order, whose attributes its pattern refuses. */
static const xmlNode *first_refused(const xmlNode *root, const xmlNode *node, const char *name,
                                    int depth) {
  for (; node && depth <= LSIM_SCENARIO_MAX_DEPTH; node = node->next) {
    if (node->type != XML_ELEMENT_NODE)
      continue;
    if (xmlStrEqual(node->name, BAD_CAST name)) {
      const xmlNode *pattern = NULL;
      find_element_pattern(root, node, &pattern);
      lsimp_strbuf scratch = LSIMP_STRBUF_INIT;
      bool refused = pattern && explain_attributes(node, pattern, &scratch);
      lsimp_strbuf_free(&scratch);
      if (refused)
        return node;
    }
    const xmlNode *found = first_refused(root, node->children, name, depth + 1);
    if (found)
      return found;
  }
  return NULL;
}

const xmlNode *lsimp_schema_locate(const xmlDoc *doc, const xmlNode *node, const char *message) {
  char name[64];
  const xmlNode *root = grammar_root();
  if (!root || !doc || !failed_element(message, name, sizeof name))
    return node;
  for (const xmlNode *n = node; n && n->type == XML_ELEMENT_NODE; n = n->parent)
    if (xmlStrEqual(n->name, BAD_CAST name))
      return n;
  const xmlNode *refused = first_refused(root, xmlDocGetRootElement((xmlDoc *)doc), name, 0);
  return refused ? refused : node;
}
