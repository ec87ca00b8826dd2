/* lower/dce.c: jit's dead-code elimination of the traced program.
 * JAX counterpart: pxla.py _dce_jaxpr -> partial_eval.py dce_jaxpr with
 * every output used: from the last equation to the first, an equation none
 * of whose results is used is dropped unless it is kept anyway (an ordered
 * effect, or its primitive's kept_when_unused: effects and pallas_call's dce
 * rule, which changed at 0.12.0); a kept equation uses all its operands; then the arguments nothing
 * uses are dropped, donated or not (unused donations are dropped silently:
 * they never reach the donation warning).  All this only with
 * keep_unused=False, jit's default (prune_unused_inputs); with
 * keep_unused=True nothing is dropped.  Checked live at 0.10.2
 * (_dce_jaxpr and pe.dce_jaxpr are the same at cec06d116c for what lowersim
 * models). */
#include "dce.h"
#include "support/raise.h"

#include "lowersim/alloc.h"

#include <stdlib.h>
#include <string.h>

void lsimp_dce_free(lsimp_dce_result *d) {
  if (!d)
    return;
  free(d->eqns);
  free(d->operands);
  free(d->args);
  free(d->donated);
  free(d->outputs);
  free(d->kept_eqn);
  free(d->used_value);
  *d = (lsimp_dce_result){0};
}

static bool kept_unused(const lsim_eqn *e, const lsim_jax_profile *jax) {
  return e->ordered_effect ||
         (e->primitive->kept_when_unused && e->primitive->kept_when_unused(e->params, jax));
}

int lsimp_dce(const lsim_program *prog, const lsim_jax_profile *jax, bool keep_unused,
              lsimp_dce_result *out, lsim_error *err) {
  jax = lsim_jax_profile_or_default(jax);
  *out = (lsimp_dce_result){0};
  size_t num_values = lsim_program_num_values(prog);
  size_t num_outputs = lsim_program_num_outputs(prog);
  size_t num_operands = 0;
  for (size_t i = 0; i < prog->num_eqns; i++)
    num_operands += prog->eqns[i].num_operands;
  bool *used = lsim_calloc(num_values + 1, sizeof *used);
  bool *kept = lsim_calloc(prog->num_eqns + 1, sizeof *kept);
  size_t *first = lsim_malloc_array(prog->num_eqns + 1, sizeof *first); /* each eqn's first result */
  size_t *renumber = lsim_malloc_array(num_values + 1, sizeof *renumber);
  out->eqns = lsim_malloc_array(prog->num_eqns + 1, sizeof *out->eqns);
  out->operands = lsim_malloc_array(num_operands + 1, sizeof *out->operands);
  out->args = lsim_malloc_array(prog->num_args + 1, sizeof *out->args);
  out->donated = lsim_malloc_array(prog->num_args + 1, sizeof *out->donated);
  out->outputs = lsim_malloc_array(num_outputs + 1, sizeof *out->outputs);
  int rc = used && kept && first && renumber && out->eqns && out->operands && out->args &&
                   out->donated && out->outputs
               ? LSIM_OK
               : lsimp_fail_oom(err);
  if (!rc) {
    size_t next = prog->num_args;
    for (size_t i = 0; i < prog->num_eqns; i++) {
      first[i] = next;
      next += prog->eqns[i].num_results;
    }
    for (size_t o = 0; o < num_outputs; o++)
      used[lsim_program_output(prog, num_values, o)] = true;
    for (size_t i = prog->num_eqns; i-- > 0;) {
      const lsim_eqn *e = &prog->eqns[i];
      bool any = keep_unused || kept_unused(e, jax);
      for (size_t r = 0; r < e->num_results && !any; r++)
        any = used[first[i] + r];
      kept[i] = any;
      for (size_t j = 0; any && j < e->num_operands; j++)
        used[e->operands[j]] = true;
    }
    /* The kept values, renumbered: args, then the kept equations' results. */
    size_t n = 0;
    for (size_t a = 0; a < prog->num_args; a++) {
      if (keep_unused || used[a]) {
        renumber[a] = n;
        out->args[n] = prog->args[a];
        out->donated[n++] = prog->donated && prog->donated[a];
      } else {
        out->dropped_args++;
      }
    }
    size_t num_kept_args = n, k = 0, ops = 0;
    for (size_t i = 0; i < prog->num_eqns; i++) {
      const lsim_eqn *e = &prog->eqns[i];
      if (!kept[i]) {
        out->dropped_eqns++;
        continue;
      }
      for (size_t r = 0; r < e->num_results; r++)
        renumber[first[i] + r] = n++;
      lsim_eqn copy = *e;
      copy.operands = out->operands + ops;
      for (size_t j = 0; j < e->num_operands; j++)
        out->operands[ops++] = renumber[e->operands[j]];
      out->eqns[k++] = copy;
    }
    for (size_t o = 0; o < num_outputs; o++)
      out->outputs[o] = renumber[lsim_program_output(prog, num_values, o)];
    out->program = (lsim_program){
        .function_name = prog->function_name,
        .args = out->args,
        .donated = out->donated,
        .num_args = num_kept_args,
        .eqns = out->eqns,
        .num_eqns = k,
        .has_outputs = true,
        .outputs = out->outputs,
        .num_outputs = num_outputs,
    };
    out->kept_eqn = kept, kept = NULL;
    out->used_value = used, used = NULL;
  }
  free(used);
  free(kept);
  free(first);
  free(renumber);
  if (rc)
    lsimp_dce_free(out);
  return rc;
}
