/* cli/cmd_check.c: `lowersim check PATH... [--junit OUT.xml]`: runs every
 * scenario with <expect> under PATH and reports one line per failure, then
 * `N passed, N failed`. */
#include "cli.h"
#include "lowersim/alloc.h"
#include "lowersim/scenario_run.h"
#include "lowersim/scenario_output.h"
#include "lowersim/mlir_text.h"

#include <mlir-c/IR.h>

#include "impl.h"
#include "json.h"
#include "junit.h"
#include "options.h"
#include "output.h"
#include "port_workflow.h"
#include "walk.h"

#include <stdint.h>
#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct result {
  const char *path;
  const char *name;
  const char *jax; /* the JAX version the scenario was checked for; NULL: not read */
  double seconds;
  bool skipped;
  char *skip_reason; /* --impl: what the port said it cannot express (owned); NULL: none */
  bool invalid;  /* the file is not a valid scenario (failure says why) */
  char *failure; /* NULL: passed */
  lsim_scenario_port_verdict verdict; /* --impl and expected files: the judge's verdict */
  char *shown; /* the difference as shown on a terminal (coloured), or NULL: `failure` */
  bool deselected;    /* -k or --rerun-failed left it out */
  bool not_run;       /* -x stopped the run before its verdict */
  bool judged;        /* --impl: judged as its answer arrived (-x) */
  const char *xfail;  /* the xfail file's reason for it, or NULL */
  bool xfailed, xpassed;
} result;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- --impl: another implementation's outcomes against lowersim's ----------------- */

/* lowersim's side of one scenario under --impl: its module (owned) or its error. */
typedef struct impl_case {
  char *ours;
  lsim_error err;
  impl_answer answer;
  char *note; /* --normalize jax: what jaxlib's MLIR said of the port's module */
} impl_case;

/* lowersim's outcome for `s` into `c`; *skipped when lowersim refuses the
 * scenario as invalid (nothing to compare). */
static int lower_ours(lsim_lowerer *lowerer, const lsim_scenario *s,
                      const lsim_scenario_run_options *opts, impl_case *c, bool *skipped) {
  lsim_scenario_outcome outcome;
  c->err = (lsim_error)LSIM_ERROR_INIT;
  int rc = lsim_scenario_run(lowerer, s, opts, &outcome, &c->err);
  c->ours = rc ? NULL : lsim_lowering_print(outcome.lowering);
  lsim_scenario_outcome_clear(&outcome);
  *skipped = rc == LSIM_E_INVALID_INPUT;
  return !rc && !c->ours ? LSIM_E_NO_MEMORY : rc == LSIM_E_NO_MEMORY ? rc : 0;
}

/* --- testdata/expected/: the outcome a scenario without <expect> must have ---------- */

/* All of the file at `path` (owned), or NULL with errno set; *why (owned):
 * why a file that is there cannot be read (lsim_scenario_open_read: a FIFO
 * would block for ever, a link to /dev/zero fill the memory). */
static char *read_whole(const char *path, char **why, size_t *len) {
  *why = NULL;
  *len = 0;
  FILE *f;
  lsim_error err = LSIM_ERROR_INIT;
  if (access(path, F_OK) != 0) /* no such file: the next name is tried */
    return NULL;
  if (lsim_scenario_open_read(path, &f, &err)) {
    *why = lsim_strdup(lsim_error_message(&err));
    errno = *why ? 0 : ENOMEM;
    lsim_error_clear(&err);
    return NULL;
  }
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  char buf[4096];
  size_t n;
  bool ok = out != NULL;
  while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0)
    ok = fwrite(buf, 1, n, out) == n;
  int errnum = ferror(f) ? errno : ENOMEM;
  if (out)
    ok = fclose(out) == 0 && ok;
  fclose(f);
  if (!ok) {
    free(text);
    errno = errnum;
    return NULL;
  }
  *len = size;
  return text;
}

/* The expected outcome of DIR/NAME.xml: DIR/../expected/NAME.mlir (the
 * module `lowersim lower` prints; *module true) or NAME.err (its stderr),
 * as tests/golden_test.sh keeps them, `*text_len` bytes (a NUL byte in them is
 * judged, as a port's is); NULL when there is none.  *where
 * (owned) names the file.  *problem (owned): why one that is there cannot
 * be read (not a regular file, a read error), NULL else. */
static char *read_expected(const char *path, bool *module, size_t *text_len, char **where, bool *oom,
                           char **problem) {
  *oom = false;
  *problem = NULL;
  const char *slash = strrchr(path, '/');
  size_t dir = slash ? (size_t)(slash - path) : 0;
  const char *base = slash ? slash + 1 : path;
  size_t base_len = strlen(base);
  if (base_len < 5 || strcmp(base + base_len - 4, ".xml") != 0)
    return NULL;
  for (int k = 0; k < 2; k++) {
    const char *ext = k ? ".err" : ".mlir";
    size_t size = dir + strlen("/../expected/") + base_len + 2;
    char *p = lsim_malloc(size);
    if (!p) {
      *oom = true;
      return NULL;
    }
    snprintf(p, size, "%.*s%s../expected/%.*s%s", (int)dir, path, dir ? "/" : "",
             (int)(base_len - 4), base, ext);
    errno = 0;
    char *why;
    char *text = read_whole(p, &why, text_len);
    if (!text && !why && errno == ENOMEM) {
      free(p);
      *oom = true;
      return NULL;
    }
    if (!text && (why || errno != ENOENT)) { /* there, but not to be read */
      const char *reason = why ? why : strerror(errno);
      int len = snprintf(NULL, 0, "cannot read the expected outcome %s", reason);
      if ((*problem = lsim_malloc((size_t)len + 1)))
        snprintf(*problem, (size_t)len + 1, "cannot read the expected outcome %s", reason);
      else
        *oom = true;
      free(why);
      free(p);
      return NULL;
    }
    if (text) {
      *module = k == 0;
      *where = p;
      return text;
    }
    free(p);
  }
  return NULL;
}

/* lowersim's outcome for `s` against the expected file's, judged as
 * --impl judges a port's answer; what differs (owned), or NULL. */
static char *check_expected(lsim_lowerer *lowerer, const lsim_scenario *s,
                            const lsim_scenario_run_options *opts, char *expected, size_t text_len,
                            bool module, const char *where, result *r) {
  impl_case c = {0};
  bool skipped = false;
  if (lower_ours(lowerer, s, opts, &c, &skipped) || c.err.code == LSIM_E_NO_MEMORY) {
    free(c.ours);
    lsim_error_clear(&c.err);
    return lsim_strdup("out of memory");
  }
  impl_answer a = {.how = IMPL_EXITED, .code = module ? 0 : 1, .out = module ? expected : "",
                   .err = module ? "" : expected, .out_len = module ? text_len : 0,
                   .err_len = module ? 0 : text_len};
  lsim_scenario_port_verdict *v = &r->verdict;
  int rc = impl_judge(lsim_lowerer_mlir_context(lowerer), c.ours, &c.err, &a, &(impl_judging){0},
                      v);
  free(c.ours);
  lsim_error_clear(&c.err);
  if (rc)
    return lsim_strdup("out of memory");
  char *failure = NULL;
  if (!v->passed) {
    int len = snprintf(NULL, 0, "against %s (\"the implementation\"): %s", where, v->difference);
    failure = len >= 0 ? lsim_malloc((size_t)len + 1) : NULL;
    if (failure)
      snprintf(failure, (size_t)len + 1, "against %s (\"the implementation\"): %s", where,
               v->difference);
  }
  return failure;
}

/* Checks one file into `r` (r->failure set on failure). */
static int check_file(lsim_lowerer *lowerer, impl_case *impl, const char *path,
                      const lsim_jax_profile *profile, const char *select, result *r,
                      lsim_scenario **keep) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  double start = now();
  *r = (result){.path = path, .name = path};
  lsim_scenario_run_options opts = LSIM_SCENARIO_RUN_OPTIONS_INIT(.profile = profile);
  int rc = cli_read_scenario(path, &s, &err);
  if (!rc && s->name)
    r->name = s->name;
  if (!rc)
    r->jax = lsim_scenario_profile(s, profile)->name;
  if (select && !strstr(path, select) && !(s && s->name && strstr(s->name, select))) {
    r->deselected = true; /* -k: neither its path nor its name holds the pattern */
    lsim_error_clear(&err);
    *keep = s;
    return LSIM_OK;
  }
  if (rc) {
    r->failure = lsim_strdup(lsim_error_message(&err));
    r->invalid = true;
  } else if (impl) {
    rc = lower_ours(lowerer, s, &opts, impl, &r->skipped);
  } else if (!lsim_scenario_expects(s)) {
    /* No <expect>: testdata/expected/'s file, which holds for the JAX the
     * scenario pins, or else the newest (`lowersim lower` made it). */
    bool module = false, oom = false;
    size_t len = 0;
    char *where = NULL, *problem = NULL;
    char *expected = s->jax || lsim_scenario_profile(s, profile) == lsim_jax_profile_default()
                         ? read_expected(path, &module, &len, &where, &oom, &problem)
                         : NULL;
    if (expected)
      r->failure = check_expected(lowerer, s, &opts, expected, len, module, where, r);
    else if (problem)
      r->failure = problem;
    else if (oom)
      r->failure = lsim_strdup("out of memory");
    else
      r->skipped = true;
    free(expected);
    free(where);
  } else {
    lsim_scenario_verdict v;
    rc = lsim_scenario_check_with(lowerer, s, &opts, &v, &err);
    if (rc)
      r->failure = lsim_strdup(lsim_error_message(&err));
    else if (!v.passed)
      r->failure = v.difference, v.difference = NULL;
    lsim_scenario_verdict_clear(&v);
  }
  r->seconds = now() - start;
  lsim_error_clear(&err);
  *keep = s;
  return rc == LSIM_E_NO_MEMORY ? rc : LSIM_OK;
}

/* A case's JUnit failure: the difference, or for an XPASS its reason. */
static char *junit_failure(const result *r) {
  if (!r->xpassed)
    return r->invalid || !r->failure || r->xfailed ? NULL : lsim_strdup(r->failure);
  const char *why = *r->xfail ? r->xfail : "(no reason given)";
  int len = snprintf(NULL, 0, "XPASS (strict): %s", why);
  char *s = len >= 0 ? lsim_malloc((size_t)len + 1) : NULL;
  if (s)
    snprintf(s, (size_t)len + 1, "XPASS (strict): %s", why);
  return s;
}

static int write_junit(const char *out, const result *results, size_t n, size_t failed,
                       double seconds, char *const *paths, const lsim_jax_profile *profile) {
  size_t skipped = 0, invalid = 0, cases = 0;
  cli_inputs inputs = {0};
  bool ok = true;
  for (size_t i = 0; i < n; i++) {
    bool judged = !results[i].deselected && !results[i].not_run;
    cases += judged;
    skipped += judged && (results[i].skipped || results[i].xfailed);
    invalid += results[i].invalid;
    ok = ok && cli_inputs_add(&inputs, paths[i]);
  }
  junit *j = ok ? junit_open("lowersim check", cases, failed - invalid, invalid, skipped, seconds)
                : NULL;
  junit_property(j, "jax", lsim_jax_profile_or_default(profile)->name);
  for (size_t i = 0; j && i < n; i++) {
    const result *r = &results[i];
    if (r->deselected || r->not_run)
      continue;
    char *classname = junit_classname("lowersim.check", r->path);
    const char *jax = r->jax ? r->jax : "(not read)", *diff = r->failure ? r->failure : "";
    const char *notes = r->verdict.notes ? r->verdict.notes : "";
    int len = snprintf(NULL, 0, "file: %s\njax: %s\n%s\n%s", r->path, jax, diff, notes);
    char *sysout = len >= 0 ? lsim_malloc((size_t)len + 1) : NULL;
    if (sysout)
      snprintf(sysout, (size_t)len + 1, "file: %s\njax: %s\n%s%s%s", r->path, jax, diff,
               *diff ? "\n" : "", notes);
    char *failure = junit_failure(r), *xfail = NULL;
    if (r->xfailed) {
      int xl = snprintf(NULL, 0, "xfail: %s", r->xfail);
      xfail = xl >= 0 ? lsim_malloc((size_t)xl + 1) : NULL;
      if (xfail)
        snprintf(xfail, (size_t)xl + 1, "xfail: %s", r->xfail);
    }
    junit_case(j, &(junit_result){.classname = classname ? classname : "lowersim.check",
                                  .name = r->name,
                                  .seconds = r->seconds,
                                  .failure = failure,
                                  .error = r->invalid ? r->failure : NULL,
                                  .skipped = r->xfailed       ? xfail
                                             : !r->skipped    ? NULL
                                             : r->skip_reason ? r->skip_reason
                                                              : "no <expect>",
                                  .system_out = sysout});
    if (!classname || !sysout || (r->xpassed && !failure) || (r->xfailed && !xfail))
      junit_out_of_memory(j);
    free(classname);
    free(sysout);
    free(failure);
    free(xfail);
  }
  int code = junit_close(j, "check", out, &inputs);
  cli_inputs_free(&inputs);
  return code;
}

/* check --json: the summary and every case judged, one object on stdout.
 * n: passed, failed, skipped, invalid, xfailed, xpassed, deselected, not run. */
static void write_json(const result *results, size_t count, const lsim_jax_profile *profile,
                       const size_t *n) {
  static const char *const names[] = {"passed",  "failed",  "skipped",    "invalid",
                                      "xfailed", "xpassed", "deselected", "not_run"};
  cli_json j;
  cli_json_begin(&j, stdout, "check");
  cli_json_profile(&j, "jax", profile);
  cli_json_open_object(&j, "summary");
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    cli_json_int(&j, names[k], (long long)n[k]);
  cli_json_close_object(&j);
  cli_json_open_array(&j, "cases");
  for (size_t i = 0; i < count; i++) {
    const result *r = &results[i];
    if (r->deselected || r->not_run)
      continue;
    cli_json_open_object(&j, NULL);
    cli_json_string(&j, "file", r->path);
    cli_json_string(&j, "scenario", r->name == r->path ? NULL : r->name);
    cli_json_string(&j, "jax", r->jax);
    cli_json_string(&j, "outcome", r->invalid   ? "invalid"
                                   : r->xfailed ? "xfailed"
                                   : r->xpassed ? "xpassed"
                                   : r->failure ? "failed"
                                   : r->skipped ? "skipped"
                                                : "passed");
    cli_json_string(&j, "difference", r->failure);
    const lsim_scenario_port_verdict *v = &r->verdict;
    cli_json_string(&j, "first_difference", r->failure ? v->first : NULL);
    for (int side = 0; side < 2; side++) {
      cli_json_open_object(&j, side ? "actual" : "expected");
      cli_json_string(&j, "class", side ? v->actual_class : v->expected_class);
      cli_json_string(&j, "message", side ? v->actual_message : v->expected_message);
      cli_json_string(&j, "module", side ? v->actual_module : v->expected_module);
      cli_json_close_object(&j);
    }
    cli_json_string(&j, "notes", v->notes);
    cli_json_string(&j, "xfail", r->xfail);
    cli_json_number(&j, "seconds", r->seconds);
    cli_json_close_object(&j);
  }
  cli_json_close_array(&j);
  cli_json_end(&j);
}

static void help(void) {
  printf("usage: lowersim check [--junit OUT.xml] [--json] [--jax VERSION] [--max-bytes N]\n"
         "                      PATH...\n"
         "       lowersim check --impl 'COMMAND {scenario}' [--jobs N] [--timeout S]\n"
         "                      [--batch] [--normalize jax] [--max-output N]\n"
         "                      [--no-progress] PATH...\n"
         "       both: [-k PATTERN] [-x] [--xfail FILE] [--rerun-failed]\n"
         "             [--last-failed FILE]\n\n"
         "Runs every scenario with <expect> in the files and folders given (folders are\n"
         "searched for *.xml, each folder once however many symbolic links lead to it,\n"
         "each file once; what is not a regular file is skipped with a note; \"-\" is\n"
         "standard input), prints one line per failure with what differs, the counts\n"
         "per JAX version profile (`  jax=V: ...`, `  unpinned, as V: ...`), and ends\n"
         "with `N passed, N failed, N skipped`. A scenario without <expect> is checked\n"
         "against the module or error in ../expected/NAME.mlir or NAME.err beside its\n"
         "folder (testdata/expected/ for testdata/scenarios/), which hold for the JAX the\n"
         "scenario pins, else the newest; skipped when it has neither.\n"
         "--json: one JSON object on stdout instead: the summary and every case (file,\n"
         "scenario, jax, outcome passed/failed/skipped/invalid, difference, seconds).\n"
         "Exit 1 when something failed, 2 when a file is not a valid scenario.\n"
         "--junit writes a JUnit XML report valid against the junit-10 schema of Jenkins\n"
         "and GitLab (\"-\": standard output): the JAX version a property of the suite,\n"
         "class names dotted from the folders (lowersim.check.FOLDER), <error> for a\n"
         "file that is not a valid scenario, <failure> with the difference, and each\n"
         "case's file, JAX version and difference in <system-out>. Exit 0 when nothing\n"
         "failed.\n"
         "--jax: the JAX version of the scenarios that name none in <scenario jax=...>\n"
         "(default: the newest); a scenario's own jax= always wins, since its <expect>\n"
         "holds for the JAX it names.\n"
         "--max-bytes N: the largest scenario file read (default 8388608, at most 2^40).\n\n"
         "--impl runs COMMAND (a shell command; the file's path is in $LOWERSIM_SCENARIO, and\n"
         "{scenario} becomes a quoted reference to it, one argument whatever quotes are\n"
         "around it, nothing in the path run) for every scenario and compares its\n"
         "outcome with lowersim's: a module on stdout (exit 0) is\n"
         "compared after both are parsed and printed by MLIR (a difference is a unified\n"
         "diff); an error (non-zero exit) must be the last line of stderr of the form\n"
         "`[CODE: ]ErrorClass: message`, with JAX's class and message. Nothing on stdout,\n"
         "a signal and a time-out are failures that say so. Scenarios lowersim itself\n"
         "rejects as invalid are skipped, and so are those the port answers with exit 3\n"
         "and a first stderr line `not expressible ...` (as the oracle does).\n"
         "--batch: COMMAND (no {scenario}) starts once per job, reads one path per line on\n"
         "stdin and answers each with a line `EXIT OUT_BYTES ERR_BYTES` and then those\n"
         "bytes of stdout and stderr (python/lowersim/port.py speaks it).\n"
         "An answer writes at most --max-output bytes (stdout and stderr; default\n"
         "67108864): past them the port is ended and the scenario fails saying so; a NUL\n"
         "byte in it fails too. A port's process group is ended by SIGTERM, then SIGKILL\n"
         "after half a second: on a time-out, on -x, at the end, and on SIGINT, SIGTERM\n"
         "and SIGHUP, which end the command by the signal (exit status 130, 143, 129).\n"
         "Control characters and bytes that are not UTF-8 in what a port wrote are shown\n"
         "as \\xNN on the terminal (--json writes U+FFFD for bytes that are not UTF-8).\n"
         "A difference starts with one line naming where the two first differ (`first\n"
         "difference: line N, OP[ @target][, attribute NAME]: lowersim \"...\" port \"...\"`),\n"
         "then a unified diff with the differing words marked ([-old-]{+new+}; red and\n"
         "green on a terminal). Pallas kernels (tpu_custom_call's body and\n"
         "debug_locations, Triton's ir, Mosaic GPU's module) are decoded and compared\n"
         "as modules; Mosaic GPU's kernel_hash must be the SHA-256 of the module on\n"
         "each side; bytecode producers and versions are notes (--json, --junit), never\n"
         "differences.\n"
         "The port workflow (with or without --impl), as lit and pytest have it: -k,\n"
         "-x, --xfail (a path or glob per line, the reason after `#`: a failure there is\n"
         "XFAIL, a pass XPASS, which fails the run), --rerun-failed (the record of\n"
         "--impl runs in $XDG_CACHE_HOME/lowersim/last-failed/, ~/.cache without it, one\n"
         "file per working folder, or --last-failed FILE).\n");
}

/* --impl's options beyond the command. */
typedef struct impl_setup {
  impl_options run;
  bool colour; /* stdout is a terminal: differing words red and green */
  const char *release; /* --jax: the release whose jaxlib --normalize jax runs, or NULL */
  const char *normalize; /* NULL, or "jax" */
  bool exitfirst;        /* -x: stop at the first failure */
} impl_setup;

/* --normalize jax for the port's modules and lowersim's alike (cases[i].ours
 * replaced), in one run of jaxlib's python. */
static int normalize_both(const char *python, impl_answer *answers, impl_case *cases,
                          const bool *want, size_t count, char **notes) {
  impl_answer *both = lsim_calloc(2 * count, sizeof *both);
  bool *want2 = lsim_calloc(2 * count, sizeof *want2);
  char **notes2 = lsim_calloc(2 * count, sizeof *notes2);
  int rc = both && want2 && notes2 ? 0 : LSIM_E_NO_MEMORY;
  for (size_t i = 0; !rc && i < count; i++) {
    both[i] = answers[i];
    both[count + i].out = want[i] ? cases[i].ours : NULL;
    both[count + i].out_len = want[i] ? strlen(cases[i].ours) : 0;
    want2[i] = want2[count + i] = want[i];
  }
  if (!rc)
    rc = impl_normalize_jax(python, both, want2, 2 * count, notes2);
  for (size_t i = 0; both && i < count; i++) {
    answers[i] = both[i];
    if (want[i])
      cases[i].ours = both[count + i].out; /* lowersim's module: no NUL */
    notes[i] = notes2[i];
    free(notes2[count + i]);
  }
  free(both);
  free(want2);
  free(notes2);
  return rc;
}

/* The most bytes of each text of a verdict kept for the report (the
 * difference, its coloured form, the differing lines): a port's answer may
 * be IMPL_MAX_OUTPUT bytes, and a run keeps one verdict per scenario. */
#define VERDICT_TEXT_MAX ((size_t)1 << 20)

/* `*s` cut to VERDICT_TEXT_MAX bytes (at a character's start), saying how
 * much was left out. */
static void cut(char **s) {
  size_t len = *s ? strlen(*s) : 0;
  if (len <= VERDICT_TEXT_MAX)
    return;
  size_t at = VERDICT_TEXT_MAX;
  while (at > 0 && ((unsigned char)(*s)[at] & 0xc0) == 0x80)
    at--;
  char tail[80];
  int n = snprintf(tail, sizeof tail, "\n... (%zu bytes more not shown)", len - at);
  memcpy(*s + at, tail, (size_t)n + 1); /* len - at > sizeof tail: it fits */
  char *smaller = lsim_realloc(*s, at + (size_t)n + 1);
  if (smaller)
    *s = smaller;
}

static void cut_verdict(result *r) {
  lsim_scenario_port_verdict *v = &r->verdict;
  char **texts[] = {&r->failure, &r->shown, &v->first, &v->difference, &v->expected_module,
                    &v->actual_module, &v->actual_message, &v->notes};
  for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++)
    cut(texts[k]);
}

/* One answer into results[i]: skipped when the port cannot express the
 * scenario, else the judge's verdict (coloured again for a terminal). */
static void judge_one(const impl_setup *impl, MlirContext mlir, result *r, const impl_case *c,
                      const impl_answer *a, const char *note) {
  r->judged = true;
  r->seconds += a->seconds;
  /* Exit 3 with `not expressible ...`: the port (the oracle, for one)
   * cannot express the scenario; skipped, with its reason. */
  if (a->how == IMPL_EXITED && a->code == 3 && strncmp(a->err, "not expressible", 15) == 0) {
    size_t len = strcspn(a->err, "\n");
    r->skip_reason = lsim_malloc(len + 1);
    if (r->skip_reason) {
      memcpy(r->skip_reason, a->err, len);
      r->skip_reason[len] = '\0';
    }
    r->skipped = true;
    return;
  }
  impl_judging how = {.normalizing = impl->normalize != NULL, .note = note};
  lsim_scenario_port_verdict *v = &r->verdict;
  if (impl_judge(mlir, c->ours, &c->err, a, &how, v))
    r->failure = lsim_strdup("out of memory");
  else if (!v->passed)
    r->failure = lsim_strdup(v->difference);
  if (impl->colour && r->failure) {
    /* On a terminal: the same verdict with coloured word marks, shown. */
    lsim_scenario_port_verdict shown;
    how.colour = true;
    if (!impl_judge(mlir, c->ours, &c->err, a, &how, &shown)) {
      r->shown = shown.difference, shown.difference = NULL;
      lsim_scenario_port_verdict_clear(&shown);
    }
  }
  cut_verdict(r);
}

/* What the run's `answered` callback sees (-x). */
typedef struct judging_run {
  const impl_setup *impl;
  MlirContext mlir;
  result *results;
  impl_case *cases;
} judging_run;

/* Each answer judged as it arrives (so the runner can let go of its
 * bytes), without --normalize jax, which needs every module first; -x: true
 * at a failure the xfail file does not expect (under --normalize jax, only
 * a wrong outcome, a module for an error or the other way round, stops the
 * run). */
static bool answered(void *data, size_t i, const impl_answer *a) {
  judging_run *j = data;
  result *r = &j->results[i];
  if (!j->impl->normalize) {
    judge_one(j->impl, j->mlir, r, &j->cases[i], a, NULL);
    return j->impl->exitfirst && r->failure && !r->xfail;
  }
  if (!j->impl->exitfirst)
    return false;
  bool module = j->cases[i].ours != NULL;
  bool not_expressible = a->how == IMPL_EXITED && a->code == 3;
  return !r->xfail && !not_expressible &&
         (a->how != IMPL_EXITED || module != (a->code == 0));
}

/* Runs the port on every scenario lowersim lowered (cases[i] for
 * results[i]) and turns each answer into results[i].failure. */
static int judge_impl(const impl_setup *impl, MlirContext mlir, result *results, impl_case *cases,
                      size_t count) {
  const char **run = lsim_calloc(count, sizeof *run);
  impl_answer *answers = lsim_calloc(count, sizeof *answers);
  bool *want = lsim_calloc(count, sizeof *want);
  char **notes = lsim_calloc(count, sizeof *notes);
  char *python = NULL;
  int rc = run && answers && want && notes ? 0 : LSIM_E_NO_MEMORY;
  for (size_t i = 0; !rc && i < count; i++)
    run[i] = results[i].failure || results[i].skipped || results[i].deselected
                 ? NULL
                 : results[i].path;
  judging_run jr = {impl, mlir, results, cases};
  impl_options o = impl->run;
  if (impl->exitfirst || !impl->normalize)
    o.answered = answered, o.data = &jr, o.release_answered = !impl->normalize;
  if (!rc)
    rc = impl_run_all(&o, run, count, answers);
  for (size_t i = 0; !rc && i < count; i++) {
    results[i].not_run = run[i] && !answers[i].out;
    if (results[i].not_run)
      run[i] = NULL;
  }
  /* --normalize jax: both modules go through jaxlib's MLIR, which knows
   * stablehlo: the pretty form lowersim's MLIR cannot read, and attributes
   * one side prints and the other leaves to their defaults. */
  bool any = false;
  for (size_t i = 0; !rc && impl->normalize && i < count; i++) {
    want[i] = run[i] && cases[i].ours && answers[i].how == IMPL_EXITED && !answers[i].code;
    any |= want[i];
  }
  if (!rc && any) {
    python = impl_jax_python(impl->release);
    if (python)
      rc = normalize_both(python, answers, cases, want, count, notes);
    else
      for (size_t i = 0; i < count; i++)
        notes[i] = want[i] ? lsim_strdup("--normalize jax: no build/oracle-venv/bin/python (./run "
                                    "oracle makes it; or set LOWERSIM_JAX_PYTHON)")
                           : NULL;
  }
  for (size_t i = 0; !rc && i < count; i++)
    if (run[i] && !results[i].judged)
      judge_one(impl, mlir, &results[i], &cases[i], &answers[i], notes[i]);
  for (size_t i = 0; answers && i < count; i++) {
    impl_answer_clear(&answers[i]);
    if (notes)
      free(notes[i]);
  }
  free(run);
  free(answers);
  free(want);
  free(notes);
  free(python);
  return rc;
}

/* The summary per JAX version profile, before the totals line: scenarios
 * that pin one (jax=, by the profile it names), and those that pin none
 * (checked as --jax, default the oracle's); an XFAIL counts as skipped and an
 * XPASS as failed, as in the JUnit report. */
static void print_profile_totals(const result *results, lsim_scenario *const *scenarios,
                                 size_t count) {
  enum { MAX_GROUPS = 16 };
  struct group { const char *name; bool pinned; size_t n[3]; /* passed, failed, skipped */ };
  struct group g[MAX_GROUPS];
  size_t groups = 0;
  for (size_t i = 0; i < count; i++) {
    const result *r = &results[i];
    if (!r->jax || !scenarios[i] || r->deselected || r->not_run)
      continue;
    bool pinned = scenarios[i]->jax != NULL;
    size_t k = 0;
    while (k < groups && !(g[k].pinned == pinned && strcmp(g[k].name, results[i].jax) == 0))
      k++;
    if (k == MAX_GROUPS)
      continue;
    if (k == groups)
      g[groups++] = (struct group){.name = results[i].jax, .pinned = pinned};
    /* As JUnit has them: an XFAIL skipped, an XPASS failed. */
    g[k].n[r->xfailed ? 2 : r->failure || r->xpassed ? 1 : r->skipped ? 2 : 0]++;
  }
  for (size_t k = 0; k < groups; k++)
    fprintf(cli_human(), "  %s%s: %zu passed, %zu failed, %zu skipped\n", g[k].pinned ? "jax=" : "unpinned, as ",
           g[k].name, g[k].n[0], g[k].n[1], g[k].n[2]);
}

/* check's port workflow options (port_workflow.h). */
typedef struct check_flags {
  const char *select;       /* -k: a substring of the path or the scenario's name */
  bool exitfirst;           /* -x */
  const xfail_list *xfail;  /* --xfail: NULL when not given */
  bool rerun;               /* --rerun-failed */
  const char *record;       /* where the failures are recorded (owned by the caller), or NULL */
} check_flags;

static bool listed(char *const *list, const char *path) {
  for (size_t i = 0; list && list[i]; i++)
    if (strcmp(list[i], path) == 0)
      return true;
  return false;
}

/* --rerun-failed: every scenario the record does not name deselected
 * (nothing, with a note, when the record names none). */
static void deselect_passed(char *const *paths, size_t count, char **record, result *results) {
  bool any = false;
  for (size_t i = 0; i < count; i++)
    any |= listed(record, paths[i]);
  if (!any) {
    fputs("lowersim check: --rerun-failed: no failure recorded for these scenarios: running every "
          "one\n",
          stderr);
    return;
  }
  for (size_t i = 0; i < count; i++)
    if (!listed(record, paths[i]))
      results[i] = (result){.path = paths[i], .name = paths[i], .deselected = true};
}

/* The record for the next --rerun-failed: this run's failures and xpasses,
 * and those recorded before that this run did not judge. */
static void record_failures(const char *where, char **before, char *const *paths,
                            const result *results, size_t count) {
  const char **now_ = lsim_calloc(count + 1, sizeof *now_);
  size_t n = 0, kept = 0;
  for (size_t i = 0; before && before[i]; i++)
    kept++;
  const char **all = now_ ? lsim_calloc(count + kept + 1, sizeof *all) : NULL;
  if (!all) {
    free(now_);
    return;
  }
  for (size_t k = 0; before && before[k]; k++) {
    size_t i = 0;
    while (i < count && strcmp(paths[i], before[k]) != 0)
      i++;
    if (i == count || results[i].deselected || results[i].not_run)
      all[n++] = before[k];
  }
  for (size_t i = 0; i < count; i++)
    if (!results[i].deselected && !results[i].not_run &&
        ((results[i].failure && !results[i].xfailed) || results[i].xpassed))
      all[n++] = paths[i];
  last_failed_write(where, all, n);
  free(all);
  free(now_);
}

/* --xfail: a listed scenario that fails is XFAIL (expected), one that
 * passes XPASS, which fails the run (pytest's strict xfail). */
static void apply_xfail(result *results, size_t count) {
  for (size_t i = 0; i < count; i++) {
    result *r = &results[i];
    if (!r->xfail || r->deselected || r->not_run || r->skipped || r->invalid)
      continue;
    r->xfailed = r->failure != NULL;
    r->xpassed = !r->failure;
  }
}

/* One line for a person, `TAG PATH: TEXT`: the path and the text may hold
 * what a port or a file name brought, so control characters are shown as
 * \xNN (impl_shown); `colour`: the judge's word marks kept. */
static void say(const char *tag, const char *path, const char *text, bool colour) {
  int len = snprintf(NULL, 0, "%s %s: %s", tag, path, text);
  char *line = len >= 0 ? lsim_malloc((size_t)len + 1) : NULL;
  if (line)
    snprintf(line, (size_t)len + 1, "%s %s: %s", tag, path, text);
  char *shown = line ? impl_shown(line, strlen(line), colour) : NULL;
  fprintf(cli_human(), "%s\n", shown ? shown : "(out of memory)");
  free(shown);
  free(line);
}

/* Checks every file in order, printing failures; the exit code (0, or 1
 * when something failed, or 2 when the report cannot be written). */
static int check_files(char *const *paths, size_t count, const impl_setup *impl,
                       const char *junit_path, const lsim_jax_profile *profile, bool json,
                       const check_flags *flags) {
  result *results = lsim_calloc(count, sizeof *results);
  lsim_scenario **scenarios = lsim_calloc(count, sizeof *scenarios);
  impl_case *cases = impl ? lsim_calloc(count, sizeof *cases) : NULL;
  lsim_lowerer *lowerer = NULL;
  if (!results || !scenarios || (impl && !cases) || lsim_lowerer_create(&lowerer, NULL)) {
    free(results);
    free(scenarios);
    free(cases);
    return cli_usage_error("check", "out of memory");
  }
  size_t before_n = 0;
  char **before = flags->record ? last_failed_read(flags->record, &before_n) : NULL;
  if (flags->rerun)
    deselect_passed(paths, count, before, results);
  size_t passed = 0, failed = 0, skipped = 0, xfailed = 0, xpassed = 0, deselected = 0,
         not_run = 0;
  double start = now();
  bool stopped = false;
  for (size_t i = 0; i < count; i++) {
    if (results[i].deselected)
      continue;
    if (stopped) {
      results[i] = (result){.path = paths[i], .name = paths[i], .not_run = true};
      continue;
    }
    check_file(lowerer, impl ? &cases[i] : NULL, paths[i], profile, flags->select, &results[i],
               &scenarios[i]);
    results[i].xfail = flags->xfail ? xfail_reason(flags->xfail, paths[i]) : NULL;
    stopped = flags->exitfirst && results[i].failure && !results[i].xfail;
  }
  if (impl && judge_impl(impl, lsim_lowerer_mlir_context(lowerer), results, cases, count))
    fputs("lowersim check: out of memory running the implementation\n", stderr);
  apply_xfail(results, count);
  size_t invalid = 0;
  for (size_t i = 0; i < count; i++) {
    const result *r = &results[i];
    invalid += r->invalid;
    if (r->deselected) {
      deselected++;
    } else if (r->not_run) {
      not_run++;
    } else if (r->xfailed || r->xpassed) {
      if (!json)
        say(r->xfailed ? "XFAIL" : "XPASS", paths[i], *r->xfail ? r->xfail : "(no reason given)",
            false);
      xfailed += r->xfailed, xpassed += r->xpassed;
    } else if (r->failure) {
      if (!json)
        say("FAIL", paths[i], r->shown ? r->shown : r->failure, r->shown != NULL);
      failed++;
    } else if (r->skipped) {
      if (r->skip_reason && !json)
        say("SKIP", paths[i], r->skip_reason, false);
      skipped++;
    } else {
      passed++;
    }
  }
  int code = junit_path ? write_junit(junit_path, results, count, failed + xpassed, now() - start,
                                      paths, profile)
                        : 0;
  if (json) {
    write_json(results, count, profile,
               (size_t[]){passed, failed, skipped, invalid, xfailed, xpassed, deselected, not_run});
  } else {
    size_t noted = 0;
    for (size_t i = 0; i < count; i++)
      noted += results[i].verdict.notes != NULL;
    if (noted)
      fprintf(cli_human(),
              "%zu scenario%s with notes (kernel bytecode by another MLIR; not differences: "
              "--json and --junit list them)\n",
              noted, noted == 1 ? "" : "s");
    if (not_run)
      fprintf(cli_human(), "stopped at the first failure (-x): %zu scenario%s not run\n",
              not_run, not_run == 1 ? "" : "s");
    print_profile_totals(results, scenarios, count);
    fprintf(cli_human(), "%zu passed, %zu failed, %zu skipped", passed, failed, skipped);
    if (flags->xfail)
      fprintf(cli_human(), ", %zu xfailed, %zu xpassed", xfailed, xpassed);
    if (flags->select || flags->rerun)
      fprintf(cli_human(), ", %zu deselected", deselected);
    fputc('\n', cli_human());
  }
  if (!code && (failed || xpassed))
    code = invalid ? EXIT_INVALID_INPUT : EXIT_LOWERING_ERROR;
  if (flags->record)
    record_failures(flags->record, before, paths, results, count);
  last_failed_free(before);
  for (size_t i = 0; i < count; i++) {
    free(results[i].failure);
    free(results[i].skip_reason);
    free(results[i].shown);
    lsim_scenario_port_verdict_clear(&results[i].verdict);
    lsim_scenario_destroy(scenarios[i]);
    if (cases) {
      free(cases[i].ours);
      lsim_error_clear(&cases[i].err);
    }
  }
  free(cases);
  free(results);
  free(scenarios);
  lsim_lowerer_destroy(lowerer);
  return code;
}

/* --normalize's ways. */
static const char *normalize_values(size_t i) { return i == 0 ? "jax" : NULL; }

int cmd_check(int argc, char **argv) {
  const char *junit_path = NULL, *impl = NULL, *jax = NULL, *normalize = NULL;
  const char *select = NULL, *xfail_path = NULL, *last_failed = NULL;
  const lsim_jax_profile *profile = NULL;
  uint64_t jobs = 1, max_bytes = 0, max_output = 0;
  double timeout = 0;
  bool batch = false, no_progress = false, json = false, exitfirst = false, rerun = false;
  const cli_option options[] = {
      CLI_OPT_STRING("junit", 0, &junit_path, CLI_OUTPUT,
                     CLI_HELP("OUT.xml", "a JUnit XML report (\"-\": standard output, the summary "
                              "then on stderr)")),
      CLI_OPT_STRING("impl", 0, &impl,
                     CLI_HELP("COMMAND", "compare another implementation's outcomes")),
      CLI_OPT_CHOICE("jax", 0, &jax, cli_jax_values,
                     CLI_HELP("VERSION", "the JAX version of scenarios that name none")),
      CLI_OPT_U64("jobs", 'j', &jobs, 1, 256, CLI_HELP("N", "N ports at once (default 1)")),
      CLI_OPT_DOUBLE("timeout", 0, &timeout, 0, 1e6,
                     CLI_HELP("S", "kill a port that has not answered within S seconds")),
      CLI_OPT_FLAG("batch", 0, &batch, CLI_HELP(NULL, "the batch protocol (above)")),
      CLI_OPT_U64("max-output", 0, &max_output, 1, CLI_MAX_BYTES_LIMIT,
                  CLI_HELP("N", "the most bytes a port's answer may write (default 67108864, "
                           "at most 2^40)")),
      CLI_OPT_CHOICE("normalize", 0, &normalize, normalize_values,
                     CLI_HELP("WAY", "read both modules with jaxlib's MLIR first "
                              "(build/oracle-venvs/RELEASE for --jax RELEASE, build/oracle-venv or "
                              "$LOWERSIM_JAX_PYTHON; Pallas kernels too), so StableHLO's "
                              "pretty form is accepted and attributes left to their defaults "
                              "compare equal")),
      CLI_OPT_FLAG("no-progress", 0, &no_progress,
                   CLI_HELP(NULL, "no progress line (it is only shown on a terminal)")),
      CLI_OPT_FLAG("json", 0, &json, CLI_OUTPUT, CLI_HELP(NULL, "one JSON object on stdout instead")),
      CLI_OPT_U64("max-bytes", 0, &max_bytes, 1, CLI_MAX_BYTES_LIMIT,
                  CLI_HELP("N", "the largest scenario file read (default 8388608, at most "
                           "2^40)")),
      CLI_OPT_STRING("select", 'k', &select,
                     CLI_HELP("PATTERN", "only the scenarios whose path or name holds PATTERN")),
      CLI_OPT_FLAG("exitfirst", 'x', &exitfirst,
                   CLI_HELP(NULL, "stop at the first failure (ports still running are killed)")),
      CLI_OPT_STRING("xfail", 0, &xfail_path,
                     CLI_HELP("FILE", "scenarios expected to fail, one path or glob per line, "
                              "the reason after `#`: XFAIL, and XPASS fails the run")),
      CLI_OPT_FLAG("rerun-failed", 0, &rerun,
                   CLI_HELP(NULL, "only the scenarios that failed last time (all when none "
                            "did)")),
      CLI_OPT_STRING("last-failed", 0, &last_failed, CLI_OUTPUT,
                     CLI_HELP("FILE", "where the record of failures is kept (default, for "
                              "--impl runs: $XDG_CACHE_HOME/lowersim/last-failed/HASH of the "
                              "working folder)"))};
  cli_args args;
  int code = cli_parse("check", argc, argv, options, sizeof options / sizeof options[0], help,
                       &args);
  if (code)
    return code < 0 ? 0 : code;
  lsim_scenario_set_max_bytes((size_t)max_bytes);
  if (jax && (code = cli_parse_jax("check", "--jax", jax, &profile)))
    return code;
  if (normalize && strcmp(normalize, "jax") != 0)
    return cli_value_error("check", "--normalize", "knows one way, jax", normalize,
                           normalize_values);
  if (!impl && (batch || normalize || timeout > 0 || jobs != 1 || max_output))
    return cli_usage_error("check",
                           "--batch, --jobs, --timeout, --normalize and --max-output need --impl");
  if (impl && batch && strstr(impl, "{scenario}"))
    return cli_usage_error("check", "--batch: the command is started once and reads the paths "
                                    "on its stdin, so it takes no {scenario}");
  if (select && !*select)
    return cli_usage_error("check", "-k needs a pattern (a part of a path or a scenario's name)");
  xfail_list xfails = {0};
  if (xfail_path && (code = xfail_read(xfail_path, &xfails)))
    return code;
  /* The record of failures is kept for runs of a port (and whenever
   * --last-failed or --rerun-failed asks for it). */
  char *record = impl || last_failed || rerun ? last_failed_path(last_failed) : NULL;
  if (rerun && !record) {
    xfail_free(&xfails);
    return cli_usage_error("check", "--rerun-failed: no record (set HOME or XDG_CACHE_HOME, or "
                                    "name one with --last-failed FILE)");
  }
  check_flags flags = {.select = select, .exitfirst = exitfirst,
                       .xfail = xfail_path ? &xfails : NULL, .rerun = rerun, .record = record};
  impl_setup setup = {.run = {.command = impl, .batch = batch, .jobs = (unsigned)jobs,
                              .timeout = timeout, .max_output = (size_t)max_output,
                              .progress = !no_progress,
                              .what = "check --impl"},
                      .normalize = normalize, .colour = !json && cli_use_colour(cli_human()),
                      .release = profile ? lsim_jax_profile_or_default(profile)->name : NULL,
                      .exitfirst = exitfirst};
  cli_walk *walk = cli_walk_create("check", true);
  if (!walk) {
    xfail_free(&xfails);
    free(record);
    return cli_usage_error("check", "out of memory");
  }
  for (int i = 0; !code && i < args.num_operands; i++) {
    if (impl && strcmp(args.operands[i], "-") == 0)
      code = cli_usage_error("check", "--impl needs scenario files, not standard input");
    else
      code = cli_walk_add(walk, args.operands[i]);
  }
  size_t count = 0;
  char *const *paths = cli_walk_files(walk, &count);
  if (!code && count == 0)
    code = cli_usage_error("check", "no scenario found (usage: lowersim check PATH...)");
  if (!code)
    code = check_files(paths, count, impl ? &setup : NULL, junit_path, profile, json, &flags);
  cli_walk_destroy(walk);
  xfail_free(&xfails);
  free(record);
  return code;
}
