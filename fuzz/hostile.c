/* fuzz/hostile.c: what the generator met too rarely.  Its scenarios name a
 * handful of platforms and keep to the format; issue 11's inputs named
 * thousands of platforms and piled attributes onto elements.  So a campaign
 * also makes scenarios of a large shape (a platform_dependent with a branch
 * per platform, plugin backends with a rule each or a default rule only,
 * JAX_PLATFORMS naming them all, many branches of one platform, many
 * aliases), and texts with junk attributes added to one element, checked
 * through the reader (lsim_fuzz_check_text). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define MIN_LARGE 16
#define MAX_LARGE 1024
#define RESULT "<result dtype=\"f32\" shape=\"8\"/>"

static void plugin_runtime(FILE *f, size_t n, bool jax_platforms) {
  fputs("<runtime", f);
  if (jax_platforms) {
    fputs(" jax_platforms=\"cpu", f);
    for (size_t i = 1; i <= n; i++)
      fprintf(f, ",p%zu", i);
    fputc('"', f);
  }
  fputs("><backend platform=\"cpu\"/>", f);
  for (size_t i = 1; i <= n; i++)
    fprintf(f, "<backend platform=\"p%zu\"/>", i);
  fputs("</runtime>\n", f);
}

static void lower_open(FILE *f, size_t n, size_t args) {
  fputs("<lower function=\"f\" platforms=\"", f);
  for (size_t i = 1; i <= n; i++)
    fprintf(f, "%sp%zu", i > 1 ? "," : "", i);
  fputs("\">\n", f);
  for (size_t i = 0; i < args; i++)
    fputs("<arg dtype=\"f32\" shape=\"8\"/>\n", f);
}

static const char *const ops[] = {"sine", "cosine", "negate", "exponential"};

int lsim_fuzz_generate_large(lsim_fuzz_rng *rng, const char *name, char **text, size_t *size,
                             lsim_error *err) {
  size_t n = MIN_LARGE + (size_t)lsim_fuzz_rng_below(rng, MAX_LARGE - MIN_LARGE + 1);
  uint64_t shape = lsim_fuzz_rng_below(rng, 6);
  lsim_fuzz_text t;
  if (!lsim_fuzz_text_open(&t))
    return lsim_fuzz_no_memory(err);
  FILE *f = t.f;
  fprintf(f, "<?xml version=\"1.0\"?>\n<scenario name=\"%s\">\n", name);
  if (shape == 0) { /* a branch per platform, a few ops, maybe a default */
    plugin_runtime(f, n, false);
    lower_open(f, n, 1);
    fputs("<platform_dependent args=\"0\">\n", f);
    for (size_t i = 1; i <= n; i++)
      fprintf(f, "<branch platforms=\"p%zu\" op=\"%s\"/>\n", i, ops[lsim_fuzz_rng_below(rng, 4)]);
    if (lsim_fuzz_rng_chance(rng, 50))
      fputs("<default op=\"negate\"/>\n", f);
    fputs("</platform_dependent>\n", f);
  } else if (shape == 1 || shape == 2) { /* a rule per platform (some missing), or a default */
    plugin_runtime(f, n, false);
    lower_open(f, n, 1);
    fputs("<primitive name=\"my_op\" args=\"0\">\n", f);
    for (size_t i = 1; shape == 1 && i <= n; i++)
      if (!lsim_fuzz_rng_chance(rng, 2))
        fprintf(f, "<rule platform=\"p%zu\" target=\"k%zu\"/>\n", i, i % 7);
    if (shape == 2 || lsim_fuzz_rng_chance(rng, 50))
      fputs("<default target=\"k\"/>\n", f);
    fputs(RESULT "</primitive>\n", f);
  } else if (shape == 3) { /* JAX_PLATFORMS naming every backend */
    plugin_runtime(f, n, true);
    fputs("<lower function=\"f\">\n<arg dtype=\"f32\" shape=\"8\"/>\n<op kind=\"sine\" args=\"0\"/>\n",
          f);
  } else if (shape == 4) { /* many branches of one platform */
    fputs("<lower function=\"f\" platforms=\"cpu,tpu\">\n<arg dtype=\"f32\" shape=\"8\"/>\n"
          "<platform_dependent args=\"0\">\n", f);
    for (size_t i = 0; i < n; i++)
      fprintf(f, "<branch platforms=\"%s\" op=\"%s\"/>\n", i % 3 ? "cpu" : "tpu",
              ops[lsim_fuzz_rng_below(rng, 4)]);
    fputs("<default op=\"negate\"/></platform_dependent>\n", f);
  } else { /* many aliases, some repeated */
    fputs("<lower function=\"f\" platforms=\"cpu\">\n", f);
    for (size_t i = 0; i < n; i++)
      fputs("<arg dtype=\"f32\" shape=\"8\"/>\n", f);
    fputs("<buffer_callback args=\"", f);
    for (size_t i = 0; i < n; i++)
      fprintf(f, "%s%zu", i ? "," : "", i);
    fputs("\">\n", f);
    for (size_t i = 0; i < n; i++)
      fputs(RESULT "\n", f);
    for (size_t i = 0; i < n; i++)
      fprintf(f, "<alias input=\"%zu\" output=\"%zu\"/>\n", (size_t)lsim_fuzz_rng_below(rng, n),
              (size_t)lsim_fuzz_rng_below(rng, n));
    fputs("</buffer_callback>\n", f);
  }
  fputs("</lower>\n</scenario>\n", f);
  if (!(*text = lsim_fuzz_text_take(&t)))
    return lsim_fuzz_no_memory(err);
  *size = t.size;
  return LSIM_OK;
}

int lsim_fuzz_add_attributes(lsim_fuzz_rng *rng, const char *text, size_t size, char **out,
                             size_t *out_size, lsim_error *err) {
  /* The start tags: '<' then a letter. */
  size_t tags = 0;
  for (size_t i = 0; i + 1 < size; i++)
    tags += text[i] == '<' && text[i + 1] >= 'a' && text[i + 1] <= 'z';
  size_t pick = (size_t)lsim_fuzz_rng_below(rng, tags ? tags : 1), at = size;
  for (size_t i = 0, k = 0; i + 1 < size && at == size; i++)
    if (text[i] == '<' && text[i + 1] >= 'a' && text[i + 1] <= 'z' && k++ == pick)
      at = i + 1 + strcspn(text + i + 1, " />");
  /* Mostly a few, sometimes around the limit of 64, rarely thousands. */
  uint64_t kind = lsim_fuzz_rng_below(rng, 10);
  size_t count = kind < 6   ? 1 + (size_t)lsim_fuzz_rng_below(rng, 8)
                 : kind < 9 ? 56 + (size_t)lsim_fuzz_rng_below(rng, 16)
                            : 1000 + (size_t)lsim_fuzz_rng_below(rng, 20000);
  lsim_fuzz_text t;
  if (!lsim_fuzz_text_open(&t))
    return lsim_fuzz_no_memory(err);
  fwrite(text, 1, at, t.f);
  for (size_t i = 0; i < count; i++)
    fprintf(t.f, lsim_fuzz_rng_chance(rng, 10) ? " xmlns:n%zu=\"urn:x\"" : " junk%zu=\"%zu\"", i, i);
  fwrite(text + at, 1, size - at, t.f);
  if (!(*out = lsim_fuzz_text_take(&t)))
    return lsim_fuzz_no_memory(err);
  *out_size = t.size;
  return LSIM_OK;
}

/* What the reader says about a file it refuses: LSIM_E_INVALID_INPUT and
 * one line `NAME:LINE: message`. */
static bool one_line_error(const char *name, const lsim_error *e) {
  const char *m = lsim_error_message(e);
  size_t n = strlen(name);
  if (e->code != LSIM_E_INVALID_INPUT || strncmp(m, name, n) != 0 || m[n] != ':')
    return false;
  const char *p = m + n + 1;
  size_t digits = strspn(p, "0123456789");
  return digits && strncmp(p + digits, ": ", 2) == 0 && !strchr(m, '\n');
}

int lsim_fuzz_check_text(lsim_fuzz_checker *c, const char *name, const char *text, size_t size,
                         lsim_fuzz_result *res, lsim_error *err) {
  *res = (lsim_fuzz_result){LSIM_FUZZ_HOLDS, 0, NULL};
  lsim_scenario *s = NULL;
  lsim_error e = LSIM_ERROR_INIT;
  int rc = lsim_scenario_read_memory(text, size, name, &s, &e);
  if (rc == LSIM_OK) {
    rc = lsim_fuzz_check(c, s, res, err);
  } else if (rc == LSIM_E_NO_MEMORY) {
    rc = lsim_fuzz_no_memory(err);
  } else {
    res->code = rc;
    if (!one_line_error(name, &e)) {
      lsim_fuzz_text why;
      if (!lsim_fuzz_text_open(&why))
        rc = lsim_fuzz_no_memory(err);
      else {
        fprintf(why.f, "the reader refuses the file with %s \"%s\", not one `%s:LINE: ...` line",
                lsim_status_name(rc) ? lsim_status_name(rc) : "?", lsim_error_message(&e), name);
        res->failed = LSIM_FUZZ_READER;
        res->detail = lsim_fuzz_text_take(&why);
        rc = res->detail ? LSIM_OK : lsim_fuzz_no_memory(err);
      }
    } else {
      rc = LSIM_OK;
    }
  }
  lsim_error_clear(&e);
  lsim_scenario_destroy(s);
  return rc;
}
