/* cli/walk.c: folders searched once each, files listed once each. */
#include "walk.h"

#include "lowersim/alloc.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A set of (device, inode) pairs: open addressing, at most half full. */
typedef struct id_set {
  struct id {
    dev_t dev;
    ino_t ino;
    bool used;
  } *slots;
  size_t cap, count;
} id_set;

static size_t id_hash(dev_t dev, ino_t ino, size_t cap) {
  uint64_t h = ((uint64_t)dev * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)ino * 0xc2b2ae3d27d4eb4full);
  return (size_t)(h ^ (h >> 31)) & (cap - 1);
}

static struct id *id_slot(struct id *slots, size_t cap, dev_t dev, ino_t ino) {
  size_t i = id_hash(dev, ino, cap);
  while (slots[i].used && (slots[i].dev != dev || slots[i].ino != ino))
    i = (i + 1) & (cap - 1);
  return &slots[i];
}

static void *id_place(void *slots, size_t cap, const void *old) {
  const struct id *id = old;
  return id->used ? id_slot(slots, cap, id->dev, id->ino) : NULL;
}

/* Adds the pair; *added says whether it was new.  False when out of memory. */
static bool id_add(id_set *set, const struct stat *st, bool *added) {
  if ((set->count + 1) * 2 > set->cap) {
    if (!lsim_hash_grow(&set->slots, &set->cap, set->cap + 1, 64, sizeof *set->slots, id_place))
      return false;
  }
  struct id *slot = id_slot(set->slots, set->cap, st->st_dev, st->st_ino);
  *added = !slot->used;
  if (*added) {
    *slot = (struct id){st->st_dev, st->st_ino, true};
    set->count++;
  }
  return true;
}

struct cli_walk {
  const char *command;
  char **paths;
  size_t count, cap;
  bool notes, sorted, has_stdin;
  id_set files, folders;
};

cli_walk *cli_walk_create(const char *command, bool notes) {
  cli_walk *w = lsim_calloc(1, sizeof *w);
  if (w)
    w->command = command, w->notes = notes;
  return w;
}

void cli_walk_destroy(cli_walk *w) {
  if (!w)
    return;
  for (size_t i = 0; i < w->count; i++)
    free(w->paths[i]);
  free(w->paths);
  free(w->files.slots);
  free(w->folders.slots);
  free(w);
}

static int no_memory(cli_walk *w) {
  fprintf(stderr, "lowersim %s: out of memory\n", w->command);
  return 2;
}

/* Lists `path` unless the file it names is listed already. */
static int add_file(cli_walk *w, const char *path, const struct stat *st) {
  bool added = true;
  if (st && !id_add(&w->files, st, &added))
    return no_memory(w);
  if (!added)
    return 0;
  if (!lsim_grow_array(&w->paths, &w->cap, w->count + 1, sizeof *w->paths))
    return no_memory(w);
  if (!(w->paths[w->count] = lsim_strdup(path)))
    return no_memory(w);
  w->count++;
  w->sorted = false;
  return 0;
}

static bool ends_with_xml(const char *s) {
  size_t n = strlen(s);
  return n >= 4 && strcmp(s + n - 4, ".xml") == 0;
}

static const char *file_kind(mode_t mode) {
  return S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device"
         : S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

static void note(cli_walk *w, const char *path, const char *why) {
  if (w->notes)
    fprintf(stderr, "lowersim %s: skipping %s: %s\n", w->command, path, why);
}

static int search(cli_walk *w, const char *dir, const struct stat *st);

/* A path the system cannot name (longer than PATH_MAX): said, and the walk
 * fails (never a scenario silently left out). */
static int too_long(cli_walk *w, const char *path) {
  fprintf(stderr, "lowersim %s: cannot read %s: %s (the system names no path longer than %d "
          "bytes)\n", w->command, path, strerror(ENAMETOOLONG), PATH_MAX);
  return 2;
}

/* One entry of a folder being searched. */
static int visit(cli_walk *w, const char *path, const char *name) {
  struct stat st;
  if (stat(path, &st) != 0) {
    int errnum = errno;
    struct stat link;
    if (errnum == ENAMETOOLONG)
      return too_long(w, path);
    if (errnum != ENOENT || ends_with_xml(name) ||
        (lstat(path, &link) == 0 && S_ISLNK(link.st_mode)))
      note(w, path, errnum == ENOENT ? "a symbolic link to nothing" : strerror(errnum));
    return 0;
  }
  if (S_ISDIR(st.st_mode))
    return search(w, path, &st);
  if (!ends_with_xml(name))
    return 0;
  if (!S_ISREG(st.st_mode)) {
    char why[64];
    snprintf(why, sizeof why, "%s, not a regular file", file_kind(st.st_mode));
    note(w, path, why);
    return 0;
  }
  return add_file(w, path, &st);
}

/* Every *.xml below `dir`, unless `dir` was searched already. */
static int search(cli_walk *w, const char *dir, const struct stat *st) {
  bool added;
  if (!id_add(&w->folders, st, &added))
    return no_memory(w);
  if (!added) {
    note(w, dir, "a folder searched already (reached again through a symbolic link)");
    return 0;
  }
  DIR *d = opendir(dir);
  if (!d) {
    if (errno == ENAMETOOLONG)
      return too_long(w, dir);
    note(w, dir, strerror(errno));
    return 0;
  }
  int code = 0;
  size_t dir_len = strlen(dir);
  bool slash = dir_len && dir[dir_len - 1] == '/';
  for (struct dirent *e; !code && (e = readdir(d));) {
    if (e->d_name[0] == '.')
      continue;
    size_t n = dir_len + strlen(e->d_name) + 2;
    char *child = lsim_malloc(n);
    if (!child) {
      code = no_memory(w);
      break;
    }
    snprintf(child, n, "%s%s%s", dir, slash ? "" : "/", e->d_name);
    code = visit(w, child, e->d_name);
    free(child);
  }
  closedir(d);
  return code;
}

int cli_walk_add(cli_walk *w, const char *path) {
  if (strcmp(path, "-") == 0) {
    bool first = !w->has_stdin;
    w->has_stdin = true;
    return first ? add_file(w, path, NULL) : 0;
  }
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "lowersim %s: cannot read '%s': %s\n", w->command, path, strerror(errno));
    return 2;
  }
  return S_ISDIR(st.st_mode) ? search(w, path, &st) : add_file(w, path, &st);
}

static int compare_paths(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

char *const *cli_walk_files(cli_walk *w, size_t *count) {
  if (!w->sorted && w->count) {
    qsort(w->paths, w->count, sizeof *w->paths, compare_paths);
    w->sorted = true;
  }
  *count = w->count;
  return w->paths;
}
