/* cli/cmd_check.c: `lowersim check PATH... [--junit OUT.xml]`: runs every
 * scenario with <expect> under PATH and reports one line per failure, then
 * `N passed, N failed`. */
#include "cli.h"
#include "lowersim/alloc.h"
#include "lowersim/scenario_run.h"
#include "lowersim/mlir_text.h"

#include <mlir-c/IR.h>

#include "junit.h"
#include "options.h"
#include "walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

typedef struct result {
  const char *path;
  const char *name;
  const char *jax; /* the JAX version the scenario was checked for; NULL: not read */
  double seconds;
  bool skipped;
  char *failure; /* NULL: passed */
} result;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- --impl: another implementation's output against lowersim's ------------------- */

/* All of `f` from its start as a string (owned), or NULL. */
static char *slurp(FILE *f) {
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  char buf[4096];
  size_t n;
  bool ok = out != NULL && fseek(f, 0, SEEK_SET) == 0;
  while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0)
    ok = fwrite(buf, 1, n, out) == n;
  ok = ok && !ferror(f);
  if (out)
    ok = fclose(out) == 0 && ok;
  if (!ok) {
    free(text);
    return NULL;
  }
  return text;
}

/* `path` quoted for the shell. */
static void shell_quote(FILE *f, const char *path) {
  fputc('\'', f);
  for (const char *p = path; *p; p++) {
    if (*p == '\'')
      fputs("'\\''", f);
    else
      fputc(*p, f);
  }
  fputc('\'', f);
}

/* `command` with {scenario} replaced by the quoted path, its output sent to
 * the two descriptors; owned, NULL when out of memory. */
static char *impl_command(const char *command, const char *path, int out_fd, int err_fd) {
  char *cmd = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&cmd, &size);
  if (!f)
    return NULL;
  fputc('(', f);
  for (const char *p = command; *p;) {
    const char *at = strstr(p, "{scenario}");
    fwrite(p, 1, at ? (size_t)(at - p) : strlen(p), f);
    if (!at)
      break;
    shell_quote(f, path);
    p = at + strlen("{scenario}");
  }
  fprintf(f, "\n) >/dev/fd/%d 2>/dev/fd/%d </dev/null", out_fd, err_fd);
  if (fclose(f) != 0) {
    free(cmd);
    return NULL;
  }
  return cmd;
}

/* Runs `command` with {scenario} replaced by the shell-quoted path; captures
 * its stdout and stderr (owned, "" when empty); returns its exit status (-1:
 * it could not run). */
static int run_impl(const char *command, const char *path, char **out, char **err) {
  /* Anonymous files (the command writes them through /dev/fd): nothing to
   * leave behind whatever stops lowersim. */
  FILE *fo = tmpfile(), *fe = tmpfile();
  char *cmd = fo && fe ? impl_command(command, path, fileno(fo), fileno(fe)) : NULL;
  int status = cmd ? system(cmd) : -1;
  *out = fo ? slurp(fo) : NULL;
  *err = fe ? slurp(fe) : NULL;
  if (fo)
    fclose(fo);
  if (fe)
    fclose(fe);
  free(cmd);
  if (!*out || !*err)
    status = -1;
  return status < 0 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The module text as MLIR parses and prints it, or NULL when it does not parse. */
static char *canonical_module(MlirContext mlir, const char *text) {
  MlirModule m;
  if (lsim_mlir_parse_module(mlir, text, &m, NULL))
    return NULL;
  char *printed = lsim_mlir_print(mlirModuleGetOperation(m));
  mlirModuleDestroy(m);
  return printed;
}

/* Up to 60 characters of `s`, stopping at the end of the line. */
static int excerpt(const char *s) {
  int n = 0;
  while (n < 60 && s[n] && s[n] != '\n')
    n++;
  return n;
}

/* Where two module texts first differ: line, column and what each has there. */
static void describe_difference(FILE *diff, const char *a, const char *b) {
  int line = 1, column = 1;
  for (; *a && *a == *b; a++, b++, column++) {
    if (*a == '\n')
      line++, column = 0;
  }
  fprintf(diff,
          "modules differ at line %d, column %d: lowersim has \"%.*s\", the implementation "
          "\"%.*s\"",
          line, column, excerpt(a), a, excerpt(b), b);
}

/* True when one line of `text` ends with `want` after a space or at its start
 * (`CODE: ErrorClass: message` matches `ErrorClass: message`). */
static bool has_error_line(const char *text, const char *want) {
  size_t want_len = strlen(want);
  for (const char *line = text; *line;) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    if (len >= want_len && memcmp(line + len - want_len, want, want_len) == 0 &&
        (len == want_len || line[len - want_len - 1] == ' '))
      return true;
    line += len + (end ? 1 : 0);
  }
  return false;
}

/* What differs between lowersim's module `ours` and the implementation's
 * stdout `out` (both parsed and printed by MLIR). */
static void compare_modules(FILE *diff, MlirContext mlir, const char *ours, const char *out) {
  char *a = canonical_module(mlir, ours ? ours : ""), *b = canonical_module(mlir, out);
  if (!b)
    fputs("the implementation's output does not parse as MLIR", diff);
  else if (!a || strcmp(a, b) != 0)
    describe_difference(diff, a ? a : "", b);
  free(a);
  free(b);
}

/* What differs between lowersim's error and the implementation's exit
 * `status` and stderr `errtext`. */
static void compare_errors(FILE *diff, const lsim_error *err, int status, const char *errtext) {
  char want[4096];
  snprintf(want, sizeof want, "%s: %s", lsim_error_class(err), lsim_error_message(err));
  if (status == 0 || !has_error_line(errtext, want))
    fprintf(diff, "expected the error \"%s\"; the implementation exits %d: %s", want, status,
            status ? errtext : "(a module)");
}

/* Compares the implementation's outcome for `s` with lowersim's: a module is
 * compared after both are parsed and printed by MLIR, an error by class and
 * message.  Returns what differs (owned), or NULL when they agree. */
static char *compare_impl(lsim_lowerer *lowerer, MlirContext mlir, const char *command,
                          const lsim_scenario *s, const lsim_scenario_run_options *opts,
                          bool *skipped) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario_outcome outcome;
  int rc = lsim_scenario_run(lowerer, s, opts, &outcome, &err);
  char *ours = rc ? NULL : lsim_lowering_print(outcome.lowering);
  lsim_scenario_outcome_clear(&outcome);
  *skipped = rc == LSIM_E_INVALID_INPUT; /* lowersim refuses the scenario: nothing to compare */
  char *out = NULL, *errtext = NULL, *diff = NULL;
  size_t size = 0;
  int status = *skipped ? 0 : run_impl(command, s->path, &out, &errtext);
  FILE *f = *skipped ? NULL : open_memstream(&diff, &size);
  if (f && status < 0)
    fputs("the implementation could not be run", f);
  else if (f && !rc && status)
    fprintf(f, "lowersim gives a module, the implementation exits %d: %s", status, errtext);
  else if (f && !rc)
    compare_modules(f, mlir, ours, out);
  else if (f)
    compare_errors(f, &err, status, errtext);
  if (f && fclose(f) == 0 && size == 0) {
    free(diff);
    diff = NULL;
  }
  free(ours);
  free(out);
  free(errtext);
  lsim_error_clear(&err);
  return diff;
}

/* Checks one file into `r` (r->failure set on failure). */
static int check_file(lsim_lowerer *lowerer, const char *impl, MlirContext mlir, const char *path,
                      const lsim_jax_profile *profile, result *r, lsim_scenario **keep) {
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
  if (rc) {
    r->failure = lsim_strdup(lsim_error_message(&err));
  } else if (impl) {
    r->failure = compare_impl(lowerer, mlir, impl, s, &opts, &r->skipped);
  } else if (!lsim_scenario_expects(s)) {
    r->skipped = true;
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

static int write_junit(const char *out, const result *results, size_t n, size_t failed,
                       double seconds, char *const *paths, const lsim_jax_profile *profile) {
  size_t skipped = 0;
  cli_inputs inputs = {0};
  bool ok = true;
  for (size_t i = 0; i < n; i++) {
    skipped += results[i].skipped;
    ok = ok && cli_inputs_add(&inputs, paths[i]);
  }
  junit *j = ok ? junit_open("lowersim check", n, failed, skipped, seconds) : NULL;
  junit_property(j, "jax", lsim_jax_profile_or_default(profile)->name);
  for (size_t i = 0; j && i < n; i++)
    junit_case(j, results[i].path, results[i].name, results[i].seconds, results[i].failure,
               results[i].skipped ? "no <expect>" : NULL, results[i].jax);
  int code = junit_close(j, "check", out, &inputs);
  cli_inputs_free(&inputs);
  return code;
}

static void help(void) {
  printf("usage: lowersim check [--junit OUT.xml] [--impl 'COMMAND {scenario}']\n"
         "                      [--jax VERSION] [--max-bytes N] PATH...\n\n"
         "Runs every scenario with <expect> in the files and folders given (folders are\n"
         "searched for *.xml, each folder once however many symbolic links lead to it,\n"
         "each file once; what is not a regular file is skipped with a note; \"-\" is\n"
         "standard input), prints one line per failure with what differs, the counts\n"
         "per JAX version profile (`  jax=V: ...`, `  unpinned, as V: ...`), and ends\n"
         "with `N passed, N failed, N skipped` (skipped: no <expect>).\n"
         "--junit writes a JUnit XML report (\"-\": standard output; the JAX version as\n"
         "a property of the suite and of each case). Exit 0 when nothing failed.\n"
         "--jax: the JAX version of the scenarios that name none in <scenario jax=...>\n"
         "(default: the newest); a scenario's own jax= always wins, since its <expect>\n"
         "holds for the JAX it names.\n"
         "--max-bytes N: the largest scenario file read (default 8388608, at most 2^40).\n\n"
         "--impl runs COMMAND (a shell command; {scenario} becomes the file's path) for every\n"
         "scenario and compares its outcome with lowersim's: a module on stdout (exit 0) is\n"
         "compared after both are parsed and printed by MLIR; an error (non-zero exit) must\n"
         "end a line of stderr with `ErrorClass: message`, as `CODE: ErrorClass: message`\n"
         "does. Scenarios lowersim itself rejects as invalid are skipped.\n");
}

/* The summary per JAX version profile, before the totals line: scenarios
 * that pin one (jax=, by the profile it names), and those that pin none
 * (checked as --jax, default the oracle's). */
static void print_profile_totals(const result *results, lsim_scenario *const *scenarios,
                                 size_t count) {
  enum { MAX_GROUPS = 16 };
  struct group { const char *name; bool pinned; size_t n[3]; /* passed, failed, skipped */ };
  struct group g[MAX_GROUPS];
  size_t groups = 0;
  for (size_t i = 0; i < count; i++) {
    if (!results[i].jax || !scenarios[i])
      continue;
    bool pinned = scenarios[i]->jax != NULL;
    size_t k = 0;
    while (k < groups && !(g[k].pinned == pinned && strcmp(g[k].name, results[i].jax) == 0))
      k++;
    if (k == MAX_GROUPS)
      continue;
    if (k == groups)
      g[groups++] = (struct group){.name = results[i].jax, .pinned = pinned};
    g[k].n[results[i].failure ? 1 : results[i].skipped ? 2 : 0]++;
  }
  for (size_t k = 0; k < groups; k++)
    printf("  %s%s: %zu passed, %zu failed, %zu skipped\n", g[k].pinned ? "jax=" : "unpinned, as ",
           g[k].name, g[k].n[0], g[k].n[1], g[k].n[2]);
}

/* Checks every file in order, printing failures; the exit code (0, or 1
 * when something failed, or 2 when the report cannot be written). */
static int check_files(char *const *paths, size_t count, const char *impl,
                       const char *junit_path, const lsim_jax_profile *profile) {
  result *results = lsim_calloc(count, sizeof *results);
  lsim_scenario **scenarios = lsim_calloc(count, sizeof *scenarios);
  lsim_lowerer *lowerer = NULL;
  if (!results || !scenarios || lsim_lowerer_create(&lowerer, NULL)) {
    free(results);
    free(scenarios);
    return cli_usage_error("check", "out of memory");
  }
  size_t passed = 0, failed = 0, skipped = 0;
  double start = now();
  for (size_t i = 0; i < count; i++) {
    check_file(lowerer, impl, lsim_lowerer_mlir_context(lowerer), paths[i], profile, &results[i],
               &scenarios[i]);
    if (results[i].failure) {
      printf("FAIL %s: %s\n", paths[i], results[i].failure);
      failed++;
    } else if (results[i].skipped) {
      skipped++;
    } else {
      passed++;
    }
  }
  int code = junit_path ? write_junit(junit_path, results, count, failed, now() - start, paths, profile)
                        : 0;
  print_profile_totals(results, scenarios, count);
  printf("%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
  if (!code && failed)
    code = EXIT_LOWERING_ERROR;
  for (size_t i = 0; i < count; i++) {
    free(results[i].failure);
    lsim_scenario_destroy(scenarios[i]);
  }
  free(results);
  free(scenarios);
  lsim_lowerer_destroy(lowerer);
  return code;
}

int cmd_check(int argc, char **argv) {
  const char *junit_path = NULL, *impl = NULL, *jax = NULL;
  uint64_t max_bytes = 0;
  const lsim_jax_profile *profile = NULL;
  const cli_option options[] = {CLI_OPT_STRING("junit", 0, &junit_path),
                                CLI_OPT_STRING("impl", 0, &impl), CLI_OPT_STRING("jax", 0, &jax),
                                CLI_OPT_U64("max-bytes", 0, &max_bytes, 1, CLI_MAX_BYTES_LIMIT)};
  cli_args args;
  int code = cli_parse("check", argc, argv, options, 4, help, &args);
  if (code)
    return code < 0 ? 0 : code;
  lsim_scenario_set_max_bytes((size_t)max_bytes);
  if (jax && (code = cli_parse_jax("check", "--jax", jax, &profile)))
    return code;
  cli_walk *walk = cli_walk_create("check", true);
  if (!walk)
    return cli_usage_error("check", "out of memory");
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
    code = check_files(paths, count, impl, junit_path, profile);
  cli_walk_destroy(walk);
  return code;
}
