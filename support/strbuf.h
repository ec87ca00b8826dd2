/* support/strbuf.h: a growable string, and Python reprs of strings, lists and
 * tuples (how JAX's messages render them).  Private to lowersim.
 *
 * A failed allocation is sticky: every later append is a no-op and
 * lsim_strbuf_failed() says so, so callers check once at the end. */
#ifndef LOWERSIM_SUPPORT_STRBUF_H
#define LOWERSIM_SUPPORT_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct lsim_strbuf {
  char *data; /* NUL-terminated when len > 0 or after any append */
  size_t len;
  size_t cap;
  bool failed;
} lsim_strbuf;

#define LSIM_STRBUF_INIT {NULL, 0, 0, false}

void lsim_strbuf_free(lsim_strbuf *sb);
void lsim_strbuf_reset(lsim_strbuf *sb); /* keeps the storage */
bool lsim_strbuf_failed(const lsim_strbuf *sb);
const char *lsim_strbuf_cstr(const lsim_strbuf *sb); /* "" when empty */
void lsim_strbuf_append(lsim_strbuf *sb, const char *s, size_t n);
void lsim_strbuf_puts(lsim_strbuf *sb, const char *s);
void lsim_strbuf_putc(lsim_strbuf *sb, char c);
void lsim_strbuf_printf(lsim_strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void lsim_strbuf_vprintf(lsim_strbuf *sb, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Hands the string over (caller frees); NULL if an allocation failed.  The
 * buffer is left empty. */
char *lsim_strbuf_take(lsim_strbuf *sb);

/* Python reprs: repr(str), a list of str, a tuple of str (`('cpu',)` for one
 * element), and a list/tuple of str joined by `sep` without quotes. */
void lsim_py_str(lsim_strbuf *sb, const char *s);
void lsim_py_list(lsim_strbuf *sb, const char *const *items, size_t n);
void lsim_py_tuple(lsim_strbuf *sb, const char *const *items, size_t n);
void lsim_join(lsim_strbuf *sb, const char *const *items, size_t n, const char *sep);

#endif
