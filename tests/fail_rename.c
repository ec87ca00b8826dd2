/* tests/fail_rename.c: an LD_PRELOAD shim for fuzz_test.sh.  rename() to a
 * file whose base name is one of FAIL_RENAME_TO (comma-separated) fails with
 * EIO, so that each of `lowersim fuzz`'s output cases writing such a file is
 * a finding: findings on known iterations, to compare runs with --jobs 1
 * and 2. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int rename(const char *from, const char *to) {
  const char *names = getenv("FAIL_RENAME_TO"), *base = strrchr(to, '/');
  base = base ? base + 1 : to;
  size_t n = strlen(base);
  for (const char *p = names; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (strncmp(p, base, n) == 0 && (p[n] == ',' || p[n] == '\0')) {
      errno = EIO;
      return -1;
    }
  int (*real)(const char *, const char *) =
      (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  return real(from, to);
}
