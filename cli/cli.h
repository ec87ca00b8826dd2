/* cli/cli.h: what the lowersim command's subcommands share. */
#ifndef LOWERSIM_CLI_H
#define LOWERSIM_CLI_H

#include "lowersim/error.h"
#include "lowersim/scenario.h"

#include <stdbool.h>
#include <stdio.h>

/* Exit codes of the command-line contract. */
enum { EXIT_LOWERING_ERROR = 1, EXIT_INVALID_INPUT = 2 };

/* Prints `CODE: ErrorClass: message` on stderr (invalid input: its
 * `FILE:LINE: message` alone) and returns the exit code for it: 2 for
 * invalid input or arguments, 1 for every other failure. */
int cli_report(const lsim_error *err);

/* Prints a usage error on stderr and returns 2. */
int cli_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reads a scenario file, or standard input (named `<stdin>` in messages)
 * when `path` is "-". */
int cli_read_scenario(const char *path, lsim_scenario **out, lsim_error *err);

/* The whole command: the subcommand of argv[1] run with argv + 1.  Returns
 * the exit code; standard output is left to the caller to flush and check
 * (cli_finish_stdout). */
int cli_main(int argc, char **argv);

/* Colour: true when `f` is a terminal and NO_COLOR is unset. */
bool cli_use_colour(FILE *f);

int cmd_platforms(int argc, char **argv);
int cmd_errors(int argc, char **argv);
int cmd_lower(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_fuzz(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
