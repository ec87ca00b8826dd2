/* pallas/interpret.h: pallas_call with interpret=True.  Private to pallas/. */
#ifndef LSIMP_PALLAS_INTERPRET_H
#define LSIMP_PALLAS_INTERPRET_H

#include "lowersim/pallas.h"

/* The kernel as Pallas's HLO interpreter lowers it (hlo_interpreter.py
 * pallas_call_hlo_interpret): a while loop over the grid, on any platform. */
int lsimp_interpret_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                             MlirValue *results, const lsim_pallas_call_params *p,
                             lsim_error *err);

#endif
