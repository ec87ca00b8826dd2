/* cli/junit.c: JUnit XML reports with libxml2's xmlTextWriter, in memory. */
#include "junit.h"

#include "lowersim/alloc.h"

#include <libxml/xmlwriter.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct junit {
  xmlBufferPtr buffer;
  xmlTextWriterPtr w;
  bool ok;
};

/* The length of the UTF-8 sequence at `s` that XML 1.0 allows as a
 * character (#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] |
 * [#x10000-#x10FFFF]), or 0. */
static size_t xml_char(const unsigned char *s) {
  if (s[0] < 0x80)
    return s[0] >= 0x20 || s[0] == '\t' || s[0] == '\n' || s[0] == '\r';
  size_t n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
  if (!n || s[0] > 0xF4)
    return 0;
  uint32_t c = s[0] & (0x7F >> n);
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80)
      return 0;
    c = (c << 6) | (s[i] & 0x3F);
  }
  static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < least[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF) || c == 0xFFFE ||
      c == 0xFFFF)
    return 0;
  return n;
}

char *junit_xml_text(const char *s) {
  size_t len = strlen(s);
  if (len > (SIZE_MAX - 1) / 4)
    return NULL;
  char *out = lsim_malloc(4 * len + 1), *o = out;
  if (!out)
    return NULL;
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    size_t n = xml_char(p);
    if (n) {
      memcpy(o, p, n);
      o += n, p += n;
    } else {
      o += sprintf(o, "\\x%02X", *p++);
    }
  }
  *o = '\0';
  return out;
}

static void attr(junit *j, const char *name, const char *value) {
  char *text = j->ok ? junit_xml_text(value) : NULL;
  j->ok = text && xmlTextWriterWriteAttribute(j->w, BAD_CAST name, BAD_CAST text) >= 0;
  free(text);
}

static void attr_number(junit *j, const char *name, const char *fmt, double v) {
  char buf[48];
  snprintf(buf, sizeof buf, fmt, v);
  attr(j, name, buf);
}

static void element_with_message(junit *j, const char *element, const char *message, bool body) {
  j->ok = j->ok && xmlTextWriterStartElement(j->w, BAD_CAST element) >= 0;
  attr(j, "message", message);
  if (body) {
    char *text = j->ok ? junit_xml_text(message) : NULL;
    j->ok = text && xmlTextWriterWriteString(j->w, BAD_CAST text) >= 0;
    free(text);
  }
  j->ok = j->ok && xmlTextWriterEndElement(j->w) >= 0;
}

junit *junit_open(const char *suite, size_t tests, size_t failures, size_t errors,
                  size_t skipped, double seconds) {
  junit *j = lsim_calloc(1, sizeof *j);
  if (!j || !(j->buffer = xmlBufferCreate()) || !(j->w = xmlNewTextWriterMemory(j->buffer, 0))) {
    if (j)
      xmlBufferFree(j->buffer);
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
  attr_number(j, "errors", "%.0f", (double)errors);
  attr_number(j, "skipped", "%.0f", (double)skipped);
  if (seconds >= 0)
    attr_number(j, "time", "%.6f", seconds);
  char stamp[32] = "";
  time_t t = time(NULL);
  struct tm tm;
  if (gmtime_r(&t, &tm))
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  attr(j, "timestamp", stamp);
  char host[256] = "localhost";
  if (gethostname(host, sizeof host - 1) != 0)
    snprintf(host, sizeof host, "localhost");
  host[sizeof host - 1] = '\0';
  attr(j, "hostname", host);
  return j;
}

char *junit_classname(const char *prefix, const char *path) {
  const char *slash = strrchr(path, '/');
  size_t folder = slash ? (size_t)(slash - path) : 0;
  char *out = lsim_malloc(strlen(prefix) + folder + 2);
  if (!out)
    return NULL;
  char *o = out + sprintf(out, "%s", prefix);
  const char *p = path;
  while (p < path + folder && (*p == '/' || (p[0] == '.' && p[1] == '/')))
    p += *p == '/' ? 1 : 2; /* a leading "/", "./" */
  if (p < path + folder)
    *o++ = '.';
  for (bool sep = false; p < path + folder; p++) {
    if (*p == '/') {
      sep = true;
      continue;
    }
    if (sep && o[-1] != '.')
      *o++ = '.';
    sep = false;
    *o++ = *p;
  }
  *o = '\0';
  return out;
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

/* <ELEMENT message="the first line" type=TYPE>all of the text</ELEMENT>. */
static void outcome(junit *j, const char *element, const char *type, const char *text) {
  const char *nl = strchr(text, '\n');
  char *first = nl ? lsim_strndup(text, (size_t)(nl - text)) : NULL;
  j->ok = j->ok && (!nl || first) && xmlTextWriterStartElement(j->w, BAD_CAST element) >= 0;
  attr(j, "message", first ? first : text);
  attr(j, "type", type);
  free(first);
  char *body = j->ok ? junit_xml_text(text) : NULL;
  j->ok = body && xmlTextWriterWriteString(j->w, BAD_CAST body) >= 0 &&
          xmlTextWriterEndElement(j->w) >= 0;
  free(body);
}

void junit_case(junit *j, const junit_result *r) {
  j->ok = j->ok && xmlTextWriterStartElement(j->w, BAD_CAST "testcase") >= 0;
  attr(j, "classname", r->classname);
  attr(j, "name", r->name);
  if (r->seconds >= 0)
    attr_number(j, "time", "%.6f", r->seconds);
  if (r->skipped)
    element_with_message(j, "skipped", r->skipped, false);
  if (r->error)
    outcome(j, "error", "invalid input", r->error);
  if (r->failure)
    outcome(j, "failure", "difference", r->failure);
  if (r->system_out) {
    char *text = j->ok ? junit_xml_text(r->system_out) : NULL;
    j->ok = text && xmlTextWriterWriteElement(j->w, BAD_CAST "system-out", BAD_CAST text) >= 0;
    free(text);
  }
  j->ok = j->ok && xmlTextWriterEndElement(j->w) >= 0;
}

void junit_out_of_memory(junit *j) {
  if (j)
    j->ok = false;
}

int junit_close(junit *j, const char *command, const char *path, const cli_inputs *inputs) {
  if (!j) {
    fprintf(stderr, "lowersim %s: cannot write %s: out of memory\n", command, path);
    return 2;
  }
  bool ok = j->ok && xmlTextWriterEndDocument(j->w) >= 0;
  xmlFreeTextWriter(j->w); /* flushes into the buffer */
  int code = 2;
  if (ok)
    code = cli_write_file(command, path, xmlBufferContent(j->buffer),
                          (size_t)xmlBufferLength(j->buffer), inputs);
  else
    fprintf(stderr, "lowersim %s: cannot write %s: out of memory\n", command, path);
  xmlBufferFree(j->buffer);
  free(j);
  return code;
}
