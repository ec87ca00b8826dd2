/* support/mlir_text.c: MLIR's text callbacks into an lsimp_strbuf, and the
 * one buffered printer of modules. */
#include "support/mlir_text.h"
#include "lowersim/alloc.h"
#include "support/name_index.h"
#include "support/raise.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void lsimp_strbuf_append_mlir(MlirStringRef text, void *data) {
  lsimp_strbuf_append(data, text.data, text.length);
}

MlirLogicalResult lsimp_strbuf_collect_diagnostic(MlirDiagnostic diagnostic, void *data) {
  lsimp_strbuf *sb = data;
  if (sb->len)
    lsimp_strbuf_puts(sb, "; ");
  mlirDiagnosticPrint(diagnostic, lsimp_strbuf_append_mlir, sb);
  return mlirLogicalResultSuccess();
}

enum { SINK_BYTES = 16384 };

typedef struct sink {
  size_t len;
  bool failed;
  lsimp_text_writer write;
  void *dest;
  char buf[SINK_BYTES];
} sink;

static void flush(sink *s) {
  if (s->len && !s->failed && !s->write(s->dest, s->buf, s->len))
    s->failed = true;
  s->len = 0;
}

/* The first and the last `w` bytes of from[0..n) (w <= n <= 2w): constant
 * widths inline to moves. */
static inline void copy_ends(char *to, const char *from, size_t n, size_t w) {
  char head[8], tail[8];
  memcpy(head, from, w);
  memcpy(tail, from + n - w, w);
  memcpy(to, head, w);
  memcpy(to + n - w, tail, w);
}

/* MLIR's printer writes through the C API's unbuffered stream: most tokens
 * are a few bytes, which two fixed-size copies (overlapping when n is not a
 * power of two) take cheaper than a memcpy call. */
static void copy_short(char *to, const char *from, size_t n) {
  if (n >= 8)
    copy_ends(to, from, n, 8);
  else if (n >= 4)
    copy_ends(to, from, n, 4);
  else if (n >= 2)
    copy_ends(to, from, n, 2);
  else if (n)
    to[0] = from[0];
}

static void sink_token(MlirStringRef text, void *data) {
  sink *s = data;
  size_t n = text.length;
  if (n > SINK_BYTES - s->len) {
    flush(s);
    if (n >= SINK_BYTES) {
      if (!s->failed && !s->write(s->dest, text.data, n))
        s->failed = true;
      return;
    }
  }
  char *to = s->buf + s->len;
  if (n <= 16)
    copy_short(to, text.data, n);
  else
    memcpy(to, text.data, n);
  s->len += n;
}

bool lsimp_mlir_print_to(MlirOperation op, lsimp_print_mode mode, lsimp_text_writer write,
                         void *dest) {
  sink s;
  s.len = 0;
  s.failed = false;
  s.write = write;
  s.dest = dest;
  if (mode == LSIMP_PRINT_CHECKED) {
    mlirOperationPrint(op, sink_token, &s);
  } else {
    MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
    mlirOpPrintingFlagsAssumeVerified(flags);
    if (mode == LSIMP_PRINT_OWN)
      mlirOpPrintingFlagsUseLocalScope(flags);
    mlirOperationPrintWithFlags(op, flags, sink_token, &s);
    mlirOpPrintingFlagsDestroy(flags);
  }
  /* A top-level op printed in full ends with a newline; in local scope not. */
  if (mode == LSIMP_PRINT_OWN && !mlirOperationIsNull(op) &&
      mlirOperationIsNull(mlirOperationGetParentOperation(op)))
    sink_token(mlirStringRefCreate("\n", 1), &s);
  sink_token(mlirStringRefCreate("\n", 1), &s);
  flush(&s);
  return !s.failed;
}

bool lsimp_strbuf_write(void *dest, const char *data, size_t n) {
  lsimp_strbuf_append(dest, data, n);
  return !lsimp_strbuf_failed(dest);
}

char *lsimp_mlir_print(MlirOperation op, lsimp_print_mode mode) {
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  if (!lsimp_mlir_print_to(op, mode, lsimp_strbuf_write, &sb)) {
    lsimp_strbuf_free(&sb);
    return NULL;
  }
  return lsimp_strbuf_take(&sb);
}

/* --- The bound on what MLIR's parser and printer meet ------------------------------------

 * MLIR's parser descends recursively into every bracket ({ regions and
 * dictionaries, [ arrays and dense literals, ( types and locations, < types
 * and attributes), about 2 KiB of stack a level, and into every operator of
 * an affine expression (`d0 + d0 + ...`, `- - d0`); its printer does the same
 * on the way out, and it prints an alias (`#a = [#b, #b]`) in full at each
 * use, so a chain of them reaches any depth, or any size, that its text does
 * not show.  One linear pass over the text measures all three, skipping
 * string literals (with their escapes) and `//` comments. */

typedef struct bound_frame {
  char close;        /* the bracket that ends it */
  bool affine;       /* inside affine_map<...> or affine_set<...> */
  uint32_t operators; /* affine operators pending at this level */
} bound_frame;

/* What an alias stands for: the depth it adds where it is used, and the
 * bytes it prints as. */
typedef struct bound_alias {
  char *name; /* owned; the index borrows it */
  size_t depth;
  uint64_t size;
} bound_alias;

typedef struct bound {
  const char *text, *p, *end;
  long line;
  lsim_error *err;
  bound_frame frames[LSIMP_MLIR_MAX_DEPTH + 1];
  size_t open, operators; /* the depth is open + operators */
  const char *word;       /* the last token, when a bare identifier (affine_map <) */
  size_t word_len;
  lsimp_name_index names; /* "#a" or "!t" -> aliases[i] */
  bound_alias *aliases;
  size_t num_aliases, cap_aliases;
  lsimp_strbuf scratch;
  /* The alias being defined (`#a = VALUE` at the top level), from `start`. */
  bool defining, expect_value;
  const char *name, *start;
  size_t name_len, def_depth;
  uint64_t def_extra;
  uint64_t extra, max_size; /* bytes printed beyond the text's own, and the cap */
} bound;

static size_t bound_depth(const bound *b) { return b->open + b->operators; }

static int bound_deep(bound *b, const char *through, size_t len) {
  if (through)
    return lsim_error_set(b->err, LSIM_E_INVALID_INPUT,
                          "it is nested deeper than %d levels through the alias %.*s at line %ld, "
                          "the limit lowersim gives MLIR's parser and printer (their recursion "
                          "would overflow the stack)",
                          LSIMP_MLIR_MAX_DEPTH, (int)(len > 64 ? 64 : len), through, b->line);
  return lsim_error_set(b->err, LSIM_E_INVALID_INPUT,
                        "it is nested deeper than %d levels at line %ld, the limit lowersim gives "
                        "MLIR's parser and printer (their recursion would overflow the stack)",
                        LSIMP_MLIR_MAX_DEPTH, b->line);
}

/* The depth now reached, `more` levels below the current one. */
static int bound_reach(bound *b, size_t more, const char *through, size_t len) {
  size_t d = bound_depth(b) + more;
  if (d > LSIMP_MLIR_MAX_DEPTH)
    return bound_deep(b, through, len);
  if (b->defining && d > b->def_depth)
    b->def_depth = d;
  return LSIM_OK;
}

static bool is_word_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_word_char(char c) {
  return is_word_start(c) || (c >= '0' && c <= '9') || c == '$' || c == '.';
}

/* The definition under way ends where `at` begins. */
static int bound_define(bound *b, const char *at) {
  b->defining = false;
  if (b->num_aliases == b->cap_aliases &&
      !lsim_grow_array(&b->aliases, &b->cap_aliases, b->num_aliases + 1, sizeof *b->aliases))
    return lsimp_fail_oom(b->err);
  char *name = lsim_malloc(b->name_len + 1);
  if (!name)
    return lsimp_fail_oom(b->err);
  memcpy(name, b->name, b->name_len);
  name[b->name_len] = '\0';
  b->aliases[b->num_aliases] =
      (bound_alias){name, b->def_depth, (uint64_t)(at - b->start) + b->def_extra};
  size_t index = b->num_aliases;
  /* A second definition of a name is MLIR's error; the first stands. */
  if (!lsimp_name_index_add(&b->names, name, &index)) {
    free(name);
    return lsimp_fail_oom(b->err);
  }
  b->num_aliases++;
  return LSIM_OK;
}

/* `#name` or `!name` (`len` bytes at `at`): the start of a definition at the
 * top level, or a use of one. */
static int bound_alias_token(bound *b, const char *at, size_t len) {
  if (bound_depth(b) == 0 && !b->defining) {
    const char *q = b->p;
    while (q < b->end && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n'))
      q++;
    if (q < b->end && *q == '=' && (q + 1 >= b->end || q[1] != '=')) {
      b->defining = b->expect_value = true;
      b->name = at, b->name_len = len, b->start = q + 1;
      b->def_depth = 0, b->def_extra = 0;
      for (; b->p <= q; b->p++)
        b->line += *b->p == '\n';
      return LSIM_OK;
    }
  }
  lsimp_strbuf_reset(&b->scratch);
  lsimp_strbuf_append(&b->scratch, at, len);
  if (lsimp_strbuf_failed(&b->scratch))
    return lsimp_fail_oom(b->err);
  size_t i;
  if (!lsimp_name_index_find(&b->names, lsimp_strbuf_cstr(&b->scratch), &i))
    return LSIM_OK;
  const bound_alias *a = &b->aliases[i];
  int rc = bound_reach(b, a->depth, at, len);
  if (rc)
    return rc;
  b->extra += a->size;
  if (b->defining)
    b->def_extra += a->size;
  if (b->extra > b->max_size)
    return lsim_error_set(b->err, LSIM_E_INVALID_INPUT,
                          "its aliases print as more than %llu bytes (%.*s at line %ld), the "
                          "limit lowersim gives MLIR's printer for a text of %zu bytes",
                          (unsigned long long)b->max_size, (int)(len > 64 ? 64 : len), at,
                          b->line, (size_t)(b->end - b->text));
  return LSIM_OK;
}

static int bound_open(bound *b, char c) {
  static const char opens[] = "([{<", closes[] = ")]}>";
  int rc = bound_reach(b, 1, NULL, 0);
  if (rc)
    return rc;
  bool affine = (b->open && b->frames[b->open - 1].affine) ||
                (c == '<' && b->word && b->word_len == 10 &&
                 (memcmp(b->word, "affine_map", 10) == 0 || memcmp(b->word, "affine_set", 10) == 0));
  b->frames[b->open++] = (bound_frame){closes[strchr(opens, c) - opens], affine, 0};
  return LSIM_OK;
}

/* An operator of an affine expression: a level of MLIR's recursion. */
static int bound_operator(bound *b) {
  int rc = bound_reach(b, 1, NULL, 0);
  if (!rc) {
    b->frames[b->open - 1].operators++;
    b->operators++;
  }
  return rc;
}

static bool bound_in_affine(const bound *b) { return b->open && b->frames[b->open - 1].affine; }

/* One token at b->p (not a space, a comment or a string). */
static int bound_token(bound *b) {
  const char *at = b->p, *word = b->word;
  char c = *b->p++;
  b->word = NULL;
  if (c == '-' && b->p < b->end && *b->p == '>') {
    b->p++;
    return LSIM_OK;
  }
  if (strchr("([{<", c)) {
    b->word = word;
    int rc = bound_open(b, c);
    b->word = NULL;
    return rc;
  }
  if (strchr(")]}>", c)) {
    /* `>=` of an affine set closes nothing; a bracket that closes no open
     * one is MLIR's error, and counted as nothing here. */
    if (c == '>' && b->p < b->end && *b->p == '=')
      return bound_in_affine(b) ? bound_operator(b) : LSIM_OK;
    if (b->open && b->frames[b->open - 1].close == c) {
      b->operators -= b->frames[b->open - 1].operators;
      b->open--;
    }
    return LSIM_OK;
  }
  if ((c == '#' || c == '!') && b->p < b->end && (is_word_char(*b->p) || *b->p == '-')) {
    while (b->p < b->end && (is_word_char(*b->p) || *b->p == '-'))
      b->p++;
    return bound_alias_token(b, at, (size_t)(b->p - at));
  }
  if (c >= '0' && c <= '9') { /* a number, whole: 12, 1.5e-3, 0x7FC0 */
    while (b->p < b->end && (is_word_char(*b->p) || ((*b->p == '+' || *b->p == '-') &&
                                                      (b->p[-1] == 'e' || b->p[-1] == 'E'))))
      b->p++;
    return LSIM_OK;
  }
  if (c == '@' || c == '%' || c == '^') { /* a symbol, a value, a block */
    while (b->p < b->end && (is_word_char(*b->p) || *b->p == '-'))
      b->p++;
    return LSIM_OK;
  }
  if (is_word_start(c)) {
    while (b->p < b->end && is_word_char(*b->p))
      b->p++;
    b->word = at, b->word_len = (size_t)(b->p - at);
    size_t n = b->word_len;
    if (bound_in_affine(b) && ((n == 3 && memcmp(at, "mod", 3) == 0) ||
                               (n == 7 && memcmp(at, "ceildiv", 7) == 0) ||
                               (n == 8 && memcmp(at, "floordiv", 8) == 0)))
      return bound_operator(b);
    return LSIM_OK;
  }
  if (bound_in_affine(b) && (c == '+' || c == '-' || c == '*'))
    return bound_operator(b);
  return LSIM_OK;
}

/* At the top level inside a definition: does the token at b->p continue its
 * value (`dense<...> : tensor<...>`, `(i32) -> i32`, `-1 : i64`)?  Anything
 * else starts what follows the definition (an op, another definition). */
static bool bound_continues(bound *b) {
  char c = *b->p;
  if (c == ':' || (c == '-' && b->p + 1 < b->end && b->p[1] == '>')) {
    b->expect_value = true;
    return true;
  }
  if (strchr("([{<", c) && !(c == '{' && b->p + 1 < b->end && b->p[1] == '-')) {
    b->expect_value = false;
    return true;
  }
  if (b->expect_value) {
    b->expect_value = c == '-'; /* a sign, then the number */
    return true;
  }
  return false;
}

static int bound_scan(bound *b) {
  while (b->p < b->end) {
    char c = *b->p;
    if (c == '\n' || c == ' ' || c == '\t' || c == '\r') {
      b->line += c == '\n';
      b->p++;
      continue;
    }
    if (c == '/' && b->p + 1 < b->end && b->p[1] == '/') {
      while (b->p < b->end && *b->p != '\n')
        b->p++;
      continue;
    }
    if (b->defining && bound_depth(b) == 0 && !bound_continues(b)) {
      int rc = bound_define(b, b->p);
      if (rc)
        return rc;
    }
    if (c == '"') {
      for (b->p++; b->p < b->end && *b->p != '"'; b->p++) {
        if (*b->p == '\\' && b->p + 1 < b->end)
          b->p++;
        b->line += *b->p == '\n';
      }
      b->p += b->p < b->end;
      continue;
    }
    int rc = bound_token(b);
    if (rc)
      return rc;
  }
  return b->defining ? bound_define(b, b->end) : LSIM_OK;
}

int lsimp_mlir_text_bound(const char *text, size_t len, lsim_error *err) {
  bound *b = lsim_calloc(1, sizeof *b);
  if (!b)
    return lsimp_fail_oom(err);
  b->text = b->p = text;
  b->end = text + len;
  b->line = 1;
  b->err = err;
  b->names = (lsimp_name_index)LSIMP_NAME_INDEX_INIT;
  b->scratch = (lsimp_strbuf)LSIMP_STRBUF_INIT;
  b->max_size = LSIMP_MLIR_MAX_EXPANSION * (uint64_t)len + LSIMP_MLIR_MAX_EXPANSION_BASE;
  int rc = bound_scan(b);
  for (size_t i = 0; i < b->num_aliases; i++)
    free(b->aliases[i].name);
  free(b->aliases);
  lsimp_name_index_free(&b->names);
  lsimp_strbuf_free(&b->scratch);
  free(b);
  return rc;
}
