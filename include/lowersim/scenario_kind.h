/* lowersim/scenario_kind.h: the kinds of equation of the scenario format.
 *
 * Each kind (<op>, <primitive>, <platform_dependent>, <buffer_callback>,
 * <pure_callback>, <io_callback>, <debug_callback>, <pallas_call>, ...) is one
 * descriptor, a row of scenario/scenario_kind.c: its element, the library
 * primitive it binds, and how it is read, written, built into a program,
 * copied, freed, generated for the fuzzer and shrunk by the minimizer.  The
 * reader, the writer, scenario_run, the fuzzer and its minimizer iterate the
 * table, so a new kind is a new row. */
#ifndef LOWERSIM_SCENARIO_KIND_H
#define LOWERSIM_SCENARIO_KIND_H

#include "lowersim/error.h"
#include "lowersim/primitive.h"
#include "lowersim/scenario.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The kinds, in the table's order: lsim_scenario_kind_count() of them. */
size_t lsim_scenario_kind_count(void);
const lsim_scenario_kind *lsim_scenario_kind_at(size_t i); /* NULL past the end */

/* The kind of the element named `element`, or NULL. */
const lsim_scenario_kind *lsim_scenario_kind_find(const char *element);

/* The kind's element ("buffer_callback"). */
const char *lsim_scenario_kind_element(const lsim_scenario_kind *kind);

/* What it means in JAX, on one line ("jax.experimental.buffer_callback"). */
const char *lsim_scenario_kind_summary(const lsim_scenario_kind *kind);

/* The op kinds of the format (<op kind=>, <compute_on op=>) as its reader
 * spells them ("sine"), in the table's order: the i-th, or NULL past the
 * end. */
const char *lsim_scenario_op_name(size_t i);

/* The library primitive its equations bind (&lsim_buffer_callback_p), or
 * NULL when the equation names it (<op kind>, <primitive name>). */
const lsim_primitive *lsim_scenario_kind_primitive(const lsim_scenario_kind *kind);

/* True when the kind's result is implied (one result, its first operand's
 * aval) and its number of operands fixed: <op>, <platform_dependent>. */
bool lsim_scenario_kind_implies_result(const lsim_scenario_kind *kind);

/* A deep copy of `from` into `to` (owned: lsim_scenario_eqn_clear); `to`
 * is cleared (and may be destroyed) when out of memory. */
int lsim_scenario_eqn_copy(lsim_scenario_eqn *to, const lsim_scenario_eqn *from,
                           lsim_error *err);

/* Frees what `e` holds and zeroes it. */
void lsim_scenario_eqn_clear(lsim_scenario_eqn *e);

/* The parts an equation can lose (a buffer_callback's aliases, a
 * primitive's rules, a platform_dependent's branches): how many, and
 * removing the i-th (false when that part cannot go). */
size_t lsim_scenario_eqn_num_parts(const lsim_scenario_eqn *e);
bool lsim_scenario_eqn_drop_part(lsim_scenario_eqn *e, size_t i);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_SCENARIO_KIND_H */
