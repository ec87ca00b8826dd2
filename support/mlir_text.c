/* support/mlir_text.c: MLIR's text callbacks into an lsimp_strbuf, and the
 * one buffered printer of modules. */
#include "support/mlir_text.h"

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
