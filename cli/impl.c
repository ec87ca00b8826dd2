/* cli/impl.c: running a port on scenario files (one process per scenario,
 * or the batch protocol), up to `jobs` at once with a time-out, a progress
 * line, and judging its answers against lowersim's outcomes (impl.h). */
#define _GNU_SOURCE
#include "impl.h"
#include "progress.h"
#include "lowersim/alloc.h"

#include "lowersim/scenario_port.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- growing byte buffers (sticky failure) ----------------------------------------- */

typedef struct buf {
  char *data;
  size_t len, cap;
  bool failed;
} buf;

static void buf_add(buf *b, const char *p, size_t n) {
  if (b->failed)
    return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n + 1) {
      if (cap > SIZE_MAX / 2) {
        b->failed = true;
        return;
      }
      cap *= 2;
    }
    char *d = lsim_realloc(b->data, cap);
    if (!d) {
      b->failed = true;
      return;
    }
    b->data = d, b->cap = cap;
  }
  memcpy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = '\0';
}

/* The first `n` bytes removed. */
static void buf_drop(buf *b, size_t n) {
  memmove(b->data, b->data + n, b->len - n);
  b->len -= n;
  if (b->data)
    b->data[b->len] = '\0';
}

/* `n` bytes of `p` as an owned string; NULL when out of memory. */
static char *copy(const char *p, size_t n) {
  char *s = lsim_malloc(n + 1);
  if (s) {
    if (n)
      memcpy(s, p, n);
    s[n] = '\0';
  }
  return s;
}

/* --- the processes ----------------------------------------------------------------- */

typedef struct worker {
  pid_t pid;         /* 0: no process */
  int in, out, err;  /* pipes to and from it; -1: closed */
  size_t index;      /* the scenario it answers; SIZE_MAX: idle */
  double start;
  bool reaping;      /* one process per scenario: its pipes are closed, waiting for it */
  buf o, e;
} worker;

/* `path` quoted for the shell, appended to `f`. */
static void shell_quote(FILE *f, const char *path) {
  fputc('\'', f);
  for (const char *p = path; *p; p++) {
    if (*p == '\'')
      fputs("'\\''", f);
    else
      fputc(*p, f);
  }
  fputc('\'', f);
}

/* `command` with {scenario} replaced by the quoted path (owned), NULL when out of memory. */
static char *substitute(const char *command, const char *path) {
  char *cmd = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&cmd, &size);
  if (!f)
    return NULL;
  for (const char *p = command; *p;) {
    const char *at = path ? strstr(p, "{scenario}") : NULL;
    fwrite(p, 1, at ? (size_t)(at - p) : strlen(p), f);
    if (!at)
      break;
    shell_quote(f, path);
    p = at + strlen("{scenario}");
  }
  if (fclose(f) != 0) {
    free(cmd);
    return NULL;
  }
  return cmd;
}

/* --- SIGINT, SIGTERM and SIGHUP end the ports with the command ------------------- */

/* While ports run, these signals only write their number into a self-pipe
 * the poll loop watches; the loop then stops every port's process group,
 * waits for them, and the signal is raised again with the handler it had
 * before (output.c's removes temporary outputs), so the command ends as the
 * signal ends it (exit status 128 + the signal).  A signal the command was
 * started ignoring (nohup, a background job) stays ignored. */
static const int ending_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NUM_ENDING (sizeof ending_signals / sizeof ending_signals[0])
static int wake[2] = {-1, -1};

static void on_ending_signal(int sig) {
  int saved = errno;
  unsigned char c = (unsigned char)sig;
  if (write(wake[1], &c, 1) < 0) { /* full: a signal is already there to read */
  }
  errno = saved;
}

typedef struct watch {
  struct sigaction old[NUM_ENDING];
  bool installed[NUM_ENDING];
} watch;

/* Blocks (or unblocks) the ending signals: around spawn, so a signal cannot
 * land between a port's start and its pid being recorded. */
static void block_ending(bool block, sigset_t *saved) {
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < NUM_ENDING; i++)
    sigaddset(&set, ending_signals[i]);
  if (block)
    sigprocmask(SIG_BLOCK, &set, saved);
  else
    sigprocmask(SIG_SETMASK, saved, NULL);
}

/* Installs the self-pipe and its handlers; false (errno) when it cannot. */
static bool watch_begin(watch *w) {
  *w = (watch){0};
  if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0)
    return false;
  for (size_t i = 0; i < NUM_ENDING; i++) {
    struct sigaction act = {.sa_handler = on_ending_signal, .sa_flags = SA_RESTART};
    sigfillset(&act.sa_mask);
    if (sigaction(ending_signals[i], NULL, &w->old[i]) == 0 && w->old[i].sa_handler != SIG_IGN)
      w->installed[i] = sigaction(ending_signals[i], &act, NULL) == 0;
  }
  return true;
}

/* The signal that arrived, or 0. */
static int watch_signal(void) {
  unsigned char c;
  return read(wake[0], &c, 1) == 1 ? c : 0;
}

/* Puts the old handlers back and closes the pipe; then, when `sig` came,
 * ends the command by it. */
static void watch_end(watch *w, int sig) {
  for (size_t i = 0; i < NUM_ENDING; i++)
    if (w->installed[i])
      sigaction(ending_signals[i], &w->old[i], NULL);
  close(wake[0]);
  close(wake[1]);
  wake[0] = wake[1] = -1;
  if (!sig)
    return;
  fflush(stdout);
  raise(sig);
  _exit(128 + sig); /* a handler that returned: the status the signal would give */
}

/* Starts `/bin/sh -c cmd` in a process group of its own, stdout and stderr
 * on pipes, stdin a pipe (`with_stdin`) or /dev/null.  0, or -1 (errno). */
static int spawn_unblocked(worker *w, const char *cmd, bool with_stdin);

/* spawn with the ending signals blocked: one that comes meanwhile is handled
 * once the port's pid is recorded, and the port is stopped with the rest. */
static int spawn(worker *w, const char *cmd, bool with_stdin) {
  sigset_t saved;
  block_ending(true, &saved);
  int rc = spawn_unblocked(w, cmd, with_stdin);
  int saved_errno = errno;
  block_ending(false, &saved);
  errno = saved_errno;
  return rc;
}

static int spawn_unblocked(worker *w, const char *cmd, bool with_stdin) {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if ((with_stdin && pipe2(in, O_CLOEXEC)) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
    goto fail;
  int devnull = with_stdin ? -1 : open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (!with_stdin && devnull < 0)
    goto fail;
  /* posix_spawn (a vfork in glibc), not fork: copying the page tables of a
   * process holding an MLIR context costs more than the port's own start. */
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  sigset_t dflt;
  sigemptyset(&dflt);
  sigaddset(&dflt, SIGPIPE); /* ignored here while ports run: theirs is the default */
  for (size_t i = 0; i < NUM_ENDING; i++)
    sigaddset(&dflt, ending_signals[i]); /* caught here: the port gets the default */
  pid_t pid = -1;
  int spawn_rc = posix_spawn_file_actions_init(&fa);
  bool have_fa = spawn_rc == 0;
  if (!spawn_rc && !(spawn_rc = posix_spawnattr_init(&attr))) {
    spawn_rc = posix_spawn_file_actions_adddup2(&fa, with_stdin ? in[0] : devnull, 0);
    if (!spawn_rc)
      spawn_rc = posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    if (!spawn_rc)
      spawn_rc = posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    if (!spawn_rc)
      spawn_rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
    if (!spawn_rc)
      spawn_rc = posix_spawnattr_setpgroup(&attr, 0);
    if (!spawn_rc)
      spawn_rc = posix_spawnattr_setsigdefault(&attr, &dflt);
    char *const argv[] = {"sh", "-c", (char *)cmd, NULL};
    if (!spawn_rc)
      spawn_rc = posix_spawn(&pid, "/bin/sh", &fa, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
  }
  if (have_fa)
    posix_spawn_file_actions_destroy(&fa);
  if (devnull >= 0)
    close(devnull);
  if (spawn_rc) {
    errno = spawn_rc;
    goto fail;
  }
  if (with_stdin)
    close(in[0]);
  close(out[1]);
  close(err[1]);
  w->pid = pid, w->in = in[1], w->out = out[0], w->err = err[0];
  w->reaping = false;
  return 0;
fail:;
  int saved = errno;
  for (int i = 0; i < 2; i++) {
    if (in[i] >= 0)
      close(in[i]);
    if (out[i] >= 0)
      close(out[i]);
    if (err[i] >= 0)
      close(err[i]);
  }
  errno = saved;
  return -1;
}

static void close_fd(int *fd) {
  if (*fd >= 0)
    close(*fd);
  *fd = -1;
}

/* Kills the worker's process group and waits for it; its pipes closed. */
static void stop(worker *w) {
  close_fd(&w->in);
  close_fd(&w->out);
  close_fd(&w->err);
  if (w->pid > 0) {
    kill(-w->pid, SIGKILL);
    kill(w->pid, SIGKILL);
    while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR) {
    }
  }
  w->pid = 0;
  w->reaping = false;
}

/* Fills `a` (its strings owned) with what the worker's buffers hold. */
static void answer_from(impl_answer *a, impl_how how, int code, const char *out, size_t out_len,
                        const char *err, size_t err_len, double seconds) {
  a->how = how, a->code = code, a->seconds = seconds;
  a->out = copy(out ? out : "", out ? out_len : 0);
  a->err = copy(err ? err : "", err ? err_len : 0);
}

static void broken(impl_answer *a, double seconds, const char *fmt, const char *detail) {
  char *msg = NULL;
  if (asprintf(&msg, fmt, detail ? detail : "") < 0)
    msg = NULL;
  answer_from(a, IMPL_BROKEN, 0, NULL, 0, msg, msg ? strlen(msg) : 0, seconds);
  free(msg);
}

/* The last `max` bytes of the worker's stderr, for a broken answer. */
static const char *tail(const buf *b, size_t max) {
  if (!b->data)
    return "(nothing on stderr)";
  return b->len > max ? b->data + b->len - max : b->data;
}

/* The batch answer at the start of `w->o`, when all of it has arrived: 1
 * (into `a`), 0 (not yet), -1 (the header is malformed). */
static int batch_answer(worker *w, impl_answer *a, double seconds) {
  char *nl = w->o.data ? memchr(w->o.data, '\n', w->o.len) : NULL;
  if (!nl)
    return w->o.len > 64 ? -1 : 0;
  unsigned long long v[3];
  int used = 0;
  if (nl - w->o.data > 64 ||
      sscanf(w->o.data, "%llu %llu %llu%n", &v[0], &v[1], &v[2], &used) != 3 ||
      w->o.data + used != nl || !(w->o.data[0] >= '0' && w->o.data[0] <= '9') || v[0] > 255 ||
      v[1] > SIZE_MAX / 4 || v[2] > SIZE_MAX / 4)
    return -1;
  size_t head = (size_t)(nl - w->o.data) + 1;
  if (w->o.len - head < v[1] + v[2])
    return 0;
  answer_from(a, IMPL_EXITED, (int)v[0], w->o.data + head, v[1], w->o.data + head + v[1], v[2],
              seconds);
  buf_drop(&w->o, head + v[1] + v[2]);
  w->e.len = 0; /* the port's own stderr between answers is not kept */
  return 1;
}

/* Reads what is there on *fd into b; EOF or an error closes it. */
static void drain(int *fd, buf *b) {
  char chunk[65536];
  ssize_t n = read(*fd, chunk, sizeof chunk);
  if (n > 0)
    buf_add(b, chunk, (size_t)n);
  else if (n == 0 || (errno != EINTR && errno != EAGAIN))
    close_fd(fd);
}

int impl_run_all(const impl_options *o, const char *const *paths, size_t n, impl_answer *answers) {
  unsigned jobs = o->jobs ? o->jobs : 1;
  size_t total = 0;
  for (size_t i = 0; i < n; i++)
    total += paths[i] != NULL;
  if (jobs > total)
    jobs = total ? (unsigned)total : 1;
  worker *ws = lsim_calloc(jobs, sizeof *ws);
  struct pollfd *fds = lsim_calloc(2 * (size_t)jobs + 1, sizeof *fds);
  worker **owner = lsim_calloc(2 * (size_t)jobs + 1, sizeof *owner);
  watch watching;
  if (!ws || !fds || !owner || !watch_begin(&watching)) {
    free(ws), free(fds), free(owner);
    return LSIM_E_NO_MEMORY;
  }
  for (unsigned j = 0; j < jobs; j++)
    ws[j] = (worker){.in = -1, .out = -1, .err = -1, .index = SIZE_MAX};
  void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
  cli_progress bar;
  cli_progress_begin(&bar, o->what ? o->what : "impl", "scenarios", total, o->progress);
  size_t next = 0, done = 0;
  int rc = 0, sig = 0;
  bool stopping = false;
  while (done < total && !(sig = watch_signal())) {
    /* Give every idle worker the next scenario. */
    for (unsigned j = 0; j < jobs; j++) {
      worker *w = &ws[j];
      while (w->index == SIZE_MAX && next < n && !paths[next])
        next++;
      if (w->index != SIZE_MAX || next >= n)
        continue;
      size_t i = next++;
      w->index = i, w->start = now();
      w->o.len = 0;
      if (!o->batch)
        w->e.len = 0;
      if (o->batch && w->pid == 0) {
        w->e.len = 0;
        if (spawn(w, o->command, true) < 0) {
          broken(&answers[i], 0, "the implementation could not be started: %s", strerror(errno));
          w->index = SIZE_MAX, done++;
          continue;
        }
      }
      if (o->batch) {
        if (strchr(paths[i], '\n')) {
          broken(&answers[i], 0, "%sa path with a newline cannot be sent in the batch protocol",
                 NULL);
          w->index = SIZE_MAX, done++;
          continue;
        }
        /* One short line: a blocking write (SIGPIPE ignored: a dead port is seen on its stdout). */
        size_t len = strlen(paths[i]);
        if (write(w->in, paths[i], len) != (ssize_t)len || write(w->in, "\n", 1) != 1)
          close_fd(&w->in);
      } else {
        char *cmd = substitute(o->command, paths[i]);
        if (!cmd || spawn(w, cmd, false) < 0) {
          broken(&answers[i], 0, "the implementation could not be run: %s",
                 cmd ? strerror(errno) : "out of memory");
          w->index = SIZE_MAX, done++;
        }
        free(cmd);
      }
    }
    if (done >= total)
      break;
    /* Wait for output, an exit, a signal or the nearest time-out. */
    size_t nfds = 0;
    fds[nfds] = (struct pollfd){.fd = wake[0], .events = POLLIN}, owner[nfds++] = NULL;
    double t = now(), wait = 1.0;
    bool reaping = false;
    for (unsigned j = 0; j < jobs; j++) {
      worker *w = &ws[j];
      if (w->index == SIZE_MAX)
        continue;
      if (o->timeout > 0 && w->start + o->timeout - t < wait)
        wait = w->start + o->timeout - t;
      reaping |= w->reaping;
      if (w->out >= 0)
        fds[nfds] = (struct pollfd){.fd = w->out, .events = POLLIN}, owner[nfds++] = w;
      if (w->err >= 0)
        fds[nfds] = (struct pollfd){.fd = w->err, .events = POLLIN}, owner[nfds++] = w;
    }
    if (reaping && wait > 0.005)
      wait = 0.005;
    if (bar.on && wait > 0.25)
      wait = 0.25;
    if (wait < 0)
      wait = 0;
    int ready = poll(fds, nfds, (int)(wait * 1000) + 1);
    if (ready < 0 && errno != EINTR) {
      rc = LSIM_E_NO_MEMORY;
      break;
    }
    for (size_t k = 1; ready > 0 && k < nfds; k++) {
      if (!fds[k].revents)
        continue;
      worker *w = owner[k];
      if (fds[k].fd == w->out)
        drain(&w->out, &w->o);
      else if (fds[k].fd == w->err)
        drain(&w->err, &w->e);
    }
    /* Answers, deaths and time-outs. */
    t = now();
    for (unsigned j = 0; j < jobs; j++) {
      worker *w = &ws[j];
      if (w->index == SIZE_MAX)
        continue;
      impl_answer *a = &answers[w->index];
      bool finished = false;
      if (w->o.failed || w->e.failed) {
        stop(w);
        broken(a, t - w->start, "%sout of memory reading the implementation's output", NULL);
        w->o.failed = w->e.failed = false;
        finished = true;
      } else if (o->batch) {
        int got = batch_answer(w, a, t - w->start);
        if (got == 1) {
          finished = true;
        } else if (got < 0) {
          char head[80];
          snprintf(head, sizeof head, "%.*s", (int)(w->o.len < 60 ? w->o.len : 60), w->o.data);
          stop(w);
          broken(a, t - w->start,
                 "the implementation broke the batch protocol (an answer is `EXIT OUT_BYTES "
                 "ERR_BYTES` and the bytes): it wrote \"%s\"",
                 head);
          finished = true;
        } else if (w->out < 0) {
          int status = 0;
          close_fd(&w->in);
          while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
          }
          w->pid = 0;
          close_fd(&w->err);
          char *why = NULL;
          if (asprintf(&why, "%s %d before answering; its stderr: %s",
                       WIFSIGNALED(status) ? "was killed by signal" : "exited with status",
                       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
                       tail(&w->e, 2000)) < 0)
            why = NULL;
          broken(a, t - w->start, "the implementation %s", why ? why : "stopped");
          free(why);
          finished = true;
        }
      } else if (w->out < 0 && w->err < 0) {
        int status = 0;
        pid_t got = waitpid(w->pid, &status, WNOHANG);
        w->reaping = got == 0;
        if (got == w->pid || (got < 0 && errno != EINTR)) {
          w->pid = 0;
          if (got > 0 && WIFSIGNALED(status))
            answer_from(a, IMPL_SIGNALLED, WTERMSIG(status), w->o.data, w->o.len, w->e.data,
                        w->e.len, t - w->start);
          else
            answer_from(a, IMPL_EXITED, got > 0 ? WEXITSTATUS(status) : 127, w->o.data, w->o.len,
                        w->e.data, w->e.len, t - w->start);
          finished = true;
        }
      }
      if (!finished && o->timeout > 0 && t - w->start >= o->timeout) {
        stop(w);
        answer_from(a, IMPL_TIMED_OUT, 0, w->o.data, w->o.len, w->e.data, w->e.len,
                    t - w->start);
        w->o.len = w->e.len = 0;
        finished = true;
      }
      if (finished) {
        if (!a->out || !a->err)
          rc = LSIM_E_NO_MEMORY;
        stopping |= o->answered && o->answered(o->data, w->index, a);
        w->index = SIZE_MAX;
        done++;
      }
    }
    if (stopping)
      break; /* -x: the ports still running are killed below */
    cli_progress_update(&bar, done, NULL, false);
  }
  cli_progress_end(&bar);
  for (unsigned j = 0; j < jobs; j++) {
    stop(&ws[j]);
    free(ws[j].o.data);
    free(ws[j].e.data);
  }
  signal(SIGPIPE, old_pipe);
  free(ws), free(fds), free(owner);
  watch_end(&watching, sig ? sig : watch_signal());
  return rc;
}

void impl_answer_clear(impl_answer *a) {
  free(a->out);
  free(a->err);
  *a = (impl_answer){0};
}

/* --- --normalize jax: pretty StableHLO read by jaxlib's MLIR ----------------------- */

static bool executable(const char *path) { return access(path, X_OK) == 0; }

/* `dir`/oracle-venvs/`release`/bin/python, else `dir`/oracle-venv/bin/python
 * (owned), when executable; NULL otherwise. */
static char *venv_python(const char *dir, const char *release) {
  for (int k = release ? 0 : 1; k < 2; k++) {
    char *p = NULL;
    if ((k == 0 ? asprintf(&p, "%s/oracle-venvs/%s/bin/python", dir, release)
                : asprintf(&p, "%s/oracle-venv/bin/python", dir)) < 0)
      return NULL;
    if (executable(p))
      return p;
    free(p);
  }
  return NULL;
}

char *impl_jax_python(const char *release) {
  const char *env = getenv("LOWERSIM_JAX_PYTHON");
  if (env && *env)
    return executable(env) ? lsim_strdup(env) : NULL;
  char self[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  char *p = NULL;
  if (len > 0) {
    self[len] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) {
      *slash = '\0';
      p = venv_python(self, release);
    }
  }
  return p ? p : venv_python("build", release);
}

/* The checkout whose oracle/normalize.py --normalize jax runs: the folder
 * above the lowersim executable's (build/lowersim) when it holds one, else
 * NULL (the current folder's). */
static char *oracle_root(void) {
  char self[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0)
    return NULL;
  self[len] = '\0';
  for (int up = 0; up < 2; up++) {
    char *slash = strrchr(self, '/');
    if (!slash)
      return NULL;
    *slash = '\0';
  }
  char *p = NULL;
  if (asprintf(&p, "%s/oracle/normalize.py", self) < 0)
    return NULL;
  bool found = access(p, R_OK) == 0;
  free(p);
  return found ? lsim_strdup(self) : NULL;
}

int impl_normalize_jax(const char *python, impl_answer *answers, const bool *want, size_t n,
                       char **notes) {
  const char **files = lsim_calloc(n ? n : 1, sizeof *files);
  impl_answer *got = lsim_calloc(n ? n : 1, sizeof *got);
  char *cmd = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&cmd, &size);
  int rc = !files || !got || !f ? LSIM_E_NO_MEMORY : 0;
  if (f) {
    /* oracle/normalize.py: jaxlib's MLIR reads each module (and its kernels)
     * and prints it in the form MLIR 19 reads.  The checkout's, first on the
     * path (the venv may name another checkout's oracle). */
    char *root = oracle_root();
    shell_quote(f, python);
    fputs(" -c 'import runpy, sys; sys.path.insert(0, sys.argv[1]); "
          "runpy.run_module(\"oracle.normalize\", run_name=\"__main__\")' ",
          f);
    shell_quote(f, root ? root : ".");
    free(root);
    rc = fclose(f) != 0 ? LSIM_E_NO_MEMORY : rc;
  }
  const char *dir = getenv("TMPDIR");
  for (size_t i = 0; !rc && i < n; i++) {
    if (!want[i])
      continue;
    char *path = NULL;
    int fd = -1;
    if (asprintf(&path, "%s/lowersim-normalize-XXXXXX", dir && *dir ? dir : "/tmp") < 0) {
      rc = LSIM_E_NO_MEMORY;
      break;
    }
    fd = mkstemp(path);
    size_t len = strlen(answers[i].out);
    if (fd < 0 || write(fd, answers[i].out, len) != (ssize_t)len) {
      if (fd >= 0)
        unlink(path);
      free(path);
      if (fd >= 0)
        close(fd);
      continue; /* no temporary file: compared as it is */
    }
    close(fd);
    files[i] = path;
  }
  impl_options o = {.command = cmd, .batch = true, .jobs = 1, .timeout = 300};
  if (!rc)
    rc = impl_run_all(&o, files, n, got);
  for (size_t i = 0; i < n; i++) {
    if (files[i]) {
      unlink(files[i]);
      free((char *)files[i]);
    }
    if (!rc && files[i] && got[i].how == IMPL_EXITED && got[i].code == 0) {
      free(answers[i].out);
      answers[i].out = got[i].out, got[i].out = NULL;
    } else if (!rc && files[i]) {
      notes[i] = got[i].err, got[i].err = NULL;
    }
    impl_answer_clear(&got[i]);
  }
  free(files);
  free(got);
  free(cmd);
  return rc;
}

/* --- judging an answer: the library's one judge ---------------------------------- */

int impl_judge(MlirContext mlir, const char *ours, const lsim_error *err, const impl_answer *a,
               const impl_judging *how, lsim_scenario_port_verdict *v) {
  lsim_scenario_port_expected e = {.module = ours,
                                   .error_class = ours ? NULL : lsim_error_class(err),
                                   .error_message = ours ? NULL : lsim_error_message(err)};
  static const lsim_scenario_port_how hows[] = {
      [IMPL_EXITED] = LSIM_SCENARIO_PORT_EXITED, [IMPL_SIGNALLED] = LSIM_SCENARIO_PORT_SIGNALLED,
      [IMPL_TIMED_OUT] = LSIM_SCENARIO_PORT_TIMED_OUT, [IMPL_BROKEN] = LSIM_SCENARIO_PORT_BROKEN};
  lsim_scenario_port_answer answer = {.how = hows[a->how], .code = a->code, .out = a->out,
                                      .err = a->err, .seconds = a->seconds};
  lsim_scenario_port_options o = LSIM_SCENARIO_PORT_OPTIONS_INIT(
      .colour = how->colour, .normalizing = how->normalizing, .normalize_note = how->note);
  lsim_error jerr = LSIM_ERROR_INIT;
  int rc = lsim_scenario_port_judge(mlir, &e, &answer, &o, v, &jerr);
  lsim_error_clear(&jerr);
  return rc;
}
