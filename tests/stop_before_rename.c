/* tests/stop_before_rename.c: an LD_PRELOAD shim for cli_robust_test.sh.
 * rename() raises STOP_SIGNAL (a number; default SIGTERM) in the calling
 * process first, so the command is stopped exactly between writing a file
 * and putting it in place: what it leaves behind is what a signal at that
 * moment leaves. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

int rename(const char *from, const char *to) {
  const char *sig = getenv("STOP_SIGNAL");
  raise(sig ? atoi(sig) : SIGTERM);
  int (*real)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  return real(from, to);
}
