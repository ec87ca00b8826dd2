/* cli/output.c: the command's outputs, through the scenario library's one
 * output path (see output.h). */
#define _GNU_SOURCE /* realpath, fopencookie */
#include "output.h"

#include "lowersim/alloc.h"
#include "lowersim/scenario_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- Inputs ------------------------------------------------------------------ */

bool cli_inputs_add(cli_inputs *in, const char *path) {
  if (lsim_grow_array(&in->paths, &in->cap, in->count + 1, sizeof *in->paths) &&
      (in->paths[in->count] = lsim_strdup(path))) {
    in->count++;
    return true;
  }
  cli_inputs_free(in); /* a caller that gives up owns nothing */
  return false;
}

void cli_inputs_free(cli_inputs *in) {
  for (size_t i = 0; i < in->count; i++)
    free(in->paths[i]);
  free(in->paths);
  *in = (cli_inputs){0};
}

/* --- Claims: one file, one output; standard output owned by a machine output --------- */

static bool stdout_owned;

FILE *cli_human(void) { return stdout_owned ? stderr : stdout; }

void cli_human_reset(void) { stdout_owned = false; }

int cli_claim_outputs(const char *command, const cli_claim *claims, size_t count) {
  stdout_owned = false;
  for (size_t i = 0; i < count; i++) {
    if (!claims[i].path)
      continue;
    for (size_t j = 0; j < i; j++)
      if (claims[j].path && lsim_scenario_output_same(claims[j].path, claims[i].path)) {
        const char *where = strcmp(claims[i].path, "-") == 0 ? "standard output" : claims[i].path;
        fprintf(stderr, "lowersim %s: %s and %s both write %s: give each its own file\n", command,
                claims[j].option, claims[i].option, where);
        stdout_owned = false;
        return 2;
      }
    stdout_owned |= lsim_scenario_output_same(claims[i].path, "-");
  }
  return 0;
}

/* --- Outputs ------------------------------------------------------------------- */

struct cli_output {
  const char *command;
  lsim_scenario_output *o;
};

static void say_error(const char *command, lsim_error *err) {
  fprintf(stderr, "lowersim %s: %s%s\n", command, err->code == LSIM_E_IO ? "cannot write " : "",
          lsim_error_message(err));
  lsim_error_clear(err);
}

cli_output *cli_output_open(const char *command, const char *path, const cli_inputs *inputs) {
  cli_output *o = lsim_calloc(1, sizeof *o);
  lsim_error err = LSIM_ERROR_INIT;
  if (!o) {
    fprintf(stderr, "lowersim %s: cannot write %s: out of memory\n", command, path);
    return NULL;
  }
  o->command = command;
  if (lsim_scenario_output_open(path, inputs ? (const char *const *)inputs->paths : NULL,
                                inputs ? inputs->count : 0, &o->o, &err)) {
    say_error(command, &err);
    free(o);
    return NULL;
  }
  return o;
}

FILE *cli_output_stream(cli_output *o) { return lsim_scenario_output_stream(o->o); }

int cli_output_commit(cli_output *o) {
  lsim_error err = LSIM_ERROR_INIT;
  int rc = lsim_scenario_output_commit(o->o, &err);
  if (rc)
    say_error(o->command, &err);
  free(o);
  return rc ? 2 : 0;
}

void cli_output_abort(cli_output *o) {
  if (!o)
    return;
  lsim_scenario_output_abort(o->o);
  free(o);
}

int cli_write_file(const char *command, const char *path, const void *data, size_t size,
                   const cli_inputs *inputs) {
  cli_output *o = cli_output_open(command, path, inputs);
  if (!o)
    return 2;
  fwrite(data, 1, size, cli_output_stream(o)); /* an error is the commit's, with its errno */
  return cli_output_commit(o);
}

/* --- Standard output: every write checked, its errno kept ------------------ */

static int stdout_error; /* the first failed write's errno */

static ssize_t stdout_write(void *cookie, const char *buf, size_t size) {
  (void)cookie;
  for (size_t done = 0; done < size;) {
    ssize_t n = write(STDOUT_FILENO, buf + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (!stdout_error)
        stdout_error = n < 0 ? errno : EIO;
      return -1;
    }
    done += (size_t)n;
  }
  return (ssize_t)size;
}

void cli_stdout_install(void) {
  cookie_io_functions_t io = {.write = stdout_write};
  FILE *f = fopencookie(NULL, "w", io);
  if (!f)
    return; /* stdio's own stdout, its errors seen by ferror */
  if (isatty(STDOUT_FILENO))
    setvbuf(f, NULL, _IOLBF, 0);
  stdout = f;
}

int cli_finish_stdout(const char *command, int code) {
  errno = 0;
  bool ok = fflush(stdout) == 0 && !ferror(stdout) && !stdout_error;
  int why = stdout_error ? stdout_error : errno ? errno : EIO;
  if (fclose(stdout) != 0 && ok)
    ok = false, why = stdout_error ? stdout_error : errno;
  if (ok)
    return code;
  fprintf(stderr, "lowersim%s%s: cannot write standard output: %s\n", *command ? " " : "", command,
          strerror(why));
  return code ? code : 2;
}
