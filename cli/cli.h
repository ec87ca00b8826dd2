/* cli/cli.h: what the lowersim command's subcommands share. */
#ifndef LOWERSIM_CLI_H
#define LOWERSIM_CLI_H

#include "lowersim/error.h"
#include "lowersim/scenario.h"
#include "lowersim/jax_profile.h"
#include "lowersim/runtime.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes of the command-line contract. */
enum { EXIT_LOWERING_ERROR = 1, EXIT_INVALID_INPUT = 2 };

/* --max-bytes's upper bound (lower, check): 1 TiB. */
#define CLI_MAX_BYTES_LIMIT (UINT64_C(1) << 40)

/* Writes `text` and a newline, each newline inside written as \n, so that it
 * is one line (as `python -m oracle lower` writes JAX's messages). */
void cli_put_line(FILE *f, const char *text);

/* The runtime's warnings, one line each: `warning: CATEGORY: text`. */
void cli_print_warnings(FILE *f, const lsim_runtime *rt);

/* Prints `CODE: ErrorClass: message` on stderr (invalid input: its
 * `FILE:LINE: message` alone), one line (cli_put_line), and returns the exit
 * code for it: 2 for invalid input or arguments, 1 for every other failure. */
int cli_report(const lsim_error *err);

/* Prints a usage error on stderr and returns 2. */
int cli_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reads a scenario file, or standard input (named `<stdin>` in messages)
 * when `path` is "-". */
int cli_read_scenario(const char *path, lsim_scenario **out, lsim_error *err);

/* cli_read_scenario, its error (when it fails) reported on stderr as the
 * one line `PATH:LINE: what is wrong`: 0, or the exit code 2. */
int cli_read_scenario_or_report(const char *path, lsim_scenario **out);

/* The whole command: the subcommand of argv[1] run with argv + 1.  Returns
 * the exit code; standard output is left to the caller to flush and check
 * (cli_finish_stdout). */
int cli_main(int argc, char **argv);

/* `OPTION VALUE` of `command` (OPTION "--jax", or NULL for an argument):
 * the JAX profile VALUE names (lsim_jax_profile_find) into *out; 0, or the
 * exit code (2) after saying that VALUE (NULL: missing) is not a version
 * lowersim models and which ones it does. */
int cli_parse_jax(const char *command, const char *option, const char *value,
                  const lsim_jax_profile **out);

/* --color=always|never|auto, common to every command (cli_parse reads it). */
typedef enum cli_colour { CLI_COLOUR_AUTO, CLI_COLOUR_ALWAYS, CLI_COLOUR_NEVER } cli_colour;
void cli_set_colour(cli_colour mode);

/* The one decision of colour: always or never as --color says; for auto,
 * only on a terminal, not when NO_COLOR is set and not empty (no-color.org),
 * not when TERM is dumb.  `no_color` and `term` are the variables' values
 * (NULL: unset). */
bool cli_colour_decide(cli_colour mode, bool tty, const char *no_color, const char *term);

/* cli_colour_decide for `f` with this process's --color and environment. */
bool cli_use_colour(FILE *f);

int cmd_platforms(int argc, char **argv);
int cmd_errors(int argc, char **argv);
int cmd_lower(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_fuzz(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_versions(int argc, char **argv);

#endif
