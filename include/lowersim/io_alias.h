/* lowersim/io_alias.h: input_output_aliases of buffer_callback and ffi_call.
 * JAX counterparts: buffer_callback.py buffer_callback and ffi.py ffi_call,
 * which check and sort a user's dict the same way, with the same
 * messages. */
#ifndef LOWERSIM_IO_ALIAS_H
#define LOWERSIM_IO_ALIAS_H

#include "lowersim/aval.h"
#include "lowersim/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One input_output_aliases entry: input index -> output index. */
typedef struct lsim_io_alias {
  int64_t input;
  int64_t output;
} lsim_io_alias;

/* `sorted(input_output_aliases.items())` of the user's dict (a repeated
 * input takes its last output), in O(n log n): the entries into `out` (room
 * for `n`), their number into *count; false when out of memory. */
bool lsim_io_aliases_sorted(const lsim_io_alias *aliases, size_t n, lsim_io_alias *out,
                            size_t *count);

/* `((0, 1), (1, 0))`: tuple(sorted(input_output_aliases.items())), as a
 * jaxpr's params print it; owned by the caller, NULL when out of memory. */
char *lsim_io_aliases_repr(const lsim_io_alias *aliases, size_t n);

/* The checks of each mapping, inputs in ascending order:
 * LSIM_E_ALIAS_INPUT_RANGE, LSIM_E_ALIAS_OUTPUT_RANGE,
 * LSIM_E_ALIAS_AVAL_MISMATCH (a negative index: LSIM_E_INVALID_ARGUMENT). */
int lsim_check_io_aliases(const lsim_aval *args, size_t num_args, const lsim_aval *results,
                          size_t num_results, const lsim_io_alias *aliases, size_t num_aliases,
                          lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_IO_ALIAS_H */
