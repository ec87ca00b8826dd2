/* tests/stop_before_rename.c: an LD_PRELOAD shim for cli_robust_test.sh.
 * rename() raises STOP_SIGNAL (a number; default SIGTERM) in the calling
 * process first, so the command is stopped exactly between writing a file
 * and putting it in place: what it leaves behind is what a signal at that
 * moment leaves.  With STOP_AT_WRITE set, the first write() to standard
 * output raises it instead (a command whose output is standard output). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int rename(const char *from, const char *to) {
  const char *sig = getenv("STOP_SIGNAL");
  if (getenv("STOP_AT_WRITE")) {
    int (*real)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    return real(from, to);
  }
  raise(sig ? atoi(sig) : SIGTERM);
  int (*real)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  return real(from, to);
}

ssize_t write(int fd, const void *buf, size_t n) {
  static int raised;
  if (fd == STDOUT_FILENO && !raised && getenv("STOP_AT_WRITE")) {
    const char *sig = getenv("STOP_SIGNAL");
    raised = 1;
    raise(sig ? atoi(sig) : SIGTERM);
  }
  ssize_t (*real)(int, const void *, size_t) = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
  return real(fd, buf, n);
}
