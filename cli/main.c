/* cli/main.c: the lowersim command: dispatch to subcommands. */
#include "cli.h"
#include "options.h"
#include "output.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} command;

static const command commands[] = {
    {"lower", cmd_lower, "lower a scenario file and print the MLIR module"},
    {"explain", cmd_explain, "the same lowering, narrated step by step in JAX's terms"},
    {"check", cmd_check, "run scenarios with <expect> and report what differs"},
    {"matrix", cmd_matrix, "lower every platform combination of a feature matrix"},
    {"fuzz", cmd_fuzz, "random scenarios checked against lowersim's invariants"},
    {"bench", cmd_bench, "lowering throughput against a bare MLIR C API floor"},
    {"versions", cmd_versions, "the JAX versions modelled, and what differs between two"},
    {"platforms", cmd_platforms, "known platforms, aliases and a simulated runtime's backends"},
    {"errors", cmd_errors, "the error catalogue: codes, JAX exception classes, messages"},
};

static void usage(FILE *out) {
  fprintf(out, "usage: lowersim COMMAND [ARGS]\n\n"
               "lowersim re-implements JAX's multi-platform lowering and emits MLIR.\n\n"
               "commands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\nRun 'lowersim COMMAND --help' for a command's options. Every command takes\n"
               "--color=always|never|auto (auto: on a terminal, unless NO_COLOR is set and not\n"
               "empty or TERM is dumb).\n"
               "Exit codes: 0 success, 1 a typed lowering error, 2 invalid input.\n"
               "A typed error prints `CODE: ErrorClass: message` on stderr; invalid input\n"
               "prints `FILE:LINE: what is wrong`.\n\n"
               "Scenario files are XML, validated by the RelaxNG schema in\n"
               "testdata/schema/scenario.rng (compiled into lowersim); docs/scenario-format.md\n"
               "describes each element and attribute and what a scenario means, and\n"
               "testdata/scenarios/ has examples.\n");
}

/* Runs between newlines are written whole: stderr is unbuffered, and a
 * write per byte made 10,000 warnings cost more than the lowering. */
void cli_put_line(FILE *f, const char *text) {
  size_t n;
  while (text[n = strcspn(text, "\n")]) {
    fwrite(text, 1, n, f);
    fputs("\\n", f);
    text += n + 1;
  }
  fputs(text, f);
  fputc('\n', f);
}

static void put_warnings(FILE *f, const lsim_runtime *rt) {
  for (size_t i = 0; i < lsim_runtime_warning_count(rt); i++) {
    fprintf(f, "warning: %s: ", lsim_runtime_warning_category(rt, i));
    cli_put_line(f, lsim_runtime_warning_at(rt, i));
  }
}

/* Gathered in memory and written at once (one write, not a few per
 * warning, on an unbuffered stderr); directly when there is no memory. */
void cli_print_warnings(FILE *f, const lsim_runtime *rt) {
  char *text = NULL;
  size_t size = 0;
  FILE *m = lsim_runtime_warning_count(rt) > 1 ? open_memstream(&text, &size) : NULL;
  if (m) {
    put_warnings(m, rt);
    if (fclose(m) == 0) {
      fwrite(text, 1, size, f);
      free(text);
      return;
    }
    free(text);
  }
  put_warnings(f, rt);
}

int cli_report(const lsim_error *err) {
  if (err->code != LSIM_E_INVALID_INPUT) /* the contract's `FILE:LINE: what is wrong` alone */
    fprintf(stderr, "%s: %s: ", lsim_status_name(err->code), lsim_error_class(err));
  cli_put_line(stderr, lsim_error_message(err));
  return lsim_status_kind(err->code) == LSIM_KIND_INVALID_INPUT ? EXIT_INVALID_INPUT
                                                                 : EXIT_LOWERING_ERROR;
}

int cli_usage_error(const char *name, const char *fmt, ...) {
  fprintf(stderr, "lowersim %s: ", name);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
  return EXIT_INVALID_INPUT;
}

int cli_parse_jax(const char *name, const char *option, const char *value,
                  const lsim_jax_profile **out) {
  *out = value ? lsim_jax_profile_find(value) : NULL;
  if (*out)
    return 0;
  if (!value)
    return cli_usage_error(name, "%s needs a JAX version (see `lowersim versions`)", option);
  char known[512];
  lsim_jax_profile_names(known, sizeof known);
  const char *near = cli_suggest_value(value, cli_jax_values);
  return cli_usage_error(name, "%s%s'%s' is not a JAX version lowersim models (it models %s; see "
                         "`lowersim versions`)%s%s%s", option ? option : "", option ? " " : "",
                         value, known, near ? " (did you mean '" : "", near ? near : "",
                         near ? "'?)" : "");
}

static cli_colour colour_mode;

void cli_set_colour(cli_colour mode) { colour_mode = mode; }

bool cli_colour_decide(cli_colour mode, bool tty, const char *no_color, const char *term) {
  if (mode != CLI_COLOUR_AUTO)
    return mode == CLI_COLOUR_ALWAYS;
  return tty && !(no_color && *no_color) && !(term && strcmp(term, "dumb") == 0);
}

bool cli_use_colour(FILE *f) {
  /* stdout is cli_stdout_install's stream, which has no descriptor of its own */
  int fd = f == stdout ? STDOUT_FILENO : fileno(f);
  return cli_colour_decide(colour_mode, isatty(fd), getenv("NO_COLOR"), getenv("TERM"));
}


int cli_main(int argc, char **argv) {
  colour_mode = CLI_COLOUR_AUTO; /* each run afresh (the tests run several in one process) */
  cli_human_reset();
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? EXIT_INVALID_INPUT : 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("lowersim %s\n", LOWERSIM_VERSION);
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i].name) == 0)
      return commands[i].run(argc - 1, argv + 1);
  /* `lowersim --options COMMAND`: COMMAND's option table (cli_describe_options). */
  bool describe = strcmp(argv[1], "--options") == 0 && argc == 3;
  if (describe)
    argv++, argc = 2;
  for (size_t i = 0; describe && i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(argv[1], commands[i].name) == 0) {
      cli_describe_options(true);
      int code = commands[i].run(1, argv + 1);
      cli_describe_options(false);
      return code;
    }
  if (argv[1][0] == '-') {
    static const char *const options[] = {"help", "version"};
    return cli_typo_error(NULL, "option", argv[1], options, 2);
  }
  const char *names[sizeof commands / sizeof commands[0]];
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    names[i] = commands[i].name;
  return cli_typo_error(NULL, "command", argv[1], names, sizeof names / sizeof names[0]);
}

