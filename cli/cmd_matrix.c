/* cli/cmd_matrix.c: `lowersim matrix`: lowers every case of the
 * platform-combination matrix (cli/matrix.c), on J threads, optionally one
 * shard of it, and reports a summary table, a CSV row per case and a JUnit
 * report; `--merge` joins shards' CSV files into one report. */
#include "cli.h"
#include "lowersim/alloc.h"
#include "lowersim/runtime.h"
#include "matrix.h"
#include "matrix_csv.h"

#include "json.h"
#include "junit.h"
#include "options.h"
#include "output.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* Slots for outcome codes: OK, every code of the catalogue, "other".  The
 * catalogue must fit: cmd_matrix refuses to run when it does not (a
 * catalogue grown past 64 once turned NO_MEMORY, late in it, into "other"). */
#define NUM_CODES 128
#define MAX_VARIANTS 128

/* Code -> slot: OK 0, then the catalogue's codes in its order (1 + their
 * position), whatever their values; the last slot for anything else. */
static int code_slot(int code) {
  for (size_t i = 0; code && i < lsim_status_count() && i + 2 < NUM_CODES; i++)
    if ((int)lsim_status_at(i) == code)
      return (int)i + 1;
  return code ? NUM_CODES - 1 : 0;
}

static int slot_code(int slot) {
  return slot == 0 ? 0 : slot < NUM_CODES - 1 ? (int)lsim_status_at((size_t)slot - 1) : 1;
}

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

/* The cases go to the workers in chunks, round-robin: chunk c (cases
 * lo + c*MATRIX_CHUNK onwards) is worker c % jobs's.  Costs differ by
 * feature (a Pallas case costs up to ten of another's), so halves of the
 * index range would leave one thread with most of the work; a chunk is long
 * enough that consecutive cases still share their JAX process. */
#define MATRIX_CHUNK 1372 /* 4 x (7 pins x 49 tuples) */

typedef struct worker {
  const matrix_spec *spec;
  uint64_t lo, hi;           /* the whole range */
  int index, jobs;           /* this worker's chunks: index, index + jobs, ... */
  FILE *csv;                 /* this worker's rows, or NULL */
  stats st;
  _Atomic uint64_t *done;
  int rc;
} worker;

static void *work(void *arg) {
  worker *w = arg;
  matrix_worker *mw = matrix_worker_create();
  if (!mw) {
    w->rc = LSIM_E_NO_MEMORY;
    return NULL;
  }
  uint64_t stride = (uint64_t)w->jobs * MATRIX_CHUNK;
  for (uint64_t start = w->lo + (uint64_t)w->index * MATRIX_CHUNK; start < w->hi;
       start += stride) {
    uint64_t end = w->hi - start < MATRIX_CHUNK ? w->hi : start + MATRIX_CHUNK;
    for (uint64_t i = start; i < end; i++) {
      matrix_case c;
      matrix_decode(w->spec, i, &c);
      matrix_outcome o = matrix_run_case(mw, &c);
      record(&w->st, w->spec, &c, &o);
      if (w->csv)
        matrix_csv_write_row(w->csv, &c, &o);
      atomic_fetch_add_explicit(w->done, 1, memory_order_relaxed);
    }
  }
  matrix_worker_destroy(mw);
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

/* The cases of one row (feature, platform). */
static uint64_t row_total(const uint64_t *counts) {
  uint64_t total = 0;
  for (int k = 0; k < NUM_CODES; k++)
    total += counts[k];
  return total;
}

/* The most frequent error slot of a row not shown yet (then marked shown), or -1. */
static int next_error(const uint64_t *counts, bool *shown) {
  int best = -1;
  for (int k = 1; k < NUM_CODES; k++)
    if (!shown[k] && counts[k] && (best < 0 || counts[k] > counts[best]))
      best = k;
  if (best >= 0)
    shown[best] = true;
  return best;
}

static void print_summary(const matrix_spec *spec, const stats *st, double seconds, int jobs) {
  printf("%-16s %-8s %9s %9s  %s\n", "feature", "platform", "cases", "OK",
         "errors (the 3 most frequent, then +N more)");
  for (int f = 0; f < FEATURE_COUNT; f++) {
    for (int p = 0; p <= MATRIX_MAX_PLATFORMS; p++) {
      if (p < MATRIX_MAX_PLATFORMS && (size_t)p >= spec->num_platforms)
        continue;
      const uint64_t *counts = st->by_platform[f][p];
      uint64_t total = row_total(counts);
      if (!total)
        continue;
      printf("%-16s %-8s %9" PRIu64 " %9" PRIu64 " ", matrix_feature_name((matrix_feature)f),
             p == MATRIX_MAX_PLATFORMS ? "multi" : spec->platforms[p], total, counts[0]);
      bool shown[NUM_CODES] = {true};
      for (int rank = 0; rank < 3; rank++) {
        int best = next_error(counts, shown);
        if (best < 0)
          break;
        const char *name = lsim_status_name(slot_code(best));
        printf(" %s %" PRIu64, name ? name + 7 : "?", counts[best]); /* drop "LSIM_E_" */
      }
      /* What the three leave out is said, never hidden (--json lists every code). */
      uint64_t more_codes = 0, more_cases = 0;
      for (int best; (best = next_error(counts, shown)) >= 0;)
        more_codes++, more_cases += counts[best];
      if (more_codes)
        printf(" +%" PRIu64 " more (%" PRIu64 " cases)", more_codes, more_cases);
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

/* matrix --json: the summary's rows with every error counted, one object.
 * `shards`: 0 for a merge (then `lo`..`hi` is the merged range). */
static void print_json(const matrix_spec *spec, const stats *st, double seconds, int jobs,
                       uint64_t lo, uint64_t hi, uint64_t total, uint64_t shard,
                       uint64_t shards) {
  cli_json j;
  cli_json_begin(&j, stdout, "matrix");
  cli_json_profile(&j, "jax", spec->profile);
  cli_json_open_object(&j, "range");
  cli_json_int(&j, "first", (long long)lo);
  cli_json_int(&j, "end", (long long)hi);
  if (shards) {
    cli_json_int(&j, "of", (long long)total);
    cli_json_int(&j, "shard", (long long)shard);
    cli_json_int(&j, "shards", (long long)shards);
  }
  cli_json_close_object(&j);
  cli_json_open_array(&j, "rows");
  for (int f = 0; f < FEATURE_COUNT; f++) {
    for (int p = 0; p <= MATRIX_MAX_PLATFORMS; p++) {
      if (p < MATRIX_MAX_PLATFORMS && (size_t)p >= spec->num_platforms)
        continue;
      const uint64_t *counts = st->by_platform[f][p];
      uint64_t row = row_total(counts);
      if (!row)
        continue;
      cli_json_open_object(&j, NULL);
      cli_json_string(&j, "feature", matrix_feature_name((matrix_feature)f));
      cli_json_string(&j, "platform", p == MATRIX_MAX_PLATFORMS ? "multi" : spec->platforms[p]);
      cli_json_int(&j, "cases", (long long)row);
      cli_json_int(&j, "ok", (long long)counts[0]);
      cli_json_open_array(&j, "errors"); /* every code, the most frequent first */
      bool shown[NUM_CODES] = {true};
      for (int best; (best = next_error(counts, shown)) >= 0;) {
        const char *name = lsim_status_name(slot_code(best));
        cli_json_open_object(&j, NULL);
        cli_json_string(&j, "code", name ? name : "LSIM_E_UNKNOWN");
        cli_json_int(&j, "count", (long long)counts[best]);
        cli_json_close_object(&j);
      }
      cli_json_close_array(&j);
      cli_json_close_object(&j);
    }
  }
  cli_json_close_array(&j);
  cli_json_int(&j, "cases", (long long)st->cases);
  cli_json_int(&j, "failures", (long long)st->failures);
  if (seconds >= 0) {
    cli_json_number(&j, "seconds", seconds);
    cli_json_int(&j, "jobs", jobs);
  }
  cli_json_end(&j);
}

static int write_junit(const char *path, const stats *st, double seconds,
                       const cli_inputs *inputs, const lsim_jax_profile *profile) {
  size_t variants = 0, failed = 0;
  for (int f = 0; f < FEATURE_COUNT; f++)
    for (int v = 0; v < MAX_VARIANTS; v++)
      if (st->variant_cases[f][v])
        variants++, failed += st->variant_failures[f][v] > 0;
  junit *j = junit_open("lowersim matrix", variants, failed, 0, 0, seconds);
  junit_property(j, "jax", lsim_jax_profile_or_default(profile)->name);
  for (int f = 0; j && f < FEATURE_COUNT; f++) {
    for (int v = 0; v < MAX_VARIANTS; v++) {
      if (!st->variant_cases[f][v])
        continue;
      char name[MATRIX_VARIANT_NAME_MAX], failure[160];
      matrix_variant_name((matrix_feature)f, v, name, sizeof name);
      snprintf(failure, sizeof failure,
               "%" PRIu64 " of %" PRIu64 " cases failed; first: case %" PRIu64,
               st->variant_failures[f][v], st->variant_cases[f][v], st->first_failure[f][v]);
      char classname[64];
      snprintf(classname, sizeof classname, "lowersim.matrix.%s",
               matrix_feature_name((matrix_feature)f));
      junit_case(j, &(junit_result){.classname = classname, .name = name, .seconds = -1,
                                    .failure = st->variant_failures[f][v] ? failure : NULL});
    }
  }
  return junit_close(j, "matrix", path, inputs);
}

/* --- options ------------------------------------------------------------------------ */

typedef struct options {
  matrix_spec spec;
  uint64_t jobs, max_len;
  uint64_t shard, shards;
  uint64_t limit;
  const char *csv, *junit;
  bool merge, json;
  char **platforms; /* --platforms, split (owned) */
  char **features;  /* --features, split (owned) */
  size_t num_features;
  char **inputs;
  int num_inputs;
} options;

static void help(void) {
  printf(
      "usage: lowersim matrix [--platforms LIST] [--max-len K] [--features LIST]\n"
      "                       [--jobs J] [--shard I/N] [--limit N] [--csv OUT] [--junit OUT]\n"
      "                       [--jax VERSION] [--json]\n"
      "       lowersim matrix --merge [--csv OUT] [--junit OUT] [--jax VERSION] [--json] SHARD.csv...\n\n"
      "Lowers (jax.jit(f).trace(x).lower(lowering_platforms=TUPLE), for the JAX version of\n"
      "--jax, default the newest), deterministically, every case of the cartesian product\n"
      "of: ordered tuples of\n"
      "distinct lowering platforms of length 1..K over the platform list (default\n"
      "cpu,cuda,rocm,oneapi,tpu,gpu,metal and K=2), the pinned backend (none or each of cpu,\n"
      "cuda, rocm, oneapi, tpu, metal), the runtime (cpu plus each subset of cuda, rocm,\n"
      "oneapi, tpu, metal) and the feature variants (rules: rule sets; buffer_callback:\n"
      "command_buffer x aliases; python_callback: kind x ordered x partitioned, and pure\n"
      "and ordered io with sharding=SingleDeviceSharding(jax.devices()[0]); pallas: params\n"
      "x installed backends x flag x interpret). Every case is lowered and verified;\n"
      "its outcome is an error code or OK with a hash of the module text.\n\n"
      "  --platforms LIST  1 to 16 distinct platform names, comma-separated\n"
      "  --max-len K       tuples of 1 to K platforms, K from 1 to 4\n"
      "  --features LIST   any of rules,buffer_callback,python_callback,pallas\n"
      "  --jobs J          J threads, from 1 to 256 (default 1)\n"
      "  --shard I/N       only the I-th of N contiguous slices (0 <= I < N): run the shards\n"
      "                    anywhere (GNU parallel, Slurm arrays, Kubernetes indexed jobs),\n"
      "                    each with --csv, then join them with --merge\n"
      "  --limit N         only the first N cases (of the shard), N >= 1\n"
      "  --jax VERSION     the JAX version modelled (default: the newest; see\n"
      "                    `lowersim versions`)\n"
      "  --csv OUT         one row per case; --junit OUT: one test case per feature variant\n"
      "                    (\"-\": standard output; a file is replaced whole or not at all)\n\n"
      "--merge reads the shards' CSV files (\"-\": standard input) and checks every field of\n"
      "every row as strictly as scenario files are checked (`FILE:LINE: ...`, exit 2);\n"
      "the shards must cover one contiguous range of cases between them.\n\n"
      "A progress bar with rate and ETA goes to stderr when it is a terminal. Exit 0 unless a\n"
      "case fails in a way that is lowersim's own fault (a verification failure).\n");
}

static const char *parse_shard(const char *value, void *out) {
  options *o = out;
  const char *slash = strchr(value, '/');
  char first[24];
  size_t n = slash ? (size_t)(slash - value) : 0;
  if (!slash || n >= sizeof first)
    return "takes I/N with 0 <= I < N";
  memcpy(first, value, n);
  first[n] = '\0';
  if (!cli_parse_u64(first, 0, UINT64_MAX, &o->shard) ||
      !cli_parse_u64(slash + 1, 1, UINT64_MAX, &o->shards) || o->shard >= o->shards)
    return "takes I/N with 0 <= I < N";
  return NULL;
}

/* --platforms: distinct valid names, at most MATRIX_MAX_PLATFORMS. */
static const char *parse_platforms(const char *value, void *out) {
  options *o = out;
  size_t n;
  free(o->platforms);
  if (!(o->platforms = cli_split(value, ',', &n)))
    return "cannot be kept: out of memory";
  if (n > MATRIX_MAX_PLATFORMS)
    return "takes at most 16 platforms";
  for (size_t i = 0; i < n; i++) {
    if (lsim_check_platform_name(o->platforms[i], NULL) != LSIM_OK)
      return "takes platform names (1 to 63 of A-Za-z0-9_.-), comma-separated";
    for (size_t j = 0; j < i; j++)
      if (strcmp(o->platforms[i], o->platforms[j]) == 0)
        return "takes distinct platforms";
    o->spec.platforms[i] = o->platforms[i];
  }
  o->spec.num_platforms = n;
  return NULL;
}

static const char *parse_features(const char *value, void *out) {
  options *o = out;
  free(o->features);
  if (!(o->features = cli_split(value, ',', &o->num_features)))
    return "cannot be kept: out of memory";
  for (int f = 0; f < FEATURE_COUNT; f++)
    o->spec.features[f] = false;
  for (size_t k = 0; k < o->num_features; k++) {
    int f = 0;
    while (f < FEATURE_COUNT && strcmp(o->features[k], matrix_feature_name((matrix_feature)f)))
      f++;
    if (f == FEATURE_COUNT)
      return "takes features among rules,buffer_callback,python_callback,pallas";
    o->spec.features[f] = true;
  }
  return NULL;
}

static int parse_options(int argc, char **argv, options *o) {
  matrix_spec_default(&o->spec);
  o->jobs = 1;
  o->shards = 1;
  o->max_len = (uint64_t)o->spec.max_len;
  const char *jax = NULL;
  const cli_option table[] = {
      CLI_OPT_CUSTOM("platforms", 0, parse_platforms, o),
      CLI_OPT_U64("max-len", 0, &o->max_len, 1, MATRIX_MAX_LEN),
      CLI_OPT_CUSTOM("features", 0, parse_features, o),
      CLI_OPT_U64("jobs", 'j', &o->jobs, 1, 256),
      CLI_OPT_CUSTOM("shard", 0, parse_shard, o),
      CLI_OPT_U64("limit", 0, &o->limit, 1, UINT64_MAX),
      CLI_OPT_STRING("csv", 0, &o->csv),
      CLI_OPT_STRING("junit", 0, &o->junit),
      CLI_OPT_FLAG("merge", 0, &o->merge),
      CLI_OPT_FLAG("json", 0, &o->json),
      CLI_OPT_STRING("jax", 0, &jax),
  };
  cli_args args;
  int code = cli_parse("matrix", argc, argv, table, sizeof table / sizeof table[0], help, &args);
  if (code)
    return code;
  if (jax && (code = cli_parse_jax("matrix", "--jax", jax, &o->spec.profile)))
    return code;
  o->spec.max_len = (int)o->max_len;
  o->inputs = args.operands;
  o->num_inputs = args.num_operands;
  if (!o->merge && o->num_inputs)
    return cli_usage_error("matrix", "unexpected argument '%s' (see --help)", o->inputs[0]);
  if (!o->merge && !matrix_spec_finish(&o->spec))
    return cli_usage_error("matrix", "an empty matrix (check --platforms, --max-len, --features)");
  if (o->merge && o->num_inputs == 0)
    return cli_usage_error("matrix", "--merge needs the shards' CSV files");
  return 0;
}

/* Concatenates the workers' CSV parts into `path`, header first. */
/* Copies the next `rows` lines of `from` to `to`. */
static bool copy_rows(FILE *from, FILE *to, uint64_t rows) {
  char buf[4096];
  while (rows > 0 && fgets(buf, sizeof buf, from)) {
    size_t n = strlen(buf);
    if (fwrite(buf, 1, n, to) != n)
      return false;
    if (n && buf[n - 1] == '\n')
      rows--;
  }
  return rows == 0;
}

static int write_csv(const char *path, worker *workers, int jobs) {
  cli_output *out = cli_output_open("matrix", path, NULL);
  if (!out)
    return EXIT_INVALID_INPUT;
  FILE *f = cli_output_stream(out);
  bool ok = fputs(MATRIX_CSV_HEADER, f) >= 0;
  for (int j = 0; ok && j < jobs; j++) {
    ok = fflush(workers[j].csv) == 0 && !ferror(workers[j].csv);
    rewind(workers[j].csv);
  }
  /* The rows in case order: each chunk's from its worker's file. */
  uint64_t lo = jobs ? workers[0].lo : 0, hi = jobs ? workers[0].hi : 0;
  for (uint64_t start = lo, c = 0; ok && start < hi; start += MATRIX_CHUNK, c++) {
    uint64_t rows = hi - start < MATRIX_CHUNK ? hi - start : MATRIX_CHUNK;
    ok = copy_rows(workers[c % (uint64_t)jobs].csv, f, rows);
  }
  for (int j = 0; ok && j < jobs; j++)
    ok = !ferror(workers[j].csv);
  if (!ok) {
    fprintf(stderr, "lowersim matrix: cannot write %s: %s\n", path, strerror(errno));
    cli_output_abort(out);
    return EXIT_INVALID_INPUT;
  }
  return cli_output_commit(out);
}

static int run_matrix(options *o) {
  uint64_t total = o->spec.total;
  uint64_t lo = total * o->shard / o->shards, hi = total * (o->shard + 1) / o->shards;
  if (o->limit && hi - lo > o->limit)
    hi = lo + o->limit;
  _Atomic uint64_t done = 0;
  int jobs = (int)o->jobs;
  worker *workers = lsim_calloc((size_t)jobs, sizeof *workers);
  pthread_t *threads = lsim_calloc((size_t)jobs, sizeof *threads);
  if (!workers || !threads) {
    free(workers);
    free(threads);
    return cli_report(&(lsim_error){LSIM_E_NO_MEMORY, NULL});
  }
  double start = now();
  int code = 0;
  for (int j = 0; j < jobs; j++) {
    workers[j] = (worker){.spec = &o->spec, .done = &done, .lo = lo, .hi = hi, .index = j,
                          .jobs = jobs};
    if (o->csv && !(workers[j].csv = tmpfile()))
      code = cli_usage_error("matrix", "cannot create a temporary file");
  }
  int started = 0;
  for (; !code && started < jobs; started++)
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
  stats *all = lsim_calloc(1, sizeof *all);
  for (int j = 0; all && j < jobs; j++) {
    merge_stats(all, &workers[j].st);
    if (workers[j].rc && !code)
      code = cli_report(&(lsim_error){workers[j].rc, NULL});
  }
  if (!all)
    code = cli_report(&(lsim_error){LSIM_E_NO_MEMORY, NULL});
  if (all && !code && o->json)
    print_json(&o->spec, all, seconds, jobs, lo, hi, total, o->shard, o->shards);
  if (all && !code) {
    if (!o->json) {
      printf("matrix: cases %" PRIu64 "..%" PRIu64 " of %" PRIu64 " (shard %" PRIu64
             "/%" PRIu64 ")\n",
             lo, hi, total, o->shard, o->shards);
      print_summary(&o->spec, all, seconds, jobs);
    }
    if (o->csv)
      code = write_csv(o->csv, workers, jobs);
    if (o->junit && !code)
      code = write_junit(o->junit, all, seconds, NULL, o->spec.profile);
    if (!code && all->failures)
      code = EXIT_LOWERING_ERROR;
  }
  for (int j = 0; j < jobs; j++)
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
  FILE *f;
  uint64_t first, rows;
  bool empty; /* the header alone */
} shard_file;

static int compare_shards(const void *a, const void *b) {
  const shard_file *x = a, *y = b;
  if (x->empty != y->empty)
    return x->empty ? 1 : -1;
  return (x->first > y->first) - (x->first < y->first);
}

/* The slot of a platform in the merge's platform list, added when new
 * (shards are read in index order, so the list comes out in the run's
 * order); NULL when the list is full. */
static const char *platform_name(matrix_spec *spec, const char *name,
                                 char names[][LSIM_PLATFORM_NAME_MAX + 1]) {
  for (size_t i = 0; i < spec->num_platforms; i++)
    if (strcmp(spec->platforms[i], name) == 0)
      return spec->platforms[i];
  if (spec->num_platforms == MATRIX_MAX_PLATFORMS)
    return NULL;
  size_t slot = spec->num_platforms++;
  snprintf(names[slot], sizeof names[slot], "%s", name);
  spec->platforms[slot] = names[slot];
  return names[slot];
}

/* Reads one shard (every row checked), recording its rows into `st` and,
 * when `csv`, copying them there.  `first_only`: reads the first row alone
 * (for ordering).  Returns 0 or 2 with the reason printed. */
static int read_shard(shard_file *sf, bool first_only, stats *st, matrix_spec *spec,
                      char names[][LSIM_PLATFORM_NAME_MAX + 1], FILE *csv) {
  if (fseek(sf->f, 0, SEEK_SET) != 0) {
    fprintf(stderr, "lowersim matrix: cannot read %s again: %s\n", sf->path, strerror(errno));
    return EXIT_INVALID_INPUT;
  }
  matrix_csv_reader *r = matrix_csv_reader_create(sf->path, sf->f);
  if (!r)
    return cli_usage_error("matrix", "out of memory");
  matrix_row row;
  int rc, code = 0;
  sf->rows = 0;
  while (!code && (rc = matrix_csv_next(r, &row)) > 0) {
    if (sf->rows++ == 0)
      sf->first = row.c.index;
    if (first_only)
      break;
    for (int i = 0; !code && i < row.c.tuple_len; i++)
      if (!(row.c.tuple[i] = platform_name(spec, row.c.tuple[i], names)))
        code = cli_usage_error("matrix", "the shards name more than %d platforms",
                               MATRIX_MAX_PLATFORMS);
    if (!code)
      record(st, spec, &row.c, &row.o);
    if (!code && csv)
      matrix_csv_write_row(csv, &row.c, &row.o);
  }
  if (!code && rc < 0) {
    fprintf(stderr, "%s\n", matrix_csv_error(r));
    code = EXIT_INVALID_INPUT;
  }
  sf->empty = sf->rows == 0;
  matrix_csv_reader_destroy(r);
  return code;
}

/* Standard input copied into a temporary file, so that it can be read twice. */
static FILE *copy_stdin(void) {
  FILE *f = tmpfile();
  char buf[1 << 16];
  size_t n;
  while (f && (n = fread(buf, 1, sizeof buf, stdin)) > 0)
    if (fwrite(buf, 1, n, f) != n) {
      fclose(f);
      return NULL;
    }
  if (f && (ferror(stdin) || fflush(f) != 0)) {
    fclose(f);
    return NULL;
  }
  return f;
}

/* Opens the shards ("-" once: standard input). */
static int open_shards(options *o, shard_file *files) {
  int code = 0, stdin_uses = 0;
  for (int i = 0; !code && i < o->num_inputs; i++) {
    files[i].path = o->inputs[i];
    bool is_stdin = strcmp(files[i].path, "-") == 0;
    files[i].f = is_stdin ? copy_stdin() : fopen(files[i].path, "r");
    if ((stdin_uses += is_stdin) > 1)
      code = cli_usage_error("matrix", "standard input can be read once");
    else if (!files[i].f)
      code = cli_usage_error("matrix", "cannot read %s: %s", files[i].path, strerror(errno));
  }
  return code;
}

/* The shards ordered by their first case, checked to cover one contiguous
 * range, then each read in order into `st` (and the merged CSV). */
static int merge_shards(options *o, shard_file *files, stats *st, matrix_spec *seen,
                        char names[][LSIM_PLATFORM_NAME_MAX + 1], FILE *csv) {
  int code = 0;
  for (int i = 0; !code && i < o->num_inputs; i++)
    code = read_shard(&files[i], true, NULL, seen, names, NULL);
  if (code)
    return code;
  qsort(files, (size_t)o->num_inputs, sizeof *files, compare_shards);
  uint64_t next = files[0].first;
  for (int i = 0; !code && i < o->num_inputs && !files[i].empty; i++) {
    if (files[i].first != next)
      return cli_usage_error("matrix", "the shards leave a gap or overlap at case %" PRIu64 " (%s)",
                             next, files[i].path);
    code = read_shard(&files[i], false, st, seen, names, csv);
    next = files[i].first + files[i].rows;
  }
  return code;
}

static int merge(options *o) {
  stats *st = lsim_calloc(1, sizeof *st);
  shard_file *files = lsim_calloc((size_t)o->num_inputs, sizeof *files);
  char names[MATRIX_MAX_PLATFORMS][LSIM_PLATFORM_NAME_MAX + 1];
  matrix_spec seen = {0};
  cli_inputs inputs = {0};
  int code = st && files ? 0 : cli_usage_error("matrix", "out of memory");
  for (int i = 0; !code && i < o->num_inputs; i++)
    if (!cli_inputs_add(&inputs, o->inputs[i]))
      code = cli_usage_error("matrix", "out of memory");
  if (!code)
    code = open_shards(o, files);
  cli_output *csv = NULL;
  if (!code && o->csv && !(csv = cli_output_open("matrix", o->csv, &inputs)))
    code = EXIT_INVALID_INPUT;
  if (csv && fputs(MATRIX_CSV_HEADER, cli_output_stream(csv)) < 0)
    code = cli_usage_error("matrix", "cannot write %s", o->csv);
  if (!code)
    code = merge_shards(o, files, st, &seen, names, csv ? cli_output_stream(csv) : NULL);
  if (!code && o->json) {
    seen.profile = o->spec.profile;
    print_json(&seen, st, -1, 1, files[0].first, files[0].first + st->cases, 0, 0, 0);
  } else if (!code) {
    printf("matrix: merged %d shards, cases %" PRIu64 "..%" PRIu64 "\n", o->num_inputs,
           files[0].first, files[0].first + st->cases);
    print_summary(&seen, st, -1, 1);
  }
  if (csv && !code)
    code = cli_output_commit(csv);
  else
    cli_output_abort(csv);
  if (!code && o->junit)
    code = write_junit(o->junit, st, -1, &inputs, o->spec.profile);
  if (!code && st->failures)
    code = EXIT_LOWERING_ERROR;
  for (int i = 0; files && i < o->num_inputs; i++)
    if (files[i].f)
      fclose(files[i].f);
  cli_inputs_free(&inputs);
  free(st);
  free(files);
  return code;
}

int cmd_matrix(int argc, char **argv) {
  if (lsim_status_count() + 2 > NUM_CODES) {
    fprintf(stderr, "lowersim matrix: the error catalogue (%zu codes) outgrew the matrix's %d "
            "slots (cli/cmd_matrix.c NUM_CODES)\n", lsim_status_count(), NUM_CODES);
    return EXIT_LOWERING_ERROR;
  }
  options o = {0};
  int code = parse_options(argc, argv, &o);
  if (code == 0)
    code = o.merge ? merge(&o) : run_matrix(&o);
  free(o.platforms);
  free(o.features);
  return code < 0 ? 0 : code;
}
