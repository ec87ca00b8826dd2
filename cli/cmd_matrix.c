/* cli/cmd_matrix.c: `lowersim matrix`: lowers every case of the
 * platform-combination matrix (cli/matrix.c), on J threads, optionally one
 * shard of it, and reports a summary table, a CSV row per case and a JUnit
 * report; `--merge` joins shards' CSV files into one report. */
#include "cli.h"
#include "matrix.h"

#include "junit.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define NUM_CODES 64
#define MAX_VARIANTS 128
#define CSV_HEADER "index,feature,variant,platforms,backend,runtime,outcome,module_hash\n"

/* Code -> slot: OK 0, JAX's codes 1..63, lowersim's own from 40. */
static int code_slot(int code) {
  if (code == 0)
    return 0;
  if (code > -40)
    return -code;
  int slot = 40 + (-code - 100);
  return slot > 0 && slot < NUM_CODES ? slot : NUM_CODES - 1;
}

static int slot_code(int slot) { return slot == 0 ? 0 : slot < 40 ? -slot : -(slot - 40 + 100); }

typedef struct stats {
  uint64_t by_platform[FEATURE_COUNT][MATRIX_MAX_PLATFORMS + 1][NUM_CODES]; /* last: multi */
  uint64_t variant_cases[FEATURE_COUNT][MAX_VARIANTS];
  uint64_t variant_failures[FEATURE_COUNT][MAX_VARIANTS];
  uint64_t first_failure[FEATURE_COUNT][MAX_VARIANTS];
  uint64_t cases, failures;
} stats;

static int platform_slot(const matrix_spec *spec, const matrix_case *c) {
  if (c->tuple_len > 1)
    return MATRIX_MAX_PLATFORMS;
  for (size_t i = 0; i < spec->num_platforms; i++)
    if (strcmp(spec->platforms[i], c->tuple[0]) == 0)
      return (int)i;
  return MATRIX_MAX_PLATFORMS;
}

static void record(stats *st, const matrix_spec *spec, const matrix_case *c,
                   const matrix_outcome *o) {
  st->cases++;
  st->by_platform[c->feature][platform_slot(spec, c)][code_slot(o->code)]++;
  st->variant_cases[c->feature][c->variant]++;
  if (o->failure) {
    if (st->variant_failures[c->feature][c->variant]++ == 0)
      st->first_failure[c->feature][c->variant] = c->index;
    st->failures++;
  }
}

static void merge_stats(stats *into, const stats *from) {
  for (int f = 0; f < FEATURE_COUNT; f++) {
    for (int p = 0; p <= MATRIX_MAX_PLATFORMS; p++)
      for (int k = 0; k < NUM_CODES; k++)
        into->by_platform[f][p][k] += from->by_platform[f][p][k];
    for (int v = 0; v < MAX_VARIANTS; v++) {
      if (from->variant_failures[f][v] &&
          (!into->variant_failures[f][v] || from->first_failure[f][v] < into->first_failure[f][v]))
        into->first_failure[f][v] = from->first_failure[f][v];
      into->variant_cases[f][v] += from->variant_cases[f][v];
      into->variant_failures[f][v] += from->variant_failures[f][v];
    }
  }
  into->cases += from->cases;
  into->failures += from->failures;
}

/* --- running ---------------------------------------------------------------------- */

typedef struct worker {
  const matrix_spec *spec;
  uint64_t lo, hi;
  FILE *csv;                 /* this worker's rows, or NULL */
  stats st;
  _Atomic uint64_t *done;
  int rc;
} worker;

static void write_row(FILE *f, const matrix_case *c, const matrix_outcome *o) {
  char variant[96], platforms[64], backend[64], runtime[64];
  matrix_variant_name(c->feature, c->variant, variant, sizeof variant);
  matrix_case_columns(c, platforms, backend, runtime, sizeof platforms);
  fprintf(f, "%" PRIu64 ",%s,%s,%s,%s,%s,%s,", c->index, matrix_feature_name(c->feature), variant,
          platforms, backend, runtime, o->code ? lsim_status_name(o->code) : "OK");
  if (o->code)
    fputs("-\n", f);
  else
    fprintf(f, "%016" PRIx64 "\n", o->hash);
}

static void *work(void *arg) {
  worker *w = arg;
  lsim_lowerer *lowerer = NULL;
  if (lsim_lowerer_create(&lowerer, NULL)) {
    w->rc = LSIM_E_NO_MEMORY;
    return NULL;
  }
  for (uint64_t i = w->lo; i < w->hi; i++) {
    matrix_case c;
    matrix_decode(w->spec, i, &c);
    matrix_outcome o = matrix_run_case(lowerer, &c);
    record(&w->st, w->spec, &c, &o);
    if (w->csv)
      write_row(w->csv, &c, &o);
    atomic_fetch_add_explicit(w->done, 1, memory_order_relaxed);
  }
  lsim_lowerer_destroy(lowerer);
  return NULL;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress(uint64_t done, uint64_t total, double elapsed) {
  double rate = elapsed > 0 ? (double)done / elapsed : 0;
  double eta = rate > 0 ? (double)(total - done) / rate : 0;
  int width = 30, filled = total ? (int)((double)done / (double)total * width) : width;
  fprintf(stderr, "\r[%.*s%*s] %5.1f%% %" PRIu64 "/%" PRIu64 "  %.1fk cases/s  ETA %d:%02d ",
          filled, "##############################", width - filled, "",
          total ? 100.0 * (double)done / (double)total : 100.0, done, total, rate / 1000,
          (int)eta / 60, (int)eta % 60);
}

/* --- reports ----------------------------------------------------------------------- */

static void print_summary(const matrix_spec *spec, const stats *st, double seconds, int jobs) {
  printf("%-16s %-8s %9s %9s  %s\n", "feature", "platform", "cases", "OK",
         "errors (most frequent first)");
  for (int f = 0; f < FEATURE_COUNT; f++) {
    for (int p = 0; p <= MATRIX_MAX_PLATFORMS; p++) {
      if (p < MATRIX_MAX_PLATFORMS && (size_t)p >= spec->num_platforms)
        continue;
      const uint64_t *counts = st->by_platform[f][p];
      uint64_t total = 0;
      for (int k = 0; k < NUM_CODES; k++)
        total += counts[k];
      if (!total)
        continue;
      printf("%-16s %-8s %9" PRIu64 " %9" PRIu64 " ", matrix_feature_name((matrix_feature)f),
             p == MATRIX_MAX_PLATFORMS ? "multi" : spec->platforms[p], total, counts[0]);
      bool shown[NUM_CODES] = {true};
      for (int rank = 0; rank < 3; rank++) {
        int best = -1;
        for (int k = 1; k < NUM_CODES; k++)
          if (!shown[k] && counts[k] && (best < 0 || counts[k] > counts[best]))
            best = k;
        if (best < 0)
          break;
        shown[best] = true;
        const char *name = lsim_status_name(slot_code(best));
        printf(" %s %" PRIu64, name ? name + 7 : "?", counts[best]); /* drop "LSIM_E_" */
      }
      printf("\n");
    }
  }
  if (seconds < 0) {
    printf("%" PRIu64 " cases, %" PRIu64 " lowersim failures\n", st->cases, st->failures);
    return;
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("%" PRIu64 " cases in %.1f s on %d thread%s (%.0f cases/s), %" PRIu64
         " lowersim failures, peak RSS %.1f MB\n",
         st->cases, seconds, jobs, jobs == 1 ? "" : "s", seconds > 0 ? (double)st->cases / seconds : 0,
         st->failures, ru.ru_maxrss / 1024.0);
}

static bool write_junit(const char *path, const stats *st, double seconds,
                        const lsim_jax_profile *profile) {
  size_t variants = 0, failed = 0;
  for (int f = 0; f < FEATURE_COUNT; f++)
    for (int v = 0; v < MAX_VARIANTS; v++)
      if (st->variant_cases[f][v])
        variants++, failed += st->variant_failures[f][v] > 0;
  junit *j = junit_open(path, "lowersim matrix", variants, failed, 0, seconds < 0 ? 0 : seconds);
  junit_property(j, "jax", lsim_jax_profile_or_default(profile)->name);
  for (int f = 0; j && f < FEATURE_COUNT; f++) {
    for (int v = 0; v < MAX_VARIANTS; v++) {
      if (!st->variant_cases[f][v])
        continue;
      char name[96], failure[160];
      matrix_variant_name((matrix_feature)f, v, name, sizeof name);
      snprintf(failure, sizeof failure,
               "%" PRIu64 " of %" PRIu64 " cases failed; first: case %" PRIu64,
               st->variant_failures[f][v], st->variant_cases[f][v], st->first_failure[f][v]);
      junit_case(j, matrix_feature_name((matrix_feature)f), name, -1,
                 st->variant_failures[f][v] ? failure : NULL, NULL, NULL);
    }
  }
  return junit_close(j);
}

/* --- options ------------------------------------------------------------------------ */

typedef struct options {
  matrix_spec spec;
  int jobs;
  uint64_t shard, shards;
  uint64_t limit;
  const char *csv, *junit;
  bool merge;
  const char **inputs;
  int num_inputs;
} options;

static void help(void) {
  printf(
      "usage: lowersim matrix [--platforms LIST] [--max-len K] [--features LIST]\n"
      "                       [--jobs J] [--shard I/N] [--limit N] [--csv OUT] [--junit OUT]\n"
      "                       [--jax VERSION]\n"
      "       lowersim matrix --merge SHARD.csv... [--csv OUT] [--junit OUT]\n\n"
      "Lowers (jax.jit(f).trace(x).lower(lowering_platforms=TUPLE), for the JAX version of\n"
      "--jax, default the newest), deterministically, every case of the cartesian product\n"
      "of: ordered tuples of\n"
      "distinct lowering platforms of length 1..K over the platform list (default\n"
      "cpu,cuda,rocm,oneapi,tpu,gpu,metal and K=2), the pinned backend (none or each of cpu,\n"
      "cuda, rocm, oneapi, tpu, metal), the runtime (cpu plus each subset of cuda, rocm,\n"
      "oneapi, tpu, metal) and the feature variants (rules: rule sets; buffer_callback:\n"
      "command_buffer x aliases; python_callback: kind x ordered x partitioned; pallas:\n"
      "params x installed backends x flag x interpret). Every case is lowered and verified;\n"
      "its outcome is an error code or OK with a hash of the module text.\n\n"
      "  --features LIST   any of rules,buffer_callback,python_callback,pallas\n"
      "  --jobs J          J threads (default 1)\n"
      "  --shard I/N       only the I-th of N contiguous slices (0 <= I < N): run the shards\n"
      "                    anywhere (GNU parallel, Slurm arrays, Kubernetes indexed jobs),\n"
      "                    each with --csv, then join them with --merge\n"
      "  --limit N         only the first N cases (of the shard)\n"
      "  --csv OUT         one row per case; --junit OUT: one test case per feature variant\n\n"
      "A progress bar with rate and ETA goes to stderr when it is a terminal. Exit 0 unless a\n"
      "case fails in a way that is lowersim's own fault (a verification failure).\n");
}

static int parse_list(const char *text, const char **out, size_t max, size_t *count) {
  static char storage[1024];
  if (strlen(text) >= sizeof storage)
    return -1;
  strcpy(storage, text);
  *count = 0;
  for (char *item = strtok(storage, ","); item; item = strtok(NULL, ",")) {
    if (*count == max)
      return -1;
    out[(*count)++] = item;
  }
  return *count ? 0 : -1;
}

static int parse_options(int argc, char **argv, options *o) {
  matrix_spec_default(&o->spec);
  o->jobs = 1;
  o->shards = 1;
  o->inputs = calloc((size_t)argc + 1, sizeof *o->inputs);
  if (!o->inputs)
    return EXIT_LOWERING_ERROR;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      help();
      return -1;
    }
    if (!strcmp(a, "--merge")) {
      o->merge = true;
      continue;
    }
    if (a[0] != '-') {
      if (!o->merge)
        return cli_usage_error("matrix", "unexpected argument '%s' (see --help)", a);
      o->inputs[o->num_inputs++] = a;
      continue;
    }
    if (!v)
      return cli_usage_error("matrix", "%s needs a value", a);
    i++;
    char *end = NULL;
    if (!strcmp(a, "--platforms")) {
      if (parse_list(v, o->spec.platforms, MATRIX_MAX_PLATFORMS, &o->spec.num_platforms))
        return cli_usage_error("matrix", "bad --platforms '%s'", v);
    } else if (!strcmp(a, "--max-len")) {
      o->spec.max_len = (int)strtol(v, &end, 10);
    } else if (!strcmp(a, "--features")) {
      const char *names[FEATURE_COUNT];
      size_t n;
      if (parse_list(v, names, FEATURE_COUNT, &n))
        return cli_usage_error("matrix", "bad --features '%s'", v);
      for (int f = 0; f < FEATURE_COUNT; f++)
        o->spec.features[f] = false;
      for (size_t k = 0; k < n; k++) {
        int f = 0;
        while (f < FEATURE_COUNT && strcmp(names[k], matrix_feature_name((matrix_feature)f)))
          f++;
        if (f == FEATURE_COUNT)
          return cli_usage_error("matrix", "unknown feature '%s'", names[k]);
        o->spec.features[f] = true;
      }
    } else if (!strcmp(a, "--jax")) {
      int code = cli_parse_jax("matrix", "--jax", v, &o->spec.profile);
      if (code)
        return code;
    } else if (!strcmp(a, "--jobs")) {
      o->jobs = (int)strtol(v, &end, 10);
      if (*end || o->jobs < 1 || o->jobs > 256)
        return cli_usage_error("matrix", "bad --jobs '%s'", v);
    } else if (!strcmp(a, "--shard")) {
      if (sscanf(v, "%" SCNu64 "/%" SCNu64, &o->shard, &o->shards) != 2 || o->shards == 0 ||
          o->shard >= o->shards)
        return cli_usage_error("matrix", "bad --shard '%s' (I/N with 0 <= I < N)", v);
    } else if (!strcmp(a, "--limit")) {
      o->limit = strtoull(v, &end, 10);
    } else if (!strcmp(a, "--csv")) {
      o->csv = v;
    } else if (!strcmp(a, "--junit")) {
      o->junit = v;
    } else {
      return cli_usage_error("matrix", "unknown option '%s' (see --help)", a);
    }
    if (end && *end)
      return cli_usage_error("matrix", "bad number '%s' for %s", v, a);
  }
  if (!o->merge && !matrix_spec_finish(&o->spec))
    return cli_usage_error("matrix", "an empty matrix (check --platforms, --max-len, --features)");
  if (o->merge && o->num_inputs == 0)
    return cli_usage_error("matrix", "--merge needs the shards' CSV files");
  return 0;
}

/* Concatenates the workers' CSV parts into `path`, header first. */
static bool write_csv(const char *path, worker *workers, int jobs) {
  FILE *out = fopen(path, "w");
  bool ok = out && fputs(CSV_HEADER, out) >= 0;
  char buf[1 << 16];
  for (int j = 0; ok && j < jobs; j++) {
    rewind(workers[j].csv);
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, workers[j].csv)) > 0)
      ok = fwrite(buf, 1, n, out) == n;
  }
  if (out)
    ok = fclose(out) == 0 && ok;
  return ok;
}

static int run_matrix(options *o) {
  uint64_t total = o->spec.total;
  uint64_t lo = total * o->shard / o->shards, hi = total * (o->shard + 1) / o->shards;
  if (o->limit && hi - lo > o->limit)
    hi = lo + o->limit;
  _Atomic uint64_t done = 0;
  worker *workers = calloc((size_t)o->jobs, sizeof *workers);
  pthread_t *threads = calloc((size_t)o->jobs, sizeof *threads);
  if (!workers || !threads)
    return EXIT_LOWERING_ERROR;
  double start = now();
  int code = 0;
  for (int j = 0; j < o->jobs; j++) {
    workers[j] = (worker){.spec = &o->spec, .done = &done,
                          .lo = lo + (hi - lo) * (uint64_t)j / (uint64_t)o->jobs,
                          .hi = lo + (hi - lo) * (uint64_t)(j + 1) / (uint64_t)o->jobs};
    if (o->csv && !(workers[j].csv = tmpfile()))
      code = cli_usage_error("matrix", "cannot create a temporary file");
  }
  int started = 0;
  for (; !code && started < o->jobs; started++)
    if (pthread_create(&threads[started], NULL, work, &workers[started]))
      break;
  bool tty = isatty(STDERR_FILENO);
  while (tty && !code && atomic_load(&done) < hi - lo) {
    progress(atomic_load(&done), hi - lo, now() - start);
    nanosleep(&(struct timespec){0, 200000000}, NULL);
  }
  for (int j = 0; j < started; j++)
    pthread_join(threads[j], NULL);
  double seconds = now() - start;
  if (tty)
    progress(hi - lo, hi - lo, seconds), fputc('\n', stderr);
  stats *all = calloc(1, sizeof *all);
  for (int j = 0; all && j < o->jobs; j++) {
    merge_stats(all, &workers[j].st);
    if (workers[j].rc)
      code = EXIT_LOWERING_ERROR;
  }
  if (all && !code) {
    printf("matrix: cases %" PRIu64 "..%" PRIu64 " of %" PRIu64 " (shard %" PRIu64 "/%" PRIu64
           ")\n",
           lo, hi, total, o->shard, o->shards);
    print_summary(&o->spec, all, seconds, o->jobs);
    if (o->csv && !write_csv(o->csv, workers, o->jobs))
      code = cli_usage_error("matrix", "cannot write %s", o->csv);
    if (o->junit && !write_junit(o->junit, all, seconds, o->spec.profile))
      code = cli_usage_error("matrix", "cannot write %s", o->junit);
    if (!code && all->failures)
      code = EXIT_LOWERING_ERROR;
  }
  for (int j = 0; j < o->jobs; j++)
    if (workers[j].csv)
      fclose(workers[j].csv);
  free(all);
  free(workers);
  free(threads);
  return code;
}

/* --- --merge -------------------------------------------------------------------------- */

typedef struct shard_file {
  const char *path;
  uint64_t first, rows;
} shard_file;

static int compare_shards(const void *a, const void *b) {
  const shard_file *x = a, *y = b;
  return (x->first > y->first) - (x->first < y->first);
}

/* The variant index of a variant name within its feature, or -1. */
static int variant_index(matrix_feature f, const char *name) {
  char buf[96];
  for (int v = 0; v < MAX_VARIANTS; v++) {
    matrix_variant_name(f, v, buf, sizeof buf);
    if (strcmp(buf, name) == 0)
      return v;
  }
  return -1;
}

/* The slot of a platform in the merge's platform list, added when new
 * (shards are read in index order, so the list comes out in the run's order). */
static const char *platform_name(matrix_spec *spec, const char *name, char names[][32]) {
  for (size_t i = 0; i < spec->num_platforms; i++)
    if (strcmp(spec->platforms[i], name) == 0)
      return spec->platforms[i];
  if (spec->num_platforms == MATRIX_MAX_PLATFORMS || strlen(name) >= 32)
    return NULL;
  size_t slot = spec->num_platforms++;
  strcpy(names[slot], name);
  spec->platforms[slot] = names[slot];
  return names[slot];
}

/* Splits a CSV row into its 8 fields in place. */
static bool split_row(char *line, char *field[8]) {
  line[strcspn(line, "\n")] = '\0';
  for (int n = 0; n < 8; n++) {
    field[n] = line;
    char *comma = strchr(line, ',');
    if (n < 7 && !comma)
      return false;
    if (comma)
      *comma = '\0', line = comma + 1;
  }
  return true;
}

/* Reads one shard's rows into the stats; checks its indices are contiguous. */
static bool read_shard(shard_file *sf, stats *st, matrix_spec *spec, char names[][32]) {
  FILE *f = fopen(sf->path, "r");
  char line[512];
  bool ok = f && fgets(line, sizeof line, f) && strcmp(line, CSV_HEADER) == 0;
  uint64_t rows = 0;
  while (ok && fgets(line, sizeof line, f)) {
    char *field[8];
    ok = split_row(line, field);
    matrix_case c = {.index = ok ? strtoull(field[0], NULL, 10) : 0};
    ok = ok && c.index == sf->first + rows++;
    int feature = 0;
    while (ok && feature < FEATURE_COUNT && strcmp(field[1], matrix_feature_name((matrix_feature)feature)))
      feature++;
    ok = ok && feature < FEATURE_COUNT;
    c.feature = (matrix_feature)feature;
    c.variant = ok ? variant_index(c.feature, field[2]) : -1;
    c.tuple_len = ok && strchr(field[3], '+') ? 2 : 1;
    c.tuple[0] = ok ? platform_name(spec, strtok(field[3], "+"), names) : NULL;
    ok = ok && c.variant >= 0 && c.tuple[0];
    matrix_outcome o = {.code = ok && strcmp(field[6], "OK") ? lsim_status_from_name(field[6]) : 0};
    o.failure = matrix_is_failure(o.code);
    if (ok)
      record(st, spec, &c, &o);
  }
  if (f)
    fclose(f);
  sf->rows = rows;
  return ok;
}

/* The first case index of a shard file (its first row), for ordering. */
static bool first_index(shard_file *sf) {
  FILE *f = fopen(sf->path, "r");
  char line[512];
  bool ok = f && fgets(line, sizeof line, f) && strcmp(line, CSV_HEADER) == 0;
  sf->first = ok && fgets(line, sizeof line, f) ? strtoull(line, NULL, 10) : 0;
  if (f)
    fclose(f);
  return ok;
}

static int merge(options *o) {
  stats *st = calloc(1, sizeof *st);
  shard_file *files = calloc((size_t)o->num_inputs, sizeof *files);
  char names[MATRIX_MAX_PLATFORMS][32];
  matrix_spec seen = {0};
  int code = st && files ? 0 : EXIT_LOWERING_ERROR;
  for (int i = 0; !code && i < o->num_inputs; i++) {
    files[i].path = o->inputs[i];
    if (!first_index(&files[i]))
      code = cli_usage_error("matrix", "%s is not a matrix CSV", o->inputs[i]);
  }
  if (!code)
    qsort(files, (size_t)o->num_inputs, sizeof *files, compare_shards);
  uint64_t next = code ? 0 : files[0].first;
  for (int i = 0; !code && i < o->num_inputs; i++) {
    if (files[i].first != next)
      code = cli_usage_error("matrix", "the shards leave a gap or overlap at case %" PRIu64, next);
    else if (!read_shard(&files[i], st, &seen, names))
      code = cli_usage_error("matrix", "%s is not a matrix CSV with contiguous case indices",
                             files[i].path);
    next = files[i].first + files[i].rows;
  }
  if (!code) {
    printf("matrix: merged %d shards, cases %" PRIu64 "..%" PRIu64 "\n", o->num_inputs,
           files[0].first, files[0].first + st->cases);
    print_summary(&seen, st, -1, 1);
    if (o->junit && !write_junit(o->junit, st, -1, o->spec.profile))
      code = cli_usage_error("matrix", "cannot write %s", o->junit);
  }
  if (!code && o->csv) {
    FILE *out = fopen(o->csv, "w");
    bool ok = out && fputs(CSV_HEADER, out) >= 0;
    char line[512];
    for (int i = 0; ok && i < o->num_inputs; i++) {
      FILE *in = fopen(files[i].path, "r");
      ok = in && fgets(line, sizeof line, in);
      while (ok && fgets(line, sizeof line, in))
        ok = fputs(line, out) >= 0;
      if (in)
        fclose(in);
    }
    if (out)
      ok = fclose(out) == 0 && ok;
    if (!ok)
      code = cli_usage_error("matrix", "cannot write %s", o->csv);
  }
  if (!code && st->failures)
    code = EXIT_LOWERING_ERROR;
  free(st);
  free(files);
  return code;
}

int cmd_matrix(int argc, char **argv) {
  options o = {0};
  int code = parse_options(argc, argv, &o);
  if (code == 0)
    code = o.merge ? merge(&o) : run_matrix(&o);
  free(o.inputs);
  return code < 0 ? 0 : code;
}
