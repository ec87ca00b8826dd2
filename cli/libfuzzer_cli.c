/* cli/libfuzzer_cli.c: the libFuzzer target of the whole command line:
 * arguments and the files they name.
 *
 * An input is the arguments, one per line, then (after a line "--FILE--")
 * the bytes of a file, which the run finds as `in.xml` and `in.csv` in its
 * folder and on standard input; `lowersim` comes first, so the first line is
 * the subcommand.  Each input runs cli_main in a fresh folder of its own
 * (the fuzzer's working folder is a temporary one), stdout to /dev/null,
 * stderr too while the command runs when LOWERSIM_FUZZ_QUIET is set.  What may harm the machine or never end is taken out first:
 * arguments naming another folder (a '/' or a leading ".."), --impl (a shell
 * command) and --isolate (forks), and each run gets bounds appended
 * (`fuzz --iterations=2`, `matrix --limit=20 --jobs=1`, `bench
 * --seconds=0.001`), which come last and so win (twice: see below).  Crashes, leaks and
 * sanitizer reports are the findings; exit codes are the command's own
 * business, except that 0..2 are the only ones it may return. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include "cli.h"

#include "lowersim/alloc.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 24
#define MAX_ARG 200

static char home[64]; /* the fuzzer's own folder; each input runs in home/run */
static char origin[4096]; /* where libFuzzer runs (its corpus paths are relative) */

/* Removes what a run left in the current folder (recursively). */
static void clear_folder(const char *path) {
  DIR *d = opendir(path);
  if (!d)
    return;
  for (struct dirent *e; (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    char child[4096];
    snprintf(child, sizeof child, "%s/%s", path, e->d_name);
    struct stat st;
    if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode)) {
      chmod(child, 0700);
      clear_folder(child);
      rmdir(child);
    } else {
      unlink(child);
    }
  }
  closedir(d);
}

static void remove_home(void) {
  clear_folder(home);
  rmdir(home);
}

static bool harmful(const char *arg) {
  return strchr(arg, '/') || strncmp(arg, "..", 2) == 0 || strncmp(arg, "--i", 3) == 0;
}

static void write_file(const char *name, const uint8_t *data, size_t size) {
  FILE *f = fopen(name, "wb");
  if (f) {
    fwrite(data, 1, size, f);
    fclose(f);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!home[0]) {
    snprintf(home, sizeof home, "/tmp/lowersim-fuzz-cli-XXXXXX");
    if (!getcwd(origin, sizeof origin) || !mkdtemp(home) || chdir(home) != 0 ||
        mkdir("run", 0700) != 0)
      abort();
    atexit(remove_home);
    if (!freopen("/dev/null", "w", stdout))
      abort();
  }
  static const char separator[] = "\n--FILE--\n";
  const uint8_t *file = NULL;
  size_t arg_bytes = size;
  for (size_t i = 0; i + sizeof separator - 1 <= size; i++)
    if (memcmp(data + i, separator, sizeof separator - 1) == 0) {
      file = data + i + sizeof separator - 1;
      arg_bytes = i;
      break;
    }
  char *args = lsim_malloc(arg_bytes + 1);
  char *argv[MAX_ARGS + 8];
  int argc = 0;
  argv[argc++] = "lowersim";
  memcpy(args, data, arg_bytes);
  args[arg_bytes] = '\0';
  for (char *line = args; line && argc < MAX_ARGS;) {
    char *end = strchr(line, '\n');
    if (end)
      *end = '\0';
    if (strlen(line) <= MAX_ARG && !harmful(line))
      argv[argc++] = line;
    line = end ? end + 1 : NULL;
  }
  /* The bounds, twice: an option the input ends with that takes a value
   * takes the first copy as its value (`matrix --c` is --csv, which made
   * `--limit=20` its file and ran the whole matrix: the campaign's timeout),
   * and the second copy still wins. */
  const char *command = argc > 1 ? argv[1] : "";
  for (int copy = 0; copy < 2; copy++) {
    if (!strcmp(command, "fuzz"))
      argv[argc++] = "--iterations=2";
    if (!strcmp(command, "matrix"))
      argv[argc++] = "--limit=20", argv[argc++] = "--jobs=1";
    if (!strcmp(command, "bench"))
      argv[argc++] = "--seconds=0.001";
  }
  argv[argc] = NULL;
  if (chdir(home) != 0 || chdir("run") != 0)
    abort();
  size_t file_size = file ? size - (size_t)(file - data) : 0;
  write_file("in.xml", file ? file : (const uint8_t *)"", file_size);
  write_file("in.csv", file ? file : (const uint8_t *)"", file_size);
  if (!freopen("in.xml", "r", stdin))
    abort();
  /* LOWERSIM_FUZZ_QUIET=1: the command's stderr to /dev/null while it runs
   * (a finding is then reproduced by running the target on it without). */
  int saved = -1;
  if (getenv("LOWERSIM_FUZZ_QUIET")) {
    fflush(stderr);
    saved = dup(STDERR_FILENO);
    int null = open("/dev/null", O_WRONLY);
    if (saved < 0 || null < 0 || dup2(null, STDERR_FILENO) < 0)
      abort();
    close(null);
  }
  int code = cli_main(argc, argv);
  fflush(stdout);
  fflush(stderr);
  clearerr(stdout);
  if (saved >= 0) {
    dup2(saved, STDERR_FILENO);
    close(saved);
  }
  if (code < 0 || code > 2)
    abort();
  clear_folder(".");
  free(args);
  if (chdir(origin) != 0)
    abort();
  return 0;
}
