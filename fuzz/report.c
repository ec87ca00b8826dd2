/* fuzz/report.c: findings as scenario files with a comment saying what
 * failed; `lowersim lower FILE` reproduces them. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* `text` as the body of an XML comment: no "--", no '-' at the end, no
 * control characters but newlines and tabs. */
static void comment_text(FILE *f, const char *text) {
  char last = '\0';
  for (const char *p = text; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == '-' && last == '-')
      fputc(' ', f);
    last = c < 0x20 && c != '\n' && c != '\t' ? ' ' : (char)c;
    fputc(last, f);
  }
  if (last == '-')
    fputc(' ', f);
}

int lsim_fuzz_write_commented(FILE *out, const char *text, size_t size, const char *comment,
                              lsim_error *err) {
  size_t head = 0;
  if (size >= 5 && memcmp(text, "<?xml", 5) == 0) {
    const char *nl = memchr(text, '\n', size);
    head = nl ? (size_t)(nl - text) + 1 : size;
  }
  lsim_fuzz_text t;
  if (!lsim_fuzz_text_open(&t))
    return lsim_fuzz_no_memory(err);
  fwrite(text, 1, head, t.f);
  fputs("<!-- ", t.f);
  comment_text(t.f, comment);
  fputs(" -->\n", t.f);
  fwrite(text + head, 1, size - head, t.f);
  char *whole = lsim_fuzz_text_take(&t); /* t.size is its length now */
  if (!whole)
    return lsim_fuzz_no_memory(err);
  int rc = LSIM_OK;
  errno = 0;
  if (fwrite(whole, 1, t.size, out) != t.size || fflush(out) != 0)
    rc = lsim_error_set(err, LSIM_E_IO, "writing a finding failed: %s",
                        strerror(errno ? errno : EIO));
  free(whole);
  return rc;
}

int lsim_fuzz_write_finding(FILE *out, const lsim_scenario *s, const lsim_fuzz_result *result,
                            const char *note, lsim_error *err) {
  char *text;
  size_t size;
  int rc = lsim_fuzz_scenario_text(s, &text, &size, err);
  if (rc)
    return rc;
  lsim_fuzz_text t;
  char *comment = NULL;
  if (lsim_fuzz_text_open(&t)) {
    fprintf(t.f, "lowersim fuzz finding: the invariant '%s' fails (%s).\n     %s\n",
            lsim_fuzz_invariant_name(result->failed),
            lsim_fuzz_invariant_description(result->failed), result->detail ? result->detail : "");
    if (note)
      fprintf(t.f, "     %s\n", note);
    fputs("     Reproduce: lowersim lower THIS_FILE", t.f);
    comment = lsim_fuzz_text_take(&t);
  }
  rc = comment ? lsim_fuzz_write_commented(out, text, size, comment, err)
               : lsim_fuzz_no_memory(err);
  free(comment);
  free(text);
  return rc;
}
