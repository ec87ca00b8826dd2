/* cli/matrix_csv.c: the matrix's CSV rows, written and read back strictly. */
#include "matrix_csv.h"
#include "lowersim/alloc.h"
#include "lowersim/runtime.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* --- Writing --------------------------------------------------------------------- */

void matrix_csv_write_row(FILE *f, const matrix_case *c, const matrix_outcome *o) {
  char variant[MATRIX_VARIANT_NAME_MAX];
  matrix_variant_name(c->feature, c->variant, variant, sizeof variant);
  fprintf(f, "%" PRIu64 ",%s,%s,", c->index, matrix_feature_name(c->feature), variant);
  for (int i = 0; i < c->tuple_len; i++)
    fprintf(f, "%s%s", i ? "+" : "", c->tuple[i]);
  fprintf(f, ",%s,cpu", c->pin < 0 ? "-" : matrix_backends[c->pin]);
  for (size_t i = 0; i < matrix_num_optional_backends; i++)
    if (c->runtime & (1u << i))
      fprintf(f, "+%s", matrix_optional_backends[i]);
  if (o->code)
    fprintf(f, ",%s,-\n", lsim_status_name(o->code));
  else
    fprintf(f, ",OK,%016" PRIx64 "\n", o->hash);
}

/* --- Reading ----------------------------------------------------------------------- */

typedef struct variant_entry {
  char name[MATRIX_VARIANT_NAME_MAX];
  matrix_feature feature;
  int variant;
} variant_entry;

struct matrix_csv_reader {
  const char *path;
  FILE *f;
  long line_no;
  bool header_read, has_previous;
  uint64_t previous;
  char line[MATRIX_CSV_MAX_LINE + 2];
  char error[512];
  variant_entry *variants; /* every feature's variants, sorted by name */
  size_t num_variants;
};

static int compare_variant(const void *a, const void *b) {
  return strcmp(((const variant_entry *)a)->name, ((const variant_entry *)b)->name);
}

matrix_csv_reader *matrix_csv_reader_create(const char *path, FILE *f) {
  matrix_csv_reader *r = lsim_calloc(1, sizeof *r);
  size_t total = 0;
  for (int k = 0; k < FEATURE_COUNT; k++)
    total += (size_t)matrix_feature_variants((matrix_feature)k);
  if (!r || !(r->variants = lsim_calloc(total, sizeof *r->variants))) {
    free(r);
    return NULL;
  }
  r->path = path;
  r->f = f;
  for (int k = 0; k < FEATURE_COUNT; k++)
    for (int v = 0; v < matrix_feature_variants((matrix_feature)k); v++) {
      variant_entry *e = &r->variants[r->num_variants++];
      matrix_variant_name((matrix_feature)k, v, e->name, sizeof e->name);
      e->feature = (matrix_feature)k;
      e->variant = v;
    }
  qsort(r->variants, r->num_variants, sizeof *r->variants, compare_variant);
  return r;
}

void matrix_csv_reader_destroy(matrix_csv_reader *r) {
  if (!r)
    return;
  free(r->variants);
  free(r);
}

const char *matrix_csv_error(const matrix_csv_reader *r) { return r->error; }

static int invalid(matrix_csv_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int invalid(matrix_csv_reader *r, const char *fmt, ...) {
  int n = snprintf(r->error, sizeof r->error, "%s:%ld: ", r->path, r->line_no);
  va_list ap;
  va_start(ap, fmt);
  if (n > 0 && (size_t)n < sizeof r->error)
    vsnprintf(r->error + n, sizeof r->error - (size_t)n, fmt, ap);
  va_end(ap);
  return -1;
}

/* A field as messages quote it: printable ASCII, other bytes as \xNN, at
 * most 60 characters. */
static const char *shown(const char *field, char *buf, size_t size) {
  size_t k = 0;
  for (const unsigned char *c = (const unsigned char *)field; *c && k + 8 < size; c++) {
    if (k >= 60) {
      k += (size_t)snprintf(buf + k, size - k, "...");
      break;
    }
    if (*c >= 0x20 && *c < 0x7F)
      buf[k++] = (char)*c;
    else
      k += (size_t)snprintf(buf + k, size - k, "\\x%02X", *c);
  }
  buf[k] = '\0';
  return buf;
}

/* One line into r->line without its newline: 1, 0 at the end of the file,
 * -1 when it is too long, holds a NUL byte or has no newline. */
static int read_line(matrix_csv_reader *r) {
  size_t n = 0;
  int c;
  r->line_no++;
  while ((c = getc(r->f)) != EOF && c != '\n') {
    if (c == '\0')
      return invalid(r, "a NUL byte: a matrix CSV is text");
    if (n == MATRIX_CSV_MAX_LINE)
      return invalid(r, "the line is longer than %d bytes, the longest a matrix CSV row can be",
                     MATRIX_CSV_MAX_LINE);
    r->line[n++] = (char)c;
  }
  r->line[n] = '\0';
  if (ferror(r->f))
    return invalid(r, "cannot be read");
  if (c == EOF && n == 0)
    return 0;
  if (c == EOF)
    return invalid(r, "the last line has no newline (a shard cut short?)");
  return 1;
}

/* Splits r->line at commas into exactly 8 fields. */
static bool split(matrix_csv_reader *r, char *field[8]) {
  char *p = r->line;
  for (int i = 0; i < 8; i++) {
    field[i] = p;
    char *comma = strchr(p, ',');
    if ((i < 7) != (comma != NULL))
      return false;
    if (comma)
      *comma = '\0', p = comma + 1;
  }
  return true;
}

static bool parse_index(const char *text, uint64_t *out) {
  if (!*text || (text[0] == '0' && text[1]))
    return false; /* written without leading zeros */
  uint64_t v = 0;
  for (const char *c = text; *c; c++) {
    if (*c < '0' || *c > '9' || v > (UINT64_MAX - (uint64_t)(*c - '0')) / 10)
      return false;
    v = v * 10 + (uint64_t)(*c - '0');
  }
  *out = v;
  return true;
}

static int read_variant(matrix_csv_reader *r, char *const field[8], matrix_case *c) {
  char a[80], b[80];
  int feature = 0;
  while (feature < FEATURE_COUNT && strcmp(field[1], matrix_feature_name((matrix_feature)feature)))
    feature++;
  if (feature == FEATURE_COUNT)
    return invalid(r, "feature '%s' is not one of rules, buffer_callback, python_callback, pallas",
                   shown(field[1], a, sizeof a));
  variant_entry key = {.variant = 0};
  if (strlen(field[2]) < sizeof key.name)
    strcpy(key.name, field[2]);
  const variant_entry *e = key.name[0] ? bsearch(&key, r->variants, r->num_variants,
                                                 sizeof *r->variants, compare_variant)
                                       : NULL;
  if (!e || e->feature != (matrix_feature)feature)
    return invalid(r, "variant '%s' is not a variant of %s", shown(field[2], a, sizeof a),
                   shown(field[1], b, sizeof b));
  c->feature = e->feature;
  c->variant = e->variant;
  return 0;
}

static int read_platforms(matrix_csv_reader *r, char *text, matrix_case *c) {
  char a[80];
  c->tuple_len = 0;
  for (char *item = text;;) {
    char *plus = strchr(item, '+');
    if (plus)
      *plus = '\0';
    if (c->tuple_len == MATRIX_MAX_LEN)
      return invalid(r, "more than %d platforms", MATRIX_MAX_LEN);
    if (lsim_check_platform_name(item, NULL) != LSIM_OK)
      return invalid(r, "platform '%s' is not a platform name (1 to %d of [A-Za-z0-9_.-])",
                     shown(item, a, sizeof a), LSIM_PLATFORM_NAME_MAX);
    for (int i = 0; i < c->tuple_len; i++)
      if (strcmp(c->tuple[i], item) == 0)
        return invalid(r, "platform '%s' appears twice", item);
    c->tuple[c->tuple_len++] = item;
    if (!plus)
      return 0;
    item = plus + 1;
  }
}

static int read_backend(matrix_csv_reader *r, const char *text, matrix_case *c) {
  char a[80];
  c->pin = -1;
  if (strcmp(text, "-") == 0)
    return 0;
  for (size_t i = 0; i < matrix_num_backends; i++)
    if (strcmp(text, matrix_backends[i]) == 0) {
      c->pin = (int)i;
      return 0;
    }
  return invalid(r, "backend '%s' is not '-' or one of cpu, cuda, rocm, oneapi, tpu, metal",
                 shown(text, a, sizeof a));
}

/* "cpu", then "+name" for each optional backend present, in their order. */
static int read_runtime(matrix_csv_reader *r, const char *text, matrix_case *c) {
  char a[80];
  c->runtime = 0;
  const char *p = text;
  bool ok = strncmp(p, "cpu", 3) == 0;
  p += 3;
  for (size_t i = 0; ok && *p && i < matrix_num_optional_backends; i++) {
    size_t n = strlen(matrix_optional_backends[i]);
    if (p[0] == '+' && strncmp(p + 1, matrix_optional_backends[i], n) == 0 &&
        (p[n + 1] == '\0' || p[n + 1] == '+')) {
      c->runtime |= 1u << i;
      p += n + 1;
    }
  }
  if (!ok || *p)
    return invalid(r,
                   "runtime '%s' is not cpu followed by +cuda, +rocm, +oneapi, +tpu, +metal "
                   "(each at most once, in this order)",
                   shown(text, a, sizeof a));
  return 0;
}

static int read_outcome(matrix_csv_reader *r, const char *code, const char *hash,
                        matrix_outcome *o) {
  char a[80];
  *o = (matrix_outcome){0};
  if (strcmp(code, "OK") != 0) {
    o->code = lsim_status_from_name(code);
    if (o->code == LSIM_OK)
      return invalid(r, "outcome '%s' is not OK or a lowersim status name (see `lowersim errors`)",
                     shown(code, a, sizeof a));
    o->failure = matrix_is_failure(o->code);
    if (strcmp(hash, "-") != 0)
      return invalid(r, "module_hash '%s' must be '-' for an error outcome", shown(hash, a, sizeof a));
    return 0;
  }
  size_t n = strspn(hash, "0123456789abcdef");
  if (n != 16 || hash[16])
    return invalid(r, "module_hash '%s' is not 16 lowercase hexadecimal digits",
                   shown(hash, a, sizeof a));
  o->hash = strtoull(hash, NULL, 16);
  return 0;
}

int matrix_csv_next(matrix_csv_reader *r, matrix_row *row) {
  int rc = read_line(r);
  if (rc <= 0)
    return rc;
  if (!r->header_read) {
    r->header_read = true;
    if (strncmp(r->line, MATRIX_CSV_HEADER, sizeof MATRIX_CSV_HEADER - 2) != 0 ||
        r->line[sizeof MATRIX_CSV_HEADER - 2])
      return invalid(r, "not a matrix CSV: the first line must be the header %.*s",
                     (int)sizeof MATRIX_CSV_HEADER - 2, MATRIX_CSV_HEADER);
    if ((rc = read_line(r)) <= 0)
      return rc;
  }
  char *field[8], a[80];
  *row = (matrix_row){0};
  if (!split(r, field))
    return invalid(r, "a row has 8 fields (%.*s)", (int)sizeof MATRIX_CSV_HEADER - 2,
                   MATRIX_CSV_HEADER);
  matrix_case *c = &row->c;
  if (!parse_index(field[0], &c->index))
    return invalid(r, "index '%s' is not a case number", shown(field[0], a, sizeof a));
  if (r->has_previous && c->index != r->previous + 1)
    return invalid(r, "case %" PRIu64 " follows case %" PRIu64 ": a shard's cases are contiguous",
                   c->index, r->previous);
  if ((rc = read_variant(r, field, c)) || (rc = read_platforms(r, field[3], c)) ||
      (rc = read_backend(r, field[4], c)) || (rc = read_runtime(r, field[5], c)) ||
      (rc = read_outcome(r, field[6], field[7], &row->o)))
    return rc;
  r->has_previous = true;
  r->previous = c->index;
  return 1;
}
