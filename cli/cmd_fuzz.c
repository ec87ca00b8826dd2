/* cli/cmd_fuzz.c: `lowersim fuzz [--seed S] [--iterations N] [--out DIR] [--isolate]`:
 * random scenarios (fuzz/generate.c) checked against lowersim's invariants
 * (fuzz/check.c); each finding is minimized and written to DIR as a
 * scenario file that `lowersim lower` reproduces.  `--emit DIR` only writes
 * the generated scenarios (for another judge, e.g. the oracle). */
#define _DEFAULT_SOURCE /* mkdtemp */
#include "cli.h"
#include "lowersim/alloc.h"
#include "lowersim/scenario_kind.h"
#include "fuzz/fuzz.h"
#include "fuzz_files.h"
#include "options.h"
#include "output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_ITERATIONS 1000
#define DEFAULT_OUT "fuzz-findings"
#define CURRENT_FILE "in-progress.xml"
#define MAX_PER_KIND 2      /* findings of one kind minimized and written */
#define KIND_TEXT 112       /* bytes of a finding's kind (its signature) */
#define MINIMIZE_CHECKS 600 /* checks one minimization may make */
#define CODE_SLOTS 128      /* statuses 0 to -126; the last slot counts any other */

typedef struct options {
  uint64_t seed;
  uint64_t iterations;
  const char *out;
  const char *emit; /* write the scenarios to this folder, check nothing */
  bool isolate;     /* each check in a child process */
  const lsim_jax_profile *jax; /* --jax: every scenario pins it; NULL: none pinned */
  const char *focus; /* --focus ELEMENT: mostly equations of that kind */
} options;

typedef struct campaign {
  options opt;
  lsim_fuzz_checker *checker;
  char *current_path; /* DIR/in-progress.xml: the scenario being checked */
  bool made_dir;
  uint64_t findings;
  size_t written;
  size_t outcomes[CODE_SLOTS];                            /* per status */
  size_t crashes;                                         /* isolated checks that crashed */
  struct kind {
    char text[KIND_TEXT];
    size_t count;
  } *kinds; /* the kinds of findings seen, and how many of each */
  size_t num_kinds, cap_kinds;
  char scratch[4096]; /* the output and folder cases' folder ("" until made) */
} campaign;

static void usage(void) {
  printf("usage: lowersim fuzz [--seed S] [--iterations N] [--focus ELEMENT] [--out DIR]\n"
         "                     [--isolate] [--jax V]\n"
         "       lowersim fuzz [--seed S] [--iterations N] [--focus ELEMENT] [--jax V] --emit DIR\n\n"
         "Generates N random scenarios from seed S (default 1, %d iterations) and checks\n"
         "that every lowering fails with a catalogued code (never LSIM_E_VERIFY) or gives\n"
         "a module that verifies and re-parses unchanged, that lowering twice gives the\n"
         "same outcome, and that a scenario written and read back lowers the same way.\n"
         "Each finding is minimized and written to DIR (default %s/) as a scenario\n"
         "file that `lowersim lower` reproduces, with a comment saying what failed.\n"
         "While it runs, DIR/%s holds the scenario being checked: it stays\n"
         "behind only if lowersim crashed on it.  With --isolate each check runs in a\n"
         "child process, so a crash (or a sanitizer report, or a check hanging for a\n"
         "minute) is a finding like the others, minimized and written to DIR.\n\n"
         "Besides the generator's scenarios, some iterations check a scenario of a large\n"
         "shape (16 to 1024 distinct platforms, branches or aliases), the scenario's text\n"
         "with junk attributes on one element (the reader must refuse it with one\n"
         "`NAME:LINE:` line, or read it), the scenario written with -o's output path to a\n"
         "random kind of target (a new or old file, links, a long name, a folder, the\n"
         "input), or a random folder tree walked as `check` walks it (loops, FIFOs,\n"
         "dangling and duplicate links), each against what must hold.\n\n"
         "Last line: `fuzz: N iterations, M findings, R iterations/s`.\n"
         "--focus ELEMENT (e.g. pallas_call) makes most equations of that kind and the\n"
         "runtime a cpu with up to three accelerators that come up, so that the\n"
         "scenarios reach that kind's lowering.\n"
         "--emit DIR writes the N scenarios to DIR/fuzz-S-I.xml (I from 0), those of a\n"
         "large shape too, each the one iteration I checks, without lowering or\n"
         "checking them; last line `fuzz: N scenarios written to DIR`.\n"
         "--jax V: every scenario pins JAX version V (<scenario jax=\"V\">); without it\n"
         "none pins one, so each is lowered for the newest.\n"
         "Exit codes: 0 no finding, 1 findings, 2 invalid arguments or output folder.\n",
         DEFAULT_ITERATIONS, DEFAULT_OUT, CURRENT_FILE);
}

/* Returns -1 to go on, else the exit code. */
static int parse_options(int argc, char **argv, options *o) {
  *o = (options){1, DEFAULT_ITERATIONS, DEFAULT_OUT, NULL, false, NULL, NULL};
  const char *jax = NULL;
  const cli_option table[] = {
      CLI_OPT_U64("seed", 0, &o->seed, 0, UINT64_MAX, CLI_HELP("S", "the seed (default 1)")),
      CLI_OPT_U64("iterations", 0, &o->iterations, 0, UINT64_MAX,
                  CLI_HELP("N", "how many scenarios")),
      CLI_OPT_STRING("out", 0, &o->out, CLI_HELP("DIR", "where findings are written")),
      CLI_OPT_STRING("emit", 0, &o->emit,
                     CLI_HELP("DIR", "write the scenarios there instead of checking them")),
      CLI_OPT_FLAG("isolate", 0, &o->isolate,
                   CLI_HELP(NULL, "each check in a child process")),
      CLI_OPT_CHOICE("jax", 0, &jax, cli_jax_values,
                     CLI_HELP("V", "every scenario pins JAX version V")),
      CLI_OPT_CHOICE("focus", 0, &o->focus, cli_element_values,
                     CLI_HELP("ELEMENT", "mostly equations of that kind")),
  };
  int code = cli_parse_options("fuzz", argc, argv, table, sizeof table / sizeof table[0], usage);
  if (code)
    return code < 0 ? 0 : code;
  if (jax && (code = cli_parse_jax("fuzz", "--jax", jax, &o->jax)))
    return code;
  if (o->focus && !lsim_scenario_kind_find(o->focus))
    return cli_value_error("fuzz", "--focus", "needs an equation element (see lowersim lower "
                           "--help)", o->focus, cli_element_values);
  if (!*o->out || (o->emit && !*o->emit))
    return cli_usage_error("fuzz", "%s needs a folder name", *o->out ? "--emit" : "--out");
  return -1;
}

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static size_t slot(int code) {
  return code <= 0 && code > 1 - CODE_SLOTS ? (size_t)-code : CODE_SLOTS - 1;
}

/* --- The output folder ------------------------------------------------------ */

static char *path_in(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *path = lsim_malloc(n);
  if (path)
    snprintf(path, n, "%s/%s", dir, name);
  return path;
}

static int open_output(campaign *c) {
  if (mkdir(c->opt.out, 0777) == 0)
    c->made_dir = true;
  else if (errno != EEXIST)
    return cli_usage_error("fuzz", "cannot create '%s': %s", c->opt.out, strerror(errno));
  c->current_path = path_in(c->opt.out, CURRENT_FILE);
  if (!c->current_path)
    return cli_usage_error("fuzz", "out of memory");
  return 0;
}

/* Removes the in-progress file, and the folder if this run made it and
 * wrote no finding. */
static void close_output(campaign *c) {
  if (c->current_path)
    remove(c->current_path);
  free(c->current_path);
  if (c->made_dir && !c->written)
    rmdir(c->opt.out);
}

/* Writes `text` with `comment` to `path` through cli/output.c. */
static int write_commented(const char *path, const char *text, size_t size, const char *comment,
                           lsim_error *err) {
  cli_output *out = cli_output_open("fuzz", path, NULL);
  if (!out)
    return LSIM_E_IO;
  int rc = lsim_fuzz_write_commented(cli_output_stream(out), text, size, comment, err);
  if (rc) {
    cli_output_abort(out);
    return rc;
  }
  return cli_output_commit(out) ? LSIM_E_IO : LSIM_OK;
}

/* Puts `s` into the in-progress file before it is checked. */
static int save_current(campaign *c, const lsim_scenario *s, uint64_t i, lsim_error *err) {
  char *text, comment[256];
  size_t size;
  int rc = lsim_fuzz_scenario_text(s, &text, &size, err);
  if (rc)
    return rc;
  snprintf(comment, sizeof comment,
           "lowersim fuzz, seed %" PRIu64 ", iteration %" PRIu64 ": being checked. This file "
           "stays behind only if lowersim crashed on it: `lowersim lower` reproduces it.",
           c->opt.seed, i);
  rc = write_commented(c->current_path, text, size, comment, err);
  free(text);
  return rc;
}

/* --- Findings ---------------------------------------------------------------- */

static int write_finding(campaign *c, const lsim_scenario *s, const lsim_fuzz_result *r, uint64_t i,
                         size_t from_eqns, lsim_error *err) {
  char name[128], note[256];
  snprintf(name, sizeof name, "%s-%" PRIu64 "-%" PRIu64 ".xml", lsim_fuzz_invariant_name(r->failed),
           c->opt.seed, i);
  snprintf(note, sizeof note,
           "Found by lowersim fuzz with seed %" PRIu64 " (iteration %" PRIu64
           "), minimized from %zu to %zu equations.",
           c->opt.seed, i, from_eqns, s->num_eqns);
  char *path = path_in(c->opt.out, name);
  cli_output *out = path ? cli_output_open("fuzz", path, NULL) : NULL;
  int rc = out ? lsim_fuzz_write_finding(cli_output_stream(out), s, r, note, err) : LSIM_E_IO;
  if (out && rc)
    cli_output_abort(out);
  else if (out && cli_output_commit(out))
    rc = LSIM_E_IO;
  if (!rc)
    fprintf(stderr, "fuzz:   minimized to %s (%zu equations)\n", path, s->num_eqns);
  c->written += !rc;
  free(path);
  return rc == LSIM_E_NO_MEMORY ? rc : LSIM_OK;
}

/* What tells findings apart: the invariant, the status and the start of
 * the detail, without numbers, up to a quoted excerpt. */
static void kind_of(const lsim_fuzz_result *r, char *out, size_t size) {
  int n = snprintf(out, size, "%s %d: ", lsim_fuzz_invariant_name(r->failed), r->code);
  size_t k = n > 0 && (size_t)n < size ? (size_t)n : 0;
  for (const char *p = r->detail ? r->detail : ""; *p && !strchr("\"'(", *p) && k + 1 < size; p++)
    if (*p < '0' || *p > '9')
      out[k++] = *p;
  out[k] = '\0';
}

/* How many findings of the kind `text` were seen before this one; SIZE_MAX
 * when out of memory.  A linear scan: a campaign has few kinds (each a
 * distinct invariant and outcome), and the command's layer has no hash
 * table of its own (support/ is the library's). */
static size_t count_kind_text(campaign *c, const char *text) {
  for (size_t i = 0; i < c->num_kinds; i++)
    if (strcmp(c->kinds[i].text, text) == 0)
      return c->kinds[i].count++;
  if (!lsim_grow_array(&c->kinds, &c->cap_kinds, c->num_kinds + 1, sizeof *c->kinds))
    return SIZE_MAX;
  snprintf(c->kinds[c->num_kinds].text, KIND_TEXT, "%s", text);
  c->kinds[c->num_kinds++].count = 1;
  return 0;
}

/* Counts a finding of the kind `key`: true for the first few of a kind,
 * which are then said (`what: detail`) and written; *rc is
 * LSIM_E_NO_MEMORY when the kinds cannot be counted. */
static bool first_of_kind(campaign *c, const char *key, const char *what, const char *detail,
                          uint64_t i, int *rc) {
  c->findings++;
  size_t seen = count_kind_text(c, key);
  *rc = LSIM_OK;
  if (seen == SIZE_MAX) {
    fprintf(stderr, "lowersim fuzz: out of memory\n");
    *rc = LSIM_E_NO_MEMORY;
  }
  if (seen >= MAX_PER_KIND)
    return false;
  fprintf(stderr, "fuzz: finding at iteration %" PRIu64 ": %s: %s\n", i, what, detail);
  return true;
}

static int handle_finding(campaign *c, const lsim_scenario *s, lsim_fuzz_result *r, uint64_t i,
                          lsim_error *err) {
  char key[KIND_TEXT];
  kind_of(r, key, sizeof key);
  int rc;
  if (!first_of_kind(c, key, lsim_fuzz_invariant_name(r->failed), r->detail ? r->detail : "", i,
                     &rc))
    return rc;
  lsim_scenario *min = NULL;
  rc = lsim_fuzz_minimize(c->checker, s, MINIMIZE_CHECKS, r, &min, err);
  if (!rc)
    rc = write_finding(c, min, r, i, s->num_eqns, err);
  lsim_scenario_destroy(min);
  return rc;
}

/* --- The campaign ------------------------------------------------------------ */

/* A finding that is not a scenario (a refused text, an output or folder
 * case): reported (the first few of a kind) and counted; `text`, when
 * given, is written to DIR/KIND-SEED-I.xml as it is. */
static int other_finding(campaign *c, const char *kind, const char *detail, const char *text,
                         size_t size, uint64_t i) {
  char key[KIND_TEXT];
  snprintf(key, sizeof key, "%s: %.80s", kind, detail);
  for (char *p = key; *p; p++)
    if (*p >= '0' && *p <= '9')
      *p = '#';
  int rc;
  if (!first_of_kind(c, key, kind, detail, i, &rc))
    return rc;
  char name[128];
  snprintf(name, sizeof name, "%s-%" PRIu64 "-%" PRIu64 ".xml", kind, c->opt.seed, i);
  char *path = text ? path_in(c->opt.out, name) : NULL;
  if (path && cli_write_file("fuzz", path, text, size, NULL) == 0) {
    fprintf(stderr, "fuzz:   written to %s\n", path);
    c->written++;
  }
  free(path);
  return LSIM_OK;
}

/* The scratch folder of the output and folder cases, made on first use. */
static const char *scratch(campaign *c) {
  if (!c->scratch[0]) {
    const char *base = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(c->scratch, sizeof c->scratch, "%s/lowersim-fuzz-XXXXXX", base);
    if (!mkdtemp(c->scratch))
      c->scratch[0] = '\0';
  }
  return c->scratch[0] ? c->scratch : NULL;
}

/* What an iteration does besides checking its scenario (percent). */
enum { LARGE = 3, ATTRIBUTES = 6, OUTPUT = 9, FOLDER = 11 };

/* The hostile text of `s` (junk attributes on one element), checked
 * through the reader. */
static int check_attributes(campaign *c, lsim_fuzz_rng *rng, const lsim_scenario *s, uint64_t i,
                            lsim_error *err) {
  char *text = NULL, *hostile = NULL;
  size_t size, hostile_size;
  int rc = lsim_fuzz_scenario_text(s, &text, &size, err);
  if (!rc)
    rc = lsim_fuzz_add_attributes(rng, text, size, &hostile, &hostile_size, err);
  lsim_fuzz_result r = {0};
  if (!rc)
    rc = lsim_fuzz_check_text(c->checker, s->path, hostile, hostile_size, &r, err);
  if (!rc && r.failed)
    rc = other_finding(c, lsim_fuzz_invariant_name(r.failed), r.detail ? r.detail : "", hostile,
                       hostile_size, i);
  lsim_fuzz_result_clear(&r);
  free(text);
  free(hostile);
  return rc;
}

/* An output or folder case with the scenario's text. */
static int check_files(campaign *c, lsim_fuzz_rng *rng, const lsim_scenario *s, bool output,
                       uint64_t i, lsim_error *err) {
  const char *dir = scratch(c);
  char *text = NULL, detail[512];
  size_t size;
  int rc = dir ? lsim_fuzz_scenario_text(s, &text, &size, err) : LSIM_OK;
  if (!dir || rc) {
    if (!dir)
      fprintf(stderr, "lowersim fuzz: cannot make a scratch folder: %s\n", strerror(errno));
    return dir ? rc : LSIM_E_IO;
  }
  int verdict = output ? cli_fuzz_output_case(rng, dir, text, size, detail, sizeof detail)
                       : cli_fuzz_folder_case(rng, dir, text, size, detail, sizeof detail);
  free(text);
  if (verdict == 2) {
    fprintf(stderr, "lowersim fuzz: %s\n", detail);
    return LSIM_E_IO;
  }
  return verdict ? other_finding(c, output ? "output" : "folder", detail, NULL, 0, i) : LSIM_OK;
}

/* The iteration's scenario: the generator's, or (when `large`) one of a
 * large shape; pinned to --jax's version when given. */
static int generate(const options *o, lsim_fuzz_rng *rng, bool large, const char *name,
                    lsim_scenario **s, lsim_error *err) {
  int rc;
  if (large) {
    char *text = NULL;
    size_t size;
    rc = lsim_fuzz_generate_large(rng, name, &text, &size, err);
    if (!rc)
      rc = lsim_scenario_read_memory(text, size, name, s, err);
    free(text);
  } else {
    rc = lsim_fuzz_generate_focused(rng, name, o->focus, s, err);
  }
  if (!rc && o->jax && !(*s)->jax && !((*s)->jax = lsim_strdup(o->jax->name))) {
    lsim_scenario_destroy(*s);
    *s = NULL;
    rc = lsim_error_set(err, LSIM_E_NO_MEMORY, "out of memory");
  }
  return rc;
}

/* What iteration i does beside the generator's scenario (below LARGE: a
 * scenario of a large shape instead), drawn from its own stream `extra`. */
static uint64_t hostile_draw(const options *o, uint64_t i, lsim_fuzz_rng *extra) {
  lsim_fuzz_rng_seed(extra, o->seed ^ 0x686f7374696c65ull, i); /* "hostile" */
  return lsim_fuzz_rng_below(extra, 100);
}

static int iterate(campaign *c, uint64_t i, lsim_error *err) {
  lsim_fuzz_rng rng, extra;
  lsim_fuzz_rng_seed(&rng, c->opt.seed, i);
  uint64_t what = hostile_draw(&c->opt, i, &extra);
  char name[64];
  snprintf(name, sizeof name, "fuzz-%" PRIu64 "-%" PRIu64, c->opt.seed, i);
  lsim_scenario *s = NULL;
  lsim_fuzz_result r = {0};
  int rc = generate(&c->opt, &rng, what < LARGE, name, &s, err);
  if (!rc)
    rc = save_current(c, s, i, err);
  if (!rc)
    rc = lsim_fuzz_check(c->checker, s, &r, err);
  if (!rc) {
    if (r.failed == LSIM_FUZZ_CRASH)
      c->crashes++;
    else
      c->outcomes[slot(r.code)]++;
    if (r.failed)
      rc = handle_finding(c, s, &r, i, err);
  }
  if (!rc && what >= LARGE && what < ATTRIBUTES)
    rc = check_attributes(c, &extra, s, i, err);
  else if (!rc && what >= ATTRIBUTES && what < FOLDER)
    rc = check_files(c, &extra, s, what < OUTPUT, i, err);
  lsim_fuzz_result_clear(&r);
  lsim_scenario_destroy(s);
  return rc;
}

static void print_outcomes(const campaign *c) {
  fprintf(stderr, "fuzz: outcomes: %zu modules", c->outcomes[0]);
  if (c->crashes)
    fprintf(stderr, ", %zu crashes", c->crashes);
  for (size_t k = 1; k < CODE_SLOTS; k++) {
    const char *name = lsim_status_name(-(int)k);
    if (c->outcomes[k])
      fprintf(stderr, ", %zu %s", c->outcomes[k], name ? name : "(unnamed)");
  }
  fprintf(stderr, "\n");
}

static int run_campaign(campaign *c, lsim_error *err) {
  double start = seconds_now();
  uint64_t n = c->opt.iterations, step = n >= 10 ? n / 10 : 1, i = 0;
  int rc = LSIM_OK;
  for (; i < n && !rc; i++) {
    rc = iterate(c, i, err);
    if ((i + 1) % step == 0 && i + 1 < n)
      fprintf(stderr, "fuzz: %" PRIu64 "/%" PRIu64 " iterations, %" PRIu64 " findings\n", i + 1, n,
              c->findings);
  }
  double elapsed = seconds_now() - start;
  print_outcomes(c);
  for (size_t k = 0; k < c->num_kinds; k++)
    fprintf(stderr, "fuzz: %zu x %s\n", c->kinds[k].count, c->kinds[k].text);
  if (c->written)
    fprintf(stderr, "fuzz: %zu minimized findings in %s/\n", c->written, c->opt.out);
  printf("fuzz: %" PRIu64 " iterations, %" PRIu64 " findings, %.0f iterations/s\n", i, c->findings,
         elapsed > 0 ? (double)i / elapsed : 0.0);
  return rc;
}

/* --emit DIR: the scenarios of iterations 0..N-1, written, not checked. */
static int emit_scenarios(const options *o) {
  if (mkdir(o->emit, 0777) != 0 && errno != EEXIST)
    return cli_usage_error("fuzz", "cannot create '%s': %s", o->emit, strerror(errno));
  lsim_error err = LSIM_ERROR_INIT;
  int code = 0;
  uint64_t i = 0;
  for (; i < o->iterations && !code; i++) {
    lsim_fuzz_rng rng, extra;
    lsim_fuzz_rng_seed(&rng, o->seed, i);
    bool large = hostile_draw(o, i, &extra) < LARGE; /* the scenario iteration i checks */
    char name[64], file[80];
    snprintf(name, sizeof name, "fuzz-%" PRIu64 "-%" PRIu64, o->seed, i);
    snprintf(file, sizeof file, "%s.xml", name);
    lsim_scenario *s = NULL;
    char *text = NULL, *path = NULL;
    size_t size;
    int rc = generate(o, &rng, large, name, &s, &err);
    if (!rc)
      rc = lsim_fuzz_scenario_text(s, &text, &size, &err);
    if (!rc && !(path = path_in(o->emit, file))) {
      fprintf(stderr, "lowersim fuzz: out of memory\n");
      code = EXIT_INVALID_INPUT;
    }
    if (!rc && !code)
      code = cli_write_file("fuzz", path, text, size, NULL);
    if (rc && !code)
      code = cli_report(&err);
    free(path);
    free(text);
    lsim_scenario_destroy(s);
  }
  lsim_error_clear(&err);
  if (!code)
    printf("fuzz: %" PRIu64 " scenarios written to %s\n", i, o->emit);
  return code;
}

int cmd_fuzz(int argc, char **argv) {
  campaign *c = lsim_calloc(1, sizeof *c);
  if (!c) {
    fprintf(stderr, "lowersim fuzz: out of memory\n");
    return EXIT_INVALID_INPUT;
  }
  int code = parse_options(argc, argv, &c->opt);
  if (code < 0 && c->opt.emit)
    code = emit_scenarios(&c->opt);
  if (code >= 0) {
    free(c);
    return code;
  }
  code = open_output(c);
  lsim_error err = LSIM_ERROR_INIT;
  if (!code && (lsim_fuzz_checker_create(&c->checker, &err) ||
                (c->opt.isolate && lsim_fuzz_checker_isolate(c->checker, &err))))
    code = cli_report(&err);
  if (!code && run_campaign(c, &err))
    code = err.code ? cli_report(&err) : EXIT_INVALID_INPUT;
  if (!code)
    code = c->findings ? EXIT_LOWERING_ERROR : 0;
  lsim_fuzz_checker_destroy(c->checker);
  close_output(c);
  if (c->scratch[0])
    cli_fuzz_remove_tree(c->scratch);
  lsim_error_clear(&err);
  free(c->kinds);
  free(c);
  return code;
}
