/* cli/input.c: a scenario from a file, or from standard input for "-". */
#include "cli.h"

#include "lowersim/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Standard input, up to one byte past the scenario limit (so that a larger
 * one is refused as such); owned, NULL when out of memory. */
static char *read_stdin(size_t *size, bool *failed) {
  const size_t limit = lsim_scenario_max_bytes() + 1;
  size_t cap = 64 * 1024, len = 0;
  char *buf = lsim_malloc(cap);
  while (buf) {
    len += fread(buf + len, 1, cap - len, stdin);
    if (len < cap || cap == limit)
      break;
    cap = cap * 2 < limit ? cap * 2 : limit;
    char *bigger = lsim_realloc(buf, cap);
    if (!bigger)
      free(buf);
    buf = bigger;
  }
  *failed = ferror(stdin) != 0;
  *size = len;
  return buf;
}

int cli_read_scenario(const char *path, lsim_scenario **out, lsim_error *err) {
  if (strcmp(path, "-") != 0)
    return lsim_scenario_read_file(path, out, err);
  size_t size;
  bool failed;
  char *data = read_stdin(&size, &failed);
  int rc;
  if (!data)
    rc = lsim_error_set(err, LSIM_E_NO_MEMORY, "out of memory");
  else if (failed)
    rc = lsim_error_set(err, LSIM_E_IO, "<stdin>: cannot be read");
  else
    rc = lsim_scenario_read_memory(data, size, "<stdin>", out, err);
  free(data);
  return rc;
}

int cli_read_scenario_or_report(const char *path, lsim_scenario **out) {
  lsim_error err = LSIM_ERROR_INIT;
  if (!cli_read_scenario(path, out, &err))
    return 0;
  fprintf(stderr, "%s\n", lsim_error_message(&err));
  lsim_error_clear(&err);
  return EXIT_INVALID_INPUT;
}
