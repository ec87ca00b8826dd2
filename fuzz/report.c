/* fuzz/report.c: findings as scenario files with a comment saying what
 * failed; `lowersim lower FILE` reproduces them. */
#include "fuzz/fuzz.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* `text` as the body of an XML comment: no "--", no '-' at the end, no
 * control characters but newlines and tabs. */
static void comment_text(lsim_strbuf *sb, const char *text) {
  for (const char *p = text; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == '-' && sb->len && sb->data[sb->len - 1] == '-')
      lsim_strbuf_putc(sb, ' ');
    lsim_strbuf_putc(sb, c < 0x20 && c != '\n' && c != '\t' ? ' ' : (char)c);
  }
  if (sb->len && sb->data[sb->len - 1] == '-')
    lsim_strbuf_putc(sb, ' ');
}

int lsim_fuzz_write_commented(FILE *out, const char *text, size_t size, const char *comment,
                              lsim_error *err) {
  size_t head = 0;
  if (size >= 5 && memcmp(text, "<?xml", 5) == 0) {
    const char *nl = memchr(text, '\n', size);
    head = nl ? (size_t)(nl - text) + 1 : size;
  }
  lsim_strbuf sb = LSIM_STRBUF_INIT;
  lsim_strbuf_append(&sb, text, head);
  lsim_strbuf_puts(&sb, "<!-- ");
  comment_text(&sb, comment);
  lsim_strbuf_puts(&sb, " -->\n");
  lsim_strbuf_append(&sb, text + head, size - head);
  int rc = LSIM_OK;
  if (lsim_strbuf_failed(&sb)) {
    rc = lsim_fail_oom(err);
  } else {
    errno = 0;
    if (fwrite(sb.data, 1, sb.len, out) != sb.len || fflush(out) != 0)
      rc = lsim_fail(err, LSIM_E_IO, "writing a finding failed: %s", strerror(errno ? errno : EIO));
  }
  lsim_strbuf_free(&sb);
  return rc;
}

int lsim_fuzz_write_finding(FILE *out, const lsim_scenario *s, const lsim_fuzz_result *result,
                            const char *note, lsim_error *err) {
  char *text;
  size_t size;
  int rc = lsim_fuzz_scenario_text(s, &text, &size, err);
  if (rc)
    return rc;
  lsim_strbuf comment = LSIM_STRBUF_INIT;
  lsim_strbuf_printf(&comment, "lowersim fuzz finding: the invariant '%s' fails (%s).\n     %s\n",
                     lsim_fuzz_invariant_name(result->failed),
                     lsim_fuzz_invariant_description(result->failed),
                     result->detail ? result->detail : "");
  if (note)
    lsim_strbuf_printf(&comment, "     %s\n", note);
  lsim_strbuf_puts(&comment, "     Reproduce: lowersim lower THIS_FILE");
  rc = lsim_strbuf_failed(&comment)
           ? lsim_fail_oom(err)
           : lsim_fuzz_write_commented(out, text, size, lsim_strbuf_cstr(&comment), err);
  lsim_strbuf_free(&comment);
  free(text);
  return rc;
}
