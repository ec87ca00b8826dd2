/* support/mlir_text.h: MLIR's text callbacks into an lsimp_strbuf, and the
 * one buffered printer of modules.  Private. */
#ifndef LSIMP_SUPPORT_MLIR_TEXT_H
#define LSIMP_SUPPORT_MLIR_TEXT_H

#include "lowersim/error.h"
#include "support/strbuf.h"

#include <mlir-c/Diagnostics.h>
#include <mlir-c/IR.h>
#include <mlir-c/Support.h>

#include <stdbool.h>
#include <stddef.h>

/* An MlirStringCallback: appends the text to the lsimp_strbuf `data`. */
void lsimp_strbuf_append_mlir(MlirStringRef text, void *data);

/* An MlirDiagnosticHandler: appends the diagnostic to the lsimp_strbuf
 * `data`, "; " between diagnostics, and reports it handled. */
MlirLogicalResult lsimp_strbuf_collect_diagnostic(MlirDiagnostic diagnostic, void *data);

/* Where printed text goes: `write(dest, data, n)` returns false on failure
 * (out of memory, a write error); the printer then stops writing. */
typedef bool (*lsimp_text_writer)(void *dest, const char *data, size_t n);

/* An lsimp_text_writer: appends to the lsimp_strbuf `dest`; false once it
 * has failed (out of memory). */
bool lsimp_strbuf_write(void *dest, const char *data, size_t n);

/* How the printer may take `op`:
 * - CHECKED: as mlirOperationPrint does: it verifies `op` first (and prints
 *   the generic form of an invalid op);
 * - VERIFIED: the caller has verified `op` and not changed it since, so MLIR
 *   does not verify it a second time (OpPrintingFlags::assumeVerified); the
 *   same text as CHECKED for a valid op;
 * - OWN: VERIFIED, and `op` is a module lowersim built, which holds no
 *   attribute or type MLIR prints as an alias (#map, #set, #loc, #distinct:
 *   lowersim's dialect attributes are opaque, and locations are not
 *   printed) and no dialect resource: printed in local scope, without the
 *   alias pass (about 15% of a small module's printing), which gives the
 *   same text for such a module. */
typedef enum lsimp_print_mode {
  LSIMP_PRINT_CHECKED,
  LSIMP_PRINT_VERIFIED,
  LSIMP_PRINT_OWN,
} lsimp_print_mode;

/* Prints `op` as mlirOperationPrint does, then a newline, through a 16 KiB
 * buffer: MLIR's C API calls its callback once per token (a few bytes), and
 * `write` sees whole chunks.  False when `write` failed. */
bool lsimp_mlir_print_to(MlirOperation op, lsimp_print_mode mode, lsimp_text_writer write,
                         void *dest);

/* lsimp_mlir_print_to into owned text (free), or NULL when out of memory. */
char *lsimp_mlir_print(MlirOperation op, lsimp_print_mode mode);

/* How deep MLIR text lowersim did not write may nest: brackets of every
 * kind, affine operators and what aliases add where they are used.  MLIR's
 * parser takes about 2 KiB of stack a level (4,000 levels of `module {`
 * overflow an 8 MiB stack, 500 a 1 MiB one); lowersim's and JAX's modules
 * nest a few dozen deep. */
#define LSIMP_MLIR_MAX_DEPTH 256
/* Aliases may print as at most 16 times the text's size, plus 16 MiB. */
#define LSIMP_MLIR_MAX_EXPANSION 16u
#define LSIMP_MLIR_MAX_EXPANSION_BASE (16u << 20)

/* LSIM_OK when `text` (`len` bytes of MLIR text) stays within those bounds,
 * else LSIM_E_INVALID_INPUT saying which and where ("it is nested deeper
 * than 256 levels at line 3, ..."): to be called on every text lowersim did
 * not write before MLIR parses it.  Linear in `len`. */
int lsimp_mlir_text_bound(const char *text, size_t len, lsim_error *err);

#endif
