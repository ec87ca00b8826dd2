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
#include "lowersim/scenario_output.h"
#include "progress.h"

#include <errno.h>
#include <stdarg.h>
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

/* The summary's rows: one per lowering platform of the spec (a tuple of
 * one), then one per kind of multi-platform tuple: the multiset of its
 * platforms' families (cpu; gpu: cuda, rocm and the alias gpu; tpu; other:
 * every other name), e.g. "cpu+gpu", "gpu+gpu" (cuda+rocm, gpu+cuda, ...),
 * "cpu+gpu+tpu", in the order of length, then of the families. */
enum { FAMILY_CPU, FAMILY_GPU, FAMILY_TPU, FAMILY_OTHER, NUM_FAMILIES };
static const char *const family_names[NUM_FAMILIES] = {"cpu", "gpu", "tpu", "other"};
#define NUM_MULTI_KINDS 65 /* multisets of 2..4 of 4 families: 10 + 20 + 35 */
#define NUM_ROWS (MATRIX_MAX_PLATFORMS + NUM_MULTI_KINDS)
#define KIND_KEYS 625      /* a multiset's key: its counts in base 5 */

typedef struct multi_kind {
  int len;
  int families[MATRIX_MAX_LEN]; /* ascending */
  char label[MATRIX_MAX_LEN * 6];
} multi_kind;

static multi_kind multi_kinds[NUM_MULTI_KINDS];
static const int family_weight[NUM_FAMILIES] = {1, 5, 25, 125};
static signed char kind_of_key[KIND_KEYS]; /* key -> index into multi_kinds */

/* Every multiset of `len` families at least `from`, appended in order. */
static void enumerate_kinds(int len, int depth, int from, int *seq, int *n) {
  if (depth == len) {
    multi_kind *k = &multi_kinds[*n];
    int key = 0;
    size_t at = 0;
    k->len = len;
    for (int i = 0; i < len; i++) {
      k->families[i] = seq[i];
      key += family_weight[seq[i]];
      at += (size_t)snprintf(k->label + at, sizeof k->label - at, "%s%s", i ? "+" : "",
                             family_names[seq[i]]);
    }
    kind_of_key[key] = (signed char)(*n)++;
    return;
  }
  for (int f = from; f < NUM_FAMILIES; f++) {
    seq[depth] = f;
    enumerate_kinds(len, depth + 1, f, seq, n);
  }
}

/* Before any thread starts. */
static void multi_kinds_init(void) {
  int seq[MATRIX_MAX_LEN], n = 0;
  for (int len = 2; len <= MATRIX_MAX_LEN; len++)
    enumerate_kinds(len, 0, 0, seq, &n);
}

/* One comparison per name (this runs for every case). */
static int family_of(const char *platform) {
  switch (platform[0]) {
  case 'c':
    return strcmp(platform, "cpu") == 0 ? FAMILY_CPU
           : strcmp(platform, "cuda") == 0 ? FAMILY_GPU : FAMILY_OTHER;
  case 'r': return strcmp(platform, "rocm") == 0 ? FAMILY_GPU : FAMILY_OTHER;
  case 'g': return strcmp(platform, "gpu") == 0 ? FAMILY_GPU : FAMILY_OTHER;
  case 't': return strcmp(platform, "tpu") == 0 ? FAMILY_TPU : FAMILY_OTHER;
  default: return FAMILY_OTHER;
  }
}

typedef struct stats {
  uint64_t by_row[FEATURE_COUNT][NUM_ROWS][NUM_CODES];
  uint64_t variant_cases[FEATURE_COUNT][MAX_VARIANTS];
  uint64_t variant_failures[FEATURE_COUNT][MAX_VARIANTS];
  uint64_t first_failure[FEATURE_COUNT][MAX_VARIANTS];
  uint64_t cases, failures;
} stats;

static int platform_slot(const matrix_spec *spec, const matrix_case *c) {
  if (c->tuple_len > 1) {
    int key = 0;
    for (int i = 0; i < c->tuple_len; i++)
      key += family_weight[family_of(c->tuple[i])];
    return MATRIX_MAX_PLATFORMS + kind_of_key[key];
  }
  for (size_t i = 0; i < spec->num_platforms; i++)
    if (strcmp(spec->platforms[i], c->tuple[0]) == 0)
      return (int)i;
  return 0; /* not reached: a case's platforms are the spec's */
}

/* Whether row `p` is in the table, and its label. */
static bool row_exists(const matrix_spec *spec, int p) {
  return p >= MATRIX_MAX_PLATFORMS || (size_t)p < spec->num_platforms;
}

static const char *row_label(const matrix_spec *spec, int p) {
  return p < MATRIX_MAX_PLATFORMS ? spec->platforms[p]
                                  : multi_kinds[p - MATRIX_MAX_PLATFORMS].label;
}

static void record(stats *st, const matrix_spec *spec, const matrix_case *c,
                   const matrix_outcome *o) {
  st->cases++;
  st->by_row[c->feature][platform_slot(spec, c)][code_slot(o->code)]++;
  st->variant_cases[c->feature][c->variant]++;
  if (o->failure) {
    if (st->variant_failures[c->feature][c->variant]++ == 0)
      st->first_failure[c->feature][c->variant] = c->index;
    st->failures++;
  }
}

static void merge_stats(stats *into, const stats *from) {
  for (int f = 0; f < FEATURE_COUNT; f++) {
    for (int p = 0; p < NUM_ROWS; p++)
      for (int k = 0; k < NUM_CODES; k++)
        into->by_row[f][p][k] += from->by_row[f][p][k];
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

/* The cases go to the workers in chunks of MATRIX_CHUNK, each worker taking
 * the next unclaimed chunk when it finishes one (chunk c is cases
 * lo + c*MATRIX_CHUNK onwards, and `owner[c]` says whose it was, for the
 * CSV).  Costs differ by feature (a Pallas case costs up to ten of
 * another's) and features come in long runs, so a fixed share (halves of the
 * range, or chunks dealt round-robin) leaves one thread idle while the other
 * finishes; a chunk is long enough that consecutive cases still share their
 * JAX process. */
#define MATRIX_CHUNK 1372 /* 4 x (7 pins x 49 tuples) */

typedef struct worker {
  const matrix_spec *spec;
  uint64_t lo, hi;           /* the whole range */
  int index;                 /* this worker's number, in `owner` */
  _Atomic uint64_t *next;    /* the next chunk to claim */
  unsigned char *owner;      /* each chunk's worker (jobs are at most 256) */
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
  for (;;) {
    uint64_t c = atomic_fetch_add_explicit(w->next, 1, memory_order_relaxed);
    if (c >= (w->hi - w->lo + MATRIX_CHUNK - 1) / MATRIX_CHUNK)
      break;
    w->owner[c] = (unsigned char)w->index;
    uint64_t start = w->lo + c * MATRIX_CHUNK;
    uint64_t end = w->hi - start < MATRIX_CHUNK ? w->hi : start + MATRIX_CHUNK;
    for (uint64_t i = start; i < end; i++) {
      matrix_case mc;
      matrix_decode(w->spec, i, &mc);
      matrix_outcome o = matrix_run_case(mw, &mc);
      record(&w->st, w->spec, &mc, &o);
      if (w->csv)
        matrix_csv_write_row(w->csv, &mc, &o);
      atomic_fetch_add_explicit(w->done, 1, memory_order_relaxed);
    }
  }
  matrix_worker_destroy(mw);
  return NULL;
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

/* The lowersim failures of a row (cases whose code is lowersim's fault). */
static uint64_t row_failures(const uint64_t *counts) {
  uint64_t n = 0;
  for (int k = 1; k < NUM_CODES; k++)
    if (counts[k] && matrix_is_failure(slot_code(k)))
      n += counts[k];
  return n;
}

static void print_summary(const matrix_spec *spec, const stats *st, double seconds, int jobs) {
  FILE *out = cli_human();
  int width = 12; /* the platform column: as wide as its longest label */
  for (int f = 0; f < FEATURE_COUNT; f++)
    for (int p = 0; p < NUM_ROWS; p++)
      if (row_exists(spec, p) && row_total(st->by_row[f][p]) &&
          (int)strlen(row_label(spec, p)) > width)
        width = (int)strlen(row_label(spec, p));
  fprintf(out, "%-16s %-*s %9s %9s  %s\n", "feature", width, "platforms", "cases", "OK",
         "errors (the 3 most frequent, then +N more)");
  for (int f = 0; f < FEATURE_COUNT; f++) {
    for (int p = 0; p < NUM_ROWS; p++) {
      if (!row_exists(spec, p))
        continue;
      const uint64_t *counts = st->by_row[f][p];
      uint64_t total = row_total(counts);
      if (!total)
        continue;
      fprintf(out, "%-16s %-*s %9" PRIu64 " %9" PRIu64 " ", matrix_feature_name((matrix_feature)f),
             width, row_label(spec, p), total, counts[0]);
      bool shown[NUM_CODES] = {true};
      for (int rank = 0; rank < 3; rank++) {
        int best = next_error(counts, shown);
        if (best < 0)
          break;
        const char *name = lsim_status_name(slot_code(best));
        fprintf(out, " %s %" PRIu64, name ? name + 7 : "?", counts[best]); /* drop "LSIM_E_" */
      }
      /* What the three leave out is said, never hidden (--json lists every code). */
      uint64_t more_codes = 0, more_cases = 0;
      for (int best; (best = next_error(counts, shown)) >= 0;)
        more_codes++, more_cases += counts[best];
      if (more_codes)
        fprintf(out, " +%" PRIu64 " more (%" PRIu64 " cases)", more_codes, more_cases);
      fprintf(out, "\n");
    }
  }
  if (seconds < 0) {
    fprintf(out, "%" PRIu64 " cases, %" PRIu64 " lowersim failures\n", st->cases, st->failures);
    return;
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  fprintf(out, "%" PRIu64 " cases in %.1f s on %d thread%s (%.0f cases/s), %" PRIu64
         " lowersim failures, peak RSS %.1f MB\n",
         st->cases, seconds, jobs, jobs == 1 ? "" : "s", seconds > 0 ? (double)st->cases / seconds : 0,
         st->failures, ru.ru_maxrss / 1024.0);
}

/* matrix --json: the summary's rows with every error counted, one object.
 * `run`: a run's shard `shard` of `shards`; else a merge of `shards` shards
 * (then `lo`..`hi` is the merged range). */
static void print_json(const matrix_spec *spec, const stats *st, double seconds, int jobs,
                       uint64_t lo, uint64_t hi, uint64_t total, uint64_t shard,
                       uint64_t shards, bool run) {
  cli_json j;
  cli_json_begin(&j, stdout, "matrix");
  cli_json_profile(&j, "jax", spec->profile);
  cli_json_open_object(&j, "range");
  cli_json_int(&j, "first", (long long)lo);
  cli_json_int(&j, "end", (long long)hi);
  cli_json_int(&j, "of", (long long)total);
  if (run)
    cli_json_int(&j, "shard", (long long)shard);
  cli_json_int(&j, "shards", (long long)shards);
  cli_json_close_object(&j);
  cli_json_open_array(&j, "rows");
  for (int f = 0; f < FEATURE_COUNT; f++) {
    for (int p = 0; p < NUM_ROWS; p++) {
      if (!row_exists(spec, p))
        continue;
      const uint64_t *counts = st->by_row[f][p];
      uint64_t row = row_total(counts);
      if (!row)
        continue;
      cli_json_open_object(&j, NULL);
      cli_json_string(&j, "feature", matrix_feature_name((matrix_feature)f));
      cli_json_string(&j, "platform", row_label(spec, p));
      if (p >= MATRIX_MAX_PLATFORMS) { /* a kind of multi-platform tuple */
        const multi_kind *k = &multi_kinds[p - MATRIX_MAX_PLATFORMS];
        cli_json_open_array(&j, "families");
        for (int i = 0; i < k->len; i++)
          cli_json_string(&j, NULL, family_names[k->families[i]]);
        cli_json_close_array(&j);
      }
      cli_json_int(&j, "cases", (long long)row);
      cli_json_int(&j, "failures", (long long)row_failures(counts));
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

/* matrix --junit: one test case per feature variant (classname
 * lowersim.matrix.FEATURE), then one per row of the summary (classname
 * lowersim.matrix.FEATURE.platforms, named by the row's platform or tuple
 * kind), each failed when its cases hold a lowersim failure. */
static int write_junit(const char *path, const stats *st, double seconds,
                       const cli_inputs *inputs, const matrix_spec *spec) {
  const lsim_jax_profile *profile = spec->profile;
  size_t tests = 0, failed = 0;
  for (int f = 0; f < FEATURE_COUNT; f++) {
    for (int v = 0; v < MAX_VARIANTS; v++)
      if (st->variant_cases[f][v])
        tests++, failed += st->variant_failures[f][v] > 0;
    for (int p = 0; p < NUM_ROWS; p++)
      if (row_exists(spec, p) && row_total(st->by_row[f][p]))
        tests++, failed += row_failures(st->by_row[f][p]) > 0;
  }
  junit *j = junit_open("lowersim matrix", tests, failed, 0, 0, seconds);
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
  for (int f = 0; j && f < FEATURE_COUNT; f++) {
    for (int p = 0; p < NUM_ROWS; p++) {
      const uint64_t *counts = st->by_row[f][p];
      uint64_t total = row_exists(spec, p) ? row_total(counts) : 0, failures;
      if (!total)
        continue;
      char classname[64], failure[160];
      snprintf(classname, sizeof classname, "lowersim.matrix.%s.platforms",
               matrix_feature_name((matrix_feature)f));
      if ((failures = row_failures(counts)))
        snprintf(failure, sizeof failure, "%" PRIu64 " of %" PRIu64 " cases failed", failures,
                 total);
      junit_case(j, &(junit_result){.classname = classname, .name = row_label(spec, p),
                                    .seconds = -1, .failure = failures ? failure : NULL});
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
  uint64_t the_case;    /* --case N; UINT64_MAX: none */
  const char *scenario; /* --scenario OUT.xml (with --case) */
  char **platforms; /* --platforms, split (owned) */
  char **features;  /* --features, split (owned) */
  size_t num_features;
  char **inputs;
  int num_inputs;
  char refusal[2048]; /* why --merge refused its shards (--json's "error") */
} options;

static void help(void) {
  printf(
      "usage: lowersim matrix [--platforms LIST] [--max-len K] [--features LIST]\n"
      "                       [--jobs J] [--shard I/N] [--limit N] [--csv OUT] [--junit OUT]\n"
      "                       [--jax VERSION] [--json]\n"
      "       lowersim matrix --merge [--csv OUT] [--junit OUT] [--jax VERSION] [--json] SHARD.csv...\n"
      "       lowersim matrix --case N [--scenario OUT.xml] [--platforms LIST] [--max-len K]\n"
      "                       [--features LIST] [--jax VERSION]\n\n"
      "Lowers (jax.jit(f).trace(x).lower(lowering_platforms=TUPLE), for the JAX version of\n"
      "--jax, default the newest), deterministically, every case of the cartesian product\n"
      "of: ordered tuples of\n"
      "distinct lowering platforms of length 1..K over the platform list (default\n"
      "cpu,cuda,rocm,oneapi,tpu,gpu,metal and K=2), the pinned backend (none or each of cpu,\n"
      "cuda, rocm, oneapi, tpu, metal), the runtime (cpu plus each subset of cuda, rocm,\n"
      "oneapi, tpu, metal) and the feature variants:\n"
      "  rules            rule sets of register_lowering(my_op, ffi_lowering(T), platform)\n"
      "  buffer_callback  command_buffer_compatible x input_output_aliases\n"
      "  python_callback  kind x ordered x partitioned, and pure and ordered io with\n"
      "                   sharding=SingleDeviceSharding(jax.devices()[0])\n"
      "  pallas           compiler params x installed backends x flag x interpret\n"
      "  ffi_call         jax.ffi.ffi_call: has_side_effect x input_output_aliases x\n"
      "                   custom_call_api_version 4 or 1\n"
      "  compute_on       compute_on(T) for T device_host, tpu_sparsecore, device,\n"
      "                   gpu_stream:1 and an unknown one, around an ffi_call or a\n"
      "                   pure_callback\n"
      "  lowering_cache   register_lowering(inline=False) for the default or cpu and tpu,\n"
      "                   one call or two identical ones (one private function)\n"
      "  effects          two callbacks: ordered io and debug in either order (two\n"
      "                   tokens), two ordered io (one), ordered io and unordered debug\n"
      "  export           jax.export.export of sin, my_op's custom call or a\n"
      "                   pure_callback, with disabled_checks none or custom_call:k_default\n"
      "  export_call      calling an Exported of sin for (cpu, tpu) or (cuda,), with or\n"
      "                   without DisabledSafetyCheck.platform()\n"
      "  session          two lowerings in one JAX process: my_op without a rule, then\n"
      "                   with one registered; Mosaic TPU add_one, then with interpret\n"
      "  pallas_kernels   the kernel library's 2-D kernels, tiled_add_one over a (2, 2)\n"
      "                   grid, row_sum over (2,) and gather_rows (scalar prefetch) over\n"
      "                   (2,), x compiler params x interpret\n"
      "Every case is lowered and verified; its outcome is an error code or OK with a hash\n"
      "of the module text. --shard runs the shards anywhere (GNU parallel, Slurm arrays,\n"
      "Kubernetes indexed jobs), each with --csv, then --merge joins them. --csv and\n"
      "--junit take \"-\" for standard output (the summary then on stderr); a file is\n"
      "replaced whole or not at all.\n\n"
      "The CSV (format 2) starts with the shard's metadata, then the header and a row per case:\n"
      "  # lowersim matrix CSV 2: lowersim=V jax=PROFILE platforms=P+Q max-len=K\n"
      "    features=F+G limit=L|- shard=I/N cases=FIRST..END total=T      (one line)\n"
      "  index,feature,variant,platforms,backend,runtime,outcome,module_hash\n\n"
      "--merge reads the shards' CSV files (\"-\": standard input) and checks the metadata\n"
      "and every field of every row as strictly as scenario files are checked (`FILE:LINE:\n"
      "...`, exit 2): the files must be every shard 0/N..N-1/N of one run, each once (the\n"
      "same lowersim, jax, platforms, max-len, features, limit and N), each holding exactly\n"
      "the cases its metadata names, none cut short by --limit unless it is the only one.\n"
      "Format 1 files (the header first, written before shard metadata) are refused: write\n"
      "them again. A merged --csv is the whole run's, as one --shard 0/1 run writes it.\n\n"
      "The summary has a row per feature and lowering platform (its tuple of one), then per\n"
      "feature and kind of multi-platform tuple: the families of its platforms (cpu; gpu:\n"
      "cuda, rocm and the alias gpu; tpu; other: any other name), e.g. cpu+gpu, gpu+gpu\n"
      "(cuda+rocm, gpu+cuda, ...), cpu+gpu+tpu. --junit adds a test case per row\n"
      "(lowersim.matrix.FEATURE.platforms), failed when the row holds a lowersim failure.\n\n"
      "--case N lowers the case of index N alone (the CSV's index, for the same --platforms,\n"
      "--max-len, --features and --jax) and prints what it is and its outcome; with\n"
      "--scenario OUT.xml it writes the scenario that reproduces it (`lowersim lower OUT.xml`),\n"
      "after lowering that scenario and finding the case's outcome; where it does not (a case\n"
      "whose runtime lacks tpu: the matrix has no tpu factory there, a JAX process always\n"
      "has one, failing quietly), it says so, writes nothing and exits 1.\n\n"
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

static const char *feature_values(size_t i) {
  return i < FEATURE_COUNT ? matrix_feature_name((matrix_feature)i) : NULL;
}

/* What --features takes, from the table of features. */
static const char *unknown_feature(void) {
  static char why[512];
  size_t n = (size_t)snprintf(why, sizeof why, "takes features among ");
  for (size_t i = 0; feature_values(i) && n < sizeof why; i++)
    n += (size_t)snprintf(why + n, sizeof why - n, "%s%s", i ? "," : "", feature_values(i));
  return why;
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
      return unknown_feature();
    o->spec.features[f] = true;
  }
  return NULL;
}

static int parse_options(int argc, char **argv, options *o) {
  matrix_spec_default(&o->spec);
  o->jobs = 1;
  o->shards = 1;
  o->the_case = UINT64_MAX;
  o->max_len = (uint64_t)o->spec.max_len;
  const char *jax = NULL;
  const cli_option table[] = {
      CLI_OPT_CUSTOM("platforms", 0, parse_platforms, o,
                     CLI_HELP("LIST", "1 to 16 distinct platform names, comma-separated")),
      CLI_OPT_U64("max-len", 0, &o->max_len, 1, MATRIX_MAX_LEN,
                  CLI_HELP("K", "tuples of 1 to K platforms, K from 1 to 4")),
      CLI_OPT_CUSTOM_OF("features", 0, parse_features, o, feature_values,
                        CLI_HELP("LIST", "features, comma-separated (default: all)")),
      CLI_OPT_U64("jobs", 'j', &o->jobs, 1, 256,
                  CLI_HELP("J", "J threads, from 1 to 256 (default 1)")),
      CLI_OPT_CUSTOM("shard", 0, parse_shard, o,
                     CLI_HELP("I/N", "only the I-th of N contiguous slices (0 <= I < N)")),
      CLI_OPT_U64("limit", 0, &o->limit, 1, UINT64_MAX,
                  CLI_HELP("N", "only the first N cases (of the shard), N >= 1")),
      CLI_OPT_STRING("csv", 0, &o->csv, CLI_OUTPUT, CLI_HELP("OUT", "one row per case")),
      CLI_OPT_STRING("junit", 0, &o->junit, CLI_OUTPUT,
                     CLI_HELP("OUT", "a JUnit XML report, a test case per row of the summary")),
      CLI_OPT_FLAG("merge", 0, &o->merge, CLI_HELP(NULL, "join the shards' CSV files (below)")),
      CLI_OPT_U64("case", 0, &o->the_case, 0, UINT64_MAX - 1,
                  CLI_HELP("N", "lower the case of index N alone (below)")),
      CLI_OPT_STRING("scenario", 0, &o->scenario, CLI_OUTPUT,
                     CLI_HELP("OUT.xml", "with --case: the scenario that reproduces it")),
      CLI_OPT_FLAG("json", 0, &o->json, CLI_OUTPUT,
                   CLI_HELP(NULL, "the summary as one JSON object on stdout, every error "
                            "counted")),
      CLI_OPT_CHOICE("jax", 0, &jax, cli_jax_values,
                     CLI_HELP("VERSION", "the JAX version modelled (default: the newest)")),
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
  bool one_case = o->the_case != UINT64_MAX;
  if (o->scenario && !one_case)
    return cli_usage_error("matrix", "--scenario needs --case N");
  if (one_case && (o->merge || o->csv || o->junit || o->shards != 1 || o->limit || o->json))
    return cli_usage_error("matrix", "--case runs one case: no --merge, --csv, --junit, --json, "
                                     "--shard or --limit");
  if (one_case && o->the_case >= o->spec.total)
    return cli_usage_error("matrix", "--case %" PRIu64 ": the matrix has cases 0 to %" PRIu64,
                           o->the_case, o->spec.total - 1);
  return 0;
}

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

/* Concatenates the workers' CSV parts into `path`, the metadata and header
 * first, the rows in case order: each worker's file holds its chunks in the
 * order it claimed them, which is case order. */
static int write_csv(const options *o, worker *workers, int jobs) {
  const char *path = o->csv;
  cli_output *out = cli_output_open("matrix", path, NULL);
  if (!out)
    return EXIT_INVALID_INPUT;
  FILE *f = cli_output_stream(out);
  matrix_csv_meta meta;
  matrix_csv_meta_init(&meta, &o->spec, o->shard, o->shards, o->limit);
  matrix_csv_write_meta(f, &meta);
  bool ok = !ferror(f);
  for (int j = 0; ok && j < jobs; j++) {
    ok = fflush(workers[j].csv) == 0 && !ferror(workers[j].csv);
    rewind(workers[j].csv);
  }
  /* The rows in case order: each chunk's from its worker's file. */
  uint64_t lo = jobs ? workers[0].lo : 0, hi = jobs ? workers[0].hi : 0;
  for (uint64_t start = lo, c = 0; ok && start < hi; start += MATRIX_CHUNK, c++) {
    uint64_t rows = hi - start < MATRIX_CHUNK ? hi - start : MATRIX_CHUNK;
    ok = copy_rows(workers[workers[0].owner[c]].csv, f, rows);
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
  uint64_t lo, hi;
  matrix_shard_range(total, o->shard, o->shards, o->limit, &lo, &hi);
  _Atomic uint64_t done = 0, next = 0;
  int jobs = (int)o->jobs;
  worker *workers = lsim_calloc((size_t)jobs, sizeof *workers);
  pthread_t *threads = lsim_calloc((size_t)jobs, sizeof *threads);
  unsigned char *owner = lsim_calloc((size_t)((hi - lo) / MATRIX_CHUNK + 1), 1);
  if (!workers || !threads || !owner) {
    free(workers);
    free(threads);
    free(owner);
    return cli_report(&(lsim_error){LSIM_E_NO_MEMORY, NULL});
  }
  cli_progress bar;
  cli_progress_begin(&bar, "matrix", "cases", hi - lo, true);
  int code = 0;
  for (int j = 0; j < jobs; j++) {
    workers[j] = (worker){.spec = &o->spec, .done = &done, .lo = lo, .hi = hi, .index = j,
                          .next = &next, .owner = owner};
    if (o->csv && !(workers[j].csv = tmpfile()))
      code = cli_usage_error("matrix", "cannot create a temporary file");
  }
  int started = 0;
  for (; !code && started < jobs; started++)
    if (pthread_create(&threads[started], NULL, work, &workers[started]))
      break;
  while (bar.on && !code && atomic_load(&done) < hi - lo) {
    cli_progress_update(&bar, atomic_load(&done), NULL, false);
    nanosleep(&(struct timespec){0, 200000000}, NULL);
  }
  for (int j = 0; j < started; j++)
    pthread_join(threads[j], NULL);
  double seconds = cli_now() - bar.start;
  cli_progress_end(&bar);
  stats *all = lsim_calloc(1, sizeof *all);
  for (int j = 0; all && j < jobs; j++) {
    merge_stats(all, &workers[j].st);
    if (workers[j].rc && !code)
      code = cli_report(&(lsim_error){workers[j].rc, NULL});
  }
  if (!all)
    code = cli_report(&(lsim_error){LSIM_E_NO_MEMORY, NULL});
  if (all && !code && o->json)
    print_json(&o->spec, all, seconds, jobs, lo, hi, total, o->shard, o->shards, true);
  if (all && !code) {
    if (!o->json) {
      fprintf(cli_human(), "matrix: cases %" PRIu64 "..%" PRIu64 " of %" PRIu64 " (shard %" PRIu64
             "/%" PRIu64 ")\n",
             lo, hi, total, o->shard, o->shards);
      print_summary(&o->spec, all, seconds, jobs);
    }
    if (o->csv)
      code = write_csv(o, workers, jobs);
    if (o->junit && !code)
      code = write_junit(o->junit, all, seconds, NULL, &o->spec);
    if (!code && all->failures)
      code = EXIT_LOWERING_ERROR;
  }
  for (int j = 0; j < jobs; j++)
    if (workers[j].csv)
      fclose(workers[j].csv);
  free(all);
  free(workers);
  free(threads);
  free(owner);
  return code;
}

/* --- --merge -------------------------------------------------------------------------- */

/* A shard: where it is and where its metadata puts it.  Shards are read one
 * at a time (their metadata first, then each in shard order), so a merge
 * holds one open at most, whatever their number (2,000 shards under
 * `ulimit -n 1024` failed when every one was kept open). */
typedef struct shard_file {
  const char *path;
  FILE *stdin_copy; /* "-": standard input, copied; kept for the second read */
  uint64_t shard, first, end;
} shard_file;

static int compare_shards(const void *a, const void *b) {
  const shard_file *x = a, *y = b;
  return (x->shard > y->shard) - (x->shard < y->shard);
}

/* Refuses the shards: the reason on standard error, or kept for --json's
 * "error" (the same text). */
static int refuse(options *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(options *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(o->refusal, sizeof o->refusal, fmt, ap);
  va_end(ap);
  if (!o->json)
    fprintf(stderr, "%s\n", o->refusal);
  return EXIT_INVALID_INPUT;
}

/* --json's object for a refused merge: the profile and the error. */
static void print_refusal_json(const options *o) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_error_set(&err, LSIM_E_INVALID_INPUT, "%s", o->refusal);
  cli_json j;
  cli_json_begin(&j, stdout, "matrix");
  cli_json_profile(&j, "jax", o->spec.profile);
  cli_json_error(&j, "error", &err);
  cli_json_end(&j);
  lsim_error_clear(&err);
}

/* Standard input copied into a temporary file (read like the others). */
static FILE *copy_stdin(void) {
  FILE *f = tmpfile();
  char buf[1 << 16];
  size_t n;
  while (f && (n = fread(buf, 1, sizeof buf, stdin)) > 0)
    if (fwrite(buf, 1, n, f) != n) {
      fclose(f);
      return NULL;
    }
  if (f && (ferror(stdin) || fflush(f) != 0 || fseek(f, 0, SEEK_SET) != 0)) {
    fclose(f);
    return NULL;
  }
  return f;
}

/* Opens shard `s` and reads its metadata: its reader (*r, owning nothing
 * but itself) and file (*f: closed by close_shard), or a refusal. */
static int open_shard(options *o, shard_file *s, matrix_csv_reader **r, FILE **f) {
  *r = NULL;
  *f = s->stdin_copy;
  if (*f && fseek(*f, 0, SEEK_SET) != 0)
    return refuse(o, "lowersim matrix: cannot read %s: %s", s->path, strerror(errno));
  if (!*f) { /* a FIFO or a device is refused, never waited on */
    lsim_error err = LSIM_ERROR_INIT;
    int rc = lsim_scenario_open_read(s->path, f, &err);
    int code = rc ? refuse(o, "lowersim matrix: cannot read %s", lsim_error_message(&err)) : 0;
    lsim_error_clear(&err);
    if (code)
      return code;
  }
  if (!(*r = matrix_csv_reader_create(s->path, *f)))
    return cli_usage_error("matrix", "out of memory");
  if (matrix_csv_begin(*r))
    return refuse(o, "%s", matrix_csv_error(*r));
  return 0;
}

static void close_shard(shard_file *s, matrix_csv_reader *r, FILE *f) {
  matrix_csv_reader_destroy(r);
  if (f && f != s->stdin_copy)
    fclose(f);
}

/* The shards' metadata ("-" once: standard input), each shard opened and
 * closed in turn: the first input's reader is kept in *first (its metadata
 * is the run's), the others' compared with it; the first that is not of its
 * run is told in *differ (its index, or -1) with the field and values. */
typedef struct shard_differ {
  int at;
  const char *key;
  char va[1100], vb[1100];
} shard_differ;

static int read_shard_metadata(options *o, shard_file *files, matrix_csv_reader **first,
                               shard_differ *differ) {
  int code = 0, stdin_uses = 0;
  differ->at = -1;
  for (int i = 0; !code && i < o->num_inputs; i++) {
    files[i].path = o->inputs[i];
    if (strcmp(files[i].path, "-") == 0) {
      if (++stdin_uses > 1)
        return refuse(o, "lowersim matrix: standard input can be read once");
      if (!(files[i].stdin_copy = copy_stdin()))
        return refuse(o, "lowersim matrix: cannot read %s: %s", files[i].path, strerror(errno));
    }
    matrix_csv_reader *r;
    FILE *f;
    code = open_shard(o, &files[i], &r, &f);
    const matrix_csv_meta *m = code ? NULL : matrix_csv_metadata(r);
    if (m) {
      files[i].shard = m->shard;
      files[i].first = m->first;
      files[i].end = m->end;
    }
    if (m && i > 0 && differ->at < 0 &&
        (differ->key = matrix_csv_meta_differ(matrix_csv_metadata(*first), m, differ->va,
                                              differ->vb, sizeof differ->va)))
      differ->at = i;
    if (m && i == 0) { /* kept: its metadata is the run's */
      *first = r;
      r = NULL;
    }
    close_shard(&files[i], r, f);
  }
  return code;
}

/* The shards must be every shard of one run, each once: the same identity
 * (lowersim, jax, platforms, max-len, features, limit, N), shards 0..N-1,
 * none cut short by --limit unless it is the only one.  They come out
 * ordered by shard. */
static int check_shard_set(options *o, shard_file *files, const matrix_csv_meta *m0,
                           const shard_differ *d) {
  int n = o->num_inputs;
  if (o->spec.profile && lsim_jax_profile_or_default(o->spec.profile) != m0->spec.profile)
    return refuse(o, "lowersim matrix: %s:1: the shard models jax %s, not --jax %s",
                  files[0].path, m0->spec.profile->name,
                  lsim_jax_profile_or_default(o->spec.profile)->name);
  if (d->at >= 0)
    return refuse(o, "%s:1: not a shard of the run of %s: %s=%s here, %s=%s there",
                  files[d->at].path, files[0].path, d->key, d->vb, d->key, d->va);
  qsort(files, (size_t)n, sizeof *files, compare_shards);
  uint64_t shards = m0->shards;
  for (int i = 1; i < n; i++)
    if (files[i].shard == files[i - 1].shard)
      return refuse(o, "%s:1: shard %" PRIu64 "/%" PRIu64 " again (%s is that shard too)",
                    files[i].path, files[i].shard, shards, files[i - 1].path);
  if ((uint64_t)n < shards) { /* distinct and below N: some are missing */
    char missing[256];
    size_t k = 0, listed = 0;
    uint64_t absent = shards - (uint64_t)n;
    for (uint64_t s = 0, i = 0; s < shards && listed < 6; s++) {
      if (i < (uint64_t)n && files[i].shard == s) {
        i++;
        continue;
      }
      k += (size_t)snprintf(missing + k, sizeof missing - k, "%s%" PRIu64 "/%" PRIu64,
                            listed ? ", " : "", s, shards);
      listed++;
    }
    if (absent > listed)
      snprintf(missing + k, sizeof missing - k, " and %" PRIu64 " more", absent - listed);
    return refuse(o,
                  "lowersim matrix: an incomplete shard set: %d of %" PRIu64 " shards of the "
                  "run of %s (missing %s); --merge joins every shard of one run",
                  n, shards, files[0].path, missing);
  }
  for (int i = 0; shards > 1 && i < n; i++) {
    uint64_t lo, hi;
    matrix_shard_range(m0->spec.total, files[i].shard, shards, 0, &lo, &hi);
    if (files[i].end != hi)
      return refuse(o,
                    "%s:1: shard %" PRIu64 "/%" PRIu64 " was cut short by limit=%" PRIu64
                    " (cases %" PRIu64 "..%" PRIu64 " of its %" PRIu64 "..%" PRIu64
                    "): only whole shards merge, or a single --shard 0/1 run",
                    files[i].path, files[i].shard, shards, m0->limit, files[i].first,
                    files[i].end, lo, hi);
  }
  return 0;
}

/* Every row of every shard, in order, into `st` (and the merged CSV). */
static int read_shards(options *o, shard_file *files, const matrix_csv_meta *m0, stats *st,
                       FILE *csv) {
  char va[1100], vb[1100];
  for (int i = 0; i < o->num_inputs; i++) {
    matrix_csv_reader *r;
    FILE *f;
    int code = open_shard(o, &files[i], &r, &f);
    const matrix_csv_meta *m = code ? NULL : matrix_csv_metadata(r);
    if (m && (m->shard != files[i].shard || matrix_csv_meta_differ(m0, m, va, vb, sizeof va)))
      code = refuse(o, "%s:1: changed while lowersim merged it", files[i].path);
    matrix_row row;
    int rc = 0;
    while (!code && (rc = matrix_csv_next(r, &row)) > 0) {
      record(st, &m0->spec, &row.c, &row.o);
      if (csv)
        matrix_csv_write_row(csv, &row.c, &row.o);
    }
    if (!code && rc < 0)
      code = refuse(o, "%s", matrix_csv_error(r));
    close_shard(&files[i], r, f);
    if (code)
      return code;
  }
  return 0;
}

static int merge(options *o) {
  stats *st = lsim_calloc(1, sizeof *st);
  shard_file *files = lsim_calloc((size_t)o->num_inputs, sizeof *files);
  cli_inputs inputs = {0};
  int code = st && files ? 0 : cli_usage_error("matrix", "out of memory");
  for (int i = 0; !code && i < o->num_inputs; i++)
    if (!cli_inputs_add(&inputs, o->inputs[i]))
      code = cli_usage_error("matrix", "out of memory");
  matrix_csv_reader *first_reader = NULL;
  shard_differ *differ = lsim_malloc(sizeof *differ);
  if (!code && !differ)
    code = cli_usage_error("matrix", "out of memory");
  if (!code)
    code = read_shard_metadata(o, files, &first_reader, differ);
  if (!code)
    code = check_shard_set(o, files, matrix_csv_metadata(first_reader), differ);
  free(differ);
  const matrix_csv_meta *m0 = code ? NULL : matrix_csv_metadata(first_reader);
  cli_output *csv = NULL;
  if (!code && o->csv && !(csv = cli_output_open("matrix", o->csv, &inputs)))
    code = EXIT_INVALID_INPUT;
  if (csv) {
    /* the whole run's metadata: one shard, cut only when it was the only one */
    matrix_csv_meta whole;
    matrix_csv_meta_init(&whole, &m0->spec, 0, 1, m0->shards == 1 ? m0->limit : 0);
    matrix_csv_write_meta(cli_output_stream(csv), &whole);
    if (ferror(cli_output_stream(csv)))
      code = cli_usage_error("matrix", "cannot write %s", o->csv);
  }
  if (!code)
    code = read_shards(o, files, m0, st, csv ? cli_output_stream(csv) : NULL);
  uint64_t first = m0 ? files[0].first : 0, end = m0 ? first + st->cases : 0; /* shard 0's */
  if (!code && o->json) {
    print_json(&m0->spec, st, -1, 1, first, end, m0->spec.total, 0, m0->shards, false);
  } else if (!code) {
    fprintf(cli_human(), "matrix: merged %d of %" PRIu64 " shards (jax %s), cases %" PRIu64 "..%" PRIu64
           " of %" PRIu64 "\n",
           o->num_inputs, m0->shards, m0->spec.profile->name, first, end, m0->spec.total);
    print_summary(&m0->spec, st, -1, 1);
  }
  if (csv && !code)
    code = cli_output_commit(csv);
  else
    cli_output_abort(csv);
  if (!code && o->junit)
    code = write_junit(o->junit, st, -1, &inputs, &m0->spec);
  if (!code && st->failures)
    code = EXIT_LOWERING_ERROR;
  if (code == EXIT_INVALID_INPUT && o->json && o->refusal[0])
    print_refusal_json(o);
  matrix_csv_reader_destroy(first_reader);
  for (int i = 0; files && i < o->num_inputs; i++)
    if (files[i].stdin_copy)
      fclose(files[i].stdin_copy);
  cli_inputs_free(&inputs);
  free(st);
  free(files);
  return code;
}

/* --case N [--scenario OUT.xml]: the case's line (its CSV row's fields),
 * and the scenario that reproduces it, checked by lowering it: written only
 * when its outcome is the case's, else the difference is said (exit 1). */
static int run_one_case(const options *o) {
  matrix_case c;
  matrix_decode(&o->spec, o->the_case, &c);
  matrix_worker *w = matrix_worker_create();
  if (!w)
    return cli_usage_error("matrix", "out of memory");
  matrix_outcome out = matrix_run_case(w, &c);
  matrix_worker_destroy(w);
  char variant[MATRIX_VARIANT_NAME_MAX];
  matrix_variant_name(c.feature, c.variant, variant, sizeof variant);
  FILE *human = cli_human();
  fprintf(human, "case %" PRIu64 ": %s for (", c.index, variant);
  for (int i = 0; i < c.tuple_len; i++)
    fprintf(human, "%s%s", i ? ", " : "", c.tuple[i]);
  fprintf(human, ")%s%s: %s", c.pin >= 0 ? ", pinned to " : "", c.pin >= 0 ? matrix_backends[c.pin] : "",
         out.code ? lsim_status_name(out.code) : "OK");
  if (!out.code)
    fprintf(human, ", module %016" PRIx64, out.hash);
  fputc('\n', human);
  if (!o->scenario)
    return out.failure ? EXIT_LOWERING_ERROR : 0;
  /* The scenario, read back and lowered as the case's JAX. */
  char *text = NULL;
  size_t size = 0;
  FILE *mem = open_memstream(&text, &size);
  bool written = mem && matrix_write_scenario(&c, mem);
  if (mem)
    fclose(mem);
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  lsim_lowerer *lowerer = NULL;
  lsim_scenario_outcome so = {0};
  int rc = written ? lsim_scenario_read_memory(text, size, o->scenario, &s, &err) : LSIM_E_NO_MEMORY;
  if (!rc)
    rc = lsim_lowerer_create(&lowerer, &err);
  int got = rc;
  if (!rc) {
    lsim_scenario_run_options ro = LSIM_SCENARIO_RUN_OPTIONS_INIT(.profile = c.profile);
    got = lsim_scenario_run(lowerer, s, &ro, &so, &err);
  }
  bool ok = true;
  uint64_t hash = got || !so.lowering ? 0 : matrix_hash_lowering(so.lowering, &ok);
  int code = 0;
  if (rc) {
    fprintf(stderr, "lowersim matrix: the case's scenario does not read back: %s\n",
            lsim_error_message(&err));
    code = EXIT_LOWERING_ERROR;
  } else if (!ok) {
    fputs("lowersim matrix: out of memory\n", stderr);
    code = EXIT_LOWERING_ERROR;
  } else if (got != out.code || hash != out.hash) {
    fprintf(stderr,
            "lowersim matrix: the scenario lowers to %s where the case gives %s; not written%s\n",
            got ? lsim_status_name(got) : "a module", out.code ? lsim_status_name(out.code)
                                                                : got ? "a module" : "another module",
            c.runtime & (1u << 3) ? ""
                                  : " (the case's runtime has no tpu factory, where a JAX process "
                                    "always has one, failing quietly without libtpu)");
    code = EXIT_LOWERING_ERROR;
  } else {
    cli_output *f = cli_output_open("matrix", o->scenario, NULL);
    if (!f) {
      code = EXIT_INVALID_INPUT;
    } else if (fwrite(text, 1, size, cli_output_stream(f)) != size) {
      cli_output_abort(f);
      code = EXIT_INVALID_INPUT;
    } else {
      code = cli_output_commit(f);
    }
    if (!code)
      fprintf(human, "wrote %s: `lowersim lower %s` reproduces the case\n", o->scenario, o->scenario);
  }
  lsim_scenario_outcome_clear(&so);
  lsim_lowerer_destroy(lowerer);
  lsim_scenario_destroy(s);
  lsim_error_clear(&err);
  free(text);
  return code;
}

int cmd_matrix(int argc, char **argv) {
  if (lsim_status_count() + 2 > NUM_CODES) {
    fprintf(stderr, "lowersim matrix: the error catalogue (%zu codes) outgrew the matrix's %d "
            "slots (cli/cmd_matrix.c NUM_CODES)\n", lsim_status_count(), NUM_CODES);
    return EXIT_LOWERING_ERROR;
  }
  multi_kinds_init();
  options o = {0};
  int code = parse_options(argc, argv, &o);
  if (code == 0)
    code = o.merge ? merge(&o) : o.the_case != UINT64_MAX ? run_one_case(&o) : run_matrix(&o);
  free(o.platforms);
  free(o.features);
  return code < 0 ? 0 : code;
}
