/* cli/impl.c: the one process runner of the command's ports (one process
 * per scenario, or the batch protocol; `--normalize jax`'s normalizer is run
 * by it too), up to `jobs` at once with a time-out, a bound on what each
 * answer may write and a progress line, and judging its answers against
 * lowersim's outcomes (impl.h). */
#define _GNU_SOURCE
#include "impl.h"
#include "json.h"
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

static void sleep_ms(long ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
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
  if (!b->data)
    return;
  memmove(b->data, b->data + n, b->len - n);
  b->len -= n;
  b->data[b->len] = '\0';
}

/* `n` bytes of `p` as an owned string (a NUL after them); NULL when out of memory. */
static char *copy(const char *p, size_t n) {
  char *s = lsim_malloc(n + 1);
  if (s) {
    if (n)
      memcpy(s, p, n);
    s[n] = '\0';
  }
  return s;
}

/* --- batch frames -------------------------------------------------------------------- */

/* A decimal number of 1 to 20 digits at *p (before `end`), no sign, no
 * space; false when there is none or it exceeds UINT64_MAX. */
static bool number(const char **p, const char *end, uint64_t *v) {
  const char *s = *p;
  uint64_t x = 0;
  while (*p < end && **p >= '0' && **p <= '9') {
    unsigned d = (unsigned)(**p - '0');
    if (x > (UINT64_MAX - d) / 10)
      return false;
    x = x * 10 + d;
    (*p)++;
  }
  *v = x;
  return *p > s;
}

int impl_frame_parse(const char *data, size_t len, size_t max, impl_frame *f) {
  *f = (impl_frame){0};
  const char *nl = len ? memchr(data, '\n', len < IMPL_FRAME_HEADER_MAX ? len : IMPL_FRAME_HEADER_MAX)
                       : NULL;
  /* Anything but digits and spaces before the newline is refused at once. */
  for (size_t i = 0; i < (nl ? (size_t)(nl - data) : len); i++)
    if (!((data[i] >= '0' && data[i] <= '9') || data[i] == ' '))
      return IMPL_FRAME_MALFORMED;
  if (!nl)
    return len >= IMPL_FRAME_HEADER_MAX ? IMPL_FRAME_MALFORMED : IMPL_FRAME_PARTIAL;
  const char *p = data;
  uint64_t v[3];
  for (int k = 0; k < 3; k++) {
    if ((k && (p >= nl || *p++ != ' ')) || !number(&p, nl, &v[k]))
      return IMPL_FRAME_MALFORMED;
  }
  if (p != nl || v[0] > 255)
    return IMPL_FRAME_MALFORMED;
  f->code = (int)v[0];
  f->head = (size_t)(nl - data) + 1;
  if (v[1] > max || v[2] > max - v[1]) {
    f->out = v[1] > max ? max + 1 : (size_t)v[1];
    f->err = v[1] > max ? 0 : max + 1 - (size_t)v[1];
    return IMPL_FRAME_TOO_LARGE;
  }
  f->out = (size_t)v[1], f->err = (size_t)v[2];
  return len - f->head >= f->out + f->err ? IMPL_FRAME_WHOLE : IMPL_FRAME_PARTIAL;
}

/* --- the placeholder ---------------------------------------------------------------- */

/* `path` quoted for the shell, appended to `f` (for lowersim's own commands). */
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

/* The process's environment with LSIM_SCENARIO_PORT_PATH_VAR set to `path` (the
 * array and its one new string owned: free(env[0]... ) by env_free), or
 * NULL when out of memory. */
static char **env_with(const char *path) {
  static const char name[] = LSIM_SCENARIO_PORT_PATH_VAR "=";
  size_t n = 0;
  while (environ[n])
    n++;
  char **env = lsim_calloc(n + 2, sizeof *env);
  char *mine = env ? lsim_malloc(sizeof name + strlen(path)) : NULL;
  if (!mine) {
    free(env);
    return NULL;
  }
  memcpy(mine, name, sizeof name - 1);
  strcpy(mine + sizeof name - 1, path);
  size_t k = 0;
  env[k++] = mine;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], name, sizeof name - 1) != 0)
      env[k++] = environ[i];
  return env;
}

static void env_free(char **env) {
  if (env)
    free(env[0]);
  free(env);
}

/* --- the processes ----------------------------------------------------------------- */

typedef struct worker {
  pid_t pid;         /* the port's shell, until reaped; 0: none */
  pid_t group;       /* its process group, until killed; 0: none */
  int in, out, err;  /* pipes to and from it (ours non-blocking); -1: closed */
  size_t index;      /* the scenario it answers; SIZE_MAX: idle */
  double start;
  bool exited;       /* reaped: `status` holds how it ended */
  int status;
  double exited_at;
  buf o, e;
  buf req;           /* batch: the request line, req_sent bytes of it written */
  size_t req_sent;
  bool overflow;     /* wrote more than the bound */
} worker;

/* --- SIGINT, SIGTERM and SIGHUP end the ports with the command ------------------- */

/* While ports run, these signals only write their number into a self-pipe
 * the poll loop watches; the loop then stops every port's process group,
 * waits for them, and the signal is raised again with the handler it had
 * before (output.c's removes temporary outputs), so the command ends as the
 * signal ends it (exit status 128 + the signal).  A signal the command was
 * started ignoring (nohup, a background job) stays ignored.  Nothing here
 * blocks (every pipe is non-blocking, poll is never restarted), so the
 * signal is seen within the loop's next turn. */
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
 * on pipes, stdin a pipe (`with_stdin`) or /dev/null, with `env`.  0, or -1
 * (errno). */
static int spawn_unblocked(worker *w, const char *cmd, bool with_stdin, char **env);

/* spawn with the ending signals blocked: one that comes meanwhile is handled
 * once the port's pid is recorded, and the port is stopped with the rest. */
static int spawn(worker *w, const char *cmd, bool with_stdin, char **env) {
  sigset_t saved;
  block_ending(true, &saved);
  int rc = spawn_unblocked(w, cmd, with_stdin, env);
  int saved_errno = errno;
  block_ending(false, &saved);
  errno = saved_errno;
  return rc;
}

static bool nonblocking(int fd) {
  int fl = fcntl(fd, F_GETFL);
  return fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0;
}

static int spawn_unblocked(worker *w, const char *cmd, bool with_stdin, char **env) {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if ((with_stdin && pipe2(in, O_CLOEXEC)) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
    goto fail;
  /* Our ends never block (the port's are as a program expects them). */
  if ((with_stdin && !nonblocking(in[1])) || !nonblocking(out[0]) || !nonblocking(err[0]))
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
      spawn_rc = posix_spawn(&pid, "/bin/sh", &fa, &attr, argv, env ? env : environ);
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
  w->pid = w->group = pid, w->in = in[1], w->out = out[0], w->err = err[0];
  w->exited = false, w->status = 0, w->overflow = false;
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

/* Reaps the worker's shell when it has ended (`block`: waits for it). */
static void reap(worker *w, bool block) {
  if (w->pid <= 0)
    return;
  int status = 0;
  pid_t got;
  while ((got = waitpid(w->pid, &status, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {
  }
  if (got == 0)
    return;
  w->exited = true, w->exited_at = now(), w->pid = 0;
  w->status = got > 0 ? status : 127 << 8;
}

/* Ends the process groups of `n` workers: their pipes closed, SIGTERM to
 * each group, then, after IMPL_GRACE seconds for those that have not all
 * ended, SIGKILL; every shell reaped.  A group's processes that ignore
 * SIGTERM (or a shell that leaves its children behind) end by SIGKILL. */
static void stop_all(worker *ws, size_t n) {
  bool any = false;
  for (size_t j = 0; j < n; j++) {
    worker *w = &ws[j];
    close_fd(&w->in);
    close_fd(&w->out);
    close_fd(&w->err);
    if (w->group > 0)
      any |= kill(-w->group, SIGTERM) == 0 || (w->pid > 0 && kill(w->pid, SIGTERM) == 0);
  }
  for (double end = now() + IMPL_GRACE; any && now() < end; sleep_ms(10)) {
    any = false;
    for (size_t j = 0; j < n; j++) {
      worker *w = &ws[j];
      reap(w, false);
      any |= w->group > 0 && (w->pid > 0 || kill(-w->group, 0) == 0);
    }
  }
  for (size_t j = 0; j < n; j++) {
    worker *w = &ws[j];
    if (w->group > 0)
      kill(-w->group, SIGKILL);
    if (w->pid > 0)
      kill(w->pid, SIGKILL);
    reap(w, true);
    w->group = 0;
  }
}

static void stop(worker *w) { stop_all(w, 1); }

/* Fills `a` (its strings owned) with `out` and `err`. */
static void answer_from(impl_answer *a, impl_how how, int code, const char *out, size_t out_len,
                        const char *err, size_t err_len, double seconds) {
  a->how = how, a->code = code, a->seconds = seconds;
  a->out = copy(out ? out : "", out ? out_len : 0);
  a->err = copy(err ? err : "", err ? err_len : 0);
  a->out_len = out ? out_len : 0;
  a->err_len = err ? err_len : 0;
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
  if (!b->data || !b->len)
    return "(nothing on stderr)";
  return b->len > max ? b->data + b->len - max : b->data;
}

/* Reads what is there on *fd into b, up to `room` bytes more (beyond them
 * *overflow is set and nothing is kept); EOF or an error closes it. */
static void drain(int *fd, buf *b, size_t room, bool *overflow) {
  char chunk[65536];
  for (int turn = 0; turn < 16 && *fd >= 0 && !*overflow; turn++) {
    ssize_t n = read(*fd, chunk, sizeof chunk);
    if (n > 0 && (size_t)n > room) {
      *overflow = true;
    } else if (n > 0) {
      buf_add(b, chunk, (size_t)n);
      room -= (size_t)n;
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      close_fd(fd);
    } else if (errno == EAGAIN) {
      return;
    }
  }
}

/* Writes what the request line still has to write; a port that closed its
 * stdin (EPIPE: SIGPIPE is ignored here) is seen on its stdout. */
static void send_request(worker *w) {
  while (w->in >= 0 && w->req_sent < w->req.len) {
    ssize_t n = write(w->in, w->req.data + w->req_sent, w->req.len - w->req_sent);
    if (n > 0)
      w->req_sent += (size_t)n;
    else if (n < 0 && errno == EINTR)
      continue;
    else if (n < 0 && errno == EAGAIN)
      return;
    else
      close_fd(&w->in);
  }
}

/* How the shell ended, for a broken answer's message (owned, or NULL). */
static char *ended_how(const worker *w) {
  char *why = NULL;
  if (asprintf(&why, "%s %d before answering; its stderr: %s",
               WIFSIGNALED(w->status) ? "was killed by signal" : "exited with status",
               WIFSIGNALED(w->status) ? WTERMSIG(w->status) : WEXITSTATUS(w->status),
               tail(&w->e, 2000)) < 0)
    why = NULL;
  return why;
}

/* The bound's verdict. */
static void overflowed(impl_answer *a, double seconds, size_t max) {
  char detail[32];
  snprintf(detail, sizeof detail, "%zu", max);
  broken(a, seconds,
         "the implementation's output exceeds %s bytes (--max-output) and it was killed",
         detail);
}

/* The worker's answer, when it has one: true (into `a`). */
static bool answer_of(const impl_options *o, worker *w, impl_answer *a, size_t max, double t) {
  double seconds = t - w->start;
  if (w->o.failed || w->e.failed) {
    stop(w);
    broken(a, seconds, "%sout of memory reading the implementation's output", NULL);
    w->o.failed = w->e.failed = false;
    return true;
  }
  if (w->overflow) {
    stop(w);
    overflowed(a, seconds, max);
    return true;
  }
  if (o->batch) {
    impl_frame f;
    switch (impl_frame_parse(w->o.data ? w->o.data : "", w->o.len, max, &f)) {
    case IMPL_FRAME_WHOLE:
      answer_from(a, IMPL_EXITED, f.code, w->o.data + f.head, f.out, w->o.data + f.head + f.out,
                  f.err, seconds);
      buf_drop(&w->o, f.head + f.out + f.err);
      w->e.len = 0; /* the port's own stderr between answers is not kept */
      return true;
    case IMPL_FRAME_TOO_LARGE:
      stop(w);
      overflowed(a, seconds, max);
      return true;
    case IMPL_FRAME_MALFORMED: {
      char *head = impl_shown(w->o.data, w->o.len < 60 ? w->o.len : 60, false);
      stop(w);
      broken(a, seconds,
             "the implementation broke the batch protocol (an answer is `EXIT OUT_BYTES "
             "ERR_BYTES` and the bytes): it wrote \"%s\"",
             head ? head : "");
      free(head);
      return true;
    }
    default:
      break;
    }
    /* No whole answer: it has ended (or closed its stdout and ended; its
     * children, holding the pipe, get IMPL_LINGER seconds). */
    if (!w->exited && w->out < 0)
      reap(w, false);
    if (w->exited && (w->out < 0 || t - w->exited_at >= IMPL_LINGER)) {
      char *why = ended_how(w);
      stop(w);
      broken(a, seconds, "the implementation %s", why ? why : "stopped");
      free(why);
      return true;
    }
    return false;
  }
  /* One process per scenario: its answer is whole when it has ended and
   * its pipes are closed (or IMPL_LINGER seconds after it ended, when
   * children it left hold them). */
  if (!w->exited)
    reap(w, false);
  if (!w->exited || !((w->out < 0 && w->err < 0) || t - w->exited_at >= IMPL_LINGER))
    return false;
  int status = w->status;
  stop(w); /* what is left of its group */
  if (w->overflow)
    overflowed(a, seconds, max);
  else if (WIFSIGNALED(status))
    answer_from(a, IMPL_SIGNALLED, WTERMSIG(status), w->o.data, w->o.len, w->e.data, w->e.len,
                seconds);
  else
    answer_from(a, IMPL_EXITED, WEXITSTATUS(status), w->o.data, w->o.len, w->e.data, w->e.len,
                seconds);
  return true;
}

/* An answer's texts emptied (judged already; its verdict keeps what it needs). */
static void release(impl_answer *a) {
  free(a->out);
  free(a->err);
  a->out = copy("", 0), a->err = copy("", 0);
  a->out_len = a->err_len = 0;
}

/* Answer `i` is in: `answered` sees it (its texts then let go of when
 * `release_answered`); true when it stops the run.  *rc LSIM_E_NO_MEMORY
 * when its texts could not be kept. */
static bool seen(const impl_options *o, size_t i, impl_answer *a, int *rc) {
  if (!a->out || !a->err) {
    *rc = LSIM_E_NO_MEMORY;
    return false;
  }
  bool stop_run = o->answered && o->answered(o->data, i, a);
  if (o->answered && o->release_answered)
    release(a);
  if (!a->out || !a->err)
    *rc = LSIM_E_NO_MEMORY;
  return stop_run;
}

/* Gives worker `w` scenario `i`: starts its port (or sends the request); false
 * when that failed and answers[i] says why. */
static bool start(const impl_options *o, worker *w, size_t i, const char *path,
                  const char *command, impl_answer *a) {
  w->index = i, w->start = now();
  w->o.len = 0;
  w->overflow = false;
  if (!o->batch) {
    w->e.len = 0;
    char **env = env_with(path);
    if (!env || spawn(w, command, false, env) < 0) {
      broken(a, 0, "the implementation could not be run: %s", env ? strerror(errno) : "out of memory");
      env_free(env);
      return false;
    }
    env_free(env);
    return true;
  }
  if (w->exited)
    stop(w); /* it ended after its last answer: a new one */
  if (w->pid == 0 && w->group == 0) {
    w->e.len = 0;
    if (spawn(w, command, true, NULL) < 0) {
      broken(a, 0, "the implementation could not be started: %s", strerror(errno));
      return false;
    }
  }
  if (strchr(path, '\n')) {
    broken(a, 0, "%sa path with a newline cannot be sent in the batch protocol", NULL);
    return false;
  }
  w->req.len = 0, w->req_sent = 0;
  buf_add(&w->req, path, strlen(path));
  buf_add(&w->req, "\n", 1);
  if (w->req.failed) {
    w->req.failed = false;
    broken(a, 0, "%sout of memory", NULL);
    return false;
  }
  send_request(w);
  return true;
}

int impl_run_all(const impl_options *o, const char *const *paths, size_t n, impl_answer *answers) {
  unsigned jobs = o->jobs ? o->jobs : 1;
  size_t max = o->max_output ? o->max_output : IMPL_MAX_OUTPUT;
  size_t total = 0;
  for (size_t i = 0; i < n; i++)
    total += paths[i] != NULL;
  if (jobs > total)
    jobs = total ? (unsigned)total : 1;
  worker *ws = lsim_calloc(jobs, sizeof *ws);
  struct pollfd *fds = lsim_calloc(3 * (size_t)jobs + 1, sizeof *fds);
  worker **owner = lsim_calloc(3 * (size_t)jobs + 1, sizeof *owner);
  char *command = o->batch ? NULL : lsim_scenario_port_command(o->command);
  watch watching;
  if (!ws || !fds || !owner || (!o->batch && !command) || !watch_begin(&watching)) {
    free(ws), free(fds), free(owner), free(command);
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
  /* Beyond the bound, a batch answer's header line may be buffered too. */
  size_t room = o->batch ? max + IMPL_FRAME_HEADER_MAX : max;
  while (done < total && !(sig = watch_signal())) {
    /* Give every idle worker the next scenario. */
    for (unsigned j = 0; j < jobs; j++) {
      worker *w = &ws[j];
      while (w->index == SIZE_MAX && next < n && !paths[next])
        next++;
      if (w->index != SIZE_MAX || next >= n)
        continue;
      size_t i = next++;
      if (!start(o, w, i, paths[i], o->batch ? o->command : command, &answers[i])) {
        w->index = SIZE_MAX, done++;
        stopping |= seen(o, i, &answers[i], &rc);
      }
    }
    if (done >= total || stopping)
      break;
    /* Wait for output, room for a request, an exit, a signal or the nearest time-out. */
    size_t nfds = 0;
    fds[nfds] = (struct pollfd){.fd = wake[0], .events = POLLIN}, owner[nfds++] = NULL;
    double t = now(), wait = 1.0;
    for (unsigned j = 0; j < jobs; j++) {
      worker *w = &ws[j];
      if (w->index == SIZE_MAX)
        continue;
      if (o->timeout > 0 && w->start + o->timeout - t < wait)
        wait = w->start + o->timeout - t;
      if (w->exited && w->exited_at + IMPL_LINGER - t < wait)
        wait = w->exited_at + IMPL_LINGER - t;
      if (!w->exited && w->out < 0 && (o->batch || w->err < 0) && wait > 0.005)
        wait = 0.005; /* its pipes are closed: waiting for it to end */
      if (w->out >= 0)
        fds[nfds] = (struct pollfd){.fd = w->out, .events = POLLIN}, owner[nfds++] = w;
      if (w->err >= 0)
        fds[nfds] = (struct pollfd){.fd = w->err, .events = POLLIN}, owner[nfds++] = w;
      if (w->in >= 0 && w->req_sent < w->req.len)
        fds[nfds] = (struct pollfd){.fd = w->in, .events = POLLOUT}, owner[nfds++] = w;
    }
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
      worker *w = owner[k];
      if (!fds[k].revents)
        continue;
      size_t used = w->o.len + w->e.len, left = used < room ? room - used : 0;
      if (fds[k].fd == w->out)
        drain(&w->out, &w->o, left, &w->overflow);
      else if (fds[k].fd == w->err)
        drain(&w->err, &w->e, left, &w->overflow);
      else if (fds[k].fd == w->in)
        send_request(w);
    }
    /* Answers, deaths and time-outs. */
    t = now();
    for (unsigned j = 0; j < jobs; j++) {
      worker *w = &ws[j];
      if (w->index == SIZE_MAX)
        continue;
      impl_answer *a = &answers[w->index];
      bool finished = answer_of(o, w, a, max, t);
      if (!finished && o->timeout > 0 && t - w->start >= o->timeout) {
        stop(w);
        /* Its seconds are the time-out's: "did not finish within S s" names
         * the limit, not how late a loaded machine noticed. */
        answer_from(a, IMPL_TIMED_OUT, 0, w->o.data, w->o.len, w->e.data, w->e.len,
                    o->timeout);
        finished = true;
      }
      if (finished) {
        w->o.len = 0;
        stopping |= seen(o, w->index, a, &rc);
        w->index = SIZE_MAX;
        done++;
      }
    }
    if (stopping)
      break; /* -x: the ports still running are killed below */
    cli_progress_update(&bar, done, NULL, false);
  }
  cli_progress_end(&bar);
  stop_all(ws, jobs);
  for (unsigned j = 0; j < jobs; j++) {
    free(ws[j].o.data);
    free(ws[j].e.data);
    free(ws[j].req.data);
  }
  signal(SIGPIPE, old_pipe);
  free(ws), free(fds), free(owner), free(command);
  watch_end(&watching, sig ? sig : watch_signal());
  return rc;
}

void impl_answer_clear(impl_answer *a) {
  free(a->out);
  free(a->err);
  *a = (impl_answer){0};
}

/* --- text from a port shown to a person -------------------------------------------- */

char *impl_shown(const char *text, size_t len, bool colour) {
  static const char *const marks[] = {"\033[1;31m", "\033[1;32m", "\033[0m"};
  char *s = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&s, &size);
  if (!f)
    return NULL;
  for (size_t i = 0; i < len;) {
    unsigned char c = (unsigned char)text[i];
    size_t k = 0;
    while (colour && k < 3 &&
           !(len - i >= strlen(marks[k]) && memcmp(text + i, marks[k], strlen(marks[k])) == 0))
      k++;
    if (colour && k < 3) { /* the judge's own word marks */
      fputs(marks[k], f);
      i += strlen(marks[k]);
      continue;
    }
    uint32_t cp = 0;
    size_t n = c < 0x80 ? 1 : cli_utf8_sequence(text + i, len - i, &cp);
    if (c < 0x80)
      cp = c;
    if (n == 0 || cp == 0x7f || (cp < 0x20 && cp != '\n' && cp != '\t') ||
        (cp >= 0x80 && cp < 0xa0)) {
      size_t bytes = n ? n : 1;
      for (size_t b = 0; b < bytes; b++)
        fprintf(f, "\\x%02x", (unsigned char)text[i + b]);
      i += bytes;
      continue;
    }
    fwrite(text + i, 1, n, f);
    i += n;
  }
  if (fclose(f) != 0) {
    free(s);
    return NULL;
  }
  return s;
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
    size_t len = answers[i].out_len ? answers[i].out_len : strlen(answers[i].out);
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
      answers[i].out_len = got[i].out_len;
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
                                      .err = a->err, .seconds = a->seconds,
                                      .out_len = a->out ? a->out_len : 0,
                                      .err_len = a->err ? a->err_len : 0};
  lsim_scenario_port_options o = LSIM_SCENARIO_PORT_OPTIONS_INIT(
      .colour = how->colour, .normalizing = how->normalizing, .normalize_note = how->note);
  lsim_error jerr = LSIM_ERROR_INIT;
  int rc = lsim_scenario_port_judge(mlir, &e, &answer, &o, v, &jerr);
  lsim_error_clear(&jerr);
  return rc;
}
