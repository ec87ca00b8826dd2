/* scenario/scenario_port.c: the one judge of a port's answer against
 * lowersim's outcome (lowersim/scenario_port.h): error lines, modules in
 * canonical form with their Pallas kernels decoded and compared as modules,
 * the first difference as one line and a unified diff with word marks. */
#define _GNU_SOURCE
#include "lowersim/scenario_port.h"

#include "lowersim/alloc.h"
#include "lowersim/mlir_text.h"
#include "support/encode.h"
#include "support/mlir_text.h"
#include "support/options.h"
#include "support/strbuf.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/Diagnostics.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static MlirStringRef ref(const char *s) { return mlirStringRefCreateFromCString(s); }

static bool is_word(char c) {
  return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static size_t line_len(const char *l) {
  const char *nl = strchr(l, '\n');
  return nl ? (size_t)(nl - l) : strlen(l);
}

/* --- error lines ------------------------------------------------------------------- */

/* The line holds `[CODE: ]ErrorClass: message`: CODE a lowersim code
 * (LSIM_E_...) or a number, ErrorClass a (dotted) Python name starting with
 * a capital in its last part; *rest points at `ErrorClass: message`. */
static bool error_line(const char *line, size_t len, const char **rest) {
  const char *p = line, *end = line + len;
  for (int pass = 0; pass < 2; pass++) {
    const char *q = p, *last = p;
    while (q < end && (is_word(q[0]) || q[0] == '.' || q[0] == '-')) {
      if (q[0] == '.')
        last = q + 1;
      q++;
    }
    if (q == p || q + 1 >= end || q[0] != ':' || q[1] != ' ')
      return false;
    bool code = (p[0] == '-' || (p[0] >= '0' && p[0] <= '9')) || strncmp(p, "LSIM_", 5) == 0;
    if (pass == 0 && code) {
      p = q + 2; /* CODE: then the class */
      continue;
    }
    if (!(last[0] >= 'A' && last[0] <= 'Z') || memchr(p, '-', (size_t)(q - p)))
      return false;
    *rest = p;
    return true;
  }
  return false;
}

/* The last line of `text` of the form `[CODE: ]ErrorClass: message` (its
 * `ErrorClass: message` part, *len bytes), or NULL. */
static const char *last_error_line(const char *text, size_t *len) {
  const char *found = NULL;
  for (const char *line = text; *line;) {
    size_t n = line_len(line);
    const char *rest;
    if (error_line(line, n, &rest))
      found = rest, *len = n - (size_t)(rest - line);
    line += n + (line[n] == '\n');
  }
  return found;
}

/* The last non-empty line of `text`, *len bytes, or NULL. */
static const char *last_line(const char *text, size_t *len) {
  const char *found = NULL;
  for (const char *line = text; *line;) {
    size_t n = line_len(line);
    if (n)
      found = line, *len = n;
    line += n + (line[n] == '\n');
  }
  return found;
}

static bool blank(const char *s) {
  for (; *s; s++)
    if (*s != ' ' && *s != '\n' && *s != '\t' && *s != '\r')
      return false;
  return true;
}

/* What the port's stderr says, for a verdict: its error line, or its last line. */
static void said(lsimp_strbuf *f, const char *err) {
  size_t len = 0;
  const char *l = last_error_line(err, &len);
  if (!l)
    l = last_line(err, &len);
  if (l)
    lsimp_strbuf_append(f, l, len);
  else
    lsimp_strbuf_puts(f, "(nothing on stderr)");
}

/* The length of the address in Python's default repr at `p` (` object at
 * 0x7f...>`: a process's own, which no port can know, as pxla.py's message
 * about ordered effects shows), or 0. */
static size_t repr_address(const char *p, size_t n) {
  static const char prefix[] = " object at 0x";
  size_t k = sizeof prefix - 1;
  if (n < k + 2 || memcmp(p, prefix, k) != 0)
    return 0;
  size_t d = k;
  while (d < n && p[d] && strchr("0123456789abcdef", p[d]))
    d++;
  return d > k && d < n && p[d] == '>' ? d : 0;
}

/* Where an error line first differs from JAX's, but for the addresses of
 * default reprs: the offset in `line`, or SIZE_MAX when they agree. */
static size_t error_line_differs(const char *line, size_t len, const char *want) {
  size_t i = 0, j = 0, n = strlen(want);
  while (i < len && j < n) {
    size_t a = repr_address(line + i, len - i), b = repr_address(want + j, n - j);
    if (a && b) {
      i += a, j += b;
      continue;
    }
    if (line[i] != want[j])
      return i;
    i++, j++;
  }
  return i == len && j == n ? SIZE_MAX : i;
}

static int compare_words(const void *a, const void *b) {
  const char *const *x = a, *const *y = b;
  return strcmp(*x, *y);
}

/* `text` (`n` bytes) with each list of lax's accepted dtypes sorted (owned;
 * NULL when out of memory).  lax.py's dtype rules (unop_dtype_rule,
 * naryop_dtype_rule) name them by iterating a Python set of numpy types,
 * which hash by address: "subtypes of integer, floating, complexfloating"
 * in one process, "integer, complexfloating, floating" in the next.  No
 * port can know the order, so it is not compared (the oracle does the same:
 * oracle/compare.py dtype_list_sorted). */
static char *dtype_lists_sorted(const char *text, size_t n) {
  static const char key[] = "are subtypes of ";
  char *out = lsim_malloc(n + 1);
  if (!out)
    return NULL;
  memcpy(out, text, n);
  out[n] = '\0';
  for (char *p = strstr(out, key); p; p = strstr(p, key)) {
    p += sizeof key - 1;
    char *words[16];
    char buf[256];
    size_t count = 0, len = 0;
    char *q = p;
    while (count < 16) {
      char *w = q;
      while (is_word(*q))
        q++;
      if (q == w || len + (size_t)(q - w) + 1 > sizeof buf)
        break;
      memcpy(buf + len, w, (size_t)(q - w));
      buf[len + (size_t)(q - w)] = '\0';
      words[count++] = buf + len;
      len += (size_t)(q - w) + 1;
      if (q[0] != ',' || q[1] != ' ')
        break;
      q += 2;
    }
    if (count < 2)
      continue;
    qsort(words, count, sizeof *words, compare_words);
    char *w = p;
    for (size_t i = 0; i < count; i++) {
      size_t l = strlen(words[i]);
      memcpy(w, words[i], l);
      w += l;
      if (i + 1 < count)
        memcpy(w, ", ", 2), w += 2;
    }
    p = w;
  }
  return out;
}

/* --- excerpts and word marks --------------------------------------------------------- */

enum { EXCERPT = 40, BEFORE = 12 };

/* Up to EXCERPT characters of the line `l` (`n` bytes) around `at`, "..."
 * where it is cut, quoted. */
static void excerpt(lsimp_strbuf *f, const char *l, size_t n, size_t at) {
  size_t s = at > BEFORE ? at - BEFORE : 0;
  if (s > n)
    s = n;
  size_t e = s + EXCERPT < n ? s + EXCERPT : n;
  lsimp_strbuf_printf(f, "\"%s%.*s%s\"", s ? "..." : "", (int)(e - s), l + s, e < n ? "..." : "");
}

/* An owned excerpt (as excerpt() writes it, unquoted), or NULL. */
static char *excerpt_of(const char *l, size_t n, size_t at) {
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  excerpt(&sb, l, n, at);
  char *s = lsimp_strbuf_take(&sb);
  if (s && strlen(s) >= 2) {
    memmove(s, s + 1, strlen(s) - 2);
    s[strlen(s) - 2] = '\0';
  }
  return s;
}

static const char *const MARKS[2][2][2] = {
    {{"[-", "-]"}, {"{+", "+}"}},
    {{"\033[1;31m", "\033[0m"}, {"\033[1;32m", "\033[0m"}},
};

/* The line `l` (`n` bytes) against `other` (`m` bytes): the words where they
 * differ marked, as removed (`added` false) or added. */
static void marked_line(lsimp_strbuf *f, char sign, const char *l, size_t n, const char *other,
                        size_t m, bool added, bool colour) {
  size_t p = 0;
  while (p < n && p < m && l[p] == other[p])
    p++;
  while (p > 0 && p < n && is_word(l[p - 1]) && is_word(l[p]))
    p--;
  size_t s = 0;
  while (s < n - p && s < m - p && l[n - 1 - s] == other[m - 1 - s])
    s++;
  while (s > 0 && s < n - p && is_word(l[n - s]) && is_word(l[n - s - 1]))
    s--;
  const char *const *mark = MARKS[colour][added];
  lsimp_strbuf_printf(f, "%c%.*s", sign, (int)p, l);
  if (n - p - s)
    lsimp_strbuf_printf(f, "%s%.*s%s", mark[0], (int)(n - p - s), l + p, mark[1]);
  lsimp_strbuf_printf(f, "%.*s\n", (int)s, l + n - s);
}

/* --- unified diff --------------------------------------------------------------------- */

/* The lines of `text` (pointers into it; the array owned), *count of them. */
static const char **lines_of(const char *text, size_t *count) {
  size_t n = 0;
  for (const char *p = text; *p; p++)
    n += *p == '\n';
  n += text[0] && text[strlen(text) - 1] != '\n';
  const char **lines = lsim_malloc_array(n + 1, sizeof *lines);
  if (!lines)
    return NULL;
  size_t k = 0;
  for (const char *p = text; *p && k < n;) {
    lines[k++] = p;
    const char *nl = strchr(p, '\n');
    p = nl ? nl + 1 : p + strlen(p);
  }
  *count = k;
  return lines;
}

static bool same_line(const char *a, const char *b) {
  size_t la = line_len(a);
  return la == line_len(b) && memcmp(a, b, la) == 0;
}

/* One hunk's lines [s, end) of the edit script; a run of removed lines
 * followed by as many added ones is shown with the differing words marked. */
static void hunk_lines(lsimp_strbuf *f, const char *op, const size_t *ia, const size_t *ib,
                       const char **la, const char **lb, size_t s, size_t end, bool colour) {
  for (size_t x = s; x < end;) {
    size_t r = 0, q = 0;
    while (x + r < end && op[x + r] == '-')
      r++;
    while (x + r + q < end && op[x + r + q] == '+')
      q++;
    if (r && r == q) {
      for (size_t k = 0; k < r; k++) {
        const char *a = la[ia[x + k]], *b = lb[ib[x + r + k]];
        marked_line(f, '-', a, line_len(a), b, line_len(b), false, colour);
      }
      for (size_t k = 0; k < r; k++) {
        const char *a = la[ia[x + k]], *b = lb[ib[x + r + k]];
        marked_line(f, '+', b, line_len(b), a, line_len(a), true, colour);
      }
      x += 2 * r;
      continue;
    }
    for (size_t k = 0; k < (r + q ? r + q : 1); k++, x++) {
      const char *l = op[x] == '+' ? lb[ib[x]] : la[ia[x]];
      lsimp_strbuf_printf(f, "%c%.*s\n", op[x], (int)line_len(l), l);
    }
  }
}

/* The edit script of two runs of lines, by Myers' greedy algorithm (the
 * shortest script of D removed and added lines in time O((n + m) D)), with D
 * at most DIFF_MAX_EDITS: each step d keeps the furthest point of each
 * diagonal, D^2 numbers in all, so time and memory stay linear in the
 * texts, never quadratic. */
enum { DIFF_MAX_EDITS = 256 };

typedef struct edit_script {
  char *op;       /* ' ', '-', '+' */
  size_t *ia, *ib; /* the line of each side it is at */
  size_t m;
} edit_script;

static void script_add(edit_script *s, char op, size_t i, size_t j) {
  s->op[s->m] = op, s->ia[s->m] = i, s->ib[s->m] = j, s->m++;
}

/* Step d's move onto diagonal k from step d-1's furthest points `v`
 * (v[k]: diagonal k's x, -1 where it was not reached): down from k+1 (a
 * line of b added) or right from k-1 (a line of a removed), whichever gets
 * further and stays in the n x m grid; its x (before the snake), or -1. */
static long myers_move(const long *v, long k, long d, long n, long m, bool *down) {
  long xd = k < d || d == 0 ? v[k + 1] : -1;
  long xr = k > -d && v[k - 1] >= 0 ? v[k - 1] + 1 : -1;
  bool vd = xd >= 0 && xd <= n && xd - k >= 0 && xd - k <= m;
  bool vr = xr >= 0 && xr <= n && xr - k >= 0 && xr - k <= m;
  *down = !(vr && (!vd || xr > xd));
  return *down ? (vd ? xd : -1) : xr;
}

/* The script taking la[lo..lo+n) to lb[lo..lo+m) into s (from s->m on, in
 * order); false when it needs more than DIFF_MAX_EDITS edits (s unchanged)
 * or out of memory. */
static bool myers(edit_script *s, const char **la, const char **lb, size_t lo, size_t n,
                  size_t m) {
  enum { D = DIFF_MAX_EDITS, OFF = DIFF_MAX_EDITS + 1 };
  if (n > (size_t)LONG_MAX / 2 || m > (size_t)LONG_MAX / 2)
    return false;
  long *v = lsim_malloc_array(2 * OFF + 1, sizeof *v);
  long *trace = lsim_malloc_array((size_t)D * D + 1, sizeof *trace); /* step d-1's at d*d.. */
  long found = -1, N = (long)n, M = (long)m;
  for (long i = 0; v && i < 2 * OFF + 1; i++)
    v[i] = -1;
  if (v)
    v[OFF + 1] = 0; /* step 0 starts at (0, 0) */
  for (long d = 0; v && trace && found < 0 && d <= D; d++) {
    if (d > 0) /* step d-1's points: diagonals -(d-1)..d-1 */
      memcpy(trace + (d - 1) * (d - 1), v + OFF - (d - 1), (size_t)(2 * d - 1) * sizeof *v);
    for (long k = -d; k <= d; k += 2) {
      bool down;
      long x = myers_move(v + OFF, k, d, N, M, &down), y = x - k;
      while (x >= 0 && x < N && y < M && same_line(la[lo + (size_t)x], lb[lo + (size_t)y]))
        x++, y++;
      v[OFF + k] = x;
      if (x == N && y == M) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) {
    free(v), free(trace);
    return false;
  }
  /* Back from (n, m): each step's edit and the snake after it. */
  size_t start = s->m;
  long x = N, y = M;
  for (long d = found; d >= 0; d--) {
    long k = x - y, sx = 0, sy = 0;
    bool down = false;
    if (d > 0) {
      const long *pv = trace + (d - 1) * (d - 1) + (d - 1); /* pv[k]: diagonal k */
      sx = myers_move(pv, k, d, N, M, &down);
      sy = sx - k;
    }
    while (x > sx && y > sy)
      x--, y--, script_add(s, ' ', lo + (size_t)x, lo + (size_t)y);
    if (d > 0 && down)
      y--, script_add(s, '+', lo + (size_t)x, lo + (size_t)y);
    else if (d > 0)
      x--, script_add(s, '-', lo + (size_t)x, lo + (size_t)y);
  }
  /* Built backwards: reversed in place. */
  for (size_t i = start, j = s->m; i + 1 < j; i++) {
    j--;
    char o = s->op[i];
    size_t ta = s->ia[i], tb = s->ib[i];
    s->op[i] = s->op[j], s->ia[i] = s->ia[j], s->ib[i] = s->ib[j];
    s->op[j] = o, s->ia[j] = ta, s->ib[j] = tb;
  }
  free(v), free(trace);
  return true;
}

/* A unified diff (3 lines of context) of `a` (lowersim's) and `b` (the
 * port's), from the shortest edit script of lines; when that takes more than
 * DIFF_MAX_EDITS edits, the first DIFF_MAX_EDITS / 2 lines of each from
 * where they first differ, with a line saying so.  False when out of
 * memory. */
static bool unified_diff(lsimp_strbuf *f, const char *a, const char *b, const char *name_a,
                         const char *name_b, bool colour) {
  size_t na = 0, nb = 0;
  const char **la = lines_of(a, &na), **lb = lines_of(b, &nb);
  /* Common head and tail lines take no search. */
  size_t head = 0, tail_n = 0;
  while (la && lb && head < na && head < nb && same_line(la[head], lb[head]))
    head++;
  while (la && lb && tail_n < na - head && tail_n < nb - head &&
         same_line(la[na - 1 - tail_n], lb[nb - 1 - tail_n]))
    tail_n++;
  size_t ra = na - head - tail_n, rb = nb - head - tail_n;
  size_t cap = na + nb + 1;
  edit_script sc = {la && lb ? lsim_malloc(cap) : NULL, NULL, NULL, 0};
  sc.ia = sc.op ? lsim_malloc_array(cap, sizeof *sc.ia) : NULL;
  sc.ib = sc.ia ? lsim_malloc_array(cap, sizeof *sc.ib) : NULL;
  if (!sc.ib) {
    free(sc.op), free(sc.ia), free(la), free(lb);
    return false;
  }
  for (size_t k = 0; k < head; k++)
    script_add(&sc, ' ', k, k);
  bool bounded = !myers(&sc, la, lb, head, ra, rb);
  size_t shown = DIFF_MAX_EDITS / 2;
  if (bounded) { /* too many edits: the first lines of each side from the first difference */
    for (size_t k = 0; k < ra && k < shown; k++)
      script_add(&sc, '-', head + k, head);
    for (size_t k = 0; k < rb && k < shown; k++)
      script_add(&sc, '+', head + (ra < shown ? ra : shown), head + k);
  } else {
    for (size_t k = 0; k < tail_n; k++)
      script_add(&sc, ' ', head + ra + k, head + rb + k);
  }
  const char *op = sc.op;
  const size_t *ia = sc.ia, *ib = sc.ib;
  size_t m = sc.m;
  lsimp_strbuf_printf(f, "--- %s\n+++ %s\n", name_a, name_b);
  if (bounded)
    lsimp_strbuf_printf(f, "(more than %d lines differ: the first %zu lines of each from the "
                           "first difference, of %zu and %zu)\n",
                        DIFF_MAX_EDITS, shown, ra, rb);
  for (size_t k = 0; k < m;) {
    if (op[k] == ' ') {
      k++;
      continue;
    }
    /* A hunk: from 3 lines before this change to 3 after the last change
     * that is at most 6 lines of context from the next. */
    size_t s = k >= 3 ? k - 3 : 0, e = k;
    for (;;) {
      while (e < m && op[e] != ' ')
        e++;
      size_t gap = e;
      while (gap < m && op[gap] == ' ' && gap - e < 7)
        gap++;
      if (gap < m && op[gap] != ' ' && gap - e < 7)
        e = gap;
      else
        break;
    }
    size_t end = e + 3 < m ? e + 3 : m;
    size_t ca = 0, cb = 0;
    for (size_t x = s; x < end; x++)
      ca += op[x] != '+', cb += op[x] != '-';
    lsimp_strbuf_printf(f, "@@ -%zu,%zu +%zu,%zu @@\n", ia[s] + (ca ? 1 : 0), ca,
                        ib[s] + (cb ? 1 : 0), cb);
    hunk_lines(f, op, ia, ib, la, lb, s, end, colour);
    k = end;
  }
  free(sc.op), free(sc.ia), free(sc.ib), free(la), free(lb);
  return true;
}

/* --- the first difference of two module texts ------------------------------------------ */

/* The op named on the line `l` (`n` bytes): the first `"dialect.op"(`, *len
 * bytes, or NULL. */
static const char *op_on_line(const char *l, size_t n, size_t *len) {
  for (size_t i = 0; i < n; i++) {
    if (l[i] != '"')
      continue;
    size_t j = i + 1;
    bool dot = false;
    while (j < n && (is_word(l[j]) || l[j] == '.' || l[j] == '$'))
      dot |= l[j++] == '.';
    if (j + 1 < n && l[j] == '"' && l[j + 1] == '(' && dot && j > i + 1) {
      *len = j - i - 1;
      return l + i + 1;
    }
  }
  /* An op MLIR 19 prints in its own form (func.func, func.return as
   * `return`): the first word, after the results. */
  size_t i = 0;
  while (i < n && l[i] == ' ')
    i++;
  if (i < n && l[i] == '%') {
    const char *eq = memchr(l + i, '=', n - i);
    i = eq ? (size_t)(eq - l) + 1 : n;
    while (i < n && l[i] == ' ')
      i++;
  }
  size_t j = i;
  while (j < n && (is_word(l[j]) || l[j] == '.'))
    j++;
  if (j > i && memchr(l + i, '.', j - i)) {
    *len = j - i;
    return l + i;
  }
  return NULL;
}

/* The op whose line is lines[k], or, for the line closing an op's regions
 * (`}) {attributes} : ...`, an unregistered op's attributes), the op that
 * opened them. */
static const char *op_of(const char **lines, size_t k, size_t *len, size_t *at) {
  size_t depth = 0;
  for (size_t i = k + 1; i-- > 0;) {
    const char *l = lines[i];
    size_t n = line_len(l), s = 0;
    while (s < n && l[s] == ' ')
      s++;
    if (i != k && n - s >= 2 && l[s] == '}' && l[s + 1] == ')')
      depth++;
    if (i == k && !(n - s >= 2 && l[s] == '}' && l[s + 1] == ')')) {
      *at = i;
      return op_on_line(l, n, len);
    }
    if (i != k && n >= 2 && l[n - 2] == '(' && l[n - 1] == '{') {
      if (depth == 0) {
        *at = i;
        return op_on_line(l, n, len);
      }
      depth--;
    }
  }
  return NULL;
}

/* The attribute whose value holds column `c` of the line `l`: the name
 * before ` = ` in the outermost attribute dictionary around it, *len bytes,
 * or NULL. */
static const char *attribute_at(const char *l, size_t c, size_t *len) {
  int depth = 0;
  bool str = false;
  const char *name = NULL;
  size_t name_len = 0;
  for (size_t i = 0; i < c; i++) {
    if (str) {
      if (l[i] == '\\')
        i++;
      else if (l[i] == '"')
        str = false;
      continue;
    }
    if (l[i] == '"') {
      str = true;
    } else if (l[i] == '{' && !(i > 0 && l[i - 1] == '(')) {
      depth++;
    } else if (l[i] == '}' && depth > 0) {
      depth--;
      if (depth == 0)
        name = NULL;
    } else if (depth == 1 && (l[i - 1] == '{' || (i >= 2 && l[i - 1] == ' ' && l[i - 2] == ','))) {
      size_t j = i;
      while (j < c && (is_word(l[j]) || l[j] == '.' || l[j] == '$'))
        j++;
      if (j > i && j + 2 < c + 3 && strncmp(l + j, " = ", 3) == 0)
        name = l + i, name_len = j - i;
    }
  }
  *len = name_len;
  return depth > 0 ? name : NULL;
}

/* The custom call's target on the line `l`: ` @target`, or "". */
static void target_on_line(lsimp_strbuf *f, const char *l, size_t n) {
  static const char key[] = "call_target_name = \"";
  const char *t = memmem(l, n, key, sizeof key - 1);
  if (!t)
    return;
  t += sizeof key - 1;
  const char *e = memchr(t, '"', n - (size_t)(t - l));
  if (e)
    lsimp_strbuf_printf(f, " @%.*s", (int)(e - t), t);
}

/* `first difference: [WHAT, ]line N, OP[ @target][, attribute NAME]:
 * lowersim "..." port "..."` for two texts that differ; the excerpts of
 * each side into *mine and *theirs (owned). */
static void first_difference(lsimp_strbuf *f, const char *what, const char *a, const char *b,
                             char **mine, char **theirs) {
  size_t na = 0, nb = 0;
  const char **la = lines_of(a, &na), **lb = lines_of(b, &nb);
  size_t k = 0;
  while (la && lb && k < na && k < nb && same_line(la[k], lb[k]))
    k++;
  lsimp_strbuf_printf(f, "first difference: %s%sline %zu", what ? what : "", what ? ", " : "",
                      k + 1);
  if (!la || !lb) {
    free(la), free(lb);
    return;
  }
  const char *x = k < na ? la[k] : "", *y = k < nb ? lb[k] : "";
  size_t nx = line_len(x), ny = line_len(y), c = 0;
  while (c < nx && c < ny && x[c] == y[c])
    c++;
  size_t op_len = 0, at = 0;
  const char *op = k < na ? op_of(la, k, &op_len, &at) : op_of(lb, k, &op_len, &at);
  if (op) {
    lsimp_strbuf_printf(f, ", %.*s", (int)op_len, op);
    const char *ol = k < na ? la[at] : lb[at];
    target_on_line(f, ol, line_len(ol));
  }
  size_t attr_len = 0;
  const char *attr = attribute_at(k < na ? x : y, c, &attr_len);
  /* An attribute only one side has starts where they differ: name it. */
  for (int side = 0; attr && side < 2; side++) {
    const char *l = side ? y : x;
    size_t n = side ? ny : nx, st = c;
    if (st + 1 < n && l[st] == ',' && l[st + 1] == ' ')
      st += 2; /* `, name = ` added after the last one they share */
    size_t j = st;
    while (j < n && (is_word(l[j]) || l[j] == '.' || l[j] == '$'))
      j++;
    if (j > st && st > 0 && (l[st - 1] == ' ' || l[st - 1] == '{') && j + 3 <= n &&
        strncmp(l + j, " = ", 3) == 0) {
      attr = l + st, attr_len = j - st;
      break;
    }
  }
  if (attr)
    lsimp_strbuf_printf(f, ", attribute %.*s", (int)attr_len, attr);
  lsimp_strbuf_puts(f, ": lowersim ");
  if (k < na)
    excerpt(f, x, nx, c);
  else
    lsimp_strbuf_puts(f, "(end of module)");
  lsimp_strbuf_puts(f, " port ");
  if (k < nb)
    excerpt(f, y, ny, c);
  else
    lsimp_strbuf_puts(f, "(end of module)");
  if (mine && !*mine)
    *mine = k < na ? excerpt_of(x, nx, c) : lsim_strdup("");
  if (theirs && !*theirs)
    *theirs = k < nb ? excerpt_of(y, ny, c) : lsim_strdup("");
  free(la), free(lb);
}

/* --- kernels ---------------------------------------------------------------------------- */

static const char PLACEHOLDER[] = "<kernel %zu: compared as a module>";

typedef struct kernel {
  char where[96];       /* what carries it, e.g. `tpu_custom_call backend_config ...body` */
  lsimp_strbuf payload; /* the serialized module */
  char *text;           /* its canonical text; NULL when it does not parse */
  char *error;          /* why it does not parse */
  int version;          /* bytecode version; -1: not bytecode */
  char producer[64];    /* bytecode producer */
  int hash_holds;       /* kernel_hash is the SHA-256 of the payload: 1, 0; -1: no hash */
} kernel;

typedef struct side {
  char *text;  /* the module's canonical text, payloads replaced by placeholders */
  char *error; /* why it does not parse (owned) */
  kernel *k;
  size_t n, cap;
  bool oom;
} side;

static kernel *add_kernel(side *s, const char *where) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 4;
    kernel *k = lsim_realloc_array(s->k, cap, sizeof *k);
    if (!k) {
      s->oom = true;
      return NULL;
    }
    s->k = k, s->cap = cap;
  }
  kernel *k = &s->k[s->n++];
  *k = (kernel){.payload = LSIMP_STRBUF_INIT, .version = -1, .hash_holds = -1};
  snprintf(k->where, sizeof k->where, "%s", where);
  return k;
}

/* The string value of `"key": "` in the JSON `j` (`n` bytes): [*start, *end). */
static bool json_string(const char *j, size_t n, const char *key, size_t *start, size_t *end) {
  char quoted[32];
  snprintf(quoted, sizeof quoted, "\"%s\"", key);
  const char *k = memmem(j, n, quoted, strlen(quoted));
  if (!k)
    return false;
  size_t i = (size_t)(k - j) + strlen(quoted);
  while (i < n && j[i] == ' ')
    i++;
  if (i >= n || j[i++] != ':')
    return false;
  while (i < n && j[i] == ' ')
    i++;
  if (i >= n || j[i++] != '"')
    return false;
  const char *e = memchr(j + i, '"', n - i);
  if (!e)
    return false;
  *start = i, *end = (size_t)(e - j);
  return true;
}

/* tpu_custom_call's kernel and its locations: `custom_call_config.body` and
 * `debug_locations` (base64) of the JSON in backend_config, replaced by
 * placeholders. */
static void take_tpu(side *s, MlirOperation op) {
  MlirAttribute cfg = mlirOperationGetAttributeByName(op, ref("backend_config"));
  if (mlirAttributeIsNull(cfg) || !mlirAttributeIsAString(cfg))
    return;
  MlirStringRef j = mlirStringAttrGetValue(cfg);
  static const char *const keys[2] = {"body", "debug_locations"};
  static const char *const wheres[2] = {
      "tpu_custom_call backend_config custom_call_config.body",
      "tpu_custom_call backend_config custom_call_config.debug_locations"};
  size_t start[2], end[2];
  bool has[2];
  for (int i = 0; i < 2; i++)
    has[i] = json_string(j.data, j.length, keys[i], &start[i], &end[i]);
  if (!has[0])
    return;
  lsimp_strbuf out = LSIMP_STRBUF_INIT;
  size_t from = 0;
  for (int pass = 0; pass < 2; pass++) {
    /* In the order they come in the text. */
    int i = has[1] && start[1] < start[0] ? 1 - pass : pass;
    if (!has[i])
      continue;
    kernel *k = add_kernel(s, wheres[i]);
    if (!k)
      break;
    if (!lsimp_base64_decode(&k->payload, j.data + start[i], end[i] - start[i])) {
      lsimp_strbuf_free(&k->payload);
      s->n--;
      continue;
    }
    lsimp_strbuf_append(&out, j.data + from, start[i] - from);
    lsimp_strbuf_printf(&out, PLACEHOLDER, s->n - 1);
    from = end[i];
  }
  lsimp_strbuf_append(&out, j.data + from, j.length - from);
  if (lsimp_strbuf_failed(&out))
    s->oom = true;
  else
    mlirOperationSetAttributeByName(
        op, ref("backend_config"),
        mlirStringAttrGet(mlirOperationGetContext(op), ref(lsimp_strbuf_cstr(&out))));
  lsimp_strbuf_free(&out);
}

/* Triton's `ir` or Mosaic GPU's `module` in mhlo.backend_config, replaced by
 * a placeholder, and Mosaic GPU's kernel_hash checked and replaced. */
static void take_gpu(side *s, MlirOperation op, const char *target, const char *key) {
  MlirAttribute cfg = mlirOperationGetAttributeByName(op, ref("mhlo.backend_config"));
  if (mlirAttributeIsNull(cfg) || !mlirAttributeIsADictionary(cfg))
    return;
  MlirAttribute payload = mlirDictionaryAttrGetElementByName(cfg, ref(key));
  if (mlirAttributeIsNull(payload) || !mlirAttributeIsAString(payload))
    return;
  char where[96];
  snprintf(where, sizeof where, "%s mhlo.backend_config %s", target, key);
  kernel *k = add_kernel(s, where);
  intptr_t n = mlirDictionaryAttrGetNumElements(cfg);
  MlirNamedAttribute *entries = k ? lsim_malloc_array((size_t)n + 1, sizeof *entries) : NULL;
  if (!entries) {
    s->oom = true;
    return;
  }
  MlirContext ctx = mlirOperationGetContext(op);
  MlirStringRef bytes = mlirStringAttrGetValue(payload);
  lsimp_strbuf_append(&k->payload, bytes.data, bytes.length);
  char text[64];
  for (intptr_t i = 0; i < n; i++) {
    entries[i] = mlirDictionaryAttrGetElement(cfg, i);
    MlirStringRef name = mlirIdentifierStr(entries[i].name);
    if (name.length == strlen(key) && memcmp(name.data, key, name.length) == 0) {
      snprintf(text, sizeof text, PLACEHOLDER, s->n - 1);
      entries[i].attribute = mlirStringAttrGet(ctx, ref(text));
    } else if (name.length == 11 && memcmp(name.data, "kernel_hash", 11) == 0 &&
               mlirAttributeIsAString(entries[i].attribute)) {
      MlirStringRef hash = mlirStringAttrGetValue(entries[i].attribute);
      uint8_t digest[32];
      lsimp_sha256(bytes.data, bytes.length, digest);
      k->hash_holds = hash.length == 32 && memcmp(hash.data, digest, 32) == 0;
      snprintf(text, sizeof text, "<sha256 of kernel %zu>", s->n - 1);
      entries[i].attribute = mlirStringAttrGet(ctx, ref(text));
    }
  }
  mlirOperationSetAttributeByName(op, ref("mhlo.backend_config"),
                                  mlirDictionaryAttrGet(ctx, n, entries));
  free(entries);
}

static MlirWalkResult visit(MlirOperation op, void *data) {
  side *s = data;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length != 21 || memcmp(name.data, "stablehlo.custom_call", 21) != 0)
    return MlirWalkResultAdvance;
  MlirAttribute t = mlirOperationGetAttributeByName(op, ref("call_target_name"));
  if (mlirAttributeIsNull(t) || !mlirAttributeIsAString(t))
    return MlirWalkResultAdvance;
  MlirStringRef target = mlirStringAttrGetValue(t);
  char tgt[64];
  snprintf(tgt, sizeof tgt, "%.*s", (int)(target.length < 63 ? target.length : 63), target.data);
  if (strcmp(tgt, "tpu_custom_call") == 0)
    take_tpu(s, op);
  else if (strcmp(tgt, "__gpu$xla.gpu.triton") == 0)
    take_gpu(s, op, tgt, "ir");
  else if (strcmp(tgt, "mosaic_gpu_v2") == 0)
    take_gpu(s, op, tgt, "module");
  return MlirWalkResultAdvance;
}

/* MLIR bytecode's header: magic "ML\xefR", a varint version, the producer
 * up to NUL. */
static void bytecode_header(kernel *k) {
  const uint8_t *d = (const uint8_t *)lsimp_strbuf_cstr(&k->payload);
  size_t n = k->payload.len;
  if (n < 6 || memcmp(d, "ML\xefR", 4) != 0)
    return;
  size_t pos = 4;
  uint64_t v = 0;
  if (d[pos] & 1) {
    v = d[pos] >> 1;
    pos++;
  } else {
    unsigned bytes = 1;
    while (bytes < 9 && !(d[pos] & (1u << (bytes - 1))))
      bytes++;
    if (pos + bytes > n)
      return;
    /* A first byte of 0: the value is the 8 bytes after it (a shift by
     * 64 bits is undefined: UBSan, found by libfuzzer_bindings). */
    if (bytes == 9) {
      for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)d[pos + 1 + i] << (8 * i);
    } else {
      for (unsigned i = 0; i < bytes; i++)
        v |= (uint64_t)d[pos + i] << (8 * i);
      v >>= bytes;
    }
    pos += bytes;
  }
  k->version = (int)v;
  const uint8_t *nul = memchr(d + pos, 0, n - pos);
  if (nul)
    snprintf(k->producer, sizeof k->producer, "%.*s", (int)(nul - d - (ptrdiff_t)pos), d + pos);
}

/* --- bytecode kernels, decoded in a child process -------------------------------------- */

/* MLIR's bytecode reader trusts what it reads: counts it allocates for
 * before checking them (a 7.5 GB vector from a few bytes), nesting it
 * recurses into (modules and attributes 12,000 deep overflow an 8 MiB
 * stack, and the printer after them), text attributes it hands the text
 * parser.  No scan of the bytes can bound all of that, so a bytecode kernel
 * is parsed and printed by a child process, under a limit on its memory
 * (not under AddressSanitizer, which reserves terabytes) and a time limit;
 * a child that fails is a kernel that cannot be decoded, with the reason. */
enum { KERNEL_SECONDS = 60 };
#if defined(__SANITIZE_ADDRESS__)
#define KERNEL_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KERNEL_UNDER_ASAN 1
#endif
#endif
#define KERNEL_MEMORY ((rlim_t)4 << 30)

static void child_decode(int fd, const kernel *k, MlirContext kctx) {
  /* The parent's handlers (its temporaries, Python's faulthandler, LLVM's
   * crash report) are not the child's; nor is a core dump. */
  static const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD, SIGXFSZ,
                                SIGSEGV, SIGBUS,  SIGABRT, SIGFPE, SIGILL};
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  for (size_t i = 0; i < sizeof signals / sizeof *signals; i++)
    signal(signals[i], SIG_DFL);
  /* LLVM's own report of what kills the reader is not the command's output. */
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null >= 0)
    dup2(null, STDERR_FILENO);
#if !defined(KERNEL_UNDER_ASAN)
  struct rlimit limit = {KERNEL_MEMORY, KERNEL_MEMORY};
  setrlimit(RLIMIT_AS, &limit);
#endif
  lsimp_strbuf out = LSIMP_STRBUF_INIT;
  MlirDiagnosticHandlerID h =
      mlirContextAttachDiagnosticHandler(kctx, lsimp_strbuf_collect_diagnostic, &out, NULL);
  lsimp_strbuf_putc(&out, 'E');
  MlirModule m = mlirModuleCreateParse(
      kctx, mlirStringRefCreate(lsimp_strbuf_cstr(&k->payload), k->payload.len));
  mlirContextDetachDiagnosticHandler(kctx, h);
  if (!mlirModuleIsNull(m)) {
    lsimp_strbuf_reset(&out);
    lsimp_strbuf_putc(&out, 'T');
    lsimp_mlir_print_to(mlirModuleGetOperation(m), LSIMP_PRINT_CHECKED, lsimp_strbuf_write, &out);
  }
  const char *p = lsimp_strbuf_cstr(&out);
  for (size_t left = out.len; !lsimp_strbuf_failed(&out) && left;) {
    ssize_t w = write(fd, p, left);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      _exit(3);
    p += w, left -= (size_t)w;
  }
  _exit(lsimp_strbuf_failed(&out) ? 4 : 0);
}

/* k->text or k->error from the child's answer; false when out of memory. */
static bool decode_bytecode(kernel *k, MlirContext kctx) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC)) {
    k->error = lsim_strdup("its bytecode could not be decoded: no pipe for the decoder");
    return k->error != NULL;
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    child_decode(fds[1], k, kctx);
  }
  close(fds[1]);
  lsimp_strbuf got = LSIMP_STRBUF_INIT;
  bool timed_out = false;
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (char buf[65536]; pid > 0;) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    long left_ms = KERNEL_SECONDS * 1000L - (long)(now.tv_sec - start.tv_sec) * 1000L -
                   (now.tv_nsec - start.tv_nsec) / 1000000L;
    struct pollfd pfd = {fds[0], POLLIN, 0};
    int ready = left_ms > 0 ? poll(&pfd, 1, (int)left_ms) : 0;
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    ssize_t r = read(fds[0], buf, sizeof buf);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    lsimp_strbuf_append(&got, buf, (size_t)r);
  }
  close(fds[0]);
  int status = 0;
  while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  bool ok = true;
  if (lsimp_strbuf_failed(&got)) {
    ok = false;
  } else if (pid > 0 && !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0 && got.len) {
    char **to = got.data[0] == 'T' ? &k->text : &k->error;
    *to = lsim_strdup(lsimp_strbuf_cstr(&got) + 1);
    ok = *to != NULL;
  } else {
    lsimp_strbuf why = LSIMP_STRBUF_INIT;
    if (pid < 0)
      lsimp_strbuf_printf(&why, "no process for the decoder (%s)", strerror(errno));
    else if (timed_out)
      lsimp_strbuf_printf(&why, "MLIR's reader took more than %d s", KERNEL_SECONDS);
    else if (WIFSIGNALED(status))
      lsimp_strbuf_printf(&why, "MLIR's reader was killed by signal %d (%s): its nesting or its "
                          "sizes are past what the reader takes", WTERMSIG(status),
                          strsignal(WTERMSIG(status)));
    else
      lsimp_strbuf_printf(&why, "MLIR's reader exited %d", WEXITSTATUS(status));
    k->error = lsimp_strbuf_failed(&why) ? NULL : lsimp_strbuf_take(&why);
    ok = k->error != NULL;
    if (ok) {
      char *full = NULL;
      lsimp_strbuf t = LSIMP_STRBUF_INIT;
      lsimp_strbuf_printf(&t, "its bytecode could not be decoded: %s", k->error);
      full = lsimp_strbuf_failed(&t) ? NULL : lsimp_strbuf_take(&t);
      free(k->error);
      k->error = full;
      ok = full != NULL;
    }
  }
  lsimp_strbuf_free(&got);
  return ok;
}

/* Parses each kernel's payload in `kctx` into its canonical text. */
static void decode_kernels(side *s, MlirContext kctx) {
  for (size_t i = 0; i < s->n; i++) {
    kernel *k = &s->k[i];
    bytecode_header(k);
    lsimp_strbuf said_ = LSIMP_STRBUF_INIT;
    MlirModule m = {NULL};
    lsim_error deep = LSIM_ERROR_INIT;
    if (k->payload.len >= 4 && memcmp(lsimp_strbuf_cstr(&k->payload), "ML\xefR", 4) == 0) {
      s->oom |= !decode_bytecode(k, kctx);
      continue;
    }
    if (lsimp_mlir_text_bound(lsimp_strbuf_cstr(&k->payload), k->payload.len, &deep)) {
      s->oom |= deep.code == LSIM_E_NO_MEMORY;
      lsimp_strbuf_puts(&said_, lsim_error_message(&deep));
      lsim_error_clear(&deep);
      k->error = lsimp_strbuf_take(&said_);
      continue;
    }
    MlirDiagnosticHandlerID h =
        mlirContextAttachDiagnosticHandler(kctx, lsimp_strbuf_collect_diagnostic, &said_, NULL);
    m = mlirModuleCreateParse(
        kctx, mlirStringRefCreate(lsimp_strbuf_cstr(&k->payload), k->payload.len));
    mlirContextDetachDiagnosticHandler(kctx, h);
    if (mlirModuleIsNull(m) && k->version < 0 && !memchr(lsimp_strbuf_cstr(&k->payload), 0,
                                                         k->payload.len)) {
      /* Text MLIR 19 cannot parse (`--normalize jax` writes kernels as
       * jaxlib's attribute_form, memory spaces of dialects MLIR 19's memref
       * refuses as text): compared as it is written. */
      lsimp_strbuf_putc(&k->payload, '\n');
      k->text = lsim_strdup(lsimp_strbuf_cstr(&k->payload));
      s->oom |= !k->text;
    } else if (mlirModuleIsNull(m)) {
      k->error = lsimp_strbuf_take(&said_);
    } else {
      k->text = lsim_mlir_print(mlirModuleGetOperation(m));
      mlirModuleDestroy(m);
      s->oom |= !k->text;
    }
    lsimp_strbuf_free(&said_);
  }
}

/* `text` parsed in `mlir`, its kernels taken out, printed. */
static void canonical(side *s, MlirContext mlir, const char *text) {
  lsim_error err = LSIM_ERROR_INIT;
  MlirModule m;
  if (lsim_mlir_parse_module(mlir, text, &m, &err)) {
    s->oom = err.code == LSIM_E_NO_MEMORY;
    s->error = lsim_strdup(lsim_error_message(&err));
    lsim_error_clear(&err);
    return;
  }
  mlirOperationWalk(mlirModuleGetOperation(m), visit, s, MlirWalkPreOrder);
  s->text = lsim_mlir_print(mlirModuleGetOperation(m));
  s->oom |= !s->text;
  mlirModuleDestroy(m);
}

static void side_clear(side *s) {
  for (size_t i = 0; i < s->n; i++) {
    lsimp_strbuf_free(&s->k[i].payload);
    free(s->k[i].text);
    free(s->k[i].error);
  }
  free(s->k);
  free(s->text);
  free(s->error);
}

/* --- the verdicts ------------------------------------------------------------------------ */

typedef struct judging {
  const lsim_scenario_port_options *o;
  lsim_scenario_port_verdict *v;
  lsimp_strbuf first, body, notes;
} judging;

enum { DIAGNOSTIC_MAX = 1000 };

/* The module on stdout does not parse: MLIR's diagnostic and what to do. */
static void unparsable(lsimp_strbuf *f, const char *out, const char *diag, bool normalizing,
                       const char *note) {
  lsimp_strbuf_puts(f, "the implementation's output does not parse as MLIR");
  /* MLIR's diagnostic quotes the port's text (a token, its line): the
   * first DIAGNOSTIC_MAX bytes of it say enough. */
  static const char refused[] = "the module does not parse: it"; /* lsimp_mlir_text_bound's */
  size_t dl = diag ? strlen(diag) : 0;
  if (dl && strncmp(diag, refused, sizeof refused - 1) == 0)
    lsimp_strbuf_printf(f, ": %s", diag + sizeof refused - 3);
  else if (dl > DIAGNOSTIC_MAX)
    lsimp_strbuf_printf(f, " (MLIR 19: %.*s... (%zu bytes more))", DIAGNOSTIC_MAX, diag,
                        dl - DIAGNOSTIC_MAX);
  else if (dl)
    lsimp_strbuf_printf(f, " (MLIR 19: %s)", diag);
  if (normalizing && note && strncmp(note, "--normalize", 11) == 0) {
    lsimp_strbuf_printf(f, "; %s", note);
  } else if (normalizing && note) {
    size_t len = 0;
    const char *l = last_line(note, &len);
    lsimp_strbuf_printf(f, "; jaxlib's MLIR cannot read it either: %.*s", (int)(l ? len : strlen(note)),
                        l ? l : note);
  } else if (!normalizing && strstr(out, "stablehlo.") && !strstr(out, "\"stablehlo.")) {
    lsimp_strbuf_puts(
        f, "; it looks like StableHLO's pretty form, which lowersim's MLIR (no stablehlo "
           "dialect) cannot read: print the generic form (Python: "
           "module.operation.get_asm(print_generic_op_form=True); C: "
           "mlirOpPrintingFlagsPrintGenericOpForm), or pass --normalize jax to read it with "
           "jaxlib's MLIR (build/oracle-venv, made by ./run oracle)");
  }
}

/* The kernels of both sides, after their modules agree. */
static void compare_kernels(judging *J, const side *a, const side *b) {
  if (a->n != b->n) {
    if (J->first.len == 0)
      lsimp_strbuf_printf(&J->first, "first difference: lowersim's module carries %zu kernel%s, "
                                   "the implementation's %zu",
                        a->n, a->n == 1 ? "" : "s", b->n);
    return;
  }
  for (size_t i = 0; i < a->n; i++) {
    const kernel *x = &a->k[i], *y = &b->k[i];
    char what[160];
    snprintf(what, sizeof what, "kernel %zu (%s)", i, x->where);
    if ((x->version >= 0 || y->version >= 0) &&
        (x->version != y->version || strcmp(x->producer, y->producer) != 0))
      lsimp_strbuf_printf(&J->notes,
                          "%s: bytecode version %d by \"%s\" (lowersim), version %d by \"%s\" "
                          "(the implementation)\n",
                          what, x->version, x->producer, y->version, y->producer);
    bool diff_started = J->first.len > 0;
    if (y->hash_holds == 0 || x->hash_holds == 0) {
      if (!diff_started)
        lsimp_strbuf_printf(&J->first, "first difference: %s: kernel_hash is not the SHA-256 "
                                       "of the module on %s side",
                            what, y->hash_holds == 0 ? "the implementation's" : "lowersim's");
      continue;
    }
    if (y->error && !x->error && y->version >= 0 && strcmp(y->producer, x->producer) != 0) {
      /* Bytecode of a newer MLIR that MLIR 19 cannot read: reported apart. */
      lsimp_strbuf_printf(&J->notes,
                          "%s: lowersim's MLIR 19 cannot read the implementation's bytecode "
                          "(by \"%s\": %s), so the kernel is not compared (--normalize jax reads "
                          "it with jaxlib's MLIR)\n",
                          what, y->producer, y->error);
      continue;
    }
    if (x->error || y->error) {
      if (!diff_started)
        lsimp_strbuf_printf(&J->first, "first difference: %s does not parse on %s side: %s",
                            what, y->error ? "the implementation's" : "lowersim's",
                            y->error ? y->error : x->error);
      continue;
    }
    if (strcmp(x->text, y->text) != 0) {
      if (!diff_started)
        first_difference(&J->first, what, x->text, y->text, &J->v->expected_module,
                         &J->v->actual_module);
      lsimp_strbuf_printf(&J->body, "\n%s:\n", what);
      if (!unified_diff(&J->body, x->text, y->text, "lowersim kernel", "the implementation's kernel",
                        J->o->colour))
        lsimp_strbuf_puts(&J->body, "(too large for a diff)\n");
    }
  }
}

static void judge_modules(judging *J, MlirContext mlir, const char *ours, const char *theirs) {
  side a = {0}, b = {0};
  canonical(&a, mlir, ours);
  canonical(&b, mlir, theirs);
  /* Kernels parse in a context of their own that loads no dialect (their
   * ops and attributes unregistered, as lowersim builds them). */
  if (a.n || b.n) {
    MlirContext kctx = mlirContextCreateWithThreading(false);
    mlirContextSetAllowUnregisteredDialects(kctx, true);
    decode_kernels(&a, kctx);
    decode_kernels(&b, kctx);
    mlirContextDestroy(kctx);
  }
  if (a.oom || b.oom) {
    lsimp_strbuf_puts(&J->first, "out of memory");
  } else if (!b.text) {
    unparsable(&J->first, theirs, b.error, J->o->normalizing, J->o->normalize_note);
  } else if (!a.text || strcmp(a.text, b.text) != 0) {
    const char *x = a.text ? a.text : "";
    first_difference(&J->first, NULL, x, b.text, &J->v->expected_module, &J->v->actual_module);
    lsimp_strbuf_puts(&J->body, "\n");
    if (!unified_diff(&J->body, x, b.text, "lowersim", "the implementation", J->o->colour))
      lsimp_strbuf_puts(&J->body, "(too large for a diff)\n");
    compare_kernels(J, &a, &b);
  } else {
    compare_kernels(J, &a, &b);
  }
  side_clear(&a);
  side_clear(&b);
}

/* JAX's error as one line, as `lowersim lower` prints it (newlines as \n). */
static void want_line(lsimp_strbuf *f, const lsim_scenario_port_expected *e) {
  lsimp_strbuf_printf(f, "%s: ", e->error_class ? e->error_class : "");
  for (const char *c = e->error_message ? e->error_message : ""; *c; c++) {
    if (*c == '\n')
      lsimp_strbuf_puts(f, "\\n");
    else
      lsimp_strbuf_putc(f, *c);
  }
}

/* The class and message of an error line into the verdict's actual_*. */
static void actual_error(lsim_scenario_port_verdict *v, const char *line, size_t len) {
  const char *colon = memchr(line, ':', len);
  size_t cl = colon ? (size_t)(colon - line) : len;
  v->actual_class = lsim_malloc(cl + 1);
  if (v->actual_class)
    memcpy(v->actual_class, line, cl), v->actual_class[cl] = '\0';
  size_t ms = colon && cl + 2 <= len ? cl + 2 : len;
  v->actual_message = lsim_malloc(len - ms + 1);
  if (v->actual_message)
    memcpy(v->actual_message, line + ms, len - ms), v->actual_message[len - ms] = '\0';
}

static void judge_error(judging *J, const lsim_scenario_port_expected *e,
                        const lsim_scenario_port_answer *a, const char *out, const char *err) {
  lsimp_strbuf want = LSIMP_STRBUF_INIT;
  want_line(&want, e);
  const char *w = lsimp_strbuf_cstr(&want);
  if (a->code == 0) {
    lsimp_strbuf_printf(&J->first, "expected the error \"%s\"; the implementation exits 0 with %s",
                        w, blank(out) ? "nothing on stdout" : "a module");
  } else {
    size_t len = 0;
    const char *line = last_error_line(err, &len);
    if (!line) {
      lsimp_strbuf_printf(&J->first,
                          "expected the error \"%s\"; the implementation exits %d and no line of "
                          "its stderr is `ErrorClass: message`: ",
                          w, a->code);
      said(&J->first, err);
    } else {
      size_t at = error_line_differs(line, len, w);
      char *sorted_line = at != SIZE_MAX ? dtype_lists_sorted(line, len) : NULL;
      char *sorted_want = sorted_line ? dtype_lists_sorted(w, strlen(w)) : NULL;
      if (sorted_want && error_line_differs(sorted_line, strlen(sorted_line), sorted_want) ==
                             SIZE_MAX)
        at = SIZE_MAX; /* only the order of lax's accepted dtypes differs */
      free(sorted_line);
      free(sorted_want);
      if (at != SIZE_MAX) {
        actual_error(J->v, line, len);
        size_t cl = strlen(e->error_class ? e->error_class : "");
        bool cls = at <= cl;
        lsimp_strbuf_printf(&J->first, "first difference: the error's %s: lowersim ",
                            cls ? "class" : "message");
        if (cls)
          lsimp_strbuf_printf(&J->first, "\"%s\" port \"%s\"", e->error_class, J->v->actual_class);
        else {
          excerpt(&J->first, w, strlen(w), at);
          lsimp_strbuf_puts(&J->first, " port ");
          excerpt(&J->first, line, len, at);
        }
        lsimp_strbuf_printf(&J->body, "\nexpected the error \"%s\"; the implementation exits %d: %.*s",
                            w, a->code, (int)len, line);
      }
    }
  }
  lsimp_strbuf_free(&want);
}

/* The first NUL byte in `len` bytes of `text` (one of the port's streams):
 * the verdict says where, and what came before it; true when there is one. */
static bool nul_byte(lsimp_strbuf *f, const char *stream, const char *text, size_t len) {
  const char *nul = len ? memchr(text, '\0', len) : NULL;
  if (!nul)
    return false;
  size_t at = (size_t)(nul - text), from = at > EXCERPT ? at - EXCERPT : 0;
  lsimp_strbuf_printf(f, "the implementation's %s holds a NUL byte at offset %zu (after \"%s", stream,
                      at, from ? "..." : "");
  for (size_t i = from; i < at; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c < 0x20 || c == 0x7f)
      lsimp_strbuf_printf(f, "\\x%02x", c);
    else
      lsimp_strbuf_putc(f, (char)c);
  }
  lsimp_strbuf_puts(f, "\"); no module or error line holds one");
  return true;
}

static void judge(judging *J, MlirContext mlir, const lsim_scenario_port_expected *e,
                  const lsim_scenario_port_answer *a) {
  const char *out = a->out ? a->out : "", *err = a->err ? a->err : "";
  size_t out_len = a->out && a->out_len ? a->out_len : strlen(out);
  size_t err_len = a->err && a->err_len ? a->err_len : strlen(err);
  lsimp_strbuf *f = &J->first;
  if (a->how != LSIM_SCENARIO_PORT_BROKEN &&
      (nul_byte(f, "stdout", out, out_len) || nul_byte(f, "stderr", err, err_len))) {
    return;
  } else if (a->how == LSIM_SCENARIO_PORT_BROKEN) {
    lsimp_strbuf_puts(f, err);
  } else if (a->how == LSIM_SCENARIO_PORT_TIMED_OUT) {
    lsimp_strbuf_printf(f, "the implementation did not finish within %.1f s and was killed",
                        a->seconds);
  } else if (a->how == LSIM_SCENARIO_PORT_SIGNALLED) {
    lsimp_strbuf_printf(f, "the implementation was killed by signal %d (%s); its stderr: ",
                        a->code, strsignal(a->code));
    said(f, err);
  } else if (e->module && a->code) {
    lsimp_strbuf_printf(f, "lowersim gives a module, the implementation exits %d: ", a->code);
    said(f, err);
  } else if (e->module && blank(out)) {
    lsimp_strbuf_puts(f, "lowersim gives a module, the implementation exits 0 and prints "
                         "nothing on stdout");
  } else if (e->module) {
    judge_modules(J, mlir, e->module, out);
  } else {
    judge_error(J, e, a, out, err);
  }
}

static char *taken(lsimp_strbuf *sb, bool *oom) {
  if (lsimp_strbuf_failed(sb)) {
    lsimp_strbuf_free(sb);
    *oom = true;
    return NULL;
  }
  if (sb->len == 0) {
    lsimp_strbuf_free(sb);
    return NULL;
  }
  char *s = lsimp_strbuf_take(sb);
  *oom |= !s;
  return s;
}

int lsim_scenario_port_judge(MlirContext mlir, const lsim_scenario_port_expected *expected,
                             const lsim_scenario_port_answer *answer,
                             const lsim_scenario_port_options *options,
                             lsim_scenario_port_verdict *verdict, lsim_error *err) {
  *verdict = (lsim_scenario_port_verdict){0};
  lsim_scenario_port_options o = LSIM_SCENARIO_PORT_OPTIONS_INIT();
  int rc = lsimp_options_copy(&o, sizeof o, options, "lsim_scenario_port_options", err);
  if (rc)
    return rc;
  if (!expected || !answer)
    return lsim_error_set(err, LSIM_E_INVALID_INPUT, "lsim_scenario_port_judge: no %s",
                          expected ? "answer" : "expected outcome");
  judging J = {.o = &o, .v = verdict, .first = LSIMP_STRBUF_INIT, .body = LSIMP_STRBUF_INIT,
               .notes = LSIMP_STRBUF_INIT};
  judge(&J, mlir, expected, answer);
  bool oom = false;
  verdict->passed = J.first.len == 0;
  if (!verdict->passed) {
    lsimp_strbuf whole = LSIMP_STRBUF_INIT;
    lsimp_strbuf_puts(&whole, lsimp_strbuf_cstr(&J.first));
    lsimp_strbuf_puts(&whole, lsimp_strbuf_cstr(&J.body));
    while (whole.len > 0 && lsimp_strbuf_cstr(&whole)[whole.len - 1] == '\n')
      whole.len--;
    lsimp_strbuf_putc(&whole, '\0');
    whole.len--;
    verdict->difference = taken(&whole, &oom);
  }
  verdict->first = taken(&J.first, &oom);
  lsimp_strbuf_free(&J.body);
  if (J.notes.len > 0 && !J.notes.failed)
    J.notes.data[--J.notes.len] = '\0'; /* one per line, no newline after the last */
  verdict->notes = taken(&J.notes, &oom);
  if (!expected->module && !verdict->passed) {
    verdict->expected_class = lsim_strdup(expected->error_class ? expected->error_class : "");
    verdict->expected_message = lsim_strdup(expected->error_message ? expected->error_message : "");
    oom |= !verdict->expected_class || !verdict->expected_message;
  }
  if (oom || (!verdict->passed && !verdict->first)) {
    lsim_scenario_port_verdict_clear(verdict);
    return lsim_error_set(err, LSIM_E_NO_MEMORY, "out of memory");
  }
  return LSIM_OK;
}

void lsim_scenario_port_verdict_clear(lsim_scenario_port_verdict *v) {
  free(v->first);
  free(v->difference);
  free(v->notes);
  free(v->expected_class);
  free(v->expected_message);
  free(v->expected_module);
  free(v->actual_class);
  free(v->actual_message);
  free(v->actual_module);
  *v = (lsim_scenario_port_verdict){0};
}

/* --- the port's command ---------------------------------------------------------------- */

char *lsim_scenario_port_command(const char *command) {
  static const char placeholder[] = "{scenario}";
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  enum { BARE, SINGLE, DOUBLE } in = BARE;
  for (const char *p = command ? command : ""; *p;) {
    if (strncmp(p, placeholder, sizeof placeholder - 1) == 0) {
      lsimp_strbuf_puts(&sb, in == BARE     ? "\"${" LSIM_SCENARIO_PORT_PATH_VAR "}\""
                             : in == DOUBLE ? "${" LSIM_SCENARIO_PORT_PATH_VAR "}"
                                            : "'\"${" LSIM_SCENARIO_PORT_PATH_VAR "}\"'");
      p += sizeof placeholder - 1;
      continue;
    }
    char c = *p++;
    lsimp_strbuf_putc(&sb, c);
    if (c == '\\' && in != SINGLE && *p)
      lsimp_strbuf_putc(&sb, *p++); /* the escaped character is no quote */
    else if (c == '\'' && in != DOUBLE)
      in = in == SINGLE ? BARE : SINGLE;
    else if (c == '"' && in != SINGLE)
      in = in == DOUBLE ? BARE : DOUBLE;
  }
  lsimp_strbuf_putc(&sb, '\0');
  sb.len--;
  return lsimp_strbuf_take(&sb);
}
