/* lower/spill.h: main's body printed while it is lowered, and freed.
 * Private to lower/.
 *
 * A module of 100,000 equations holds millions of ops: MLIR's IR of them
 * is most of a lowering's memory, and MLIR can print a function only
 * whole.  With a spill, each op of main's body is verified (MLIR's verifier
 * and lsim_verify_op on the op; main's dominance by the printer, which
 * numbers only what precedes; main's calls against the module's functions
 * when it is sealed) and printed as soon as its equation is lowered, into
 * an unlinked temporary file, and freed once no later equation can read its
 * results (the jaxpr's liveness, lsim_subcomp_observer) and no op left uses
 * them.  lowersim prints those
 * ops itself, the text MLIR would print: the generic form of the
 * unregistered stablehlo and sdy ops, and func.call and func.return as
 * func's own printers spell them.  The one thing not known while main is
 * printed is where the values of nested regions start (after all of main's
 * values): the file holds their numbers relative to that start, put right
 * as the module is printed.  When main is done the module keeps its
 * signature and a placeholder op for its body, which printing replaces
 * with the file's text. */
#ifndef LSIMP_LOWER_SPILL_H
#define LSIMP_LOWER_SPILL_H

#include "lowersim/jaxpr_subcomp.h"
#include "lowersim/module_context.h"
#include "support/mlir_text.h"

#include <stdbool.h>

typedef struct lsimp_spill lsimp_spill;

/* A spill with its temporary file (in $TMPDIR, else /tmp).  LSIM_E_IO when
 * no file can be made (the caller then lowers without one). */
int lsimp_spill_create(lsimp_spill **out, lsim_error *err);
void lsimp_spill_destroy(lsimp_spill *sp);

/* main's body is `block` (`num_args` arguments), the equations'
 * ordered-effect tokens `tokens` (their current values are kept alive; NULL:
 * none), the meshes its shardings name `mc`'s (NULL: none); `*observer` is
 * to be given to jaxpr_subcomp. */
int lsimp_spill_begin(lsimp_spill *sp, lsim_module_context *mc, MlirBlock block, size_t num_args,
                      const lsim_token_set *tokens, lsim_subcomp_observer *observer,
                      lsim_error *err);

/* After main's func.return: the ops after the last equation printed. */
int lsimp_spill_finish(lsimp_spill *sp, lsim_error *err);

/* Once main is finished, before the module is verified: main's remaining
 * ops freed, its body a placeholder op. */
int lsimp_spill_seal(lsimp_spill *sp, lsim_error *err);

/* The sealed module `module` printed as lsimp_mlir_print_to prints it,
 * main's body from the file. */
bool lsimp_spill_print(const lsimp_spill *sp, MlirOperation module, lsimp_print_mode mode,
                       lsimp_text_writer write, void *dest);

/* How many of main's ops were printed, and how many were in memory at most
 * at once (tests). */
size_t lsimp_spill_ops_printed(const lsimp_spill *sp);
size_t lsimp_spill_ops_peak(const lsimp_spill *sp);

#endif
