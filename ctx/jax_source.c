/* ctx/jax_source.c: explain's links to the JAX source: the line of a
 * function's `def` at a profile's source_ref, from the generated table
 * (tools/gen_jax_source.py, read from the JAX mirror). */
#include "jax_source_table.h"
#include "lowersim/jax_profile.h"

#include <stdio.h>
#include <string.h>

int lsim_jax_source_line(const lsim_jax_profile *profile, const char *file,
                         const char *function) {
  profile = lsim_jax_profile_or_default(profile);
  for (size_t i = 0; file && function && i < lsimp_jax_source_row_count; i++) {
    const lsimp_jax_source_row *r = &lsimp_jax_source_rows[i];
    if (strcmp(r->ref, profile->source_ref) == 0 && strcmp(r->file, file) == 0 &&
        strcmp(r->function, function) == 0)
      return r->line;
  }
  return 0;
}

int lsim_jax_source_url(const lsim_jax_profile *profile, const char *file, const char *function,
                        char *buf, size_t size) {
  profile = lsim_jax_profile_or_default(profile);
  int line = lsim_jax_source_line(profile, file, function);
  if (line)
    return snprintf(buf, size, "https://github.com/jax-ml/jax/blob/%s/%s#L%d",
                    profile->source_ref, file ? file : "", line);
  return snprintf(buf, size, "https://github.com/jax-ml/jax/blob/%s/%s", profile->source_ref,
                  file ? file : "");
}

/* The table's row for FILE_LEN bytes of `file` below `root` and FN_LEN
 * bytes of `function`, at `ref`; NULL when it has none. */
static const lsimp_jax_source_row *row_below(const char *ref, const char *root, const char *file,
                                             size_t file_len, const char *function,
                                             size_t fn_len) {
  size_t root_len = strlen(root);
  for (size_t i = 0; i < lsimp_jax_source_row_count; i++) {
    const lsimp_jax_source_row *r = &lsimp_jax_source_rows[i];
    if (strcmp(r->ref, ref) == 0 && strncmp(r->file, root, root_len) == 0 &&
        strlen(r->file) == root_len + file_len &&
        strncmp(r->file + root_len, file, file_len) == 0 && strlen(r->function) == fn_len &&
        strncmp(r->function, function, fn_len) == 0)
      return r;
  }
  return NULL;
}

int lsim_jax_source_of_reference(const lsim_jax_profile *profile, const char *reference,
                                 char *buf, size_t size) {
  profile = lsim_jax_profile_or_default(profile);
  const char *sp = reference ? strchr(reference, ' ') : NULL;
  size_t file_len = sp ? (size_t)(sp - reference) : 0;
  const lsimp_jax_source_row *r = NULL;
  if (file_len > 3 && strncmp(sp - 3, ".py", 3) == 0) {
    size_t fn_len = strspn(sp + 1, "abcdefghijklmnopqrstuvwxyz"
                                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");
    /* A file below jax/_src/ or its interpreters/, or below jax/
     * (jax/experimental/...): tools/gen_jax_source.py's ROOTS. */
    static const char *const roots[] = {"jax/_src/", "jax/_src/interpreters/", "jax/"};
    for (size_t k = 0; !r && k < sizeof roots / sizeof roots[0]; k++)
      r = row_below(profile->source_ref, roots[k], reference, file_len, sp + 1, fn_len);
  }
  if (r)
    return snprintf(buf, size, "%s %s", r->file, r->function);
  if (size)
    buf[0] = '\0';
  return 0;
}
