/* cli/cmd_check.c: `lowersim check PATH... [--junit OUT.xml]`: runs every
 * scenario with <expect> under PATH and reports one line per failure, then
 * `N passed, N failed`. */
#include "cli/cli.h"
#include "lowersim/scenario_run.h"
#include "support/mlir_text.h"
#include "support/strbuf.h"

#include <mlir-c/IR.h>

#include "cli/junit.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

typedef struct file_list {
  char **paths;
  size_t count, cap;
} file_list;

static bool add_path(file_list *l, const char *path) {
  if (l->count == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 64;
    char **grown = realloc(l->paths, cap * sizeof *grown);
    if (!grown)
      return false;
    l->paths = grown;
    l->cap = cap;
  }
  return (l->paths[l->count] = strdup(path)) != NULL && ++l->count;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Collects PATH itself, or every *.xml below it. */
static bool collect(file_list *l, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0)
    return false;
  if (!S_ISDIR(st.st_mode))
    return add_path(l, path);
  DIR *dir = opendir(path);
  if (!dir)
    return false;
  bool ok = true;
  for (struct dirent *e; ok && (e = readdir(dir));) {
    if (e->d_name[0] == '.')
      continue;
    size_t n = strlen(path) + strlen(e->d_name) + 2;
    char *child = malloc(n);
    if (!child) {
      ok = false;
      break;
    }
    snprintf(child, n, "%s/%s", path, e->d_name);
    struct stat cs;
    if (stat(child, &cs) == 0 && (S_ISDIR(cs.st_mode) || ends_with(child, ".xml")))
      ok = collect(l, child);
    free(child);
  }
  closedir(dir);
  return ok;
}

static int compare_paths(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct result {
  const char *path;
  const char *name;
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

/* Reads a whole file into `sb`. */
static bool slurp(const char *path, lsim_strbuf *sb) {
  FILE *f = fopen(path, "r");
  if (!f)
    return false;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    lsim_strbuf_append(sb, buf, n);
  fclose(f);
  return !lsim_strbuf_failed(sb);
}

/* Runs `command` with {scenario} replaced by the shell-quoted path; captures
 * its stdout and stderr; returns its exit status (-1: it could not run). */
static int run_impl(const char *command, const char *path, lsim_strbuf *out, lsim_strbuf *err) {
  lsim_strbuf quoted = LSIM_STRBUF_INIT, cmd = LSIM_STRBUF_INIT;
  lsim_strbuf_putc(&quoted, '\'');
  for (const char *p = path; *p; p++) {
    if (*p == '\'')
      lsim_strbuf_puts(&quoted, "'\\''");
    else
      lsim_strbuf_putc(&quoted, *p);
  }
  lsim_strbuf_putc(&quoted, '\'');
  lsim_strbuf_puts(&cmd, "(");
  for (const char *p = command; *p;) {
    const char *at = strstr(p, "{scenario}");
    lsim_strbuf_append(&cmd, p, at ? (size_t)(at - p) : strlen(p));
    if (!at)
      break;
    lsim_strbuf_puts(&cmd, lsim_strbuf_cstr(&quoted));
    p = at + strlen("{scenario}");
  }
  char out_path[] = "/tmp/lowersim-impl-out-XXXXXX", err_path[] = "/tmp/lowersim-impl-err-XXXXXX";
  int fo = mkstemp(out_path), fe = mkstemp(err_path);
  lsim_strbuf_printf(&cmd, "\n) >%s 2>%s </dev/null", out_path, err_path);
  int status = fo >= 0 && fe >= 0 && !lsim_strbuf_failed(&cmd) ? system(lsim_strbuf_cstr(&cmd)) : -1;
  if (fo >= 0) {
    close(fo);
    slurp(out_path, out);
    unlink(out_path);
  }
  if (fe >= 0) {
    close(fe);
    slurp(err_path, err);
    unlink(err_path);
  }
  lsim_strbuf_free(&quoted);
  lsim_strbuf_free(&cmd);
  return status < 0 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}


/* The module text as MLIR parses and prints it, or NULL when it does not parse. */
static char *canonical_module(MlirContext mlir, const char *text) {
  MlirModule m = mlirModuleCreateParse(mlir, mlirStringRefCreateFromCString(text));
  if (mlirModuleIsNull(m))
    return NULL;
  lsim_strbuf sb = LSIM_STRBUF_INIT;
  mlirOperationPrint(mlirModuleGetOperation(m), lsim_strbuf_append_mlir, &sb);
  mlirModuleDestroy(m);
  return lsim_strbuf_take(&sb);
}

/* Up to 60 characters of `s`, stopping at the end of the line. */
static int excerpt(const char *s) {
  int n = 0;
  while (n < 60 && s[n] && s[n] != '\n')
    n++;
  return n;
}

/* Where two module texts first differ: line, column and what each has there. */
static void describe_difference(lsim_strbuf *diff, const char *a, const char *b) {
  int line = 1, column = 1;
  for (; *a && *a == *b; a++, b++, column++) {
    if (*a == '\n')
      line++, column = 0;
  }
  lsim_strbuf_printf(diff,
                     "modules differ at line %d, column %d: lowersim has \"%.*s\", the "
                     "implementation \"%.*s\"",
                     line, column, excerpt(a), a, excerpt(b), b);
}

/* True when one line of `text` ends with `want` after a space or at its start
 * (`CODE: ErrorClass: message` matches `ErrorClass: message`). */
static bool has_error_line(const char *text, const lsim_strbuf *want) {
  for (const char *line = text; *line;) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    if (len >= want->len && memcmp(line + len - want->len, want->data, want->len) == 0 &&
        (len == want->len || line[len - want->len - 1] == ' '))
      return true;
    line += len + (end ? 1 : 0);
  }
  return false;
}

/* Compares the implementation's outcome for `s` with lowersim's: a module is
 * compared after both are parsed and printed by MLIR, an error by class and
 * message.  Returns what differs (owned), or NULL when they agree. */
static char *compare_impl(lsim_lowerer *lowerer, MlirContext mlir, const char *command,
                          const lsim_scenario *s, bool *skipped) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario_outcome outcome;
  int rc = lsim_scenario_run(lowerer, s, NULL, &outcome, &err);
  char *ours = rc ? NULL : lsim_lowering_print(outcome.lowering);
  lsim_scenario_outcome_clear(&outcome);
  lsim_strbuf out = LSIM_STRBUF_INIT, errtext = LSIM_STRBUF_INIT, diff = LSIM_STRBUF_INIT;
  *skipped = rc == LSIM_E_INVALID_INPUT;
  int status = *skipped ? 0 : run_impl(command, s->path, &out, &errtext);
  if (*skipped) {
    /* lowersim refuses the scenario itself: nothing to compare. */
  } else if (status < 0) {
    lsim_strbuf_puts(&diff, "the implementation could not be run");
  } else if (!rc && status) {
    lsim_strbuf_printf(&diff, "lowersim gives a module, the implementation exits %d: %s", status,
                       lsim_strbuf_cstr(&errtext));
  } else if (!rc) {
    char *a = canonical_module(mlir, ours ? ours : ""), *b = canonical_module(mlir, lsim_strbuf_cstr(&out));
    if (!b)
      lsim_strbuf_puts(&diff, "the implementation's output does not parse as MLIR");
    else if (!a || strcmp(a, b) != 0)
      describe_difference(&diff, a ? a : "", b);
    free(a);
    free(b);
  } else {
    lsim_strbuf want = LSIM_STRBUF_INIT;
    lsim_strbuf_printf(&want, "%s: %s", lsim_error_class(&err), lsim_error_message(&err));
    if (status == 0 || !has_error_line(lsim_strbuf_cstr(&errtext), &want))
      lsim_strbuf_printf(&diff, "expected the error \"%s\"; the implementation exits %d: %s",
                         lsim_strbuf_cstr(&want), status,
                         status ? lsim_strbuf_cstr(&errtext) : "(a module)");
    lsim_strbuf_free(&want);
  }
  free(ours);
  lsim_error_clear(&err);
  lsim_strbuf_free(&out);
  lsim_strbuf_free(&errtext);
  if (!diff.len) {
    lsim_strbuf_free(&diff);
    return NULL;
  }
  return lsim_strbuf_take(&diff);
}

/* Checks one file into `r` (r->failure set on failure). */
static int check_file(lsim_lowerer *lowerer, const char *impl, MlirContext mlir, const char *path,
                      result *r, lsim_scenario **keep) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  double start = now();
  *r = (result){.path = path, .name = path};
  int rc = lsim_scenario_read_file(path, &s, &err);
  if (!rc && s->name)
    r->name = s->name;
  if (rc) {
    r->failure = strdup(lsim_error_message(&err));
  } else if (impl) {
    r->failure = compare_impl(lowerer, mlir, impl, s, &r->skipped);
  } else if (!s->expect.present) {
    r->skipped = true;
  } else {
    lsim_scenario_verdict v;
    rc = lsim_scenario_check(lowerer, s, &v, &err);
    if (rc)
      r->failure = strdup(lsim_error_message(&err));
    else if (!v.passed)
      r->failure = v.difference, v.difference = NULL;
    lsim_scenario_verdict_clear(&v);
  }
  r->seconds = now() - start;
  lsim_error_clear(&err);
  *keep = s;
  return rc == LSIM_E_NO_MEMORY ? rc : LSIM_OK;
}

static bool write_junit(const char *out, const result *results, size_t n, size_t failed,
                        double seconds) {
  size_t skipped = 0;
  for (size_t i = 0; i < n; i++)
    skipped += results[i].skipped;
  junit *j = junit_open(out, "lowersim check", n, failed, skipped, seconds);
  for (size_t i = 0; j && i < n; i++)
    junit_case(j, results[i].path, results[i].name, results[i].seconds, results[i].failure,
               results[i].skipped ? "no <expect>" : NULL);
  return junit_close(j);
}

static void help(void) {
  printf("usage: lowersim check PATH... [--junit OUT.xml] [--impl 'COMMAND {scenario}']\n\n"
         "Runs every scenario with <expect> in the files and folders given (folders are\n"
         "searched for *.xml), prints one line per failure with what differs, and ends\n"
         "with `N passed, N failed, N skipped` (skipped: no <expect>).\n"
         "--junit writes a JUnit XML report. Exit 0 when nothing failed.\n\n"
         "--impl runs COMMAND (a shell command; {scenario} becomes the file's path) for every\n"
         "scenario and compares its outcome with lowersim's: a module on stdout (exit 0) is\n"
         "compared after both are parsed and printed by MLIR; an error (non-zero exit) must\n"
         "end a line of stderr with `ErrorClass: message`, as `CODE: ErrorClass: message`\n"
         "does. Scenarios lowersim itself rejects as invalid are skipped.\n");
}

int cmd_check(int argc, char **argv) {
  const char *junit_path = NULL, *impl = NULL;
  file_list files = {0};
  int code = 0;
  for (int i = 1; i < argc && !code; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      help();
      code = -1;
    } else if (strcmp(argv[i], "--impl") == 0) {
      if (++i >= argc)
        code = cli_usage_error("check", "--impl needs a command");
      else
        impl = argv[i];
    } else if (strcmp(argv[i], "--junit") == 0) {
      if (++i >= argc)
        code = cli_usage_error("check", "--junit needs a file name");
      else
        junit_path = argv[i];
    } else if (argv[i][0] == '-') {
      code = cli_usage_error("check", "unknown option '%s' (see --help)", argv[i]);
    } else if (!collect(&files, argv[i])) {
      code = cli_usage_error("check", "cannot read '%s'", argv[i]);
    }
  }
  if (!code && files.count == 0)
    code = cli_usage_error("check", "no scenario found (usage: lowersim check PATH...)");
  result *results = code ? NULL : calloc(files.count, sizeof *results);
  lsim_scenario **scenarios = code ? NULL : calloc(files.count, sizeof *scenarios);
  lsim_lowerer *lowerer = NULL;
  if (!code && (!results || !scenarios || lsim_lowerer_create(&lowerer, NULL)))
    code = EXIT_LOWERING_ERROR;
  size_t passed = 0, failed = 0, skipped = 0;
  double start = now();
  if (!code) {
    qsort(files.paths, files.count, sizeof *files.paths, compare_paths);
    for (size_t i = 0; i < files.count; i++) {
      check_file(lowerer, impl, lsim_lowerer_mlir_context(lowerer), files.paths[i], &results[i],
                 &scenarios[i]);
      if (results[i].failure) {
        printf("FAIL %s: %s\n", files.paths[i], results[i].failure);
        failed++;
      } else if (results[i].skipped) {
        skipped++;
      } else {
        passed++;
      }
    }
    if (junit_path && !write_junit(junit_path, results, files.count, failed, now() - start)) {
      fprintf(stderr, "lowersim check: cannot write %s\n", junit_path);
      code = EXIT_INVALID_INPUT;
    }
    printf("%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
    if (!code && failed)
      code = EXIT_LOWERING_ERROR;
  }
  for (size_t i = 0; i < files.count; i++) {
    if (results)
      free(results[i].failure);
    if (scenarios)
      lsim_scenario_destroy(scenarios[i]);
    free(files.paths[i]);
  }
  free(results);
  free(scenarios);
  free(files.paths);
  lsim_lowerer_destroy(lowerer);
  return code < 0 ? 0 : code;
}
