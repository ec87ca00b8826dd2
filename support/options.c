/* support/options.c: reading a caller's options struct whatever lowersim
 * version it was built against. */
#include "support/options.h"

#include <string.h>

int lsimp_options_copy(void *into, size_t size, const void *from, const char *what,
                       lsim_error *err) {
  memset(into, 0, size);
  size_t given = size;
  if (from) {
    memcpy(&given, from, sizeof given);
    if (given < sizeof given || given > size)
      return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                            "%s: struct_size is %zu (make it with its LSIM_..._INIT macro; "
                            "this lowersim knows %zu bytes)",
                            what, given, size);
    memcpy(into, from, given);
  }
  memcpy(into, &size, sizeof size);
  return LSIM_OK;
}
