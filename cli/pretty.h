/* cli/pretty.h: a module lowersim made, in the pretty form JAX shows
 * (`jax.jit(f).lower(...).as_text()`: `%0 = stablehlo.sine %arg0 :
 * tensor<4xf32>`), where lowersim's MLIR 19, which has no stablehlo
 * dialect, prints stablehlo ops generically.  The printer knows the pretty
 * syntax of some ops only (cli_pretty_ops); a module with any other is
 * refused, never printed wrongly. */
#ifndef LOWERSIM_CLI_PRETTY_H
#define LOWERSIM_CLI_PRETTY_H

#include "lowersim/lowering.h"

#include <mlir-c/IR.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Prints `module` pretty to `out`; false (nothing promised about what was
 * written) when an op has no pretty form here, its name in `refused`
 * ("stablehlo.while"), or when out of memory (`refused` ""). */
bool cli_pretty_print(MlirModule module, FILE *out, char *refused, size_t refused_size);

/* The pretty text of `module` into *text (owned, *size bytes), or, for a
 * refused module, the error `lowersim COMMAND: ...` on stderr and exit
 * code 2 returned (out of memory: 1 and its report). */
int cli_pretty_text(const char *command, MlirModule module, char **text, size_t *size);

/* The module's text for a reader (explain): pretty, or, with `generic` or
 * when the printer refuses the module (`refused` then names the op), MLIR's
 * generic form (lsim_lowering_print).  Owned; NULL when out of memory. */
char *cli_module_text(const lsim_lowering *lowering, bool generic, char *refused,
                      size_t refused_size);

/* The ops the printer knows, as a comma-separated list (for --help). */
extern const char cli_pretty_ops[];

#endif /* LOWERSIM_CLI_PRETTY_H */
