/* cli/junit.c: JUnit XML reports with libxml2's xmlTextWriter. */
#include "junit.h"

#include <libxml/xmlwriter.h>

#include <stdio.h>
#include <stdlib.h>

struct junit {
  xmlTextWriterPtr w;
  bool ok;
};

static void attr(junit *j, const char *name, const char *value) {
  j->ok = j->ok && xmlTextWriterWriteAttribute(j->w, BAD_CAST name, BAD_CAST value) >= 0;
}

static void attr_number(junit *j, const char *name, const char *fmt, double v) {
  char buf[48];
  snprintf(buf, sizeof buf, fmt, v);
  attr(j, name, buf);
}

static void element_with_message(junit *j, const char *element, const char *message, bool body) {
  j->ok = j->ok && xmlTextWriterStartElement(j->w, BAD_CAST element) >= 0;
  attr(j, "message", message);
  if (body)
    j->ok = j->ok && xmlTextWriterWriteString(j->w, BAD_CAST message) >= 0;
  j->ok = j->ok && xmlTextWriterEndElement(j->w) >= 0;
}

junit *junit_open(const char *path, const char *suite, size_t tests, size_t failures,
                  size_t skipped, double seconds) {
  junit *j = calloc(1, sizeof *j);
  if (!j || !(j->w = xmlNewTextWriterFilename(path, 0))) {
    free(j);
    return NULL;
  }
  j->ok = xmlTextWriterSetIndent(j->w, 1) >= 0 &&
          xmlTextWriterStartDocument(j->w, NULL, "UTF-8", NULL) >= 0 &&
          xmlTextWriterStartElement(j->w, BAD_CAST "testsuites") >= 0 &&
          xmlTextWriterStartElement(j->w, BAD_CAST "testsuite") >= 0;
  attr(j, "name", suite);
  attr_number(j, "tests", "%.0f", (double)tests);
  attr_number(j, "failures", "%.0f", (double)failures);
  attr_number(j, "skipped", "%.0f", (double)skipped);
  attr_number(j, "time", "%.6f", seconds);
  return j;
}

static void properties(junit *j, const char *name, const char *value) {
  j->ok = j->ok && xmlTextWriterStartElement(j->w, BAD_CAST "properties") >= 0 &&
          xmlTextWriterStartElement(j->w, BAD_CAST "property") >= 0;
  attr(j, "name", name);
  attr(j, "value", value);
  j->ok = j->ok && xmlTextWriterEndElement(j->w) >= 0 && xmlTextWriterEndElement(j->w) >= 0;
}

void junit_property(junit *j, const char *name, const char *value) {
  if (j)
    properties(j, name, value);
}

void junit_case(junit *j, const char *classname, const char *name, double seconds,
                const char *failure, const char *skipped, const char *jax) {
  j->ok = j->ok && xmlTextWriterStartElement(j->w, BAD_CAST "testcase") >= 0;
  attr(j, "classname", classname);
  attr(j, "name", name);
  if (seconds >= 0)
    attr_number(j, "time", "%.6f", seconds);
  if (jax)
    properties(j, "jax", jax);
  if (skipped)
    element_with_message(j, "skipped", skipped, false);
  if (failure)
    element_with_message(j, "failure", failure, true);
  j->ok = j->ok && xmlTextWriterEndElement(j->w) >= 0;
}

bool junit_close(junit *j) {
  if (!j)
    return false;
  bool ok = j->ok && xmlTextWriterEndDocument(j->w) >= 0;
  xmlFreeTextWriter(j->w);
  free(j);
  return ok;
}
