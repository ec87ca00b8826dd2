/* support/strbuf.h: a growable string, and Python reprs of strings, lists and
 * tuples (how JAX's messages render them).  Private to lowersim.
 *
 * A failed allocation is sticky: every later append is a no-op and
 * lsimp_strbuf_failed() says so, so callers check once at the end; a
 * failed strbuf's text is "" and its len 0. */
#ifndef LSIMP_SUPPORT_STRBUF_H
#define LSIMP_SUPPORT_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lsimp_strbuf {
  char *data; /* NUL-terminated when len > 0 or after any append */
  size_t len;
  size_t cap;
  bool failed;
} lsimp_strbuf;

#define LSIMP_STRBUF_INIT {NULL, 0, 0, false}

void lsimp_strbuf_free(lsimp_strbuf *sb);
void lsimp_strbuf_reset(lsimp_strbuf *sb); /* keeps the storage */
bool lsimp_strbuf_failed(const lsimp_strbuf *sb);
/* Marks the strbuf failed (an allocation of the caller's own failed): its
 * text is then "" of length 0, so cstr and len agree. */
void lsimp_strbuf_fail(lsimp_strbuf *sb);
/* How many strbufs of the calling thread have failed so far: a caller that
 * builds text in many places (a lowering's names and narration) compares
 * it before and after, so that no text lost to out of memory goes unseen. */
unsigned long lsimp_strbuf_failures(void);
const char *lsimp_strbuf_cstr(const lsimp_strbuf *sb); /* "" when empty */
void lsimp_strbuf_append(lsimp_strbuf *sb, const char *s, size_t n);
void lsimp_strbuf_puts(lsimp_strbuf *sb, const char *s);
void lsimp_strbuf_putc(lsimp_strbuf *sb, char c);
void lsimp_strbuf_printf(lsimp_strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void lsimp_strbuf_vprintf(lsimp_strbuf *sb, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Hands the string over (caller frees); NULL if an allocation failed.  The
 * buffer is left empty. */
char *lsimp_strbuf_take(lsimp_strbuf *sb);

/* Python reprs: repr(str), a list of str, a tuple of str (`('cpu',)` for one
 * element), and a list/tuple of str joined by `sep` without quotes. */
void lsimp_py_str(lsimp_strbuf *sb, const char *s);
void lsimp_py_list(lsimp_strbuf *sb, const char *const *items, size_t n);
void lsimp_py_tuple(lsimp_strbuf *sb, const char *const *items, size_t n);
/* A shape as a Python tuple of ints: (), (4,), (2, 3). */
void lsimp_py_shape(lsimp_strbuf *sb, const int64_t *dims, int rank);
void lsimp_join(lsimp_strbuf *sb, const char *const *items, size_t n, const char *sep);

#endif
