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
