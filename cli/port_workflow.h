/* cli/port_workflow.h: `check`'s port workflow, as lit and pytest have it:
 * the xfail file (`--xfail FILE`) and the record of the scenarios that
 * failed last time (`--rerun-failed`, `--last-failed FILE`). */
#ifndef LOWERSIM_CLI_PORT_WORKFLOW_H
#define LOWERSIM_CLI_PORT_WORKFLOW_H

#include <stdbool.h>
#include <stddef.h>

/* The xfail file: one scenario path or glob (fnmatch, `*` crossing `/`)
 * per line, its reason after `#`; blank lines and lines starting with `#`
 * are comments. */
typedef struct xfail_list {
  struct xfail_entry {
    char *pattern, *reason; /* owned; reason "" when none was given */
  } *entries;
  size_t count;
} xfail_list;

/* Reads `path` into `list`; 0, or 2 with `lowersim check: ...` printed
 * (the file cannot be read, out of memory).  A `#` always starts the
 * reason: a path holding one cannot be named. */
int xfail_read(const char *path, xfail_list *list);
void xfail_free(xfail_list *list);

/* The reason of the first entry naming `path` (the pattern equal to it,
 * matching it as a glob, or matching its end after a `/`), or NULL. */
const char *xfail_reason(const xfail_list *list, const char *path);

/* Where the record of the last run's failures lives: `given` (--last-failed)
 * when not NULL, else $XDG_CACHE_HOME/lowersim/last-failed/HASH ($HOME/.cache
 * without it), HASH naming the current folder.  Owned, NULL when out of
 * memory or when there is no cache folder. */
char *last_failed_path(const char *given);

/* The paths recorded at `path`, one per line (owned, NULL-terminated; NULL
 * when there is no record); *count of them. */
char **last_failed_read(const char *path, size_t *count);
void last_failed_free(char **paths);

/* Records `paths` (count of them) at `path`, atomically, making its folder;
 * false (the reason printed as a warning) when it cannot. */
bool last_failed_write(const char *path, const char *const *paths, size_t count);

#endif
