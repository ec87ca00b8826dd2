/* lower/io_alias.c: input_output_aliases as JAX checks and sorts them.
 * JAX counterpart: buffer_callback.py buffer_callback and ffi.py ffi_call
 * (the same checks and messages): sorted(input_output_aliases.items()),
 * each mapping's input range, output range and abstract values. */
#include "lowersim/io_alias.h"
#include "lowersim/alloc.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* By input, then by place in the user's list (so a sort of pointers into
 * that list is stable). */
static int compare_input(const void *a, const void *b) {
  const lsim_io_alias *x = *(const lsim_io_alias *const *)a, *y = *(const lsim_io_alias *const *)b;
  if (x->input != y->input)
    return (x->input > y->input) - (x->input < y->input);
  return (x > y) - (x < y);
}

/* `sorted(input_output_aliases.items())` of the user's dict (a repeated
 * input takes its last output), as buffer_callback checks and binds them,
 * in O(n log n).  Writes the entries to `out` and their number to `*count`;
 * false when out of memory. */
bool lsim_io_aliases_sorted(const lsim_io_alias *aliases, size_t n, lsim_io_alias *out,
                           size_t *count) {
  const lsim_io_alias **order = lsim_malloc_array(n, sizeof *order);
  if (!order)
    return false;
  for (size_t i = 0; i < n; i++)
    order[i] = &aliases[i];
  qsort(order, n, sizeof *order, compare_input);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (i + 1 == n || order[i + 1]->input != order[i]->input)
      out[k++] = *order[i];
  free(order);
  *count = k;
  return true;
}

static int check_alias(const lsim_aval *args, size_t num_args, const lsim_aval *results,
                       size_t num_results, lsim_io_alias alias, lsim_error *err) {
  int64_t in = alias.input, out = alias.output;
  char si[24], so[24], sn[24], sm[24];
  snprintf(si, sizeof si, "%" PRId64, in);
  snprintf(so, sizeof so, "%" PRId64, out);
  snprintf(sn, sizeof sn, "%zu", num_args);
  snprintf(sm, sizeof sm, "%zu", num_results);
  if (in < 0 || out < 0)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "input_output_aliases contains the mapping '%s:%s' with a negative index",
                          si, so);
  if ((uint64_t)in >= num_args)
    return lsimp_raise(err, LSIM_E_ALIAS_INPUT_RANGE, si, so, sn);
  if ((uint64_t)out >= num_results)
    return lsimp_raise(err, LSIM_E_ALIAS_OUTPUT_RANGE, si, so, sm);
  if (!lsim_aval_same_array(&args[in], &results[out])) {
    char a[LSIM_AVAL_TEXT_MAX], b[LSIM_AVAL_TEXT_MAX];
    return lsimp_raise(err, LSIM_E_ALIAS_AVAL_MISMATCH, si, so,
                       lsim_aval_str(&args[in], a, sizeof a),
                       lsim_aval_str(&results[out], b, sizeof b));
  }
  return LSIM_OK;
}

int lsim_check_io_aliases(const lsim_aval *args, size_t num_args, const lsim_aval *results,
                          size_t num_results, const lsim_io_alias *aliases, size_t num_aliases,
                          lsim_error *err) {
  lsim_io_alias *sorted = lsim_malloc_array(num_aliases, sizeof *sorted);
  if (!sorted)
    return lsimp_fail_oom(err);
  size_t n = 0;
  int rc = lsim_io_aliases_sorted(aliases, num_aliases, sorted, &n) ? LSIM_OK : lsimp_fail_oom(err);
  for (size_t i = 0; i < n && !rc; i++)
    rc = check_alias(args, num_args, results, num_results, sorted[i], err);
  free(sorted);
  return rc;
}

char *lsim_io_aliases_repr(const lsim_io_alias *aliases, size_t n) {
  lsim_io_alias *sorted = lsim_malloc_array(n, sizeof *sorted);
  size_t count = 0;
  if (!sorted || !lsim_io_aliases_sorted(aliases, n, sorted, &count)) {
    free(sorted);
    return NULL;
  }
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  lsimp_strbuf_putc(&sb, '(');
  for (size_t i = 0; i < count; i++)
    lsimp_strbuf_printf(&sb, "%s(%" PRId64 ", %" PRId64 ")", i ? ", " : "", sorted[i].input,
                        sorted[i].output);
  lsimp_strbuf_puts(&sb, count == 1 ? ",)" : ")");
  free(sorted);
  return lsimp_strbuf_take(&sb);
}
