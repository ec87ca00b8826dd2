/* scenario/internal.h: what the files of the scenario layer share.  Private.
 *
 * Reading goes bytes -> libxml2 document (document.c: well-formed, no DTD,
 * valid against the schema of schema.c) -> lsim_scenario (reader.c: meaning
 * checked).  Every complaint is LSIM_E_INVALID_INPUT `PATH:LINE: message`. */
#ifndef LOWERSIM_SCENARIO_INTERNAL_H
#define LOWERSIM_SCENARIO_INTERNAL_H

#include "lowersim/scenario.h"
#include "support/strbuf.h"

#include <libxml/relaxng.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include <stdarg.h>

/* libxml2 2.12 made the error passed to structured handlers const. */
#if LIBXML_VERSION >= 21200
typedef const xmlError *lsim_xml_error_ptr;
#else
typedef xmlErrorPtr lsim_xml_error_ptr;
#endif

/* --- schema.c ------------------------------------------------------------ */

/* The text of testdata/schema/scenario.rng, generated at build time by
 * scenario/embed_text.cmake: NUL-terminated, `_size` bytes without the NUL. */
extern const unsigned char lsim_scenario_schema_rng[];
extern const size_t lsim_scenario_schema_rng_size;

/* The compiled schema, shared by the whole process (compiled on first use,
 * under a lock; a failed compilation is retried by the next call).
 * Borrowed: valid until the process ends. */
int lsim_schema_get(xmlRelaxNGPtr *out, lsim_error *err);

/* Puts into `out` what is wrong with `node` in words a scenario author can
 * act on, given libxml2's RelaxNG `message` about it: an unknown element or
 * attribute, a missing attribute or child, a value outside its choices.
 * Falls back to `message`.  Only after lsim_schema_get succeeded. */
void lsim_schema_explain(const xmlNode *node, const char *message, lsimp_strbuf *out);

/* --- document.c ---------------------------------------------------------- */

/* Routes the calling thread's libxml2 errors to `capture` (structured) and
 * nowhere (generic) until lsim_xml_capture_end puts back what was there:
 * libxml2 keeps these handlers per thread and prints to stderr by default. */
typedef struct lsim_xml_handlers {
  xmlStructuredErrorFunc structured;
  void *structured_ctx;
  xmlGenericErrorFunc generic;
  void *generic_ctx;
} lsim_xml_handlers;

void lsim_xml_capture_begin(lsim_xml_handlers *saved, xmlStructuredErrorFunc capture, void *data);
void lsim_xml_capture_end(const lsim_xml_handlers *saved);

/* Reads a whole file, refusing one above LSIM_SCENARIO_MAX_BYTES.  `*data`
 * is owned (free); LSIM_E_IO `PATH: strerror` when it cannot be read. */
int lsim_scenario_load_file(const char *path, char **data, size_t *size, lsim_error *err);

/* Parses `data` (DTDs refused, no network) and validates it against the
 * schema.  `*out` is owned: xmlFreeDoc. */
int lsim_scenario_parse(const char *path, const char *data, size_t size, xmlDocPtr *out,
                        lsim_error *err);

/* The line of an element of a document from lsim_scenario_parse (exact even
 * past line 65535, where libxml2's own count saturates). */
long lsim_xml_line(const xmlNode *node);

/* Fails with LSIM_E_INVALID_INPUT and `PATH:LINE: <formatted text>`. */
int lsim_input_fail(lsim_error *err, const char *path, long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int lsim_input_failv(lsim_error *err, const char *path, long line, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

#endif
