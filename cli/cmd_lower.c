/* cli/cmd_lower.c: `lowersim lower FILE [-o OUT]` and `lowersim explain FILE`. */
#include "cli.h"
#include "lowersim/scenario_kind.h"
#include "lowersim/scenario_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes `text` to `path` through a temporary file in the same folder, so
 * `path` is either left as it was or holds the whole text. */
static int write_atomically(const char *path, const char *text) {
  size_t len = strlen(path);
  char *tmp = malloc(len + 16);
  if (!tmp)
    return -1;
  snprintf(tmp, len + 16, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  bool ok = f && fputs(text, f) >= 0;
  ok = (f ? fclose(f) == 0 : false) && ok;
  if (!f && fd >= 0)
    close(fd);
  ok = ok && rename(tmp, path) == 0;
  int saved = errno;
  if (!ok && fd >= 0)
    unlink(tmp);
  free(tmp);
  errno = saved;
  return ok ? 0 : -1;
}

/* The equation elements of the format, from its table of kinds. */
static void print_kinds(void) {
  static const char *const lower_attrs[][2] = {
      {"<lower>", "jax.jit(f).trace(*args).lower()"},
      {"platforms=\"a,b\"", ".lower(lowering_platforms=(\"a\", \"b\"))"},
      {"backend=\"x\"", "jax.jit(f, backend=\"x\") (deprecated in JAX: it warns)"},
      {"keep_unused=\"true\"", "jax.jit(f, keep_unused=True): no dead-code elimination (by"},
      {"", "default jit drops effect-free equations and arguments nothing uses)"},
      {"enable_x64=", "jax_enable_x64 (default: on when a value is 64-bit): the platform"},
      {"", "index is then tensor<i64>"},
      {"export=\"true\"", "jax.export.export(jax.jit(f), platforms=...)(*args): host callbacks"},
      {"", "and unstable custom-call targets refused, jax.uses_shape_polymorphism set"},
      {"disabled_checks=", "with export: DisabledSafetyCheck's as str() spells them,"},
      {"", "\"custom_call:TARGET\" (TARGET ALL: any) and \"platform\""},
      {"<scenario jax=\"V\">", "the JAX version the scenario pins (`lowersim versions`)"},
  };
  printf("\nWhat <lower> stands for:\n");
  for (size_t i = 0; i < sizeof lower_attrs / sizeof lower_attrs[0]; i++)
    printf("  %-20s %s\n", lower_attrs[i][0], lower_attrs[i][1]);
  printf("\nThe equations of <lower>, one element each:\n");
  for (size_t i = 0; i < lsim_scenario_kind_count(); i++) {
    const lsim_scenario_kind *kind = lsim_scenario_kind_at(i);
    const char *element = lsim_scenario_kind_element(kind);
    printf("  <%s>%*s %s\n", element, (int)(20 - strlen(element)), "",
           lsim_scenario_kind_summary(kind));
  }
}

/* Reads FILE; on failure reports and returns the exit code (2). */
static int read_scenario(const char *path, lsim_scenario **s) {
  lsim_error err = LSIM_ERROR_INIT;
  int rc = lsim_scenario_read_file(path, s, &err);
  if (rc) {
    fprintf(stderr, "%s\n", lsim_error_message(&err));
    lsim_error_clear(&err);
    return EXIT_INVALID_INPUT;
  }
  return 0;
}

int cmd_lower(int argc, char **argv) {
  const char *file = NULL, *out_path = NULL;
  const lsim_jax_profile *profile = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf("usage: lowersim lower FILE [-o OUT] [--jax VERSION]\n\n"
             "Lowers the scenario FILE and prints the MLIR module (or writes it to OUT).\n"
             "--jax: the JAX version of a scenario that names none in <scenario jax=...>\n"
             "(default: the newest; `lowersim versions` lists them).\n"
             "JAX's warnings come first on stderr, one line each: `warning: CATEGORY: text`\n"
             "(CATEGORY the warnings.warn class, e.g. DeprecationWarning, or the name of\n"
             "the JAX logger, e.g. jax._src.xla_bridge; a newline is written \\n).\n"
             "Exit codes: 0 ok; 1 a typed lowering error, printed as one line\n"
             "`CODE: ErrorClass: message` on stderr (a newline is written \\n); 2 invalid\n"
             "input (`FILE:LINE: ...`).\n");
      print_kinds();
      return 0;
    }
    if (strcmp(argv[i], "--jax") == 0) {
      int code = cli_parse_jax("lower", "--jax", i + 1 < argc ? argv[i + 1] : NULL, &profile);
      if (code)
        return code;
      i++;
    } else if (strcmp(argv[i], "-o") == 0) {
      if (++i >= argc)
        return cli_usage_error("lower", "-o needs a file name");
      out_path = argv[i];
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_usage_error("lower", "unknown option '%s' (see --help)", argv[i]);
    } else if (file) {
      return cli_usage_error("lower", "one scenario file at a time ('%s' and '%s')", file, argv[i]);
    } else {
      file = argv[i];
    }
  }
  if (!file)
    return cli_usage_error("lower", "no scenario file (usage: lowersim lower FILE [-o OUT] [--jax VERSION])");
  lsim_scenario *s = NULL;
  int code = read_scenario(file, &s);
  if (code)
    return code;
  lsim_error err = LSIM_ERROR_INIT;
  lsim_lowerer *lowerer = NULL;
  lsim_scenario_outcome outcome = {0};
  lsim_scenario_run_options opts = LSIM_SCENARIO_RUN_OPTIONS_INIT(.profile = profile);
  int rc = lsim_lowerer_create(&lowerer, &err);
  if (!rc)
    rc = lsim_scenario_run(lowerer, s, &opts, &outcome, &err);
  if (outcome.runtime)
    cli_print_warnings(stderr, outcome.runtime);
  char *text = rc ? NULL : lsim_lowering_print(outcome.lowering);
  if (!rc && !text)
    rc = LSIM_E_NO_MEMORY, err.code = LSIM_E_NO_MEMORY;
  if (rc) {
    code = cli_report(&err);
  } else if (out_path) {
    if (write_atomically(out_path, text) != 0) {
      fprintf(stderr, "%s: cannot write: %s\n", out_path, strerror(errno));
      code = EXIT_INVALID_INPUT;
    }
  } else {
    fputs(text, stdout);
  }
  free(text);
  lsim_scenario_outcome_clear(&outcome);
  lsim_lowerer_destroy(lowerer);
  lsim_scenario_destroy(s);
  lsim_error_clear(&err);
  return code;
}
