/* support/options.h: public options structs that grow without breaking
 * callers.  Private.
 *
 * Every public options or request struct starts with `size_t struct_size`,
 * which its LSIM_..._INIT(...) macro sets to the size the caller was built
 * with.  The library reads only that many bytes and takes the defaults
 * (zero) for fields added since, as libgit2's versioned options do. */
#ifndef LSIMP_SUPPORT_OPTIONS_H
#define LSIMP_SUPPORT_OPTIONS_H

#include "lowersim/error.h"

#include <stddef.h>

/* Copies the caller's struct `from` into `into` (`size` bytes, zeroed
 * first, then its struct_size set to `size`).  NULL `from` gives the
 * defaults.  Fails with LSIM_E_INVALID_ARGUMENT naming `what` when
 * from->struct_size is 0 (not made with its INIT macro) or larger than
 * `size` (a newer lowersim's struct). */
int lsimp_options_copy(void *into, size_t size, const void *from, const char *what,
                       lsim_error *err);

#endif
