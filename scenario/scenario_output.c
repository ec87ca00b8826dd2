/* scenario/scenario_output.c: files written whole or not at all, in place
 * for the descriptors and devices a path names (see
 * lowersim/scenario_output.h). */
#define _GNU_SOURCE /* fopencookie */
#include "lowersim/scenario_output.h"
#include "internal.h"

#include "lowersim/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_PATH 4096
#define MAX_DOOMED 512 /* fuzz --jobs 256 keeps one in-progress file each */
#define MAX_LINKS 40 /* as the kernel's ELOOP */
#define TEMPORARY_NAME ".lowersim-XXXXXX" /* short: any name that fits fits with it */

static int fail_io(lsim_error *err, const char *path, const char *why) {
  return lsim_error_set(err, LSIM_E_IO, "%s: %s", path, why);
}

/* --- Files removed when a signal stops the process ------------------------- */

static char doomed[MAX_DOOMED][MAX_PATH];
static volatile sig_atomic_t live[MAX_DOOMED];
static pid_t owner; /* the process that catches (not a forked child) */
static const int stopping_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
#define NUM_STOPPING (sizeof stopping_signals / sizeof stopping_signals[0])

static void remove_doomed(int sig) {
  if (getpid() == owner)
    for (int i = 0; i < MAX_DOOMED; i++)
      if (live[i])
        unlink(doomed[i]);
  signal(sig, SIG_DFL);
  raise(sig); /* delivered, with its default action, once the handler returns */
}

void lsim_scenario_output_catch_signals(void) {
  owner = getpid();
  signal(SIGXFSZ, SIG_IGN); /* a write past `ulimit -f` fails with EFBIG instead */
  for (size_t i = 0; i < NUM_STOPPING; i++) {
    struct sigaction old, act = {.sa_handler = remove_doomed};
    sigfillset(&act.sa_mask);
    if (sigaction(stopping_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
      sigaction(stopping_signals[i], &act, NULL);
  }
}

/* Blocks the stopping signals (while the table changes). */
static void block(sigset_t *saved) {
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < NUM_STOPPING; i++)
    sigaddset(&set, stopping_signals[i]);
  pthread_sigmask(SIG_BLOCK, &set, saved);
}

static void unblock(const sigset_t *saved) { pthread_sigmask(SIG_SETMASK, saved, NULL); }

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

/* A free slot holding `dir` then `name` (a mkstemp pattern when `make`),
 * live; -1 (errno set) when there is none or the file cannot be made;
 * *fd the made file's. */
static int doom(const char *dir, size_t dir_len, const char *name, bool make, int *fd) {
  size_t name_len = strlen(name);
  if (dir_len + name_len + 1 > MAX_PATH) {
    errno = ENAMETOOLONG;
    return -1;
  }
  sigset_t saved;
  block(&saved);
  pthread_mutex_lock(&table_lock);
  int slot = 0;
  while (slot < MAX_DOOMED && live[slot])
    slot++;
  if (slot == MAX_DOOMED) {
    errno = EMFILE;
    slot = -1;
  } else {
    memcpy(doomed[slot], dir, dir_len);
    memcpy(doomed[slot] + dir_len, name, name_len + 1);
    if (make && (*fd = mkstemp(doomed[slot])) < 0)
      slot = -1;
    else
      live[slot] = 1;
  }
  pthread_mutex_unlock(&table_lock);
  unblock(&saved);
  return slot;
}

static void undoom(int slot, bool remove) {
  if (slot < 0 || slot >= MAX_DOOMED)
    return;
  sigset_t saved;
  block(&saved);
  pthread_mutex_lock(&table_lock);
  if (remove)
    unlink(doomed[slot]);
  live[slot] = 0;
  pthread_mutex_unlock(&table_lock);
  unblock(&saved);
}

int lsim_scenario_output_remove_on_signal(const char *path) {
  return path ? doom(path, strlen(path), "", false, NULL) : -1;
}

void lsim_scenario_output_forget(int slot) { undoom(slot, false); }

static mode_t known_mask;

static void read_umask(void) {
  known_mask = umask(0);
  umask(known_mask);
}

/* The process's umask, read once (reading it sets it). */
static mode_t process_umask(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, read_umask);
  return known_mask;
}

/* --- What a path names --------------------------------------------------------- */

int lsimp_descriptor_named(const char *path) {
  static const char *const std[] = {"/dev/stdin", "/dev/stdout", "/dev/stderr"};
  for (int i = 0; i < 3; i++)
    if (strcmp(path, std[i]) == 0)
      return i;
  char self[48];
  snprintf(self, sizeof self, "/proc/%ld/fd/", (long)getpid());
  const char *const prefixes[] = {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", self};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
    size_t n = strlen(prefixes[i]);
    if (strncmp(path, prefixes[i], n) != 0 || !path[n])
      continue;
    long fd = 0;
    for (const char *c = path + n; *c; c++) {
      if (*c < '0' || *c > '9' || fd > INT_MAX / 10)
        return -1;
      fd = fd * 10 + (*c - '0');
    }
    return (int)fd;
  }
  return -1;
}

/* Follows `path`'s symbolic links, one at a time, up to a descriptor's name
 * (*fd >= 0) or a path that is not a link (into `final`, MAX_PATH bytes;
 * it may not exist); errno set and false when it cannot be followed (ELOOP,
 * ENAMETOOLONG, a folder on the way that cannot be read).  No allocation:
 * claims (lsim_scenario_output_same) cannot fail. */
static bool follow(const char *path, int *fd, char *final) {
  *fd = -1;
  if (strlen(path) >= MAX_PATH) {
    errno = ENAMETOOLONG;
    return false;
  }
  strcpy(final, path);
  for (int hops = 0;; hops++) {
    if ((*fd = lsimp_descriptor_named(final)) >= 0)
      return true;
    struct stat st;
    bool gone = lstat(final, &st) != 0;
    if (gone && errno != ENOENT)
      return false;
    if (gone || !S_ISLNK(st.st_mode))
      return true;
    if (hops == MAX_LINKS) {
      errno = ELOOP;
      return false;
    }
    char target[MAX_PATH];
    ssize_t n = readlink(final, target, sizeof target - 1);
    if (n < 0)
      return false;
    target[n] = '\0';
    char *slash = strrchr(final, '/');
    size_t dir = target[0] == '/' || !slash ? 0 : (size_t)(slash - final) + 1;
    if (dir + (size_t)n >= MAX_PATH) {
      errno = ENAMETOOLONG;
      return false;
    }
    memcpy(final + dir, target, (size_t)n + 1); /* relative to the link's folder */
  }
}

/* What an output names: a descriptor (fd >= 0), an existing file (st), or
 * a new one (name: its folder's real path and its base name). */
typedef struct output_id {
  int fd;
  bool exists, named;
  struct stat st;
  char name[PATH_MAX + MAX_PATH + 2];
} output_id;

static void identify(const char *path, output_id *id) {
  char final[MAX_PATH];
  id->fd = strcmp(path, "-") == 0 ? STDOUT_FILENO : -1;
  id->exists = id->named = false;
  if (id->fd < 0 && !follow(path, &id->fd, final))
    return;
  if (id->fd >= 0) {
    id->exists = fstat(id->fd, &id->st) == 0;
  } else if (stat(final, &id->st) == 0) {
    id->exists = true;
  } else {
    char *slash = strrchr(final, '/'), real[PATH_MAX];
    const char *base = slash ? slash + 1 : final;
    if (slash)
      *slash = '\0'; /* final is its folder ("" for the root), base its name */
    if (realpath(!slash ? "." : *final ? final : "/", real)) {
      snprintf(id->name, sizeof id->name, "%s/%s", real, base);
      id->named = true;
    }
  }
}

bool lsim_scenario_output_same(const char *a, const char *b) {
  if (!a || !b)
    return false;
  output_id x, y;
  identify(a, &x);
  identify(b, &y);
  if (x.fd >= 0 && x.fd == y.fd)
    return true;
  if (x.exists && y.exists)
    return x.st.st_dev == y.st.st_dev && x.st.st_ino == y.st.st_ino && !S_ISCHR(x.st.st_mode);
  return !x.exists && !y.exists && x.named && y.named && strcmp(x.name, y.name) == 0;
}

/* --- Reading without blocking --------------------------------------------- */

static const char *file_kind(mode_t mode) {
  return S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device"
         : S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

int lsim_scenario_open_read(const char *path, FILE **out, lsim_error *err) {
  if (!path || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_scenario_open_read: NULL argument");
  *out = NULL;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    int errnum = errno;
    if (fd >= 0)
      close(fd);
    return fail_io(err, path, strerror(errnum));
  }
  const char *why = S_ISDIR(st.st_mode) ? strerror(EISDIR) : NULL;
  char kind[96];
  if (!why && !S_ISREG(st.st_mode) && lsimp_descriptor_named(path) < 0) {
    snprintf(kind, sizeof kind, "%s, not a regular file", file_kind(st.st_mode));
    why = kind;
  }
  int flags = why ? -1 : fcntl(fd, F_GETFL);
  if (!why && (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 ||
               !(*out = fdopen(fd, "rb"))))
    why = strerror(errno);
  if (why) {
    close(fd);
    return fail_io(err, path, why);
  }
  return LSIM_OK;
}

/* --- Outputs ------------------------------------------------------------------- */

struct lsim_scenario_output {
  char *path;   /* as given, for messages */
  char *target; /* what is replaced: the path, or its links' final target */
  FILE *f;
  int fd;
  bool own_fd;   /* closed by the commit (not a descriptor the path named) */
  int temporary; /* its slot, or -1 when written in place */
  int error;     /* the first write's or close's errno */
};

static ssize_t sink_write(void *cookie, const char *buf, size_t size) {
  lsim_scenario_output *o = cookie;
  for (size_t done = 0; done < size;) {
    ssize_t n = write(o->fd, buf + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (!o->error)
        o->error = n < 0 ? errno : EIO;
      return -1;
    }
    done += (size_t)n;
  }
  return (ssize_t)size;
}

static int sink_close(void *cookie) {
  lsim_scenario_output *o = cookie;
  if (o->own_fd && close(o->fd) != 0 && !o->error)
    o->error = errno;
  o->own_fd = false;
  return o->error ? -1 : 0;
}

/* The stream over o->fd; false (errno set) when it cannot be made. */
static bool make_stream(lsim_scenario_output *o) {
  cookie_io_functions_t io = {.write = sink_write, .close = sink_close};
  o->f = fopencookie(o, "w", io);
  return o->f != NULL;
}

static void output_free(lsim_scenario_output *o) {
  if (o->f)
    fclose(o->f);
  else if (o->own_fd)
    close(o->fd);
  free(o->path);
  free(o->target);
  free(o);
}

/* The errno's text, or `why`, as the error; frees `o`. */
static int fail(lsim_scenario_output *o, const char *why, lsim_error *err) {
  int rc = fail_io(err, o->path, why ? why : strerror(errno));
  if (o->temporary >= 0) {
    if (o->f)
      fclose(o->f), o->f = NULL;
    undoom(o->temporary, true);
  }
  output_free(o);
  return rc;
}

/* A temporary file next to o->target, with `mode` (and `old`'s owner when
 * it can); false and errno set when it cannot be made. */
static bool make_temporary(lsim_scenario_output *o, mode_t mode, const struct stat *old) {
  const char *slash = strrchr(o->target, '/');
  size_t dir = slash ? (size_t)(slash - o->target) + 1 : 0;
  int fd = -1;
  int slot = doom(o->target, dir, TEMPORARY_NAME, true, &fd);
  if (slot < 0)
    return false;
  o->temporary = slot;
  o->fd = fd;
  o->own_fd = true;
  if (old && fchown(fd, old->st_uid, old->st_gid) != 0)
    mode &= ~(mode_t)(S_ISUID | S_ISGID); /* not the old owner: no set-id bits */
  return fchmod(fd, mode) == 0 && make_stream(o);
}

static const char *refusal(const struct stat *st) {
  if (S_ISDIR(st->st_mode))
    return "it is a folder";
  if (S_ISBLK(st->st_mode))
    return "it is a block device (lowersim writes regular files, character devices and FIFOs)";
  if (S_ISSOCK(st->st_mode))
    return "it is a socket (lowersim writes regular files, character devices and FIFOs)";
  return NULL;
}

/* Whether the file `st` describes is one of the inputs. */
static bool is_input(const char *const *inputs, size_t n, const struct stat *st) {
  for (size_t i = 0; i < n; i++) {
    struct stat in;
    if (!inputs[i])
      continue;
    bool known = strcmp(inputs[i], "-") == 0 ? fstat(STDIN_FILENO, &in) == 0
                                             : stat(inputs[i], &in) == 0;
    if (known && S_ISREG(in.st_mode) && in.st_dev == st->st_dev && in.st_ino == st->st_ino)
      return true;
  }
  return false;
}

static const char *const input_refusal = "it is also an input of this command";

/* A descriptor the path named, written in place through it. */
static int open_descriptor(lsim_scenario_output *o, int fd, const char *const *inputs, size_t n,
                           lsim_error *err) {
  struct stat st;
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fstat(fd, &st) != 0)
    return fail(o, NULL, err);
  if ((flags & O_ACCMODE) == O_RDONLY)
    return fail(o, strerror(EBADF), err);
  if (is_input(inputs, n, &st))
    return fail(o, input_refusal, err);
  if (refusal(&st))
    return fail(o, refusal(&st), err);
  if (fd == STDOUT_FILENO)
    fflush(stdout); /* what the process printed comes first */
  else if (fd == STDERR_FILENO)
    fflush(stderr);
  o->fd = fd;
  return make_stream(o) ? LSIM_OK : fail(o, NULL, err);
}

static int open_output(lsim_scenario_output *o, const char *const *inputs, size_t n,
                       lsim_error *err) {
  int fd;
  char final[MAX_PATH];
  if (strcmp(o->path, "-") == 0)
    return open_descriptor(o, STDOUT_FILENO, inputs, n, err);
  if (!follow(o->path, &fd, final))
    return fail(o, NULL, err);
  if (fd >= 0)
    return open_descriptor(o, fd, inputs, n, err);
  if (!(o->target = lsim_strdup(final))) {
    output_free(o);
    return lsim_error_set(err, LSIM_E_NO_MEMORY, "out of memory");
  }
  struct stat st;
  if (stat(o->target, &st) != 0) {
    if (errno != ENOENT)
      return fail(o, NULL, err);
    /* a new file, or a link to nothing: its final target made by a rename */
    return make_temporary(o, 0666 & ~process_umask(), NULL) ? LSIM_OK : fail(o, NULL, err);
  }
  if (is_input(inputs, n, &st))
    return fail(o, input_refusal, err);
  if (refusal(&st))
    return fail(o, refusal(&st), err);
  if (!S_ISREG(st.st_mode)) { /* a character device or a FIFO */
    if ((o->fd = open(o->target, O_WRONLY | O_NOCTTY)) < 0)
      return fail(o, NULL, err);
    o->own_fd = true;
    return make_stream(o) ? LSIM_OK : fail(o, NULL, err);
  }
  if (access(o->target, W_OK) != 0)
    return fail(o, NULL, err);
  return make_temporary(o, st.st_mode & 07777, &st) ? LSIM_OK : fail(o, NULL, err);
}

int lsim_scenario_output_open(const char *path, const char *const *inputs, size_t num_inputs,
                              lsim_scenario_output **out, lsim_error *err) {
  if (!path || !out || (num_inputs && !inputs))
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_scenario_output_open: NULL argument");
  *out = NULL;
  lsim_scenario_output *o = lsim_calloc(1, sizeof *o);
  if (!o || !(o->path = lsim_strdup(path))) {
    free(o);
    return lsim_error_set(err, LSIM_E_NO_MEMORY, "out of memory");
  }
  o->temporary = -1;
  o->fd = -1;
  int rc = open_output(o, inputs, num_inputs, err);
  if (!rc)
    *out = o;
  return rc;
}

FILE *lsim_scenario_output_stream(lsim_scenario_output *o) { return o ? o->f : NULL; }

int lsim_scenario_output_commit(lsim_scenario_output *o, lsim_error *err) {
  if (!o)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_scenario_output_commit: NULL");
  errno = 0;
  bool ok = fflush(o->f) == 0 && !ferror(o->f);
  int why = o->error ? o->error : errno ? errno : EIO;
  ok = fclose(o->f) == 0 && ok; /* closes an owned descriptor, its error recorded */
  o->f = NULL;
  if (!ok && o->error)
    why = o->error;
  /* Signals stay deliverable: one before the rename removes the temporary
   * and leaves the old file; one after finds no temporary to remove. */
  if (o->temporary >= 0 && ok && rename(doomed[o->temporary], o->target) != 0)
    ok = false, why = errno;
  if (o->temporary >= 0)
    undoom(o->temporary, !ok);
  int rc = ok ? LSIM_OK : fail_io(err, o->path, strerror(why));
  output_free(o);
  return rc;
}

void lsim_scenario_output_abort(lsim_scenario_output *o) {
  if (!o)
    return;
  if (o->f) {
    fclose(o->f);
    o->f = NULL;
  }
  if (o->temporary >= 0)
    undoom(o->temporary, true);
  output_free(o);
}
