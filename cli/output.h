/* cli/output.h: the one way the command writes a file (-o, --csv, --junit,
 * the fuzzer's findings and scenarios).
 *
 * `-` is standard output.  A regular file (or a symbolic link to one) is
 * replaced atomically: the text goes to a temporary file in the same folder,
 * which takes the old file's mode (a new file gets 0666 less the umask) and
 * is renamed over it once everything is written and closed, so the file
 * holds either its old contents or all of the new ones.  The temporary is
 * removed if the command fails or is stopped by SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT or SIGPIPE.  A character device or a FIFO (/dev/null, /dev/stdout)
 * is written in place; a folder, a block device or a socket is refused.  A
 * file the command reads (its inputs) is never written.  Every write, flush
 * and close is checked; a failure is one line on stderr and exit code 2.
 * Replacing is renaming: a file's other hard links keep the old contents,
 * and a file in a folder the command cannot write to is refused. */
#ifndef LOWERSIM_CLI_OUTPUT_H
#define LOWERSIM_CLI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* The files a command reads, by device and inode. */
typedef struct cli_inputs {
  struct cli_file_id {
    dev_t dev;
    ino_t ino;
  } *ids;
  size_t count, cap;
} cli_inputs;

/* Records `path` as an input (nothing when it cannot be stat'ed or is "-");
 * false when out of memory. */
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

/* Flushes and checks standard output at the end of a command: `code` when
 * everything was written, else 2 (or `code` when it is already an error),
 * with `lowersim COMMAND: cannot write standard output: ...` printed. */
int cli_finish_stdout(const char *command, int code);

#endif
