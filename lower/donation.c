/* lower/donation.c: donated arguments.
 * JAX counterparts: mlir.py _platforms_with_donation, the donation check of
 * lower_jaxpr_to_module and _set_up_aliases (no result shardings). */
#include "donation.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include "lowersim/alloc.h"

#include <stdlib.h>
#include <string.h>

/* mlir.py _platforms_with_donation, the release's. */
static bool supports_donation(const lsim_module_context *mc, const char *platform) {
  return lsim_jax_strings_contain(&lsim_module_context_profile(mc)->platforms_with_donation,
                                  platform);
}

int lsimp_check_donation(const lsim_module_context *mc, const lsim_program *prog,
                         lsim_error *err) {
  size_t n;
  const char *const *platforms = lsim_module_context_platforms(mc, &n);
  bool any_donated = false;
  for (size_t i = 0; prog->donated && i < prog->num_args; i++)
    any_donated = any_donated || prog->donated[i];
  const char **supporting = lsim_malloc_array(n, sizeof *supporting);
  if (!supporting)
    return lsimp_fail_oom(err);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (supports_donation(mc, platforms[i]))
      supporting[k++] = platforms[i];
  int rc = LSIM_OK;
  if (any_donated && k > 0 && k != n) {
    lsimp_strbuf all = LSIMP_STRBUF_INIT, some = LSIMP_STRBUF_INIT;
    lsimp_py_tuple(&all, platforms, n);
    lsimp_py_list(&some, supporting, k);
    rc = lsimp_strbuf_failed(&all) || lsimp_strbuf_failed(&some)
             ? lsimp_fail_oom(err)
             : lsimp_raise(err, LSIM_E_DONATION_MIXED, lsimp_strbuf_cstr(&all),
                           lsimp_strbuf_cstr(&some));
    lsimp_strbuf_free(&all);
    lsimp_strbuf_free(&some);
  }
  free(supporting);
  return rc;
}

/* lower_jaxpr_to_module's warnings.warn (UserWarning) naming every donated
 * argument that got neither an alias nor a donor slot, as str(aval), with
 * "Donation is not implemented for (platforms,)." when no lowering platform
 * supports donation. */
static int warn_unusable(lsim_module_context *mc, const lsim_program *prog,
                         const lsimp_donation *d, bool supported, const char *const *platforms,
                         size_t n_platforms, lsim_error *err) {
  lsimp_strbuf msg = LSIMP_STRBUF_INIT;
  size_t unusable = 0;
  for (size_t i = 0; prog->donated && i < prog->num_args; i++) {
    if (prog->donated[i] && d->alias_of[i] < 0 && !d->donor[i]) {
      char text[LSIM_AVAL_TEXT_MAX];
      lsimp_strbuf_puts(&msg, unusable++ ? ", " : "Some donated buffers were not usable: ");
      lsimp_strbuf_puts(&msg, lsim_aval_str(&prog->args[i], text, sizeof text));
    }
  }
  if (!unusable)
    return LSIM_OK;
  lsimp_strbuf_puts(&msg, ".\n");
  if (!supported) {
    lsimp_strbuf_puts(&msg, "Donation is not implemented for ");
    lsimp_py_tuple(&msg, platforms, n_platforms);
    lsimp_strbuf_puts(&msg, ".\n");
  }
  lsimp_strbuf_printf(&msg, "See an explanation at %s.",
                      lsim_module_context_profile(mc)->donation_doc_url);
  int rc = lsimp_strbuf_failed(&msg)
               ? lsimp_fail_oom(err)
               : lsim_runtime_warn(lsim_module_context_runtime(mc), "UserWarning",
                                   lsimp_strbuf_cstr(&msg), err);
  if (!rc)
    lsim_module_context_explain(mc, LSIM_EXPLAIN_DETAIL, 0, "warning (UserWarning): %s",
                                lsimp_strbuf_cstr(&msg));
  lsimp_strbuf_free(&msg);
  return rc;
}

/* A donated argument aliases the first unclaimed output of the same aval
 * (tf.aliasing_output); the others become buffer donors when an unaliased
 * output of the same size remains (jax.buffer_donor); the rest are not
 * usable and JAX warns about them.  Nothing is donated when no lowering
 * platform supports donation. */
int lsimp_set_up_aliases(lsim_module_context *mc, const lsim_program *prog,
                         const lsim_aval *avals, size_t num_values, lsimp_donation *d,
                         lsim_error *err) {
  size_t n = lsim_program_num_outputs(prog), n_platforms;
  const char *const *platforms = lsim_module_context_platforms(mc, &n_platforms);
  bool supported = false;
  for (size_t p = 0; p < n_platforms; p++)
    supported = supported || supports_donation(mc, platforms[p]);
  for (size_t i = 0; i < prog->num_args; i++) {
    d->alias_of[i] = -1;
    d->donor[i] = false;
  }
  /* On several devices, when a result has no sharding, every donation
   * falls back to XLA's (lower_jaxpr_to_module's num_partitions > 1 branch:
   * `any(s is None ... for s in result_shardings)`, so not without results:
   * then the donations go unused and JAX warns). */
  if (supported && lsim_module_context_num_devices(mc) > 1 && n > 0) {
    for (size_t i = 0; prog->donated && i < prog->num_args; i++)
      d->donor[i] = prog->donated[i];
    return LSIM_OK;
  }
  bool *claimed = lsim_calloc(n + 1, sizeof *claimed);
  if (!claimed)
    return lsimp_fail_oom(err);
  for (int pass = 0; supported && pass < 2; pass++) {
    for (size_t i = 0; prog->donated && i < prog->num_args; i++) {
      if (!prog->donated[i] || d->alias_of[i] >= 0 || d->donor[i])
        continue;
      for (size_t o = 0; o < n; o++) {
        const lsim_aval *out = &avals[lsim_program_output(prog, num_values, o)];
        bool match = pass == 0 ? lsim_aval_same_array(out, &prog->args[i])
                               : lsim_aval_size(out) == lsim_aval_size(&prog->args[i]);
        if (!claimed[o] && match) {
          claimed[o] = true;
          if (pass == 0)
            d->alias_of[i] = (int64_t)o;
          else
            d->donor[i] = true;
          break;
        }
      }
    }
  }
  int rc = warn_unusable(mc, prog, d, supported, platforms, n_platforms, err);
  free(claimed);
  return rc;
}
