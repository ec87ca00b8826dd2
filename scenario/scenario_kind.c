/* scenario/scenario_kind.c: the table of equation kinds, and what the
 * reader, the writer, the fuzzer and the minimizer do to an equation
 * whatever its kind.  A new kind is a new row (and its file in kinds/). */
#include "lowersim/alloc.h"
#include "lowersim/scenario_kind.h"
#include "kinds/kinds.h"

#include <stdlib.h>
#include <string.h>

/* One row per kind (scenario/kinds/), new ones last: the fuzzer draws a kind
 * by the weights in this order. */
static const lsim_scenario_kind *const kinds[] = {
    &lsimp_op_kind,
    &lsimp_primitive_kind,
    &lsimp_platform_dependent_kind,
    &lsimp_buffer_callback_kind,
    &lsimp_pure_callback_kind,
    &lsimp_io_callback_kind,
    &lsimp_debug_callback_kind,
    &lsimp_pallas_call_kind,
    &lsimp_ffi_call_kind,
    &lsimp_compute_on_kind,
    &lsimp_call_exported_kind, /* only in a session, after an export */
};

#define NUM_KINDS (sizeof kinds / sizeof kinds[0])

size_t lsim_scenario_kind_count(void) { return NUM_KINDS; }

const lsim_scenario_kind *lsim_scenario_kind_at(size_t i) {
  return i < NUM_KINDS ? kinds[i] : NULL;
}

const lsim_scenario_kind *lsim_scenario_kind_find(const char *element) {
  for (size_t i = 0; element && i < NUM_KINDS; i++)
    if (strcmp(kinds[i]->element, element) == 0)
      return kinds[i];
  return NULL;
}

const char *lsim_scenario_kind_element(const lsim_scenario_kind *kind) { return kind->element; }

const char *lsim_scenario_kind_summary(const lsim_scenario_kind *kind) { return kind->summary; }

const char *lsim_scenario_op_name(size_t i) {
  return i < LSIMP_OP_COUNT ? lsimp_op_name((lsimp_op)i) : NULL;
}

const lsim_primitive *lsim_scenario_kind_primitive(const lsim_scenario_kind *kind) {
  return kind->primitive;
}

bool lsim_scenario_kind_implies_result(const lsim_scenario_kind *kind) {
  return kind->implies_result;
}

bool lsimp_copy_string(char **to, const char *from) {
  *to = from ? lsim_strdup(from) : NULL;
  return !from || *to;
}

/* --- reading and writing ----------------------------------------------------------- */

int lsimp_read_eqn(lsimp_reader *r, const xmlNode *node, lsim_scenario_eqn *e) {
  e->line = (int)lsimp_xml_line(node);
  e->kind = lsim_scenario_kind_find((const char *)node->name);
  e->params = lsim_calloc(1, e->kind->params_size);
  if (!e->params)
    return lsim_error_set(r->err, LSIM_E_NO_MEMORY, "out of memory");
  char *args;
  int rc = lsimp_attr_string(r, node, "args", &args);
  if (!rc && !args)
    rc = lsimp_read_fail(r, node, "<%s> needs the attribute 'args'", node->name);
  if (!rc)
    rc = lsimp_parse_indices(r, node, "args", args, &e->args, &e->num_args);
  free(args);
  if (!rc)
    rc = lsimp_attr_string(r, node, "compute_on", &e->compute_type);
  if (!rc)
    rc = e->kind->read(r, node, e);
  for (size_t i = 0; !rc && i < e->num_results; i++)
    rc = lsimp_define_value(r, &e->results[i]);
  return rc;
}

void lsimp_write_eqn(lsimp_writer *wr, const lsim_scenario_eqn *e) {
  if (!e->kind || !e->params) {
    lsimp_write_invalid(wr, "has an equation of an invalid kind", NULL);
    return;
  }
  lsimp_write_start(wr, e->kind->element);
  if (e->compute_type)
    lsimp_write_attr(wr, "compute_on", e->compute_type);
  e->kind->write(wr, e);
  lsimp_write_end(wr);
}

/* --- copies ---------------------------------------------------------------------- */

void lsim_scenario_eqn_clear(lsim_scenario_eqn *e) {
  if (e->kind && e->params)
    e->kind->clear(e->params);
  free(e->params);
  free(e->args);
  free(e->results);
  free(e->compute_type);
  *e = (lsim_scenario_eqn){0};
}

/* NULL stays NULL. */
static void *copy_array(const void *src, size_t n, size_t size, bool *ok) {
  if (!src)
    return NULL;
  void *d = lsim_malloc_array(n, size);
  if (!d)
    *ok = false;
  else if (n)
    memcpy(d, src, n * size);
  return d;
}

int lsim_scenario_eqn_copy(lsim_scenario_eqn *to, const lsim_scenario_eqn *from,
                           lsim_error *err) {
  bool ok = true;
  *to = *from;
  to->args = copy_array(from->args, from->num_args, sizeof *from->args, &ok);
  to->results = copy_array(from->results, from->num_results, sizeof *from->results, &ok);
  to->compute_type = NULL;
  if (from->compute_type && !(to->compute_type = lsim_strdup(from->compute_type)))
    ok = false;
  to->params = from->kind ? lsim_calloc(1, from->kind->params_size) : NULL;
  if (to->params && !from->kind->copy(to->params, from->params))
    ok = false;
  if (from->kind && !to->params)
    ok = false;
  if (!ok) {
    lsim_scenario_eqn_clear(to);
    return lsim_error_set(err, LSIM_E_NO_MEMORY, "out of memory");
  }
  return LSIM_OK;
}

/* --- the minimizer's parts ----------------------------------------------------------- */

size_t lsim_scenario_eqn_num_parts(const lsim_scenario_eqn *e) {
  return e->kind && e->kind->num_parts ? e->kind->num_parts(e) : 0;
}

bool lsim_scenario_eqn_drop_part(lsim_scenario_eqn *e, size_t i) {
  return i < lsim_scenario_eqn_num_parts(e) && e->kind->drop_part(e, i);
}

/* --- generating -------------------------------------------------------------------- */

static const lsim_scenario_kind *random_kind(lsim_scenario_gen *g) {
  unsigned total = 0;
  for (size_t i = 0; i < NUM_KINDS; i++)
    total += kinds[i]->weight;
  unsigned r = (unsigned)lsim_scenario_gen_below(g, total);
  size_t k = 0;
  while (r >= kinds[k]->weight)
    r -= kinds[k++]->weight;
  return kinds[k];
}

bool lsim_scenario_gen_eqn_of_kind(lsim_scenario_gen *g, const lsim_scenario_kind *kind,
                                   lsim_scenario_eqn *e) {
  *e = (lsim_scenario_eqn){0};
  if (!kind || (kind->can_generate && !kind->can_generate(g)))
    return false;
  e->kind = kind;
  e->params = lsim_scenario_gen_alloc(g, 1, kind->params_size);
  if (e->params)
    kind->generate(g, e);
  /* compute_on="...": the three platform-changing or -keeping compute types,
   * a stream annotation, and one JAX refuses. */
  static const char *const compute_types[] = {"device_host", "tpu_sparsecore", "device",
                                              "gpu_stream:1", "device_hbm"};
  if (lsim_scenario_gen_chance(g, 2))
    e->compute_type = lsim_scenario_gen_text(
        g, lsim_scenario_gen_pick(g, compute_types, sizeof compute_types / sizeof *compute_types));
  /* Declared <result>s are device memory, what the file can say (a kind
   * that copied an operand's aval may have taken a host one); an implied
   * result keeps the space its kind gave it. */
  for (size_t i = 0; !kind->implies_result && i < e->num_results; i++)
    e->results[i].memory_space = LSIM_MEMORY_DEVICE;
  for (size_t i = 0; i < e->num_results; i++)
    lsim_scenario_gen_define(g, &e->results[i]);
  return true;
}

void lsim_scenario_gen_eqn(lsim_scenario_gen *g, lsim_scenario_eqn *e) {
  const lsim_scenario_kind *kind = random_kind(g);
  if (!lsim_scenario_gen_eqn_of_kind(g, kind, e))
    lsim_scenario_gen_eqn_of_kind(g, &lsimp_pure_callback_kind, e);
}
