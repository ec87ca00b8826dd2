/* cli/port_workflow.c: the xfail file and the record of the last failures
 * (port_workflow.h). */
#define _GNU_SOURCE
#include "port_workflow.h"

#include "lowersim/alloc.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* `s` without its leading and trailing blanks, in place. */
static char *trim(char *s) {
  while (*s == ' ' || *s == '\t')
    s++;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
    s[--n] = '\0';
  return s;
}

int xfail_read(const char *path, xfail_list *list) {
  *list = (xfail_list){0};
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "lowersim check: cannot read the xfail file %s: %s\n", path, strerror(errno));
    return 2;
  }
  char *line = NULL;
  size_t cap = 0, room = 0;
  int code = 0;
  while (!code && getline(&line, &cap, f) >= 0) {
    char *hash = strchr(line, '#');
    char *reason = "";
    if (hash) {
      *hash = '\0';
      reason = trim(hash + 1);
    }
    char *pattern = trim(line);
    if (!*pattern)
      continue; /* a blank line or a comment */
    if (list->count == room) {
      size_t n = room ? 2 * room : 16;
      struct xfail_entry *e = lsim_realloc_array(list->entries, n, sizeof *e);
      if (!e) {
        code = 2;
        fputs("lowersim check: out of memory\n", stderr);
        break;
      }
      list->entries = e, room = n;
    }
    struct xfail_entry *e = &list->entries[list->count];
    e->pattern = lsim_strdup(pattern);
    e->reason = lsim_strdup(reason);
    if (!e->pattern || !e->reason) {
      free(e->pattern), free(e->reason);
      fputs("lowersim check: out of memory\n", stderr);
      code = 2;
      break;
    }
    list->count++;
  }
  if (!code && ferror(f)) {
    fprintf(stderr, "lowersim check: cannot read the xfail file %s: %s\n", path, strerror(errno));
    code = 2;
  }
  free(line);
  fclose(f);
  if (code)
    xfail_free(list);
  return code;
}

void xfail_free(xfail_list *list) {
  for (size_t i = 0; i < list->count; i++) {
    free(list->entries[i].pattern);
    free(list->entries[i].reason);
  }
  free(list->entries);
  *list = (xfail_list){0};
}

const char *xfail_reason(const xfail_list *list, const char *path) {
  size_t n = strlen(path);
  for (size_t i = 0; list && i < list->count; i++) {
    const char *p = list->entries[i].pattern;
    size_t m = strlen(p);
    if (strcmp(p, path) == 0 || fnmatch(p, path, 0) == 0 ||
        (m < n && path[n - m - 1] == '/' && strcmp(path + n - m, p) == 0))
      return list->entries[i].reason;
  }
  return NULL;
}

/* FNV-1a of `s`: the current folder's name in the cache. */
static uint64_t fnv1a(const char *s) {
  uint64_t h = 14695981039346656037ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

char *last_failed_path(const char *given) {
  if (given)
    return lsim_strdup(given);
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd))
    return NULL;
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  char *p = NULL;
  int len;
  if (xdg && *xdg == '/')
    len = asprintf(&p, "%s/lowersim/last-failed/%016llx", xdg, (unsigned long long)fnv1a(cwd));
  else if (home && *home)
    len = asprintf(&p, "%s/.cache/lowersim/last-failed/%016llx", home,
                   (unsigned long long)fnv1a(cwd));
  else
    return NULL;
  if (len < 0)
    return NULL;
  char *copy = lsim_strdup(p);
  free(p);
  return copy;
}

char **last_failed_read(const char *path, size_t *count) {
  *count = 0;
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  char **paths = lsim_calloc(1, sizeof *paths);
  size_t room = 0;
  char *line = NULL;
  size_t cap = 0;
  while (paths && getline(&line, &cap, f) >= 0) {
    char *p = trim(line);
    if (!*p)
      continue;
    if (*count + 1 >= room) {
      size_t n = room ? 2 * room : 16;
      char **grown = lsim_realloc_array(paths, n, sizeof *grown);
      if (!grown) {
        last_failed_free(paths);
        paths = NULL;
        break;
      }
      paths = grown, room = n;
    }
    paths[*count] = lsim_strdup(p);
    paths[*count + 1] = NULL;
    if (!paths[*count]) {
      last_failed_free(paths);
      paths = NULL;
      break;
    }
    (*count)++;
  }
  free(line);
  fclose(f);
  return paths;
}

void last_failed_free(char **paths) {
  for (size_t i = 0; paths && paths[i]; i++)
    free(paths[i]);
  free(paths);
}

/* Makes every folder above `path`. */
static void make_parents(const char *path) {
  char *p = lsim_strdup(path);
  for (char *s = p ? strchr(p + 1, '/') : NULL; s; s = strchr(s + 1, '/')) {
    *s = '\0';
    mkdir(p, 0700);
    *s = '/';
  }
  free(p);
}

bool last_failed_write(const char *path, const char *const *paths, size_t count) {
  make_parents(path);
  char *tmp = NULL;
  if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
    return false;
  int fd = mkstemp(tmp);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  bool ok = f != NULL;
  for (size_t i = 0; ok && i < count; i++)
    ok = fprintf(f, "%s\n", paths[i]) >= 0;
  if (f)
    ok = fclose(f) == 0 && ok;
  else if (fd >= 0)
    close(fd);
  ok = ok && rename(tmp, path) == 0;
  if (!ok) {
    fprintf(stderr, "lowersim check: warning: cannot record the failures in %s: %s\n", path,
            strerror(errno));
    if (fd >= 0)
      unlink(tmp);
  }
  free(tmp);
  return ok;
}
