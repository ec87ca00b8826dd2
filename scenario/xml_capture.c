/* scenario/xml_capture.c: libxml2's error handlers routed, for the length of
 * one call, away from stderr: the document's parse and validation
 * (document.c) and the schema's compilation (schema.c) both need it. */
#include "internal.h"

#include <libxml/globals.h>

static void ignore_generic(void *ctx, const char *msg, ...) {
  (void)ctx;
  (void)msg;
}

void lsimp_xml_capture_begin(lsimp_xml_handlers *saved, xmlStructuredErrorFunc capture, void *data) {
  saved->structured = xmlStructuredError;
  saved->structured_ctx = xmlStructuredErrorContext;
  saved->generic = xmlGenericError;
  saved->generic_ctx = xmlGenericErrorContext;
  xmlSetStructuredErrorFunc(data, capture);
  xmlSetGenericErrorFunc(data, ignore_generic);
}

void lsimp_xml_capture_end(const lsimp_xml_handlers *saved) {
  xmlSetStructuredErrorFunc(saved->structured_ctx, saved->structured);
  xmlSetGenericErrorFunc(saved->generic_ctx, saved->generic);
}
