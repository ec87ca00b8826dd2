/* cli/walk.h: the scenario files under the paths `check` is given.
 *
 * A folder is searched for *.xml files, following symbolic links but
 * searching each folder once, so a link back to a folder above (or two
 * links to one folder) is noted and skipped rather than walked again and
 * again; each file is listed once, however many paths lead to it; what is
 * not a regular file (a FIFO, a device, a link to nothing) is noted and
 * skipped, so nothing blocks (and the reader opens only regular files
 * anyway); a path longer than PATH_MAX is an error, never left out.  A
 * path named on the command line is given to the reader, which refuses
 * what is not a regular file or a descriptor (/dev/stdin, /dev/fd/N).  The
 * work is linear in the number of entries. */
#ifndef LOWERSIM_CLI_WALK_H
#define LOWERSIM_CLI_WALK_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cli_walk cli_walk;

/* NULL when out of memory.  `notes`: what is skipped is said on stderr. */
cli_walk *cli_walk_create(const char *command, bool notes);
void cli_walk_destroy(cli_walk *w);

/* Adds PATH itself ("-" too), or every regular *.xml below it.  Notes go
 * to stderr (`lowersim COMMAND: skipping ...`).  Returns 0, or 2 when PATH
 * cannot be read, a path below it is longer than PATH_MAX, or memory runs
 * out (the reason printed). */
int cli_walk_add(cli_walk *w, const char *path);

/* The files found, sorted; borrowed from `w`. */
char *const *cli_walk_files(cli_walk *w, size_t *count);

#endif
