/* lowersim/scenario_output.h: the one way lowersim writes a file: the
 * command's outputs (-o, --csv, --junit, --html, --scenario, the fuzzer's
 * findings) and the Python bindings' write_module; and the one way it opens
 * a file to read (scenarios, expected modules, matrix shards) without ever
 * blocking on a FIFO or reading a device for ever.
 *
 * `-` is standard output.  What the path names decides how it is written:
 *  - /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N (or a link to
 *    one) name a description the process has open already: it is written in
 *    place through that descriptor, as the shell's `>` or `>>` opened it
 *    (a log that standard output appends to is appended to, not replaced);
 *  - a regular file, a symbolic link to one, or a link to nothing, is
 *    replaced atomically: the text goes to a temporary file in the folder
 *    of the link's final target, which takes the old file's mode (a new file
 *    gets 0666 less the umask) and is renamed over that target once all of
 *    it is written and closed, so the file holds either its old contents or
 *    all of the new ones; a file's other hard links keep the old contents,
 *    and a file in a folder the process cannot write to is refused;
 *  - another character device or a FIFO (/dev/null) is written in place;
 *  - a folder, a block device or a socket is refused.
 * An input of the caller (by device and inode; `-` is standard input) is
 * never written.  Every write, flush and close is checked and a failure
 * names its own errno (EFBIG past `ulimit -f`, ENOSPC, EACCES), as
 * LSIM_E_IO with the message `PATH: REASON` (REASON strerror's text, or
 * why the path is refused); a failed output leaves the target as it was
 * and no temporary behind.  The process should ignore SIGXFSZ (Python
 * does; the command does), so that a write past the limit fails with EFBIG
 * instead of killing it. */
#ifndef LOWERSIM_SCENARIO_OUTPUT_H
#define LOWERSIM_SCENARIO_OUTPUT_H

#include "lowersim/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lsim_scenario_output lsim_scenario_output;

/* Opens `path` for writing into *out.  `inputs` (`num_inputs` paths, "-"
 * standard input; NULL when none) are files the caller reads: an output
 * naming one of them is refused.  LSIM_E_IO (`PATH: REASON`),
 * LSIM_E_NO_MEMORY, LSIM_E_INVALID_ARGUMENT. */
int lsim_scenario_output_open(const char *path, const char *const *inputs, size_t num_inputs,
                              lsim_scenario_output **out, lsim_error *err);

/* Where to write (its errors are recorded with their errno and reported by
 * the commit). */
FILE *lsim_scenario_output_stream(lsim_scenario_output *o);

/* Flushes, checks and closes; a replaced file is renamed into place.
 * LSIM_OK, or LSIM_E_IO (`PATH: REASON`) with the target left as it was.
 * Frees `o`. */
int lsim_scenario_output_commit(lsim_scenario_output *o, lsim_error *err);

/* Leaves the target as it was (a temporary is removed).  Frees `o`; NULL is
 * accepted. */
void lsim_scenario_output_abort(lsim_scenario_output *o);

/* Opens `path` to read, as the scenario reader does: without blocking (a
 * FIFO with no writer), then looked at, so that only a regular file is
 * read, or a descriptor the process has open already (/dev/stdin,
 * /dev/fd/N: the pipe of a shell's `<(...)`).  A FIFO, a device (a link to
 * /dev/zero) or a socket is LSIM_E_IO `PATH: a FIFO, not a regular file`
 * (the command reads standard input as `-`), a folder `PATH: Is a
 * directory`, any other failure `PATH: strerror`.  The stream is the caller's (fclose). */
int lsim_scenario_open_read(const char *path, FILE **out, lsim_error *err);

/* Whether the outputs `a` and `b` ("-": standard output) are one file: one
 * descriptor (/dev/stdout is "-"), one existing file by device and inode
 * whatever the names or links that lead to it (a character device such as
 * /dev/null may be shared, unless one descriptor names it both times), one
 * new file by its folder's real path and its name (a link to nothing
 * standing for its target). */
bool lsim_scenario_output_same(const char *a, const char *b);

/* For a program (the command, not a library's host such as Python): from
 * now on SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE remove the live
 * temporaries and the files given to lsim_scenario_output_remove_on_signal,
 * then end the process with the signal's default action (a signal the
 * process ignores stays ignored); SIGXFSZ is ignored. */
void lsim_scenario_output_catch_signals(void);

/* `path` removed if one of those signals stops the process: a slot to give
 * back to lsim_scenario_output_forget, or -1 when the table (512) is full or
 * the path too long. */
int lsim_scenario_output_remove_on_signal(const char *path);
void lsim_scenario_output_forget(int slot);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_SCENARIO_OUTPUT_H */
