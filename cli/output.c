/* cli/output.c: files written whole or not at all (see output.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "output.h"

#include "lowersim/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_PATH 4096
#define MAX_TEMPORARIES 16
#define TEMPORARY_NAME ".lowersim-XXXXXX" /* short: any name that fits fits with it */

/* --- Inputs ------------------------------------------------------------------ */

bool cli_inputs_add(cli_inputs *in, const char *path) {
  struct stat st;
  if (strcmp(path, "-") == 0 || stat(path, &st) != 0)
    return true;
  if (!lsim_grow_array(&in->ids, &in->cap, in->count + 1, sizeof *in->ids))
    return false;
  in->ids[in->count++] = (struct cli_file_id){st.st_dev, st.st_ino};
  return true;
}

void cli_inputs_free(cli_inputs *in) {
  free(in->ids);
  *in = (cli_inputs){0};
}

static bool is_input(const cli_inputs *in, const struct stat *st) {
  for (size_t i = 0; in && i < in->count; i++)
    if (in->ids[i].dev == st->st_dev && in->ids[i].ino == st->st_ino)
      return true;
  return false;
}

/* --- Claims: one file, one output; standard output owned by a machine output --------- */

static bool stdout_owned;

FILE *cli_human(void) { return stdout_owned ? stderr : stdout; }

void cli_human_reset(void) { stdout_owned = false; }

/* What identifies the file `path` names ("-": standard output's): its
 * device and inode when it exists, else its folder's real path and its
 * name (owned).  *shared: a character device, which several outputs may
 * share (/dev/null); standard output is never shared. */
typedef struct output_id {
  bool exists, shared;
  struct stat st;
  char *name;
} output_id;

static output_id identify(const char *path) {
  output_id id = {0};
  if (strcmp(path, "-") == 0) {
    id.exists = fstat(STDOUT_FILENO, &id.st) == 0;
    return id;
  }
  if (stat(path, &id.st) == 0) {
    id.exists = true;
    id.shared = S_ISCHR(id.st.st_mode);
    return id;
  }
  const char *slash = strrchr(path, '/');
  char *dir = slash ? lsim_strdup(path) : NULL;
  if (dir)
    dir[slash == path ? 1 : slash - path] = '\0';
  char *real = realpath(slash ? (dir ? dir : "/") : ".", NULL);
  const char *base = slash ? slash + 1 : path;
  size_t size = real ? strlen(real) + strlen(base) + 2 : 0;
  if (real && (id.name = lsim_malloc(size)))
    snprintf(id.name, size, "%s/%s", real, base);
  free(real);
  free(dir);
  return id;
}

/* Whether claims a and b name one file. */
static bool same_output(const cli_claim *a, const cli_claim *b) {
  bool a_out = strcmp(a->path, "-") == 0, b_out = strcmp(b->path, "-") == 0;
  if (a_out && b_out)
    return true;
  output_id x = identify(a->path), y = identify(b->path);
  bool same;
  if (x.exists || y.exists)
    same = x.exists && y.exists && !x.shared && !y.shared && x.st.st_dev == y.st.st_dev &&
           x.st.st_ino == y.st.st_ino;
  else
    same = strcmp(a->path, b->path) == 0 || (x.name && y.name && strcmp(x.name, y.name) == 0);
  free(x.name);
  free(y.name);
  return same;
}

int cli_claim_outputs(const char *command, const cli_claim *claims, size_t count) {
  stdout_owned = false;
  for (size_t i = 0; i < count; i++) {
    if (!claims[i].path)
      continue;
    for (size_t j = 0; j < i; j++)
      if (claims[j].path && same_output(&claims[j], &claims[i])) {
        const char *where = strcmp(claims[i].path, "-") == 0 ? "standard output" : claims[i].path;
        fprintf(stderr, "lowersim %s: %s and %s both write %s: give each its own file\n", command,
                claims[j].option, claims[i].option, where);
        stdout_owned = false;
        return 2;
      }
    stdout_owned |= strcmp(claims[i].path, "-") == 0;
  }
  return 0;
}

/* --- Temporaries, removed when a signal stops the command ----------------- */

static char temporaries[MAX_TEMPORARIES][MAX_PATH];
static volatile sig_atomic_t live[MAX_TEMPORARIES];
static pid_t owner; /* the process that made them (not a forked child) */
static const int stopping_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
#define NUM_STOPPING (sizeof stopping_signals / sizeof stopping_signals[0])

static void remove_temporaries(int sig) {
  if (getpid() == owner)
    for (int i = 0; i < MAX_TEMPORARIES; i++)
      if (live[i])
        unlink(temporaries[i]);
  signal(sig, SIG_DFL);
  raise(sig); /* delivered, with its default action, once the handler returns */
}

static void install_handlers(void) {
  static bool installed;
  if (installed)
    return;
  installed = true;
  owner = getpid();
  for (size_t i = 0; i < NUM_STOPPING; i++) {
    struct sigaction old, act = {.sa_handler = remove_temporaries};
    sigfillset(&act.sa_mask);
    if (sigaction(stopping_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
      sigaction(stopping_signals[i], &act, NULL);
  }
}

/* Blocks the stopping signals (while the table of temporaries changes). */
static void block(sigset_t *saved) {
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < NUM_STOPPING; i++)
    sigaddset(&set, stopping_signals[i]);
  pthread_sigmask(SIG_BLOCK, &set, saved);
}

static void unblock(const sigset_t *saved) { pthread_sigmask(SIG_SETMASK, saved, NULL); }

static mode_t process_umask(void) {
  static bool known;
  static mode_t mask;
  if (!known) {
    mask = umask(0);
    umask(mask);
    known = true;
  }
  return mask;
}

/* --- Outputs ------------------------------------------------------------------- */

struct cli_output {
  const char *command;
  char *path;   /* as given, for messages */
  char *target; /* what is replaced: the path, or where its symbolic link points */
  FILE *f;
  bool is_stdout;
  int temporary; /* its slot, or -1 when written in place */
};

static void output_free(cli_output *o) {
  free(o->path);
  free(o->target);
  free(o);
}

static cli_output *fail(cli_output *o, const char *why) {
  fprintf(stderr, "lowersim %s: cannot write %s: %s\n", o->command, o->path, why);
  if (o->f && !o->is_stdout)
    fclose(o->f);
  output_free(o);
  return NULL;
}

static void drop_temporary(int slot, bool remove) {
  sigset_t saved;
  block(&saved);
  if (remove)
    unlink(temporaries[slot]);
  live[slot] = 0;
  unblock(&saved);
}

/* A temporary file next to o->target, with `mode` (and `old`'s owner when
 * it can); false and errno set when it cannot be made. */
static bool make_temporary(cli_output *o, mode_t mode, const struct stat *old) {
  const char *slash = strrchr(o->target, '/');
  size_t dir = slash ? (size_t)(slash - o->target) + 1 : 0;
  if (dir + sizeof TEMPORARY_NAME > MAX_PATH) {
    errno = ENAMETOOLONG;
    return false;
  }
  install_handlers();
  sigset_t saved;
  block(&saved);
  int slot = 0, fd = -1;
  while (slot < MAX_TEMPORARIES && live[slot])
    slot++;
  if (slot < MAX_TEMPORARIES) {
    memcpy(temporaries[slot], o->target, dir);
    memcpy(temporaries[slot] + dir, TEMPORARY_NAME, sizeof TEMPORARY_NAME);
    if ((fd = mkstemp(temporaries[slot])) >= 0)
      live[slot] = 1;
  } else {
    errno = EMFILE;
  }
  unblock(&saved);
  if (fd < 0)
    return false;
  if (old && fchown(fd, old->st_uid, old->st_gid) != 0)
    mode &= ~(mode_t)(S_ISUID | S_ISGID); /* not the old owner: no set-id bits */
  if (fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "w"))) {
    int saved_errno = errno;
    close(fd);
    drop_temporary(slot, true);
    errno = saved_errno;
    return false;
  }
  o->temporary = slot;
  return true;
}

/* Where a path written in place is opened. */
static bool open_in_place(cli_output *o, const char *path, int flags) {
  int fd = open(path, O_WRONLY | O_NOCTTY | flags, 0666);
  if (fd < 0)
    return false;
  if (!(o->f = fdopen(fd, "w"))) {
    int saved_errno = errno;
    close(fd);
    errno = saved_errno;
    return false;
  }
  return true;
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

cli_output *cli_output_open(const char *command, const char *path, const cli_inputs *inputs) {
  cli_output *o = lsim_calloc(1, sizeof *o);
  if (!o || !(o->path = lsim_strdup(path))) {
    free(o);
    fprintf(stderr, "lowersim %s: cannot write %s: out of memory\n", command, path);
    return NULL;
  }
  o->command = command;
  o->temporary = -1;
  if (strcmp(path, "-") == 0) {
    o->is_stdout = true;
    o->f = stdout;
    return o;
  }
  struct stat st;
  bool link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
  o->target = link ? realpath(path, NULL) : lsim_strdup(path);
  if (link && !o->target && errno == ENOENT) /* a link to nothing: its target is created */
    return open_in_place(o, path, O_CREAT | O_TRUNC) ? o : fail(o, strerror(errno));
  if (!o->target)
    return fail(o, strerror(errno));
  if (stat(o->target, &st) != 0) {
    if (errno != ENOENT)
      return fail(o, strerror(errno));
    return make_temporary(o, 0666 & ~process_umask(), NULL) ? o : fail(o, strerror(errno));
  }
  if (is_input(inputs, &st))
    return fail(o, "it is also an input of this command");
  if (refusal(&st))
    return fail(o, refusal(&st));
  if (!S_ISREG(st.st_mode))
    return open_in_place(o, o->target, 0) ? o : fail(o, strerror(errno));
  if (access(o->target, W_OK) != 0)
    return fail(o, strerror(errno));
  return make_temporary(o, st.st_mode & 07777, &st) ? o : fail(o, strerror(errno));
}

FILE *cli_output_stream(cli_output *o) { return o->f; }

int cli_output_commit(cli_output *o) {
  errno = 0;
  bool ok = fflush(o->f) == 0 && !ferror(o->f);
  int why = ok ? 0 : errno ? errno : EIO;
  if (!o->is_stdout && fclose(o->f) != 0 && ok)
    ok = false, why = errno;
  o->f = NULL;
  /* Signals stay deliverable: one before the rename removes the temporary
   * and leaves the old file; one after finds no temporary to remove. */
  if (o->temporary >= 0 && ok && rename(temporaries[o->temporary], o->target) != 0)
    ok = false, why = errno;
  if (o->temporary >= 0)
    drop_temporary(o->temporary, !ok);
  if (!ok)
    fprintf(stderr, "lowersim %s: cannot write %s: %s\n", o->command, o->path, strerror(why));
  output_free(o);
  return ok ? 0 : 2;
}

void cli_output_abort(cli_output *o) {
  if (!o)
    return;
  if (o->f && !o->is_stdout)
    fclose(o->f);
  if (o->temporary >= 0)
    drop_temporary(o->temporary, true);
  output_free(o);
}

int cli_write_file(const char *command, const char *path, const void *data, size_t size,
                   const cli_inputs *inputs) {
  cli_output *o = cli_output_open(command, path, inputs);
  if (!o)
    return 2;
  if (size && fwrite(data, 1, size, cli_output_stream(o)) != size) {
    int why = errno;
    fprintf(stderr, "lowersim %s: cannot write %s: %s\n", command, path, strerror(why));
    cli_output_abort(o);
    return 2;
  }
  return cli_output_commit(o);
}

int cli_finish_stdout(const char *command, int code) {
  errno = 0;
  bool ok = fflush(stdout) == 0 && !ferror(stdout);
  int why = ok ? 0 : errno ? errno : EIO;
  if (fclose(stdout) != 0 && ok)
    ok = false, why = errno;
  if (ok)
    return code;
  fprintf(stderr, "lowersim%s%s: cannot write standard output: %s\n", *command ? " " : "", command,
          strerror(why));
  return code ? code : 2;
}
