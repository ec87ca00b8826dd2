/* cli/output.h: the command's outputs (-o, --csv, --junit, --html,
 * --scenario, --last-failed, the fuzzer's findings and scenarios) through the
 * scenario library's one output path, lowersim/scenario_output.h, which the
 * Python bindings' write_module shares: `-`, /dev/stdout, /dev/stderr and
 * /dev/fd/N written in place through the descriptor (a log that standard
 * output appends to is appended to, not replaced); a regular file, a link
 * to one or a link to nothing replaced atomically by a temporary beside
 * the final target and a rename; a character device or FIFO written in
 * place; a folder, block device or socket refused; an input of the command
 * (standard input included) never written; SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT and SIGPIPE remove the temporaries, SIGXFSZ is ignored
 * (lowersim.c's main asks for both), so a write past `ulimit -f` fails with
 * EFBIG.  A failure is one line on stderr naming its errno (`lowersim
 * COMMAND: cannot write PATH: File too large`) and exit code 2.
 *
 * Every output is claimed before anything is written: the option tables
 * mark their outputs (CLI_OUTPUT) and cli_parse claims them, so two naming
 * one file are refused in every command. */
#ifndef LOWERSIM_CLI_OUTPUT_H
#define LOWERSIM_CLI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* The files a command reads (paths, "-" standard input). */
typedef struct cli_inputs {
  char **paths;
  size_t count, cap;
} cli_inputs;

/* Records `path` as an input (compared by device and inode when an output
 * is opened); false when out of memory, with `in` freed and empty. */
bool cli_inputs_add(cli_inputs *in, const char *path);
void cli_inputs_free(cli_inputs *in);

typedef struct cli_output cli_output;

/* Opens `path` for writing; NULL (the reason printed as `lowersim COMMAND:
 * cannot write PATH: ...`) when it cannot be written.  `inputs` may be NULL. */
cli_output *cli_output_open(const char *command, const char *path, const cli_inputs *inputs);

/* Where to write. */
FILE *cli_output_stream(cli_output *o);

/* Flushes, checks and closes; a replaced file is renamed into place.
 * Returns 0, or 2 with the reason printed.  Frees `o`. */
int cli_output_commit(cli_output *o);

/* Leaves the target as it was (a temporary is removed).  Frees `o`; NULL is
 * accepted. */
void cli_output_abort(cli_output *o);

/* `size` bytes of `data` into `path`, through the above. */
int cli_write_file(const char *command, const char *path, const void *data, size_t size,
                   const cli_inputs *inputs);

/* One output of a command: the option that names it (for messages) and its
 * path ("-": standard output; NULL: not asked for). */
typedef struct cli_claim {
  const char *option;
  const char *path;
} cli_claim;

/* Claims a command's outputs before it writes anything: two naming one file
 * (standard output twice, two names of one existing file by device and
 * inode, of one new file by its folder's real path; character devices such
 * as /dev/null may be shared) are refused with `lowersim COMMAND: OPTION and OPTION both write
 * PATH` and 2.  Else 0; when one of them is standard output, it owns it, and
 * the command's text for people (cli_human) goes to stderr. */
int cli_claim_outputs(const char *command, const cli_claim *claims, size_t count);

/* Where a command's text for people (summaries, lists of failures) goes:
 * standard output, or stderr when a machine output (--json, --csv -,
 * --junit -, -o -) owns it.  cli_main resets it for each command. */
FILE *cli_human(void);
void cli_human_reset(void);

/* Makes `stdout` a stream whose every write is checked and whose first
 * failure keeps its errno (stdio's error flag loses it), line-buffered on a
 * terminal; the executable's main calls it first. */
void cli_stdout_install(void);

/* Flushes and checks standard output at the end of a command: `code` when
 * everything was written, else 2 (or `code` when it is already an error),
 * with `lowersim COMMAND: cannot write standard output: ...` printed. */
int cli_finish_stdout(const char *command, int code);

#endif
