/* cli/matrix_csv.c: the matrix's CSV rows, written and read back strictly. */
#include "matrix_csv.h"
#include "lowersim/alloc.h"
#include "lowersim/runtime.h"
#include "lowersim/version.h"

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

/* --- Metadata ---------------------------------------------------------------------- */

void matrix_csv_meta_init(matrix_csv_meta *m, const matrix_spec *spec, uint64_t shard,
                          uint64_t shards, uint64_t limit) {
  memset(m, 0, sizeof *m);
  m->spec = *spec;
  for (size_t i = 0; i < spec->num_platforms; i++) {
    snprintf(m->names[i], sizeof m->names[i], "%s", spec->platforms[i]);
    m->spec.platforms[i] = m->names[i];
  }
  snprintf(m->lowersim, sizeof m->lowersim, "%s", lsim_version());
  m->limit = limit;
  m->shard = shard;
  m->shards = shards;
  matrix_shard_range(spec->total, shard, shards, limit, &m->first, &m->end);
}

/* The identity's list fields as written: platforms, features joined by '+'. */
static void join_platforms(const matrix_spec *spec, char *buf, size_t size) {
  size_t k = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < spec->num_platforms && k < size; i++)
    k += (size_t)snprintf(buf + k, size - k, "%s%s", i ? "+" : "", spec->platforms[i]);
}

static void join_features(const matrix_spec *spec, char *buf, size_t size) {
  size_t k = 0;
  buf[0] = '\0';
  for (int f = 0; f < FEATURE_COUNT && k < size; f++)
    if (spec->features[f])
      k += (size_t)snprintf(buf + k, size - k, "%s%s", k ? "+" : "",
                            matrix_feature_name((matrix_feature)f));
}

static void limit_text(uint64_t limit, char *buf, size_t size) {
  if (limit)
    snprintf(buf, size, "%" PRIu64, limit);
  else
    snprintf(buf, size, "-");
}

void matrix_csv_write_meta(FILE *f, const matrix_csv_meta *m) {
  char platforms[MATRIX_MAX_PLATFORMS * (LSIM_PLATFORM_NAME_MAX + 1) + 1];
  char features[256], limit[24];
  join_platforms(&m->spec, platforms, sizeof platforms);
  join_features(&m->spec, features, sizeof features);
  limit_text(m->limit, limit, sizeof limit);
  fprintf(f,
          MATRIX_CSV_META_PREFIX "%d: lowersim=%s jax=%s platforms=%s max-len=%d features=%s "
          "limit=%s shard=%" PRIu64 "/%" PRIu64 " cases=%" PRIu64 "..%" PRIu64 " total=%" PRIu64
          "\n" MATRIX_CSV_HEADER,
          MATRIX_CSV_FORMAT, m->lowersim, lsim_jax_profile_or_default(m->spec.profile)->name,
          platforms, m->spec.max_len, features, limit, m->shard, m->shards, m->first, m->end,
          m->spec.total);
}

const char *matrix_csv_meta_differ(const matrix_csv_meta *a, const matrix_csv_meta *b,
                                   char *va, char *vb, size_t size) {
  const char *key = NULL;
  if (strcmp(a->lowersim, b->lowersim) != 0) {
    key = "lowersim";
    snprintf(va, size, "%s", a->lowersim), snprintf(vb, size, "%s", b->lowersim);
  } else if (lsim_jax_profile_or_default(a->spec.profile) !=
             lsim_jax_profile_or_default(b->spec.profile)) {
    key = "jax";
    snprintf(va, size, "%s", lsim_jax_profile_or_default(a->spec.profile)->name);
    snprintf(vb, size, "%s", lsim_jax_profile_or_default(b->spec.profile)->name);
  } else if (join_platforms(&a->spec, va, size), join_platforms(&b->spec, vb, size),
             strcmp(va, vb) != 0) {
    key = "platforms";
  } else if (a->spec.max_len != b->spec.max_len) {
    key = "max-len";
    snprintf(va, size, "%d", a->spec.max_len), snprintf(vb, size, "%d", b->spec.max_len);
  } else if (join_features(&a->spec, va, size), join_features(&b->spec, vb, size),
             strcmp(va, vb) != 0) {
    key = "features";
  } else if (a->limit != b->limit) {
    key = "limit";
    limit_text(a->limit, va, size), limit_text(b->limit, vb, size);
  } else if (a->shards != b->shards) {
    key = "shards";
    snprintf(va, size, "%" PRIu64, a->shards), snprintf(vb, size, "%" PRIu64, b->shards);
  }
  return key;
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
  int begun;     /* 0: not yet, 1: metadata and header read, -1: they were not valid */
  uint64_t next; /* the index the next row must have */
  matrix_csv_meta meta;
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

/* The feature `name` names, or FEATURE_COUNT. */
static int feature_named(const char *name) {
  int feature = 0;
  while (feature < FEATURE_COUNT && strcmp(name, matrix_feature_name((matrix_feature)feature)))
    feature++;
  return feature;
}

/* "rules, buffer_callback, ..." */
static const char *feature_list(const char *sep, char *buf, size_t size) {
  size_t k = 0;
  buf[0] = '\0';
  for (int f = 0; f < FEATURE_COUNT && k < size; f++)
    k += (size_t)snprintf(buf + k, size - k, "%s%s", f ? sep : "",
                          matrix_feature_name((matrix_feature)f));
  return buf;
}

static int read_variant(matrix_csv_reader *r, char *const field[8], matrix_case *c) {
  char a[80], b[80], list[256];
  int feature = feature_named(field[1]);
  if (feature == FEATURE_COUNT)
    return invalid(r, "feature '%s' is not one of %s", shown(field[1], a, sizeof a),
                   feature_list(", ", list, sizeof list));
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

/* --- the metadata line ---------------------------------------------------------- */

/* The value of `key=` at *p (then past it and the space after it, which
 * every field but the last has) into `buf`; NULL when the line has no such
 * field there. */
static const char *meta_field(matrix_csv_reader *r, const char **p, const char *key, bool last,
                              char *buf, size_t size) {
  size_t n = strlen(key);
  char a[80];
  if (strncmp(*p, key, n) != 0 || (*p)[n] != '=') {
    invalid(r, "metadata: expected %s=... at '%s'", key, shown(*p, a, sizeof a));
    return NULL;
  }
  const char *v = *p + n + 1, *end = strchr(v, ' ');
  if (last && end) {
    invalid(r, "metadata: '%s' after %s=, the last field", shown(end, a, sizeof a), key);
    return NULL;
  }
  if (!last && !end) {
    invalid(r, "metadata: the line ends at %s=", key);
    return NULL;
  }
  size_t len = end ? (size_t)(end - v) : strlen(v);
  if (len >= size) {
    invalid(r, "metadata: %s= is longer than %zu bytes", key, size - 1);
    return NULL;
  }
  memcpy(buf, v, len);
  buf[len] = '\0';
  *p = end ? end + 1 : v + len;
  return buf;
}

static int meta_lowersim(matrix_csv_reader *r, const char *v) {
  char a[80];
  if (!*v || strspn(v, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.+-") !=
                 strlen(v))
    return invalid(r, "metadata: lowersim='%s' is not a version", shown(v, a, sizeof a));
  if (strcmp(v, lsim_version()) != 0)
    return invalid(r,
                   "written by lowersim %s; this is lowersim %s, whose matrix may number its "
                   "cases differently: write the shards again with one lowersim",
                   v, lsim_version());
  snprintf(r->meta.lowersim, sizeof r->meta.lowersim, "%s", v);
  return 0;
}

static int meta_jax(matrix_csv_reader *r, const char *v) {
  char a[80];
  for (size_t i = 0; lsim_jax_profile_at(i); i++)
    if (strcmp(lsim_jax_profile_at(i)->name, v) == 0) {
      r->meta.spec.profile = lsim_jax_profile_at(i);
      return 0;
    }
  return invalid(r, "metadata: jax='%s' is not a JAX version profile of this lowersim (see "
                 "`lowersim versions`)", shown(v, a, sizeof a));
}

static int meta_platforms(matrix_csv_reader *r, char *v) {
  char a[80];
  matrix_csv_meta *m = &r->meta;
  for (char *item = v;;) {
    char *plus = strchr(item, '+');
    if (plus)
      *plus = '\0';
    if (m->spec.num_platforms == MATRIX_MAX_PLATFORMS)
      return invalid(r, "metadata: more than %d platforms", MATRIX_MAX_PLATFORMS);
    if (lsim_check_platform_name(item, NULL) != LSIM_OK)
      return invalid(r, "metadata: platform '%s' is not a platform name (1 to %d of "
                     "[A-Za-z0-9_.-])", shown(item, a, sizeof a), LSIM_PLATFORM_NAME_MAX);
    for (size_t i = 0; i < m->spec.num_platforms; i++)
      if (strcmp(m->names[i], item) == 0)
        return invalid(r, "metadata: platform '%s' appears twice", item);
    size_t slot = m->spec.num_platforms++;
    snprintf(m->names[slot], sizeof m->names[slot], "%s", item);
    m->spec.platforms[slot] = m->names[slot];
    if (!plus)
      return 0;
    item = plus + 1;
  }
}

static int meta_features(matrix_csv_reader *r, char *v) {
  char a[80], list[256];
  int previous = -1;
  for (char *item = v;;) {
    char *plus = strchr(item, '+');
    if (plus)
      *plus = '\0';
    int f = feature_named(item);
    if (f == FEATURE_COUNT || f <= previous)
      return invalid(r, "metadata: feature '%s' is not the next of %s (distinct, in this order)",
                     shown(item, a, sizeof a), feature_list("+", list, sizeof list));
    r->meta.spec.features[f] = true;
    previous = f;
    if (!plus)
      return 0;
    item = plus + 1;
  }
}

/* "A/B" or "A..B" of two decimal numbers. */
static bool parse_pair(const char *v, const char *sep, uint64_t *a, uint64_t *b) {
  char first[24];
  const char *mid = strstr(v, sep);
  if (!mid || (size_t)(mid - v) >= sizeof first)
    return false;
  memcpy(first, v, (size_t)(mid - v));
  first[mid - v] = '\0';
  return parse_index(first, a) && parse_index(mid + strlen(sep), b);
}

static int read_meta(matrix_csv_reader *r) {
  char a[80], v[MATRIX_CSV_MAX_LINE + 1];
  int rc = read_line(r);
  if (rc < 0)
    return rc;
  if (rc == 0)
    return invalid(r, "an empty file: a matrix CSV starts with its metadata, `%s%d: ...`",
                   MATRIX_CSV_META_PREFIX, MATRIX_CSV_FORMAT);
  if (strncmp(r->line, MATRIX_CSV_HEADER, sizeof MATRIX_CSV_HEADER - 2) == 0 &&
      !r->line[sizeof MATRIX_CSV_HEADER - 2])
    return invalid(r,
                   "a matrix CSV of format 1 (the header first, no shard metadata), written by "
                   "an older lowersim: --merge needs the metadata line `%s%d: ...` that `matrix "
                   "--csv` now writes first, to know the shards make one whole run: write the "
                   "shards again",
                   MATRIX_CSV_META_PREFIX, MATRIX_CSV_FORMAT);
  const char *p = r->line;
  if (strncmp(p, MATRIX_CSV_META_PREFIX, sizeof MATRIX_CSV_META_PREFIX - 1) != 0)
    return invalid(r, "not a matrix CSV: the first line must be its metadata, `%s%d: ...`",
                   MATRIX_CSV_META_PREFIX, MATRIX_CSV_FORMAT);
  p += sizeof MATRIX_CSV_META_PREFIX - 1;
  size_t n = strcspn(p, ":");
  if (n != 1 || p[0] != '0' + MATRIX_CSV_FORMAT || strncmp(p + n, ": ", 2) != 0)
    return invalid(r, "metadata: format '%.*s' is not %d, the matrix CSV format this lowersim "
                   "reads", (int)(n < 20 ? n : 20), shown(p, a, sizeof a), MATRIX_CSV_FORMAT);
  p += n + 2;
  matrix_csv_meta *m = &r->meta;
  memset(m, 0, sizeof *m);
  uint64_t max_len, total, first, end;
  if (!meta_field(r, &p, "lowersim", false, v, sizeof v) || meta_lowersim(r, v) ||
      !meta_field(r, &p, "jax", false, v, sizeof v) || meta_jax(r, v) ||
      !meta_field(r, &p, "platforms", false, v, sizeof v) || meta_platforms(r, v))
    return -1;
  if (!meta_field(r, &p, "max-len", false, v, sizeof v))
    return -1;
  if (!parse_index(v, &max_len) || max_len < 1 || max_len > MATRIX_MAX_LEN)
    return invalid(r, "metadata: max-len=%s is not 1 to %d", shown(v, a, sizeof a),
                   MATRIX_MAX_LEN);
  m->spec.max_len = (int)max_len;
  if (!meta_field(r, &p, "features", false, v, sizeof v) || meta_features(r, v) ||
      !meta_field(r, &p, "limit", false, v, sizeof v))
    return -1;
  if (strcmp(v, "-") != 0 && (!parse_index(v, &m->limit) || m->limit == 0))
    return invalid(r, "metadata: limit=%s is not '-' or a number of cases", shown(v, a, sizeof a));
  if (!meta_field(r, &p, "shard", false, v, sizeof v))
    return -1;
  if (!parse_pair(v, "/", &m->shard, &m->shards) || m->shard >= m->shards)
    return invalid(r, "metadata: shard=%s is not I/N with 0 <= I < N", shown(v, a, sizeof a));
  if (!meta_field(r, &p, "cases", false, v, sizeof v))
    return -1;
  if (!parse_pair(v, "..", &first, &end))
    return invalid(r, "metadata: cases=%s is not FIRST..END", shown(v, a, sizeof a));
  if (!meta_field(r, &p, "total", true, v, sizeof v))
    return -1;
  if (!parse_index(v, &total))
    return invalid(r, "metadata: total=%s is not a number of cases", shown(v, a, sizeof a));
  if (!matrix_spec_finish(&m->spec) || m->spec.total != total)
    return invalid(r, "metadata: total=%" PRIu64 " is not the size of the matrix its fields "
                   "describe (%" PRIu64 " cases)", total, m->spec.total);
  matrix_shard_range(total, m->shard, m->shards, m->limit, &m->first, &m->end);
  if (first != m->first || end != m->end)
    return invalid(r, "metadata: cases=%" PRIu64 "..%" PRIu64 " is not shard %" PRIu64 "/%" PRIu64
                   " of %" PRIu64 " cases%s (that is %" PRIu64 "..%" PRIu64 ")",
                   first, end, m->shard, m->shards, total, m->limit ? " cut by its limit" : "",
                   m->first, m->end);
  return 0;
}

int matrix_csv_begin(matrix_csv_reader *r) {
  if (r->begun)
    return r->begun > 0 ? 0 : -1;
  r->begun = -1;
  int rc = read_meta(r);
  if (rc)
    return -1;
  if ((rc = read_line(r)) < 0)
    return -1;
  if (rc == 0 || strncmp(r->line, MATRIX_CSV_HEADER, sizeof MATRIX_CSV_HEADER - 2) != 0 ||
      r->line[sizeof MATRIX_CSV_HEADER - 2])
    return invalid(r, "the second line must be the header %.*s", (int)sizeof MATRIX_CSV_HEADER - 2,
                   MATRIX_CSV_HEADER);
  r->begun = 1;
  r->next = r->meta.first;
  return 0;
}

const matrix_csv_meta *matrix_csv_metadata(const matrix_csv_reader *r) {
  return r->begun > 0 ? &r->meta : NULL;
}

/* The row names the case its index names in the metadata's matrix. */
static int check_case(matrix_csv_reader *r, matrix_case *c) {
  matrix_case want;
  matrix_decode(&r->meta.spec, c->index, &want);
  bool same = want.feature == c->feature && want.variant == c->variant &&
              want.tuple_len == c->tuple_len && want.pin == c->pin && want.runtime == c->runtime;
  for (int i = 0; same && i < c->tuple_len; i++)
    same = strcmp(want.tuple[i], c->tuple[i]) == 0;
  if (!same) {
    char variant[MATRIX_VARIANT_NAME_MAX], tuple[MATRIX_MAX_LEN * (LSIM_PLATFORM_NAME_MAX + 1)];
    matrix_variant_name(want.feature, want.variant, variant, sizeof variant);
    size_t k = 0;
    for (int i = 0; i < want.tuple_len; i++)
      k += (size_t)snprintf(tuple + k, sizeof tuple - k, "%s%s", i ? "+" : "", want.tuple[i]);
    return invalid(r, "the row is not case %" PRIu64 " of the matrix of line 1, which is %s on %s, "
                   "backend %s, runtime mask %u", c->index, variant, tuple,
                   want.pin < 0 ? "-" : matrix_backends[want.pin], want.runtime);
  }
  *c = want; /* its tuple in the metadata's names, valid as long as the reader */
  return 0;
}

int matrix_csv_next(matrix_csv_reader *r, matrix_row *row) {
  if (matrix_csv_begin(r))
    return -1;
  const matrix_csv_meta *m = &r->meta;
  int rc = read_line(r);
  if (rc < 0)
    return rc;
  if (rc == 0) {
    if (r->next != m->end)
      return invalid(r, "the shard ends %s case %" PRIu64 " but its metadata says cases %" PRIu64
                     "..%" PRIu64 " (cut short?)", r->next == m->first ? "before" : "after",
                     r->next == m->first ? m->first : r->next - 1, m->first, m->end);
    return 0;
  }
  char *field[8], a[80];
  *row = (matrix_row){0};
  if (!split(r, field))
    return invalid(r, "a row has 8 fields (%.*s)", (int)sizeof MATRIX_CSV_HEADER - 2,
                   MATRIX_CSV_HEADER);
  matrix_case *c = &row->c;
  if (!parse_index(field[0], &c->index))
    return invalid(r, "index '%s' is not a case number", shown(field[0], a, sizeof a));
  if (r->next == m->end)
    return invalid(r, "case %" PRIu64 " is past the shard's cases %" PRIu64 "..%" PRIu64,
                   c->index, m->first, m->end);
  if (c->index != r->next && r->next == m->first)
    return invalid(r, "the first case is %" PRIu64 ", but the shard's cases are %" PRIu64
                   "..%" PRIu64, c->index, m->first, m->end);
  if (c->index != r->next)
    return invalid(r, "case %" PRIu64 " follows case %" PRIu64 ": a shard's cases are contiguous",
                   c->index, r->next - 1);
  if ((rc = read_variant(r, field, c)) || (rc = read_platforms(r, field[3], c)) ||
      (rc = read_backend(r, field[4], c)) || (rc = read_runtime(r, field[5], c)) ||
      (rc = read_outcome(r, field[6], field[7], &row->o)) || (rc = check_case(r, c)))
    return rc;
  r->next++;
  return 1;
}
