/* fuzz/libfuzzer_encodings.c: the libFuzzer target of the scenario reader
 * over several encodings (issue 26: UTF-16, EBCDIC and UTF-7 hid the
 * markup from the reader's limits).  The input's first byte picks an
 * encoding; the rest, a UTF-8 scenario, is declared in it and converted to
 * it by iconv (or, for the raw choice, read as it is).  The reader must give
 * the converted document the verdict it gives the UTF-8 one, the same
 * message included, so the limits hold in every encoding; its time and
 * memory are bounded by libFuzzer's -timeout and -rss_limit_mb. */
#include "lowersim/alloc.h"
#include "lowersim/scenario.h"

#include <iconv.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const encodings[] = {
    NULL,       "UTF-8",    "UTF-16LE", "UTF-16BE", "UTF-16", "UTF-32LE", "UTF-32BE",
    "UTF-32",   "UTF-7",    "IBM037",   "IBM500",   "ISO-8859-1", "ISO-8859-15", "SHIFT_JIS",
    "GB18030",  "KOI8-R",
};

/* The reader's verdict: "" or its message (owned). */
static char *verdict(const char *text, size_t n) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  int rc = lsim_scenario_read_memory(text, n, "<fuzz>", &s, &err);
  char *said = lsim_strdup(rc ? lsim_error_message(&err) : "");
  lsim_scenario_destroy(s);
  lsim_error_clear(&err);
  if (!said)
    abort();
  return said;
}

/* `n` bytes of UTF-8 in `to` (owned, its size in *out_n), or NULL when
 * `to` cannot hold them. */
static char *convert(const char *to, const char *text, size_t n, size_t *out_n) {
  iconv_t cd = iconv_open(to, "UTF-8");
  if (cd == (iconv_t)-1)
    abort(); /* glibc knows every encoding of the table */
  size_t cap = n * 8 + 16, left = n, room = cap;
  char *buf = lsim_malloc(cap), *in = (char *)text, *o = buf;
  if (!buf)
    abort();
  if (iconv(cd, &in, &left, &o, &room) == (size_t)-1 || iconv(cd, NULL, NULL, &o, &room) == (size_t)-1) {
    free(buf);
    buf = NULL;
  }
  iconv_close(cd);
  *out_n = (size_t)(o - buf);
  return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const char *encoding = encodings[data[0] % (sizeof encodings / sizeof *encodings)];
  const char *body = (const char *)data + 1;
  size_t n = size - 1;
  if (!encoding) {
    free(verdict(body, n));
    return 0;
  }
  /* The same document declared in UTF-8 and in `encoding`, the second
   * converted to it: once the reader has it in UTF-8, they differ in the
   * declaration's name alone, which libxml2 is told to ignore. */
  char *utf8 = lsim_malloc(n + 64), *declared = lsim_malloc(n + 64);
  if (!utf8 || !declared)
    abort();
  int dhead = snprintf(declared, 64, "<?xml version=\"1.0\" encoding=\"%s\"?>\n", encoding);
  /* As long as the other (byte offsets in messages agree): spaces before ?>. */
  int head = snprintf(utf8, 64, "<?xml version=\"1.0\" encoding=\"UTF-8\"%*s?>\n",
                      (int)strlen(encoding) - 5, "");
  memcpy(utf8 + head, body, n);
  memcpy(declared + dhead, body, n);
  size_t utf8_n = (size_t)head + n, converted_n;
  char *converted = convert(encoding, declared, (size_t)dhead + n, &converted_n);
  if (!converted) /* not UTF-8, or not the encoding's: read as it is */
    free(verdict(body, n));
  /* Only where the conversion is exact (SHIFT_JIS writes `\` as a
   * full-width one) is the UTF-8 twin the same document. */
  if (converted) {
    iconv_t back = iconv_open("UTF-8", encoding);
    size_t cap = (size_t)dhead + n + 1, left = converted_n, room = cap;
    char *again = lsim_malloc(cap), *in = converted, *o = again;
    if (back == (iconv_t)-1 || !again)
      abort();
    bool exact = iconv(back, &in, &left, &o, &room) != (size_t)-1 &&
                 iconv(back, NULL, NULL, &o, &room) != (size_t)-1 &&
                 (size_t)(o - again) == (size_t)dhead + n &&
                 memcmp(again, declared, (size_t)dhead + n) == 0;
    iconv_close(back);
    free(again);
    if (!exact) {
      free(verdict(converted, converted_n));
      free(converted);
      converted = NULL;
    }
  }
  free(declared);
  /* Text iconv does not take as UTF-8, or that the encoding cannot hold, or
   * a converted file past the reader's limit of bytes (said of its size),
   * has no UTF-8 twin to agree with: read, unchecked. */
  if (!converted) {
    /* read above */
  } else if (converted_n > lsim_scenario_max_bytes() || utf8_n > lsim_scenario_max_bytes()) {
    free(verdict(converted, converted_n));
  } else {
    char *want = verdict(utf8, utf8_n), *got = verdict(converted, converted_n);
    if (strcmp(want, got) != 0) {
      fprintf(stderr, "lowersim_libfuzzer_encodings: in %s the reader says\n  %s\nin UTF-8\n  %s\n",
              encoding, got, want);
      abort();
    }
    free(want);
    free(got);
  }
  free(converted);
  free(utf8);
  return 0;
}
