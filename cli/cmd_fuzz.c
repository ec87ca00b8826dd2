/* cli/cmd_fuzz.c: `lowersim fuzz [--seed S] [--iterations N] [--out DIR] [--jobs J]
 * [--isolate] [--json]`: random scenarios (fuzz/generate.c) checked against
 * lowersim's invariants (fuzz/check.c) on J threads; each finding is
 * minimized and written to DIR as a scenario file that `lowersim lower`
 * reproduces, and the run ends with an outcome table (or --json).  `--emit
 * DIR` only writes the generated scenarios (for another judge, e.g. the
 * oracle).
 *
 * Iteration i's scenario and extra cases are a function of (seed, i) alone.
 * The threads claim chunks of CHUNK iterations; the findings of a chunk are
 * kept and committed (counted, reported, minimized, written) in the order of
 * the iterations, by one thread at a time, so the findings, the files and
 * the table are those of one thread whatever J is. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include "cli.h"
#include "lowersim/alloc.h"
#include "lowersim/scenario_kind.h"
#include "fuzz/fuzz.h"
#include "fuzz_files.h"
#include "json.h"
#include "options.h"
#include "output.h"
#include "lowersim/scenario_output.h"
#include "progress.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
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
#define MAX_JOBS 256
#define CHUNK 16            /* iterations a thread claims at once */
#define WINDOW 64           /* chunks claimed ahead of the first not committed */
#define MAX_ROWS 32         /* the table's rows: the equation kinds, "none", "all" */

typedef struct options {
  uint64_t seed;
  uint64_t iterations;
  uint64_t jobs;
  const char *out;
  const char *emit; /* write the scenarios to this folder, check nothing */
  bool isolate;     /* each check in a child process */
  bool json;        /* the report as one JSON object on stdout */
  const lsim_jax_profile *jax; /* --jax: every scenario pins it; NULL: none pinned */
  const char *focus; /* --focus ELEMENT: mostly equations of that kind */
} options;

/* The outcome table: per row, the scenarios by status (0: a module) and
 * the isolated checks that crashed. */
typedef struct stats {
  uint64_t codes[MAX_ROWS][CODE_SLOTS];
  uint64_t crashes[MAX_ROWS];
} stats;

/* A finding as an iteration met it, kept until its turn to be committed. */
typedef struct pending {
  uint64_t i;
  lsim_scenario *s;   /* a scenario's finding (owned), else NULL */
  lsim_fuzz_result r; /* its result; for another finding r.detail is the detail */
  const char *what;   /* another finding's kind: an invariant's name, "output", "folder" */
  char *text;         /* another finding's file, written as it is (owned), or NULL */
  size_t size;
} pending;

/* The findings of one chunk, in iteration order. */
typedef struct slot {
  pending *items;
  size_t count, cap;
  bool done;
} slot;

/* A finding as the report lists it. */
typedef struct listed {
  uint64_t i;
  const char *invariant; /* static */
  int code;              /* the first lowering's status; 0 for output and folder cases */
  char *detail;          /* owned */
  char *file;            /* owned: where it was written, or NULL */
} listed;

typedef struct campaign campaign;

/* One thread: its checker (its own MLIR contexts and lowerer), its
 * in-progress file and scratch folder, its share of the table. */
typedef struct worker {
  campaign *c;
  int index;
  lsim_fuzz_checker *checker;
  char *current_path; /* DIR/in-progress.xml (DIR/in-progress-J.xml of thread J > 0) */
  int doomed;         /* its slot among the files a stopping signal removes */
  char scratch[4096]; /* the output and folder cases' folder ("" until made) */
  stats st;
  slot *chunk; /* the chunk being run */
  lsim_error err;
  int rc;
} worker;

struct campaign {
  options opt;
  bool made_dir;
  int num_rows; /* the kinds, then "none" and "all" */
  pthread_mutex_t lock; /* the chunks' claims and commits */
  pthread_cond_t moved;
  pthread_mutex_t files; /* outputs, the umask and stderr (the output cases redirect it) are the process's */
  uint64_t num_chunks, next_claim, next_commit;
  bool committing;
  _Atomic bool stop;
  slot ring[WINDOW];
  _Atomic uint64_t done, findings;
  /* What the commits make, by one thread at a time: */
  size_t written;
  struct kind {
    char text[KIND_TEXT];
    size_t count;
  } *kinds; /* the kinds of findings seen, and how many of each */
  size_t num_kinds, cap_kinds;
  listed *list;
  size_t num_listed, cap_listed;
  uint64_t by_invariant[LSIM_FUZZ_INVARIANT_COUNT + 2]; /* + output, folder */
};

static void usage(void) {
  printf("usage: lowersim fuzz [--seed S] [--iterations N] [--focus ELEMENT] [--out DIR]\n"
         "                     [--jobs J] [--isolate] [--jax V] [--json]\n"
         "       lowersim fuzz [--seed S] [--iterations N] [--focus ELEMENT] [--jax V] --emit DIR\n\n"
         "Generates N random scenarios from seed S (default 1, %d iterations) and checks\n"
         "that every lowering fails with a catalogued code (never LSIM_E_VERIFY) or gives\n"
         "a module that verifies and re-parses unchanged, that lowering twice gives the\n"
         "same outcome, and that a scenario written and read back lowers the same way.\n"
         "Each finding is minimized and written to DIR (default %s/) as a scenario\n"
         "file that `lowersim lower` reproduces, with a comment saying what failed.\n"
         "While it runs, DIR/%s holds the scenario being checked (thread J > 0's\n"
         "is DIR/in-progress-J.xml): it stays behind only if lowersim crashed on it.\n"
         "SIGINT, SIGTERM or SIGHUP stops the run: the iterations being checked end, the\n"
         "in-progress files and scratch folders are removed, no finding of the\n"
         "unfinished chunks is written, and the command ends by the signal (a second\n"
         "one ends it at once, the in-progress files still removed).\n"
         "With --isolate each check runs in a child process, so a crash (or a sanitizer\n"
         "report, or a check hanging for a minute) is a finding like the others,\n"
         "minimized and written to DIR.\n\n"
         "Besides the generator's scenarios, some iterations check a scenario of a large\n"
         "shape (16 to 1024 distinct platforms, branches or aliases), the scenario's text\n"
         "with junk attributes on one element (the reader must refuse it with one\n"
         "`NAME:LINE:` line, or read it), the scenario written with -o's output path to a\n"
         "random kind of target (a new or old file, links, a long name, a folder, the\n"
         "input), or a random folder tree walked as `check` walks it (loops, FIFOs,\n"
         "dangling and duplicate links), each against what must hold.\n\n"
         "On a terminal, one progress line on stderr (iterations, rate, ETA, findings).\n"
         "Then, on stdout: a line naming the run (seed, jax, focus, time, threads,\n"
         "rate), the outcome table (a row per equation element, a scenario counted in\n"
         "the row of each element it has, then `none` and `all`: scenarios, modules,\n"
         "JAX errors, invalid input, other outcomes (crashes, no memory, lowersim\n"
         "bugs), the 3 most frequent codes), the findings per invariant, and last\n"
         "`fuzz: N iterations, M findings, R iterations/s`.\n"
         "--jobs J (-j J) runs J threads, from 1 to %d (default 1); iteration I's\n"
         "scenario depends on S and I alone, and the findings, their files and the\n"
         "table are the same for every J.  --isolate takes --jobs 1.\n"
         "--json prints the run as one JSON object instead (lowersim-output/1: the\n"
         "rows with every code, the findings with their files).\n"
         "--focus ELEMENT (e.g. pallas_call) makes most equations of that kind and the\n"
         "runtime a cpu with up to three accelerators that come up, so that the\n"
         "scenarios reach that kind's lowering.\n"
         "--emit DIR writes the N scenarios to DIR/fuzz-S-I.xml (I from 0), those of a\n"
         "large shape too, each the one iteration I checks, without lowering or\n"
         "checking them; last line `fuzz: N scenarios written to DIR`.\n"
         "--jax V: every scenario pins JAX version V (<scenario jax=\"V\">); without it\n"
         "none pins one, so each is lowered for the newest.  The scenarios are made for\n"
         "that version (or the newest): nothing it refuses as input (e.g. <pallas\n"
         "use_mosaic_gpu> from 0.11.2), from the same draws for every version.\n"
         "Exit codes: 0 no finding, 1 findings, 2 invalid arguments or output folder.\n",
         DEFAULT_ITERATIONS, DEFAULT_OUT, CURRENT_FILE, MAX_JOBS);
}

/* Returns -1 to go on, else the exit code. */
static int parse_options(int argc, char **argv, options *o) {
  *o = (options){.seed = 1, .iterations = DEFAULT_ITERATIONS, .jobs = 1, .out = DEFAULT_OUT};
  const char *jax = NULL;
  const cli_option table[] = {
      CLI_OPT_U64("seed", 0, &o->seed, 0, UINT64_MAX, CLI_HELP("S", "the seed (default 1)")),
      CLI_OPT_U64("iterations", 0, &o->iterations, 0, UINT64_MAX,
                  CLI_HELP("N", "how many scenarios")),
      CLI_OPT_U64("jobs", 'j', &o->jobs, 1, MAX_JOBS,
                  CLI_HELP("N", "threads checking scenarios (default 1; the results do not depend "
                                "on N)")),
      CLI_OPT_STRING("out", 0, &o->out, CLI_HELP("DIR", "where findings are written")),
      CLI_OPT_STRING("emit", 0, &o->emit,
                     CLI_HELP("DIR", "write the scenarios there instead of checking them")),
      CLI_OPT_FLAG("isolate", 0, &o->isolate,
                   CLI_HELP(NULL, "each check in a child process")),
      CLI_OPT_FLAG("json", 0, &o->json, CLI_OUTPUT, CLI_HELP(NULL, "the run as one JSON object on stdout")),
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
  if (o->isolate && o->jobs > 1)
    return cli_usage_error("fuzz", "--isolate takes --jobs 1: a child process forked from one "
                           "of several threads could inherit a lock another thread holds");
  if (o->emit && o->json)
    return cli_usage_error("fuzz", "--json reports a run that checks scenarios; --emit checks "
                           "none");
  return -1;
}

static size_t slot_of(int code) {
  return code <= 0 && code > 1 - CODE_SLOTS ? (size_t)-code : CODE_SLOTS - 1;
}

static char *path_in(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *path = lsim_malloc(n);
  if (path)
    snprintf(path, n, "%s/%s", dir, name);
  return path;
}

/* --- Files: the output folder, the in-progress files, the findings -------- */

static int open_output(campaign *c) {
  if (mkdir(c->opt.out, 0777) == 0)
    c->made_dir = true;
  else if (errno != EEXIST)
    return cli_usage_error("fuzz", "cannot create '%s': %s", c->opt.out, strerror(errno));
  return 0;
}

/* Removes the folder if this run made it and wrote no finding. */
static void close_output(campaign *c) {
  if (c->made_dir && !c->written)
    rmdir(c->opt.out);
}

/* Writes `text` with `comment` to `path` through cli/output.c. */
static int write_commented(campaign *c, const char *path, const char *text, size_t size,
                           const char *comment, lsim_error *err) {
  pthread_mutex_lock(&c->files);
  cli_output *out = cli_output_open("fuzz", path, NULL);
  int rc = out ? lsim_fuzz_write_commented(cli_output_stream(out), text, size, comment, err)
               : LSIM_E_IO;
  if (out && rc)
    cli_output_abort(out);
  else if (out && cli_output_commit(out))
    rc = LSIM_E_IO;
  pthread_mutex_unlock(&c->files);
  return rc;
}

/* Puts `s` into the thread's in-progress file before it is checked. */
static int save_current(worker *w, const lsim_scenario *s, uint64_t i, lsim_error *err) {
  char *text, comment[256];
  size_t size;
  int rc = lsim_fuzz_scenario_text(s, &text, &size, err);
  if (rc)
    return rc;
  snprintf(comment, sizeof comment,
           "lowersim fuzz, seed %" PRIu64 ", iteration %" PRIu64 ": being checked. This file "
           "stays behind only if lowersim crashed on it: `lowersim lower` reproduces it.",
           w->c->opt.seed, i);
  rc = write_commented(w->c, w->current_path, text, size, comment, err);
  free(text);
  return rc;
}

/* Says one line of a finding on stderr (not under --json, which lists
 * them), not while an output case has stderr on /dev/null. */
static void say(campaign *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(campaign *c, const char *fmt, ...) {
  if (c->opt.json)
    return;
  va_list ap;
  va_start(ap, fmt);
  pthread_mutex_lock(&c->files);
  vfprintf(stderr, fmt, ap);
  pthread_mutex_unlock(&c->files);
  va_end(ap);
}

/* Writes a minimized finding; *file is where (owned), NULL when it could
 * not be written. */
static int write_finding(campaign *c, const lsim_scenario *s, const lsim_fuzz_result *r, uint64_t i,
                         size_t from_eqns, char **file, lsim_error *err) {
  char name[128], note[256];
  snprintf(name, sizeof name, "%s-%" PRIu64 "-%" PRIu64 ".xml", lsim_fuzz_invariant_name(r->failed),
           c->opt.seed, i);
  snprintf(note, sizeof note,
           "Found by lowersim fuzz with seed %" PRIu64 " (iteration %" PRIu64
           "), minimized from %zu to %zu equations.",
           c->opt.seed, i, from_eqns, s->num_eqns);
  char *path = path_in(c->opt.out, name);
  pthread_mutex_lock(&c->files);
  cli_output *out = path ? cli_output_open("fuzz", path, NULL) : NULL;
  int rc = out ? lsim_fuzz_write_finding(cli_output_stream(out), s, r, note, err) : LSIM_E_IO;
  if (out && rc)
    cli_output_abort(out);
  else if (out && cli_output_commit(out))
    rc = LSIM_E_IO;
  pthread_mutex_unlock(&c->files);
  if (!rc) {
    say(c, "fuzz:   minimized to %s (%zu equations)\n", path, s->num_eqns);
    c->written++;
    *file = path;
  } else {
    free(path);
  }
  return rc == LSIM_E_NO_MEMORY ? rc : LSIM_OK;
}

/* --- Committing findings, in iteration order --------------------------------- */

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

/* The finding's row of the findings per invariant. */
static size_t invariant_row(const char *what) {
  for (size_t k = 1; k < LSIM_FUZZ_INVARIANT_COUNT; k++)
    if (strcmp(what, lsim_fuzz_invariant_name((lsim_fuzz_invariant)k)) == 0)
      return k;
  return strcmp(what, "output") == 0 ? LSIM_FUZZ_INVARIANT_COUNT : LSIM_FUZZ_INVARIANT_COUNT + 1;
}

static const char *invariant_row_name(size_t k) {
  return k < LSIM_FUZZ_INVARIANT_COUNT ? lsim_fuzz_invariant_name((lsim_fuzz_invariant)k)
         : k == LSIM_FUZZ_INVARIANT_COUNT ? "output" : "folder";
}

/* Lists a finding (for --json); false when out of memory. */
static bool list_finding(campaign *c, uint64_t i, const char *what, int code, const char *detail,
                         char *file) {
  if (!lsim_grow_array(&c->list, &c->cap_listed, c->num_listed + 1, sizeof *c->list)) {
    free(file);
    return false;
  }
  char *copy = lsim_strdup(detail ? detail : "");
  c->list[c->num_listed++] = (listed){i, what, code, copy, file};
  return copy != NULL;
}

/* Counts a finding of the kind `key`: true for the first few of a kind,
 * which are then said (`what: detail`) and written; *rc is
 * LSIM_E_NO_MEMORY when the kinds cannot be counted. */
static bool first_of_kind(campaign *c, const char *key, const char *what, const char *detail,
                          uint64_t i, int *rc) {
  atomic_fetch_add(&c->findings, 1);
  c->by_invariant[invariant_row(what)]++;
  size_t seen = count_kind_text(c, key);
  *rc = LSIM_OK;
  if (seen == SIZE_MAX) {
    fprintf(stderr, "lowersim fuzz: out of memory\n");
    *rc = LSIM_E_NO_MEMORY;
  }
  if (seen >= MAX_PER_KIND)
    return false;
  say(c, "fuzz: finding at iteration %" PRIu64 ": %s: %s\n", i, what, detail);
  return true;
}

/* A scenario's finding: minimized (with the committing thread's checker)
 * and written, the first few of its kind. */
static int commit_scenario(campaign *c, lsim_fuzz_checker *checker, pending *p, lsim_error *err) {
  char key[KIND_TEXT];
  kind_of(&p->r, key, sizeof key);
  int rc;
  const char *what = lsim_fuzz_invariant_name(p->r.failed);
  int code = p->r.code;
  char *detail = lsim_strdup(p->r.detail ? p->r.detail : ""), *file = NULL;
  if (!detail)
    return lsim_error_set(err, LSIM_E_NO_MEMORY, "out of memory");
  if (first_of_kind(c, key, what, detail, p->i, &rc)) {
    lsim_scenario *min = NULL;
    lsim_fuzz_result r = p->r; /* minimized in place of the kept one */
    p->r = (lsim_fuzz_result){0};
    rc = lsim_fuzz_minimize(checker, p->s, MINIMIZE_CHECKS, &r, &min, err);
    if (!rc)
      rc = write_finding(c, min, &r, p->i, p->s->num_eqns, &file, err);
    lsim_fuzz_result_clear(&r);
    lsim_scenario_destroy(min);
  }
  if (!rc && !list_finding(c, p->i, what, code, detail, file))
    rc = lsim_error_set(err, LSIM_E_NO_MEMORY, "out of memory");
  free(detail);
  return rc;
}

/* A finding that is not a scenario (a refused text, an output or folder
 * case): reported (the first few of a kind) and counted; its text, when
 * kept, is written to DIR/KIND-SEED-I.xml as it is. */
static int commit_other(campaign *c, pending *p, lsim_error *err) {
  const char *detail = p->r.detail ? p->r.detail : "";
  char key[KIND_TEXT];
  snprintf(key, sizeof key, "%s: %.80s", p->what, detail);
  for (char *q = key; *q; q++)
    if (*q >= '0' && *q <= '9')
      *q = '#';
  int rc;
  char *path = NULL;
  if (first_of_kind(c, key, p->what, detail, p->i, &rc) && p->text) {
    char name[128];
    snprintf(name, sizeof name, "%s-%" PRIu64 "-%" PRIu64 ".xml", p->what, c->opt.seed, p->i);
    path = path_in(c->opt.out, name);
    pthread_mutex_lock(&c->files);
    bool ok = path && cli_write_file("fuzz", path, p->text, p->size, NULL) == 0;
    pthread_mutex_unlock(&c->files);
    if (ok) {
      say(c, "fuzz:   written to %s\n", path);
      c->written++;
    } else {
      free(path);
      path = NULL;
    }
  }
  if (!rc && !list_finding(c, p->i, p->what, p->r.code, detail, path))
    rc = lsim_error_set(err, LSIM_E_NO_MEMORY, "out of memory");
  return rc;
}

static void pending_clear(pending *p) {
  lsim_scenario_destroy(p->s);
  lsim_fuzz_result_clear(&p->r);
  free(p->text);
}

static void slot_clear(slot *s) {
  for (size_t k = 0; k < s->count; k++)
    pending_clear(&s->items[k]);
  free(s->items);
  *s = (slot){0};
}

/* Commits every chunk done, in order, unless another thread is at it (it
 * then commits this one's too).  Called with the lock held. */
static int commit_ready(campaign *c, worker *w) {
  if (c->committing)
    return LSIM_OK;
  c->committing = true;
  int rc = LSIM_OK;
  while (!rc && c->next_commit < c->next_claim && c->ring[c->next_commit % WINDOW].done) {
    slot done = c->ring[c->next_commit % WINDOW];
    c->ring[c->next_commit % WINDOW] = (slot){0};
    pthread_mutex_unlock(&c->lock);
    for (size_t k = 0; !rc && k < done.count; k++)
      rc = done.items[k].s ? commit_scenario(c, w->checker, &done.items[k], &w->err)
                           : commit_other(c, &done.items[k], &w->err);
    slot_clear(&done);
    pthread_mutex_lock(&c->lock);
    c->next_commit++;
    pthread_cond_broadcast(&c->moved);
  }
  c->committing = false;
  return rc;
}

/* --- An iteration ------------------------------------------------------------ */

/* Keeps a finding of the chunk being run; false when out of memory. */
static pending *keep(worker *w, uint64_t i) {
  slot *s = w->chunk;
  if (!lsim_grow_array(&s->items, &s->cap, s->count + 1, sizeof *s->items))
    return NULL;
  pending *p = &s->items[s->count++];
  *p = (pending){.i = i};
  return p;
}

/* Another finding: `what` (static), its detail and its text (copied). */
static int keep_other(worker *w, uint64_t i, const char *what, const char *detail,
                      const char *text, size_t size) {
  pending *p = keep(w, i);
  if (!p)
    return lsim_error_set(&w->err, LSIM_E_NO_MEMORY, "out of memory");
  p->what = what;
  p->r.detail = lsim_strdup(detail);
  p->text = text ? lsim_malloc(size + 1) : NULL;
  if (p->text) {
    memcpy(p->text, text, size);
    p->text[size] = '\0';
    p->size = size;
  }
  return !p->r.detail || (text && !p->text) ? lsim_error_set(&w->err, LSIM_E_NO_MEMORY,
                                                             "out of memory")
                                            : LSIM_OK;
}

/* The thread's scratch folder of the output and folder cases, made on
 * first use. */
static const char *scratch(worker *w) {
  if (!w->scratch[0]) {
    const char *base = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(w->scratch, sizeof w->scratch, "%s/lowersim-fuzz-XXXXXX", base);
    if (!mkdtemp(w->scratch))
      w->scratch[0] = '\0';
  }
  return w->scratch[0] ? w->scratch : NULL;
}

/* What an iteration does besides checking its scenario (percent). */
enum { LARGE = 3, ATTRIBUTES = 6, OUTPUT = 9, FOLDER = 11 };

/* The hostile text of `s` (junk attributes on one element), checked
 * through the reader. */
static int check_attributes(worker *w, lsim_fuzz_rng *rng, const lsim_scenario *s, uint64_t i) {
  char *text = NULL, *hostile = NULL;
  size_t size, hostile_size;
  int rc = lsim_fuzz_scenario_text(s, &text, &size, &w->err);
  if (!rc)
    rc = lsim_fuzz_add_attributes(rng, text, size, &hostile, &hostile_size, &w->err);
  lsim_fuzz_result r = {0};
  if (!rc)
    rc = lsim_fuzz_check_text(w->checker, s->path, hostile, hostile_size, &r, &w->err);
  if (!rc && r.failed)
    rc = keep_other(w, i, lsim_fuzz_invariant_name(r.failed), r.detail ? r.detail : "", hostile,
                    hostile_size);
  lsim_fuzz_result_clear(&r);
  free(text);
  free(hostile);
  return rc;
}

/* An output or folder case with the scenario's text (the process's files
 * and umask are one thread's at a time). */
static int check_files(worker *w, lsim_fuzz_rng *rng, const lsim_scenario *s, bool output,
                       uint64_t i) {
  const char *dir = scratch(w);
  char *text = NULL, detail[512];
  size_t size;
  int rc = dir ? lsim_fuzz_scenario_text(s, &text, &size, &w->err) : LSIM_OK;
  if (!dir || rc) {
    if (!dir)
      rc = lsim_error_set(&w->err, LSIM_E_IO, "cannot make a scratch folder: %s",
                          strerror(errno));
    return rc;
  }
  pthread_mutex_lock(&w->c->files);
  int verdict = output ? cli_fuzz_output_case(rng, dir, text, size, detail, sizeof detail)
                       : cli_fuzz_folder_case(rng, dir, text, size, detail, sizeof detail);
  pthread_mutex_unlock(&w->c->files);
  free(text);
  if (verdict == 2)
    return lsim_error_set(&w->err, LSIM_E_IO, "%s", detail);
  return verdict ? keep_other(w, i, output ? "output" : "folder", detail, NULL, 0) : LSIM_OK;
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
    rc = lsim_fuzz_generate_focused(rng, name, o->focus, o->jax, s, err);
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

/* Counts the outcome in the row of each element `s` has, "none" when it
 * has no equation, and "all". */
static void record(campaign *c, stats *st, const lsim_scenario *s, const lsim_fuzz_result *r) {
  bool in[MAX_ROWS] = {false}, any = false;
  for (const lsim_scenario *x = s; x; x = x->next)
    for (size_t e = 0; e < x->num_eqns; e++)
      for (int k = 0; k < c->num_rows - 2; k++)
        if (lsim_scenario_kind_at((size_t)k) == x->eqns[e].kind)
          in[k] = any = true;
  in[c->num_rows - 2] = !any;
  in[c->num_rows - 1] = true;
  for (int k = 0; k < c->num_rows; k++) {
    if (!in[k])
      continue;
    if (r->failed == LSIM_FUZZ_CRASH)
      st->crashes[k]++;
    else
      st->codes[k][slot_of(r->code)]++;
  }
}

static int iterate(worker *w, uint64_t i) {
  campaign *c = w->c;
  lsim_fuzz_rng rng, extra;
  lsim_fuzz_rng_seed(&rng, c->opt.seed, i);
  uint64_t what = hostile_draw(&c->opt, i, &extra);
  char name[64];
  snprintf(name, sizeof name, "fuzz-%" PRIu64 "-%" PRIu64, c->opt.seed, i);
  lsim_scenario *s = NULL;
  lsim_fuzz_result r = {0};
  int rc = generate(&c->opt, &rng, what < LARGE, name, &s, &w->err);
  if (!rc)
    rc = save_current(w, s, i, &w->err);
  if (!rc)
    rc = lsim_fuzz_check(w->checker, s, &r, &w->err);
  if (!rc) {
    record(c, &w->st, s, &r);
    if (r.failed) {
      pending *p = keep(w, i);
      if (p) {
        p->r = r; /* the result goes with a copy of the scenario */
        r = (lsim_fuzz_result){0};
        rc = lsim_fuzz_scenario_clone(s, &p->s, &w->err);
      } else {
        rc = lsim_error_set(&w->err, LSIM_E_NO_MEMORY, "out of memory");
      }
    }
  }
  if (!rc && what >= LARGE && what < ATTRIBUTES)
    rc = check_attributes(w, &extra, s, i);
  else if (!rc && what >= ATTRIBUTES && what < FOLDER)
    rc = check_files(w, &extra, s, what < OUTPUT, i);
  lsim_fuzz_result_clear(&r);
  lsim_scenario_destroy(s);
  return rc;
}

/* --- The threads ------------------------------------------------------------- */

/* SIGINT, SIGTERM, SIGHUP: the run stops (run_campaign), then the command
 * ends by the signal; a second ends it at once (the old handlers, which
 * remove the in-progress files, are back from the first). */
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NUM_STOP (sizeof stop_signals / sizeof stop_signals[0])
static struct sigaction old_actions[NUM_STOP];
static volatile sig_atomic_t stopped_by;

static void restore_handlers(void) {
  for (size_t i = 0; i < NUM_STOP; i++)
    sigaction(stop_signals[i], &old_actions[i], NULL);
}

static void on_stop_signal(int sig) {
  stopped_by = sig;
  restore_handlers();
}

static void catch_stop_signals(void) {
  stopped_by = 0;
  for (size_t i = 0; i < NUM_STOP; i++) {
    struct sigaction act = {.sa_handler = on_stop_signal};
    sigfillset(&act.sa_mask);
    if (sigaction(stop_signals[i], NULL, &old_actions[i]) == 0 &&
        old_actions[i].sa_handler != SIG_IGN)
      sigaction(stop_signals[i], &act, NULL);
  }
}

/* Claims the next chunk, waiting while WINDOW chunks are not committed;
 * false when there is none left or the run stops.  Lock held. */
static bool claim(campaign *c, uint64_t *chunk) {
  while (!c->stop && c->next_claim < c->num_chunks && c->next_claim >= c->next_commit + WINDOW)
    pthread_cond_wait(&c->moved, &c->lock);
  if (c->stop || c->next_claim >= c->num_chunks)
    return false;
  *chunk = c->next_claim++;
  return true;
}

static void *work(void *arg) {
  worker *w = arg;
  campaign *c = w->c;
  pthread_mutex_lock(&c->lock);
  for (uint64_t k; !w->rc && claim(c, &k);) {
    pthread_mutex_unlock(&c->lock);
    slot mine = {0};
    w->chunk = &mine;
    uint64_t first = k * CHUNK, end = c->opt.iterations - first < CHUNK ? c->opt.iterations
                                                                         : first + CHUNK;
    for (uint64_t i = first; i < end && !w->rc && !c->stop; i++) {
      w->rc = iterate(w, i);
      atomic_fetch_add(&c->done, 1);
    }
    pthread_mutex_lock(&c->lock);
    /* a chunk cut short by an error or a signal is not committed (under
     * --isolate the signal may have ended the child: no finding of it) */
    mine.done = !w->rc && !stopped_by;
    c->ring[k % WINDOW] = mine;
    if (!w->rc)
      w->rc = commit_ready(c, w);
    if (w->rc)
      c->stop = true;
    pthread_cond_broadcast(&c->moved);
  }
  pthread_mutex_unlock(&c->lock);
  return NULL;
}

static int worker_start(campaign *c, worker *w, int index) {
  *w = (worker){.c = c, .index = index, .err = LSIM_ERROR_INIT, .doomed = -1};
  char name[32] = CURRENT_FILE;
  if (index > 0)
    snprintf(name, sizeof name, "in-progress-%d.xml", index);
  if (!(w->current_path = path_in(c->opt.out, name)))
    return lsim_error_set(&w->err, LSIM_E_NO_MEMORY, "out of memory");
  w->doomed = lsim_scenario_output_remove_on_signal(w->current_path);
  int rc = lsim_fuzz_checker_create(&w->checker, &w->err);
  if (!rc && c->opt.isolate)
    rc = lsim_fuzz_checker_isolate(w->checker, &w->err);
  return rc;
}

/* Removes the thread's in-progress file and scratch folder. */
static void worker_end(worker *w) {
  lsim_fuzz_checker_destroy(w->checker);
  if (w->current_path) {
    lsim_scenario_output_forget(w->doomed);
    remove(w->current_path);
  }
  free(w->current_path);
  if (w->scratch[0])
    cli_fuzz_remove_tree(w->scratch);
  lsim_error_clear(&w->err);
}

/* --- The report -------------------------------------------------------------- */

static const char *row_name(const campaign *c, int k) {
  return k == c->num_rows - 1 ? "all"
         : k == c->num_rows - 2 ? "none"
                                : lsim_scenario_kind_element(lsim_scenario_kind_at((size_t)k));
}

typedef struct row_counts {
  uint64_t scenarios, modules, jax_errors, invalid, other;
} row_counts;

static row_counts count_row(const stats *st, int k) {
  row_counts n = {.other = st->crashes[k]};
  for (int code = 0; code < CODE_SLOTS; code++) {
    uint64_t x = st->codes[k][code];
    if (!x)
      continue;
    lsim_kind kind = code == CODE_SLOTS - 1 ? LSIM_KIND_LOWERSIM_BUG : lsim_status_kind(-code);
    if (code == 0)
      n.modules += x;
    else if (kind == LSIM_KIND_JAX_ERROR)
      n.jax_errors += x;
    else if (kind == LSIM_KIND_INVALID_INPUT)
      n.invalid += x;
    else
      n.other += x;
  }
  n.scenarios = n.modules + n.jax_errors + n.invalid + n.other;
  return n;
}

/* The most frequent error code of a row not shown yet (then marked shown),
 * the lower slot first among equals; -1 when none is left. */
static int next_error(const uint64_t *counts, bool *shown) {
  int best = -1;
  for (int k = 1; k < CODE_SLOTS; k++)
    if (!shown[k] && counts[k] && (best < 0 || counts[k] > counts[best]))
      best = k;
  if (best >= 0)
    shown[best] = true;
  return best;
}

static const char *code_name(int k) {
  const char *name = k < CODE_SLOTS - 1 ? lsim_status_name(-k) : NULL;
  return name ? name : "LSIM_E_UNKNOWN";
}

static void print_table(const campaign *c, const stats *st, uint64_t done, double seconds) {
  const lsim_jax_profile *jax = lsim_jax_profile_or_default(c->opt.jax);
  char rate[32];
  cli_progress_rate(seconds > 0 ? (double)done / seconds : 0, rate, sizeof rate);
  printf("fuzz: seed %" PRIu64 ", jax %s%s, focus %s, %" PRIu64 " iterations in %.1f s on %d "
         "thread%s (%s iterations/s)\n",
         c->opt.seed, jax->name, c->opt.jax ? "" : " (unpinned)",
         c->opt.focus ? c->opt.focus : "none", done, seconds, (int)c->opt.jobs,
         c->opt.jobs == 1 ? "" : "s", rate);
  printf("%-18s %9s %9s %9s %9s %9s  %s\n", "equation", "scenarios", "modules", "jax-error",
         "invalid", "other", "codes (the 3 most frequent, then +N more)");
  for (int k = 0; k < c->num_rows; k++) {
    row_counts n = count_row(st, k);
    if (!n.scenarios && k < c->num_rows - 1)
      continue;
    printf("%-18s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " ", row_name(c, k),
           n.scenarios, n.modules, n.jax_errors, n.invalid, n.other);
    bool shown[CODE_SLOTS] = {true};
    if (st->crashes[k])
      printf(" CRASH %" PRIu64, st->crashes[k]);
    for (int rank = 0; rank < 3; rank++) {
      int best = next_error(st->codes[k], shown);
      if (best < 0)
        break;
      printf(" %s %" PRIu64, code_name(best) + 7, st->codes[k][best]); /* drop "LSIM_E_" */
    }
    uint64_t more_codes = 0, more = 0;
    for (int best; (best = next_error(st->codes[k], shown)) >= 0;)
      more_codes++, more += st->codes[k][best];
    if (more_codes)
      printf(" +%" PRIu64 " more (%" PRIu64 " scenarios)", more_codes, more);
    printf("\n");
  }
  printf("findings:");
  for (size_t k = 1; k < LSIM_FUZZ_INVARIANT_COUNT + 2; k++)
    printf("%s %s %" PRIu64, k > 1 ? "," : "", invariant_row_name(k), c->by_invariant[k]);
  printf("\n");
}

static void print_json(const campaign *c, const stats *st, uint64_t done, double seconds) {
  cli_json j;
  cli_json_begin(&j, stdout, "fuzz");
  cli_json_profile(&j, "jax", c->opt.jax);
  cli_json_bool(&j, "pinned", c->opt.jax != NULL);
  cli_json_int(&j, "seed", (long long)c->opt.seed);
  cli_json_string(&j, "focus", c->opt.focus);
  cli_json_int(&j, "iterations", (long long)done);
  cli_json_open_array(&j, "rows");
  for (int k = 0; k < c->num_rows; k++) {
    row_counts n = count_row(st, k);
    if (!n.scenarios && k < c->num_rows - 1)
      continue;
    cli_json_open_object(&j, NULL);
    cli_json_string(&j, "equation", row_name(c, k));
    cli_json_int(&j, "scenarios", (long long)n.scenarios);
    cli_json_int(&j, "modules", (long long)n.modules);
    cli_json_int(&j, "jax_errors", (long long)n.jax_errors);
    cli_json_int(&j, "invalid", (long long)n.invalid);
    cli_json_int(&j, "other", (long long)n.other);
    cli_json_int(&j, "crashes", (long long)st->crashes[k]);
    cli_json_open_array(&j, "errors"); /* every code, the most frequent first */
    bool shown[CODE_SLOTS] = {true};
    for (int best; (best = next_error(st->codes[k], shown)) >= 0;) {
      cli_json_open_object(&j, NULL);
      cli_json_string(&j, "code", code_name(best));
      cli_json_int(&j, "count", (long long)st->codes[k][best]);
      cli_json_close_object(&j);
    }
    cli_json_close_array(&j);
    cli_json_close_object(&j);
  }
  cli_json_close_array(&j);
  cli_json_open_array(&j, "invariants");
  for (size_t k = 1; k < LSIM_FUZZ_INVARIANT_COUNT + 2; k++) {
    cli_json_open_object(&j, NULL);
    cli_json_string(&j, "invariant", invariant_row_name(k));
    cli_json_int(&j, "findings", (long long)c->by_invariant[k]);
    cli_json_close_object(&j);
  }
  cli_json_close_array(&j);
  cli_json_open_array(&j, "findings");
  for (size_t k = 0; k < c->num_listed; k++) {
    const listed *f = &c->list[k];
    cli_json_open_object(&j, NULL);
    cli_json_int(&j, "iteration", (long long)f->i);
    cli_json_string(&j, "invariant", f->invariant);
    cli_json_string(&j, "code", f->code ? code_name((int)slot_of(f->code)) : NULL);
    cli_json_string(&j, "detail", f->detail);
    cli_json_string(&j, "file", f->file);
    cli_json_close_object(&j);
  }
  cli_json_close_array(&j);
  cli_json_int(&j, "written", (long long)c->written);
  cli_json_string(&j, "out", c->written ? c->opt.out : NULL);
  cli_json_number(&j, "seconds", seconds);
  cli_json_int(&j, "jobs", (int)c->opt.jobs);
  cli_json_end(&j);
}

static void report(const campaign *c, const stats *st, uint64_t done, double seconds) {
  if (c->opt.json) {
    print_json(c, st, done, seconds);
    return;
  }
  for (size_t k = 0; k < c->num_kinds; k++)
    fprintf(stderr, "fuzz: %zu x %s\n", c->kinds[k].count, c->kinds[k].text);
  if (c->written)
    fprintf(stderr, "fuzz: %zu minimized findings in %s/\n", c->written, c->opt.out);
  print_table(c, st, done, seconds);
  printf("fuzz: %" PRIu64 " iterations, %" PRIu64 " findings, %.0f iterations/s\n", done,
         (uint64_t)c->findings, seconds > 0 ? (double)done / seconds : 0.0);
}

/* Runs the iterations on the threads, the progress line on this one. */
static int run_campaign(campaign *c) {
  int jobs = (int)c->opt.jobs, started = 0, code = 0;
  worker *ws = lsim_calloc((size_t)jobs, sizeof *ws);
  pthread_t *threads = lsim_calloc((size_t)jobs, sizeof *threads);
  stats *all = lsim_calloc(1, sizeof *all);
  if (!ws || !threads || !all) {
    free(ws), free(threads), free(all);
    return cli_report(&(lsim_error){LSIM_E_NO_MEMORY, NULL});
  }
  c->num_chunks = c->opt.iterations / CHUNK + (c->opt.iterations % CHUNK != 0);
  cli_progress bar;
  cli_progress_begin(&bar, "fuzz", "iterations", c->opt.iterations, !c->opt.json);
  for (int j = 0; j < jobs && !code; j++)
    if (worker_start(c, &ws[j], j))
      code = cli_report(&ws[j].err);
  for (; !code && started < jobs; started++)
    if (pthread_create(&threads[started], NULL, work, &ws[started])) {
      code = cli_usage_error("fuzz", "cannot start a thread");
      pthread_mutex_lock(&c->lock);
      c->stop = true;
      pthread_cond_broadcast(&c->moved);
      pthread_mutex_unlock(&c->lock);
    }
  while (started && atomic_load(&c->done) < c->opt.iterations && !c->stop) {
    char found[64];
    snprintf(found, sizeof found, "%" PRIu64 " findings", (uint64_t)atomic_load(&c->findings));
    if (bar.on)
      cli_progress_update(&bar, atomic_load(&c->done), found, false);
    nanosleep(&(struct timespec){0, bar.on ? 100000000 : 20000000}, NULL);
    if (stopped_by) {
      pthread_mutex_lock(&c->lock);
      c->stop = true;
      pthread_cond_broadcast(&c->moved);
      pthread_mutex_unlock(&c->lock);
    }
  }
  for (int j = 0; j < started; j++)
    pthread_join(threads[j], NULL);
  double seconds = cli_now() - bar.start;
  cli_progress_end(&bar);
  for (int j = 0; j < jobs; j++) {
    for (int k = 0; k < MAX_ROWS; k++) {
      all->crashes[k] += ws[j].st.crashes[k];
      for (int s = 0; s < CODE_SLOTS; s++)
        all->codes[k][s] += ws[j].st.codes[k][s];
    }
    if (ws[j].rc && !code && ws[j].err.code == LSIM_E_IO) /* the run's own files */
      code = cli_usage_error("fuzz", "%s", lsim_error_message(&ws[j].err));
    else if (ws[j].rc && !code)
      code = ws[j].err.code ? cli_report(&ws[j].err) : EXIT_INVALID_INPUT;
  }
  uint64_t done = atomic_load(&c->done);
  if ((!code || started) && !stopped_by)
    report(c, all, done, seconds);
  for (int j = 0; j < jobs; j++)
    worker_end(&ws[j]);
  for (int k = 0; k < WINDOW; k++)
    slot_clear(&c->ring[k]);
  free(ws), free(threads), free(all);
  return code;
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
  if (lsim_scenario_kind_count() + 2 > MAX_ROWS) {
    fprintf(stderr, "lowersim fuzz: the equation kinds (%zu) outgrew the table's %d rows "
            "(cli/cmd_fuzz.c MAX_ROWS)\n", lsim_scenario_kind_count(), MAX_ROWS);
    return EXIT_LOWERING_ERROR;
  }
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
  c->num_rows = (int)lsim_scenario_kind_count() + 2;
  pthread_mutex_init(&c->lock, NULL);
  pthread_mutex_init(&c->files, NULL);
  pthread_cond_init(&c->moved, NULL);
  code = open_output(c);
  if (!code) {
    catch_stop_signals();
    code = run_campaign(c);
    restore_handlers();
  }
  if (!code)
    code = c->findings ? EXIT_LOWERING_ERROR : 0;
  close_output(c);
  pthread_cond_destroy(&c->moved);
  pthread_mutex_destroy(&c->files);
  pthread_mutex_destroy(&c->lock);
  for (size_t k = 0; k < c->num_listed; k++)
    free(c->list[k].detail), free(c->list[k].file);
  free(c->list);
  free(c->kinds);
  free(c);
  if (stopped_by) { /* everything removed: the signal's own end */
    fflush(stdout);
    raise(stopped_by);
  }
  return code;
}
