/* lower/sanitize_name.c: module names.
 * JAX counterpart: mlir.py sanitize_name (re.sub(r'[^\w.-]', '_', name))
 * over pxla's "jit(" + name + ")", with trailing underscores stripped. */
#include "sanitize_name.h"
#include "support/strbuf.h"

#include <stdbool.h>
#include <wctype.h>

/* Decodes one UTF-8 character at `p` into *cp; returns its length (1 for a
 * byte that does not start a valid sequence, taken as is). */
static size_t utf8_decode(const unsigned char *p, unsigned *cp) {
  int n = p[0] < 0x80 ? 1 : (p[0] >> 5) == 6 ? 2 : (p[0] >> 4) == 14 ? 3 : (p[0] >> 3) == 30 ? 4 : 0;
  *cp = n == 1 ? p[0] : n == 2 ? p[0] & 0x1f : n == 3 ? p[0] & 0x0f : p[0] & 0x07;
  for (int i = 1; i < n; i++) {
    if ((p[i] & 0xc0) != 0x80)
      n = 0;
    else
      *cp = (*cp << 6) | (p[i] & 0x3f);
  }
  if (n == 0)
    *cp = p[0];
  return n ? (size_t)n : 1;
}

/* Python's \w on one character: [A-Za-z0-9_] and Unicode letters and
 * digits (as the C.UTF-8 locale classifies them; without it, every
 * non-ASCII character counts). */
static bool is_word(unsigned cp, locale_t utf8) {
  if (cp < 0x80)
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
           cp == '_';
  return !utf8 || iswalnum_l((wint_t)cp, utf8);
}

/* sanitize_name: each character outside [\w.-] becomes one '_'. */
static void sanitize_name(lsimp_strbuf *out, const char *name, locale_t utf8) {
  for (const unsigned char *p = (const unsigned char *)name; *p;) {
    unsigned cp;
    size_t n = utf8_decode(p, &cp);
    if (is_word(cp, utf8) || cp == '.' || cp == '-')
      lsimp_strbuf_append(out, (const char *)p, n);
    else
      lsimp_strbuf_putc(out, '_');
    p += n;
  }
}

char *lsimp_module_name(const char *function, locale_t utf8) {
  lsimp_strbuf in = LSIMP_STRBUF_INIT, out = LSIMP_STRBUF_INIT;
  lsimp_strbuf_puts(&in, "jit(");
  lsimp_strbuf_puts(&in, function);
  lsimp_strbuf_putc(&in, ')');
  if (lsimp_strbuf_failed(&in)) { /* no name at all rather than a wrong one */
    lsimp_strbuf_free(&in);
    return NULL;
  }
  sanitize_name(&out, lsimp_strbuf_cstr(&in), utf8);
  while (out.len && out.data[out.len - 1] == '_')
    out.data[--out.len] = '\0';
  lsimp_strbuf_free(&in);
  return lsimp_strbuf_take(&out);
}
