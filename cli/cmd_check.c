/* cli/cmd_check.c: `lowersim check PATH... [--junit OUT.xml]`: runs every
 * scenario with <expect> under PATH and reports one line per failure, then
 * `N passed, N failed`. */
#include "cli/cli.h"
#include "lowersim/scenario_run.h"

#include <libxml/xmlwriter.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Checks one file into `r` (r->failure set on failure). */
static int check_file(lsim_lowerer *lowerer, const char *path, result *r, lsim_scenario **keep) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  double start = now();
  *r = (result){.path = path, .name = path};
  int rc = lsim_scenario_read_file(path, &s, &err);
  if (!rc && s->name)
    r->name = s->name;
  if (rc) {
    r->failure = strdup(lsim_error_message(&err));
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
  xmlTextWriterPtr w = xmlNewTextWriterFilename(out, 0);
  if (!w)
    return false;
  char buf[64];
  bool ok = xmlTextWriterSetIndent(w, 1) >= 0 && xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL) >= 0 &&
            xmlTextWriterStartElement(w, BAD_CAST "testsuites") >= 0 &&
            xmlTextWriterStartElement(w, BAD_CAST "testsuite") >= 0 &&
            xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST "lowersim check") >= 0;
  size_t skipped = 0;
  for (size_t i = 0; i < n; i++)
    skipped += results[i].skipped;
  snprintf(buf, sizeof buf, "%zu", n);
  ok = ok && xmlTextWriterWriteAttribute(w, BAD_CAST "tests", BAD_CAST buf) >= 0;
  snprintf(buf, sizeof buf, "%zu", failed);
  ok = ok && xmlTextWriterWriteAttribute(w, BAD_CAST "failures", BAD_CAST buf) >= 0;
  snprintf(buf, sizeof buf, "%zu", skipped);
  ok = ok && xmlTextWriterWriteAttribute(w, BAD_CAST "skipped", BAD_CAST buf) >= 0;
  snprintf(buf, sizeof buf, "%.6f", seconds);
  ok = ok && xmlTextWriterWriteAttribute(w, BAD_CAST "time", BAD_CAST buf) >= 0;
  for (size_t i = 0; ok && i < n; i++) {
    const result *r = &results[i];
    snprintf(buf, sizeof buf, "%.6f", r->seconds);
    ok = xmlTextWriterStartElement(w, BAD_CAST "testcase") >= 0 &&
         xmlTextWriterWriteAttribute(w, BAD_CAST "classname", BAD_CAST r->path) >= 0 &&
         xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST r->name) >= 0 &&
         xmlTextWriterWriteAttribute(w, BAD_CAST "time", BAD_CAST buf) >= 0;
    if (ok && r->skipped)
      ok = xmlTextWriterStartElement(w, BAD_CAST "skipped") >= 0 &&
           xmlTextWriterWriteAttribute(w, BAD_CAST "message", BAD_CAST "no <expect>") >= 0 &&
           xmlTextWriterEndElement(w) >= 0;
    if (ok && r->failure)
      ok = xmlTextWriterStartElement(w, BAD_CAST "failure") >= 0 &&
           xmlTextWriterWriteAttribute(w, BAD_CAST "message", BAD_CAST r->failure) >= 0 &&
           xmlTextWriterWriteString(w, BAD_CAST r->failure) >= 0 && xmlTextWriterEndElement(w) >= 0;
    ok = ok && xmlTextWriterEndElement(w) >= 0;
  }
  ok = ok && xmlTextWriterEndDocument(w) >= 0;
  xmlFreeTextWriter(w);
  return ok;
}

static void help(void) {
  printf("usage: lowersim check PATH... [--junit OUT.xml]\n\n"
         "Runs every scenario with <expect> in the files and folders given (folders are\n"
         "searched for *.xml), prints one line per failure with what differs, and ends\n"
         "with `N passed, N failed, N skipped` (skipped: no <expect>).\n"
         "--junit writes a JUnit XML report. Exit 0 when nothing failed.\n");
}

int cmd_check(int argc, char **argv) {
  const char *junit = NULL;
  file_list files = {0};
  int code = 0;
  for (int i = 1; i < argc && !code; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      help();
      code = -1;
    } else if (strcmp(argv[i], "--junit") == 0) {
      if (++i >= argc)
        code = cli_usage_error("check", "--junit needs a file name");
      else
        junit = argv[i];
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
      check_file(lowerer, files.paths[i], &results[i], &scenarios[i]);
      if (results[i].failure) {
        printf("FAIL %s: %s\n", files.paths[i], results[i].failure);
        failed++;
      } else if (results[i].skipped) {
        skipped++;
      } else {
        passed++;
      }
    }
    if (junit && !write_junit(junit, results, files.count, failed, now() - start)) {
      fprintf(stderr, "lowersim check: cannot write %s\n", junit);
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
