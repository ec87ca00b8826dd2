/* support/strbuf.c: growable strings and Python reprs. */
#include "support/strbuf.h"

#include "lowersim/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lsimp_strbuf_free(lsimp_strbuf *sb) {
  free(sb->data);
  *sb = (lsimp_strbuf)LSIMP_STRBUF_INIT;
}

void lsimp_strbuf_reset(lsimp_strbuf *sb) {
  sb->len = 0;
  sb->failed = false;
  if (sb->data)
    sb->data[0] = '\0';
}

bool lsimp_strbuf_failed(const lsimp_strbuf *sb) { return sb->failed; }

const char *lsimp_strbuf_cstr(const lsimp_strbuf *sb) {
  return sb->data && !sb->failed ? sb->data : "";
}

/* The strbufs of this thread that failed so far (lsimp_strbuf_failures). */
static _Thread_local unsigned long failures;

unsigned long lsimp_strbuf_failures(void) { return failures; }

void lsimp_strbuf_fail(lsimp_strbuf *sb) {
  if (!sb->failed)
    failures++;
  sb->failed = true;
  sb->len = 0;
}

/* Makes room for `extra` more bytes plus the terminator. */
static bool reserve(lsimp_strbuf *sb, size_t extra) {
  if (sb->failed)
    return false;
  if (extra > (size_t)-1 / 2 - sb->len) {
    lsimp_strbuf_fail(sb);
    return false;
  }
  size_t need = sb->len + extra + 1;
  if (need <= sb->cap)
    return true;
  if (!lsim_grow_array(&sb->data, &sb->cap, need < 64 ? 64 : need, 1)) {
    lsimp_strbuf_fail(sb);
    return false;
  }
  return true;
}

void lsimp_strbuf_append(lsimp_strbuf *sb, const char *s, size_t n) {
  if (!reserve(sb, n))
    return;
  if (n)
    memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

void lsimp_strbuf_puts(lsimp_strbuf *sb, const char *s) { lsimp_strbuf_append(sb, s, strlen(s)); }

void lsimp_strbuf_putc(lsimp_strbuf *sb, char c) { lsimp_strbuf_append(sb, &c, 1); }

void lsimp_strbuf_vprintf(lsimp_strbuf *sb, const char *fmt, va_list ap) {
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  if (n < 0) {
    lsimp_strbuf_fail(sb);
  } else if (reserve(sb, (size_t)n)) {
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, again);
    sb->len += (size_t)n;
  }
  va_end(again);
}

void lsimp_strbuf_printf(lsimp_strbuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  lsimp_strbuf_vprintf(sb, fmt, ap);
  va_end(ap);
}

char *lsimp_strbuf_take(lsimp_strbuf *sb) {
  if (sb->failed || !reserve(sb, 0)) {
    lsimp_strbuf_free(sb);
    return NULL;
  }
  char *s = sb->data;
  *sb = (lsimp_strbuf)LSIMP_STRBUF_INIT;
  return s;
}

/* repr(str) as CPython writes it: single quotes unless the text holds a single
 * quote and no double quote; backslash escapes for the quote, the backslash,
 * \t \n \r and other control bytes. */
void lsimp_py_str(lsimp_strbuf *sb, const char *s) {
  char quote = (strchr(s, '\'') && !strchr(s, '"')) ? '"' : '\'';
  lsimp_strbuf_putc(sb, quote);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '\\': lsimp_strbuf_puts(sb, "\\\\"); break;
    case '\n': lsimp_strbuf_puts(sb, "\\n"); break;
    case '\r': lsimp_strbuf_puts(sb, "\\r"); break;
    case '\t': lsimp_strbuf_puts(sb, "\\t"); break;
    default:
      if (*p == (unsigned char)quote)
        lsimp_strbuf_printf(sb, "\\%c", quote);
      else if (*p < 0x20 || *p == 0x7f)
        lsimp_strbuf_printf(sb, "\\x%02x", *p);
      else
        lsimp_strbuf_putc(sb, (char)*p);
    }
  }
  lsimp_strbuf_putc(sb, quote);
}

static void py_sequence(lsimp_strbuf *sb, const char *const *items, size_t n, const char *open,
                        const char *close, bool tuple) {
  lsimp_strbuf_puts(sb, open);
  for (size_t i = 0; i < n; i++) {
    if (i)
      lsimp_strbuf_puts(sb, ", ");
    lsimp_py_str(sb, items[i]);
  }
  if (tuple && n == 1)
    lsimp_strbuf_putc(sb, ',');
  lsimp_strbuf_puts(sb, close);
}

void lsimp_py_list(lsimp_strbuf *sb, const char *const *items, size_t n) {
  py_sequence(sb, items, n, "[", "]", false);
}

void lsimp_py_tuple(lsimp_strbuf *sb, const char *const *items, size_t n) {
  py_sequence(sb, items, n, "(", ")", true);
}

void lsimp_py_shape(lsimp_strbuf *sb, const int64_t *dims, int rank) {
  lsimp_strbuf_putc(sb, '(');
  for (int i = 0; i < rank; i++)
    lsimp_strbuf_printf(sb, "%s%lld", i ? ", " : "", (long long)dims[i]);
  lsimp_strbuf_puts(sb, rank == 1 ? ",)" : ")");
}

void lsimp_join(lsimp_strbuf *sb, const char *const *items, size_t n, const char *sep) {
  for (size_t i = 0; i < n; i++) {
    if (i)
      lsimp_strbuf_puts(sb, sep);
    lsimp_strbuf_puts(sb, items[i]);
  }
}
