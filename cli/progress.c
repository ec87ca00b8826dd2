/* cli/progress.c: the command's one progress line (progress.h). */
#include "progress.h"

#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define REDRAW_SECONDS 0.25

double cli_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void cli_progress_begin(cli_progress *p, const char *what, const char *unit, uint64_t total,
                        bool wanted) {
  *p = (cli_progress){.what = what, .unit = unit, .total = total, .start = cli_now(),
                      .on = wanted && isatty(STDERR_FILENO)};
}

void cli_progress_rate(double per_second, char *buf, int size) {
  if (per_second >= 10000)
    snprintf(buf, (size_t)size, "%.1fk", per_second / 1000);
  else
    snprintf(buf, (size_t)size, "%.0f", per_second);
}

void cli_progress_update(cli_progress *p, uint64_t done, const char *extra, bool force) {
  double t = cli_now();
  if (!p->on || (!force && t - p->shown < REDRAW_SECONDS))
    return;
  p->shown = t;
  double spent = t - p->start, rate = spent > 0 ? (double)done / spent : 0;
  char eta[32] = "?", r[32];
  if (done > 0 && done <= p->total) {
    double left = spent / (double)done * (double)(p->total - done);
    snprintf(eta, sizeof eta, "%d:%02d", (int)(left / 60), (int)left % 60);
  }
  cli_progress_rate(rate, r, sizeof r);
  fprintf(stderr, "\r\033[K%s: %" PRIu64 "/%" PRIu64 " %s (%.1f%%), %s %s/s, ETA %s%s%s", p->what,
          done, p->total, p->unit, p->total ? 100.0 * (double)done / (double)p->total : 100.0,
          r, p->unit, eta, extra ? ", " : "", extra ? extra : "");
  fflush(stderr);
}

void cli_progress_end(cli_progress *p) {
  if (!p->on)
    return;
  fputs("\r\033[K", stderr);
  fflush(stderr);
}
