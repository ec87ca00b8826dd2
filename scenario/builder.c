/* scenario/builder.c: what the kinds build a program with: storage that
 * lives as long as the run, the scenario's own primitives (one per name),
 * the scenario's host callback, and errors turned into the file's. */
#include "internal.h"
#include "support/name_index.h"
#include "support/raise.h"

#include "lowersim/alloc.h"

#include <stdlib.h>
#include <string.h>

/* Appends `p` to a growing array of pointers. */
static bool keep(void ***array, size_t *n, size_t *cap, void *p) {
  if (!lsim_grow_array(array, cap, *n + 1, sizeof **array))
    return false;
  (*array)[(*n)++] = p;
  return true;
}

void lsimp_builder_free(lsimp_builder *b) {
  for (size_t i = 0; i < b->num_blocks; i++)
    free(b->blocks[i]);
  free(b->blocks);
  for (size_t i = 0; i < b->num_primitives; i++)
    lsim_primitive_destroy(b->primitives[i]);
  free(b->primitives);
  lsimp_name_index_free(&b->primitive_index);
}

void *lsimp_build_alloc(lsimp_builder *b, size_t n, size_t size) {
  void *p = lsim_calloc(n, size);
  if (p && keep(&b->blocks, &b->num_blocks, &b->cap_blocks, p))
    return p;
  free(p);
  lsimp_fail_oom(b->err);
  return NULL;
}

lsim_primitive *lsimp_build_primitive(lsimp_builder *b, const char *name) {
  size_t at;
  if (lsimp_name_index_find(&b->primitive_index, name, &at))
    return b->primitives[at];
  lsim_primitive *p = NULL;
  if (lsim_primitive_create(name, &p, b->err))
    return NULL;
  if (!lsimp_name_index_set(&b->primitive_index, p->name, b->num_primitives) ||
      !keep((void ***)&b->primitives, &b->num_primitives, &b->cap_primitives, p)) {
    lsim_primitive_destroy(p);
    lsimp_fail_oom(b->err);
    return NULL;
  }
  return p;
}

int lsimp_build_invalid(lsimp_builder *b, int rc, int line) {
  if (rc != LSIM_E_INVALID_ARGUMENT)
    return rc;
  const char *path = b->s->path ? b->s->path : "<scenario>";
  return lsim_error_set(b->err, LSIM_E_INVALID_INPUT, "%s:%d: %s", path, line,
                        lsim_error_message(b->err));
}

/* Returns a value when `user_data` says so (returns_value="true"). */
static int scenario_callback(void *user_data, lsim_host_callback_call *call) {
  call->returned_values = user_data ? 1 : 0;
  return LSIM_OK;
}

lsim_host_callback lsimp_build_host_callback(bool returns_value) {
  return (lsim_host_callback){.fn = scenario_callback,
                              .user_data = returns_value ? (void *)1 : NULL};
}

/* b->values: the arguments', then each equation's results, in order. */
static bool index_values(lsimp_builder *b) {
  const lsim_scenario *s = b->s;
  size_t n = s->num_args;
  for (size_t i = 0; i < s->num_eqns; i++)
    n += s->eqns[i].num_results;
  const lsim_aval **values = lsimp_build_alloc(b, n ? n : 1, sizeof *values);
  if (!values)
    return false;
  size_t at = 0;
  for (size_t a = 0; a < s->num_args; a++)
    values[at++] = &s->args[a].aval;
  for (size_t i = 0; i < s->num_eqns; i++)
    for (size_t r = 0; r < s->eqns[i].num_results; r++)
      values[at++] = &s->eqns[i].results[r];
  b->values = values;
  b->num_values = n;
  return true;
}

lsim_aval *lsimp_build_operand_avals(lsimp_builder *b, const lsim_scenario_eqn *e) {
  if (!b->values && !index_values(b))
    return NULL;
  lsim_aval *avals = lsimp_build_alloc(b, e->num_args, sizeof *avals);
  for (size_t i = 0; avals && i < e->num_args; i++)
    if (e->args[i] < b->num_values)
      avals[i] = *b->values[e->args[i]];
  return avals;
}
