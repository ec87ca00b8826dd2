/* scenario/document.c: from bytes to a libxml2 document that is well-formed
 * and valid against the scenario schema.
 *
 * Scenario files come from anywhere (conformance suites, the fuzzer), so the
 * parser loads nothing from the network and refuses any DOCTYPE: without a
 * DTD there are no entity declarations, hence no external entities and no
 * entity-expansion bombs.  libxml2 reports problems through global handlers
 * that print to stderr by default; here they are captured for the duration
 * of one call (libxml2 keeps them per thread) and turned into one
 * `PATH:LINE: message` error. */
#include "internal.h"
#include "support/raise.h"

#include "lowersim/alloc.h"
#include "lowersim/scenario_output.h"

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int lsimp_input_failv(lsim_error *err, const char *path, long line, const char *fmt, va_list ap) {
  lsimp_strbuf text = LSIMP_STRBUF_INIT;
  lsimp_strbuf_printf(&text, "%s:%ld: ", path, line > 0 ? line : 1);
  lsimp_strbuf_vprintf(&text, fmt, ap);
  if (lsimp_strbuf_failed(&text)) {
    lsimp_strbuf_free(&text);
    return lsimp_fail_oom(err);
  }
  int rc = lsim_error_set(err, LSIM_E_INVALID_INPUT, "%s", lsimp_strbuf_cstr(&text));
  lsimp_strbuf_free(&text);
  return rc;
}

int lsimp_input_fail(lsim_error *err, const char *path, long line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = lsimp_input_failv(err, path, line, fmt, ap);
  va_end(ap);
  return rc;
}

/* --- Files --------------------------------------------------------------- */

static int io_fail(lsim_error *err, const char *path, int errnum) {
  return lsim_error_set(err, LSIM_E_IO, "%s: %s", path, strerror(errnum));
}

static _Atomic size_t max_bytes = LSIM_SCENARIO_MAX_BYTES;

size_t lsim_scenario_max_bytes(void) { return max_bytes; }

void lsim_scenario_set_max_bytes(size_t limit) {
  max_bytes = limit ? limit : LSIM_SCENARIO_MAX_BYTES;
}

static int too_large(lsim_error *err, const char *path) {
  return lsimp_input_fail(err, path, 1, "the file is larger than %zu bytes, the limit for a scenario",
                         lsim_scenario_max_bytes());
}

/* Reads all of `f` (pipes included), up to one byte past the limit. */
static int read_all(FILE *f, const char *path, char **data, size_t *size, lsim_error *err) {
  const size_t limit = lsim_scenario_max_bytes() + 1;
  size_t cap = 64 * 1024, len = 0;
  char *buf = lsim_malloc(cap);
  if (!buf)
    return lsimp_fail_oom(err);
  for (;;) {
    size_t want = cap - len, got = fread(buf + len, 1, want, f);
    len += got;
    if (got < want)
      break;
    if (cap == limit) {
      free(buf);
      return too_large(err, path);
    }
    cap = cap * 2 < limit ? cap * 2 : limit;
    char *bigger = lsim_realloc(buf, cap);
    if (!bigger) {
      free(buf);
      return lsimp_fail_oom(err);
    }
    buf = bigger;
  }
  if (ferror(f)) {
    int errnum = errno;
    free(buf);
    return io_fail(err, path, errnum);
  }
  *data = buf;
  *size = len;
  return LSIM_OK;
}

int lsimp_scenario_load_file(const char *path, char **data, size_t *size, lsim_error *err) {
  FILE *f;
  int rc = lsim_scenario_open_read(path, &f, err);
  if (rc)
    return rc;
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
      (uintmax_t)st.st_size > lsim_scenario_max_bytes())
    rc = too_large(err, path);
  else
    rc = read_all(f, path, data, size, err); /* a descriptor's pipe: up to the limit */
  fclose(f);
  return rc;
}

/* --- Capturing libxml2's complaints -------------------------------------- */

/* The complaint to report: the first error, unless a later one names the
 * element it is about (RelaxNG sometimes leads with a context-free one). */
typedef struct diag {
  bool set;
  long line;
  const xmlNode *node;
  lsimp_strbuf text;
} diag;

/* libxml2's message on one line: "Input is not proper UTF-8, indicate
 * encoding !\nBytes: 0xFF ..." has its line break turned into a space, and
 * the trailing one dropped. */
static void diag_set(diag *d, long line, const xmlNode *node, const char *text) {
  lsimp_strbuf_reset(&d->text);
  for (const char *c = text ? text : "unknown XML error"; *c; c++)
    if (!strchr("\r\n", *c))
      lsimp_strbuf_putc(&d->text, *c);
    else if (d->text.len && d->text.data[d->text.len - 1] != ' ')
      lsimp_strbuf_putc(&d->text, ' ');
  while (d->text.len && strchr(" \t", d->text.data[d->text.len - 1]))
    d->text.data[--d->text.len] = '\0';
  d->set = true;
  d->line = line;
  d->node = node;
}

static void diag_capture(void *data, lsimp_xml_error_ptr e) {
  diag *d = data;
  if (!e || e->level < XML_ERR_ERROR)
    return; /* warnings */
  const xmlNode *node = e->node;
  if (node && node->type != XML_ELEMENT_NODE)
    node = NULL;
  if (d->set && (d->node || !node))
    return;
  diag_set(d, node ? lsimp_xml_line(node) : e->line, node, e->message);
}

/* --- Parsing ------------------------------------------------------------- */

long lsimp_xml_line(const xmlNode *node) {
  intptr_t line = (intptr_t)node->_private;
  return line > 0 ? (long)line : xmlGetLineNo(node);
}

/* SAX: a DOCTYPE stops the parse before its internal subset is read. */
static void reject_doctype(void *ctx, const xmlChar *name, const xmlChar *external_id,
                           const xmlChar *system_id) {
  (void)name;
  (void)external_id;
  (void)system_id;
  xmlParserCtxtPtr ctxt = ctx;
  diag_set(ctxt->_private, ctxt->input ? ctxt->input->line : 0, NULL,
           "a DOCTYPE is not allowed in a scenario file (no DTD, no entities)");
  xmlStopParser(ctxt);
}

/* SAX: builds the element as usual and remembers its exact line, which
 * libxml2 stores in 16 bits. */
static void start_element(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                          const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
                          int nb_attributes, int nb_defaulted, const xmlChar **attributes) {
  xmlParserCtxtPtr ctxt = ctx;
  xmlNodePtr parent = ctxt->node;
  xmlSAX2StartElementNs(ctx, localname, prefix, uri, nb_namespaces, namespaces, nb_attributes,
                        nb_defaulted, attributes);
  if (ctxt->node && ctxt->node != parent && ctxt->input)
    ctxt->node->_private = (void *)(intptr_t)ctxt->input->line;
}

static int parse_fail(const char *path, const diag *d, lsim_error *err) {
  if (!d->set)
    return lsimp_input_fail(err, path, 1, "the document could not be parsed (out of memory?)");
  if (lsimp_strbuf_failed(&d->text))
    return lsimp_fail_oom(err);
  return lsimp_input_fail(err, path, d->line, "%s", lsimp_strbuf_cstr(&d->text));
}

static int parse(const char *path, const char *data, size_t size, diag *d, xmlDocPtr *out,
                 lsim_error *err) {
  lsimp_xml_init();
  xmlParserCtxtPtr ctxt = xmlCreateMemoryParserCtxt(data, (int)size);
  if (!ctxt)
    return lsimp_fail_oom(err);
  /* The text is UTF-8 whatever its declaration says (lsimp_scenario_to_utf8). */
  xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOCDATA | XML_PARSE_IGNORE_ENC);
  ctxt->_private = d;
  ctxt->sax->internalSubset = reject_doctype;
  ctxt->sax->startElementNs = start_element;
  xmlParseDocument(ctxt);
  xmlDocPtr doc = ctxt->myDoc;
  bool ok = ctxt->wellFormed && !d->set && doc && xmlDocGetRootElement(doc);
  ctxt->myDoc = NULL;
  xmlFreeParserCtxt(ctxt);
  if (!ok) {
    xmlFreeDoc(doc);
    return parse_fail(path, d, err);
  }
  *out = doc;
  return LSIM_OK;
}

static int validate(const char *path, xmlDocPtr doc, xmlRelaxNGPtr schema, diag *d,
                    lsim_error *err) {
  xmlRelaxNGValidCtxtPtr vc = xmlRelaxNGNewValidCtxt(schema);
  if (!vc)
    return lsimp_fail_oom(err);
  xmlRelaxNGSetValidStructuredErrors(vc, diag_capture, d);
  int verdict = xmlRelaxNGValidateDoc(vc, doc);
  xmlRelaxNGFreeValidCtxt(vc);
  if (verdict == 0)
    return LSIM_OK;
  if (!d->set)
    return lsimp_input_fail(err, path, 1, "the document could not be validated (out of memory?)");
  const xmlNode *node = lsimp_schema_locate(doc, d->node, lsimp_strbuf_cstr(&d->text));
  if (node && node != d->node) /* the element the message names, not a child or nothing */
    d->node = node, d->line = lsimp_xml_line(node);
  lsimp_strbuf text = LSIMP_STRBUF_INIT;
  lsimp_schema_explain(d->node, lsimp_strbuf_cstr(&d->text), &text);
  int rc = lsimp_strbuf_failed(&text) || lsimp_strbuf_failed(&d->text)
               ? lsimp_fail_oom(err)
               : lsimp_input_fail(err, path, d->line, "%s", lsimp_strbuf_cstr(&text));
  lsimp_strbuf_free(&text);
  return rc;
}

int lsimp_scenario_parse(const char *path, const char *data, size_t size, xmlDocPtr *out,
                        lsim_error *err) {
  static const char empty[] = "the file is empty; a scenario is a <scenario> element";
  if (size == 0)
    return lsimp_input_fail(err, path, 1, "%s", empty);
  if (size > lsim_scenario_max_bytes())
    return too_large(err, path);
  /* Every encoding is UTF-8 before the limits see its bytes (encoding.c). */
  char *utf8 = NULL;
  size_t utf8_size = 0;
  int rc = lsimp_scenario_to_utf8(path, data, size, &utf8, &utf8_size, err);
  if (rc)
    return rc;
  if (utf8)
    data = utf8, size = utf8_size;
  /* A byte order mark and nothing else: libxml2 takes no empty buffer. */
  rc = size ? lsimp_scenario_check_limits(path, data, size, err)
            : lsimp_input_fail(err, path, 1, "%s", empty);
  xmlRelaxNGPtr schema;
  if (!rc)
    rc = lsimp_schema_get(&schema, err);
  if (rc) {
    free(utf8);
    return rc;
  }
  diag d = {false, 0, NULL, LSIMP_STRBUF_INIT};
  lsimp_xml_handlers saved;
  lsimp_xml_capture_begin(&saved, diag_capture, &d);
  xmlDocPtr doc = NULL;
  rc = parse(path, data, size, &d, &doc, err);
  if (!rc)
    rc = validate(path, doc, schema, &d, err);
  lsimp_xml_capture_end(&saved);
  lsimp_strbuf_free(&d.text);
  free(utf8);
  if (rc) {
    xmlFreeDoc(doc);
    return rc;
  }
  *out = doc;
  return LSIM_OK;
}
