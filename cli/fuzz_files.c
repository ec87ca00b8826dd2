/* cli/fuzz_files.c: the fuzzer's output and folder cases (fuzz_files.h). */
#include "fuzz_files.h"
#include "output.h"
#include "walk.h"

#include "lowersim/alloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_PATH 4096
#define MAX_FOLDERS 48
#define MAX_FILES 96

static uint64_t below(lsim_fuzz_rng *rng, uint64_t n) { return lsim_fuzz_rng_below(rng, n); }

/* `dir`/`name` into `out` (MAX_PATH bytes); false when it does not fit. */
static bool join(char *out, const char *dir, const char *name) {
  int n = snprintf(out, MAX_PATH, "%s/%s", dir, name);
  return n > 0 && n < MAX_PATH;
}

static int say(int code, char *detail, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int say(int code, char *detail, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, size, fmt, ap);
  va_end(ap);
  return code;
}

void cli_fuzz_remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0)
    return;
  if (!S_ISDIR(st.st_mode)) {
    unlink(path);
    return;
  }
  DIR *d = opendir(path);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    char child[MAX_PATH];
    if (join(child, path, e->d_name))
      cli_fuzz_remove_tree(child);
  }
  if (d)
    closedir(d);
  rmdir(path);
}

static bool write_text(const char *path, const char *text, size_t size) {
  FILE *f = fopen(path, "wb");
  bool ok = f && fwrite(text, 1, size, f) == size;
  return f ? fclose(f) == 0 && ok : false;
}

static bool holds(const char *path, const char *text, size_t size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return false;
  bool same = true;
  for (size_t i = 0; same && i < size; i++)
    same = getc(f) == (unsigned char)text[i];
  same = same && getc(f) == EOF;
  fclose(f);
  return same;
}

static bool temporary_left(const char *dir) {
  DIR *d = opendir(dir);
  bool found = false;
  for (struct dirent *e; d && !found && (e = readdir(d));)
    found = strncmp(e->d_name, ".lowersim-", 10) == 0;
  if (d)
    closedir(d);
  return found;
}

static mode_t current_umask(void) {
  mode_t mask = umask(0);
  umask(mask);
  return mask;
}

/* cli_write_file with its messages (refusals are expected) kept off stderr. */
static int write_quietly(const char *path, const char *text, size_t size, const cli_inputs *in) {
  fflush(stderr);
  int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY);
  if (saved >= 0 && null >= 0)
    dup2(null, STDERR_FILENO);
  int code = cli_write_file("fuzz", path, text, size, in);
  fflush(stderr);
  if (saved >= 0)
    dup2(saved, STDERR_FILENO), close(saved);
  if (null >= 0)
    close(null);
  return code;
}

static bool make_case_folder(const char *scratch, char *dir) {
  return join(dir, scratch, "case-XXXXXX") && mkdtemp(dir);
}

enum { NEW, OLD, LINK, DANGLING, LONG_NAME, FOLDER, INPUT, MISSING_FOLDER, NUM_TARGETS };

static const char *const target_names[] = {"a new file",       "an old file",
                                           "a link to a file", "a link to nothing",
                                           "a long name",      "a folder",
                                           "the input",        "a missing folder"};

/* Makes the target of `kind` in `dir`; `path` receives it, `file` the file
 * the text must end up in, `*mode` the mode it must have. */
static bool set_up_target(lsim_fuzz_rng *rng, int kind, const char *dir, char *path, char *file,
                          mode_t *mode) {
  mode_t m = 0600 | (mode_t)below(rng, 0200);
  *mode = 0666 & ~current_umask();
  if (!join(path, dir, "out.txt") || !join(file, dir, "out.txt"))
    return false;
  switch (kind) {
  case OLD:
    *mode = m;
    return write_text(path, "old\n", 4) && chmod(path, m) == 0;
  case LINK:
    *mode = m;
    return join(file, dir, "target.txt") && join(path, dir, "link.txt") && write_text(file, "old\n", 4) && chmod(file, m) == 0 && symlink("target.txt", path) == 0;
  case DANGLING:
    return join(file, dir, "made.txt") && join(path, dir, "dangling.txt") &&
           symlink("made.txt", path) == 0;
  case LONG_NAME: {
    char name[256];
    size_t n = 200 + (size_t)below(rng, 52);
    memset(name, 'n', n);
    strcpy(name + n, ".txt");
    return join(path, dir, name) && join(file, dir, name);
  }
  case FOLDER: return mkdir(path, 0700) == 0;
  case INPUT: return join(path, dir, "in.xml");
  case MISSING_FOLDER: return join(path, dir, "missing/out.txt");
  default: return true;
  }
}

/* What must hold after writing to a target of `kind`. */
static int check_target(int kind, int code, const char *dir, const char *path, const char *file,
                        mode_t mode, const char *text, size_t size, char *detail, size_t dsize) {
  const char *what = target_names[kind];
  struct stat st;
  bool refused = kind == FOLDER || kind == INPUT || kind == MISSING_FOLDER;
  if (refused) {
    if (code != 2)
      return say(1, detail, dsize, "-o to %s: exit %d, not a refusal (2)", what, code);
    if (kind == FOLDER && (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode)))
      return say(1, detail, dsize, "-o to a folder: the folder is gone");
    if (kind == INPUT && !holds(path, "input\n", 6))
      return say(1, detail, dsize, "-o to the input: the input was written over");
    if (kind == MISSING_FOLDER && lstat(path, &st) == 0)
      return say(1, detail, dsize, "-o into a missing folder: something was made");
  } else {
    if (code != 0)
      return say(1, detail, dsize, "-o to %s: exit %d", what, code);
    if (!holds(file, text, size))
      return say(1, detail, dsize, "-o to %s: %s does not hold the text", what, file);
    if (stat(file, &st) != 0 || (st.st_mode & 07777) != mode)
      return say(1, detail, dsize, "-o to %s: mode %o, not %o", what, (unsigned)(st.st_mode & 07777),
                 (unsigned)mode);
    if ((kind == LINK || kind == DANGLING) && (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode)))
      return say(1, detail, dsize, "-o to %s: the link was replaced", what);
  }
  if (temporary_left(dir))
    return say(1, detail, dsize, "-o to %s: a temporary file was left behind", what);
  return 0;
}

int cli_fuzz_output_case(lsim_fuzz_rng *rng, const char *scratch, const char *text, size_t size,
                         char *detail, size_t detail_size) {
  char dir[MAX_PATH], path[MAX_PATH], file[MAX_PATH], input[MAX_PATH];
  if (!make_case_folder(scratch, dir))
    return say(2, detail, detail_size, "cannot make a folder in %s: %s", scratch, strerror(errno));
  int kind = (int)below(rng, NUM_TARGETS);
  mode_t mode;
  cli_inputs inputs = {0};
  int rc;
  if (!join(input, dir, "in.xml") || !write_text(input, "input\n", 6) || !cli_inputs_add(&inputs, input) ||
      !set_up_target(rng, kind, dir, path, file, &mode))
    rc = say(2, detail, detail_size, "cannot set up %s in %s: %s", target_names[kind], dir,
             strerror(errno));
  else
    rc = check_target(kind, write_quietly(path, text, size, &inputs), dir, path, file, mode, text,
                      size, detail, detail_size);
  cli_inputs_free(&inputs);
  cli_fuzz_remove_tree(dir);
  return rc;
}

/* --- Folders ----------------------------------------------------------------------- */

typedef struct tree {
  lsim_fuzz_rng *rng;
  char folders[MAX_FOLDERS][MAX_PATH];
  size_t num_folders;
  char files[MAX_FILES][MAX_PATH]; /* the regular *.xml files */
  size_t num_files;
  const char *text;
  size_t size;
  bool ok;
} tree;

static void grow_folder(tree *t, const char *path, int depth) {
  if (t->num_folders == MAX_FOLDERS || mkdir(path, 0700) != 0) {
    t->ok = t->ok && t->num_folders == MAX_FOLDERS;
    return;
  }
  memcpy(t->folders[t->num_folders++], path, strlen(path) + 1);
  char name[32];
  for (uint64_t i = 0, n = below(t->rng, 4); i < n && t->num_files < MAX_FILES; i++) {
    snprintf(name, sizeof name, "s%zu.xml", t->num_files);
    char *file = t->files[t->num_files++];
    t->ok = t->ok && join(file, path, name) && write_text(file, t->text, t->size);
  }
  char child[MAX_PATH];
  if (below(t->rng, 2))
    t->ok = t->ok && join(child, path, "notes.txt") && write_text(child, "not a scenario\n", 15);
  for (uint64_t i = 0, n = depth < 3 ? below(t->rng, 3) : 0; i < n; i++) {
    snprintf(name, sizeof name, "d%" PRIu64, i);
    if (join(child, path, name))
      grow_folder(t, child, depth + 1);
  }
}

/* Links to folders above and beside, to files and to nothing, and FIFOs
 * named *.xml, in random folders. */
static void add_traps(tree *t) {
  char at[MAX_PATH];
  for (uint64_t i = 0, n = 1 + below(t->rng, 6); i < n; i++) {
    const char *folder = t->folders[below(t->rng, t->num_folders)];
    uint64_t kind = below(t->rng, 5);
    char name[32];
    snprintf(name, sizeof name, "trap%" PRIu64 "%s", i, kind >= 2 ? ".xml" : "");
    if (!join(at, folder, name))
      continue;
    if (kind == 0)
      t->ok = t->ok && symlink("..", at) == 0;
    else if (kind == 1)
      t->ok = t->ok && symlink(t->folders[below(t->rng, t->num_folders)], at) == 0;
    else if (kind == 2 && t->num_files)
      t->ok = t->ok && symlink(t->files[below(t->rng, t->num_files)], at) == 0;
    else if (kind == 3)
      t->ok = t->ok && symlink("nowhere", at) == 0;
    else if (kind == 4)
      t->ok = t->ok && mkfifo(at, 0600) == 0;
  }
}

static int compare_inodes(const void *a, const void *b) {
  ino_t x = *(const ino_t *)a, y = *(const ino_t *)b;
  return (x > y) - (x < y);
}

/* Every listed path is a regular *.xml file, each file once, all of them. */
static int check_listing(tree *t, char *const *paths, size_t n, char *detail, size_t dsize) {
  if (n != t->num_files)
    return say(1, detail, dsize, "the walk lists %zu files; the tree has %zu scenario files", n,
               t->num_files);
  ino_t inodes[MAX_FILES];
  for (size_t i = 0; i < n; i++) {
    struct stat st;
    size_t len = strlen(paths[i]);
    if (stat(paths[i], &st) != 0 || !S_ISREG(st.st_mode) || len < 4 ||
        strcmp(paths[i] + len - 4, ".xml") != 0)
      return say(1, detail, dsize, "the walk lists %s, not a regular *.xml file", paths[i]);
    inodes[i] = st.st_ino;
  }
  qsort(inodes, n, sizeof *inodes, compare_inodes);
  for (size_t i = 1; i < n; i++)
    if (inodes[i] == inodes[i - 1])
      return say(1, detail, dsize, "the walk lists one file twice");
  return 0;
}

int cli_fuzz_folder_case(lsim_fuzz_rng *rng, const char *scratch, const char *text, size_t size,
                         char *detail, size_t detail_size) {
  char dir[MAX_PATH], root[MAX_PATH];
  if (!make_case_folder(scratch, dir))
    return say(2, detail, detail_size, "cannot make a folder in %s: %s", scratch, strerror(errno));
  tree *t = lsim_calloc(1, sizeof *t);
  if (!t) {
    cli_fuzz_remove_tree(dir);
    return say(2, detail, detail_size, "out of memory");
  }
  *t = (tree){.rng = rng, .text = text, .size = size, .ok = true};
  t->ok = join(root, dir, "tree");
  if (t->ok)
    grow_folder(t, root, 0);
  if (t->ok && t->num_folders)
    add_traps(t);
  int rc;
  cli_walk *w = t->ok ? cli_walk_create("fuzz", false) : NULL;
  if (!t->ok || !w) {
    rc = say(2, detail, detail_size, "cannot build the tree in %s: %s", dir, strerror(errno));
  } else if (cli_walk_add(w, root) != 0) {
    rc = say(1, detail, detail_size, "the walk of %s fails", root);
  } else {
    size_t n;
    char *const *paths = cli_walk_files(w, &n);
    rc = check_listing(t, paths, n, detail, detail_size);
  }
  cli_walk_destroy(w);
  free(t);
  cli_fuzz_remove_tree(dir);
  return rc;
}
