/* fuzz/isolate.c: a check in a child process, so that a crash (a signal,
 * or a sanitizer's report and exit) is a finding the campaign survives and
 * the minimizer can shrink.  The child writes its result into one temporary
 * file and its stderr into another; the parent reads them after waitpid. */
#include "internal.h"

#include "lowersim/alloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define DETAIL_MAX 4096  /* bytes of a detail the child reports */
#define LOG_MAX 65536    /* bytes of the child's stderr looked at */
#define FRAMES 4         /* stack frames quoted from a sanitizer report */
#define CHILD_SECONDS 60 /* a check that takes longer is killed (SIGALRM): a hang */

static int temporary_fd(lsim_error *err) {
  FILE *f = tmpfile();
  int fd = f ? dup(fileno(f)) : -1;
  int saved = errno;
  if (f)
    fclose(f);
  return fd >= 0 ? fd
                 : lsim_error_set(err, LSIM_E_IO, "cannot make a temporary file: %s", strerror(saved));
}

int lsim_fuzz_isolation_open(lsim_fuzz_isolation *iso, lsim_error *err) {
  *iso = (lsim_fuzz_isolation){-1, -1};
  int fd = temporary_fd(err);
  if (fd < 0)
    return fd;
  iso->result_fd = fd;
  if ((fd = temporary_fd(err)) < 0) {
    lsim_fuzz_isolation_close(iso);
    return fd;
  }
  iso->log_fd = fd;
  return LSIM_OK;
}

void lsim_fuzz_isolation_close(lsim_fuzz_isolation *iso) {
  if (iso->result_fd >= 0)
    close(iso->result_fd);
  if (iso->log_fd >= 0)
    close(iso->log_fd);
  *iso = (lsim_fuzz_isolation){-1, -1};
}

static bool rewind_fd(int fd) { return ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0; }

static void write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return;
    p += k;
    n -= (size_t)k;
  }
}

/* Reads up to `max` bytes of `fd` from its start, NUL-terminated (owned). */
static char *read_back(int fd, size_t max) {
  char *buf = lsim_malloc(max + 1);
  size_t len = 0;
  if (!buf || lseek(fd, 0, SEEK_SET) != 0) {
    free(buf);
    return NULL;
  }
  for (ssize_t k;
       len < max && ((k = read(fd, buf + len, max - len)) > 0 || (k < 0 && errno == EINTR));)
    len += k > 0 ? (size_t)k : 0;
  buf[len] = '\0';
  return buf;
}

/* --- The child ---------------------------------------------------------------- */

/* Result file: "STATUS FAILED CODE\nDETAIL". */
static _Noreturn void child(lsim_fuzz_checker *c, const lsim_fuzz_isolation *iso,
                            const lsim_scenario *s) {
  dup2(iso->log_fd, STDERR_FILENO);
  alarm(CHILD_SECONDS);
  lsim_error err = LSIM_ERROR_INIT;
  lsim_fuzz_result r = {0};
  int rc = lsim_fuzz_check_here(c, s, &r, &err);
  char head[64];
  int n = snprintf(head, sizeof head, "%d %d %d\n", rc, (int)r.failed, r.code);
  write_all(iso->result_fd, head, (size_t)n);
  if (r.detail)
    write_all(iso->result_fd, r.detail, strnlen(r.detail, DETAIL_MAX));
  _exit(0);
}

/* --- The parent ---------------------------------------------------------------- */

static int read_result(const lsim_fuzz_isolation *iso, lsim_fuzz_result *res, lsim_error *err) {
  char *text = read_back(iso->result_fd, DETAIL_MAX + 64);
  int rc, failed, code, used = 0;
  if (!text || sscanf(text, "%d %d %d\n%n", &rc, &failed, &code, &used) != 3) {
    free(text);
    return text ? lsim_error_set(err, LSIM_E_IO, "an isolated check reported nothing")
                : lsim_fuzz_no_memory(err);
  }
  if (rc) {
    free(text);
    return rc == LSIM_E_NO_MEMORY ? lsim_fuzz_no_memory(err)
                                  : lsim_error_set(err, LSIM_E_IO, "an isolated check failed (%d)", rc);
  }
  *res = (lsim_fuzz_result){(lsim_fuzz_invariant)failed, code, NULL};
  if (failed && !(res->detail = lsim_strdup(text + used))) {
    free(text);
    return lsim_fuzz_no_memory(err);
  }
  free(text);
  return LSIM_OK;
}

/* The length of `line` up to its end or to " (" (a sanitizer's addresses:
 * "(pc 0x...", "(/path/binary+0x...)"), which differ from run to run. */
static int without_addresses(const char *line) {
  size_t len = strcspn(line, "\n");
  const char *paren = strstr(line, " (");
  return (int)(paren && paren < line + len ? (size_t)(paren - line) : len);
}

/* What a sanitizer report says: its ERROR line (ASan) or runtime error
 * line (UBSan), then the first frames as "in FUNCTION FILE:LINE". */
static void summarize_log(FILE *f, const char *log) {
  const char *start = strstr(log, "ERROR: ");
  if (start)
    start += strlen("ERROR: ");
  else if ((start = strstr(log, "runtime error: ")))
    while (start > log && start[-1] != '\n')
      start--;
  if (!start)
    return;
  fprintf(f, ": %.*s", without_addresses(start), start);
  const char *frame = start;
  for (int i = 0; i < FRAMES && (frame = strstr(frame, "    #")); i++) {
    const char *in = strstr(frame, " in ");
    size_t len = strcspn(frame, "\n");
    if (in && in < frame + len)
      fprintf(f, " | #%d%.*s", i, without_addresses(in), in);
    frame += len;
  }
}

static int crash_result(int status, const lsim_fuzz_isolation *iso, lsim_fuzz_result *res,
                        lsim_error *err) {
  lsim_fuzz_text t;
  if (!lsim_fuzz_text_open(&t))
    return lsim_fuzz_no_memory(err);
  if (WIFSIGNALED(status))
    fprintf(t.f, "the check was killed by signal %d (%s)", WTERMSIG(status),
            strsignal(WTERMSIG(status)));
  else
    fprintf(t.f, "the check exited with status %d", WEXITSTATUS(status));
  char *log = read_back(iso->log_fd, LOG_MAX);
  if (log)
    summarize_log(t.f, log);
  free(log);
  *res = (lsim_fuzz_result){LSIM_FUZZ_CRASH, 0, lsim_fuzz_text_take(&t)};
  return res->detail ? LSIM_OK : lsim_fuzz_no_memory(err);
}

int lsim_fuzz_check_in_child(lsim_fuzz_checker *c, const lsim_fuzz_isolation *iso,
                             const lsim_scenario *s, lsim_fuzz_result *res, lsim_error *err) {
  if (!rewind_fd(iso->result_fd) || !rewind_fd(iso->log_fd))
    return lsim_error_set(err, LSIM_E_IO, "cannot reuse the temporary files: %s", strerror(errno));
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0)
    return lsim_error_set(err, LSIM_E_IO, "fork: %s", strerror(errno));
  if (pid == 0)
    child(c, iso, s);
  int status;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return lsim_error_set(err, LSIM_E_IO, "waitpid: %s", strerror(errno));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return read_result(iso, res, err);
  return crash_result(status, iso, res, err);
}
