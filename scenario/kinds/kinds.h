/* scenario/kinds/kinds.h: the params of each kind of equation, and the
 * kinds' rows.  Private to the scenario layer (and the white-box tests).
 *
 * A kind's params hold the library's typed params of its primitive where
 * the format carries them as they are, plus what only the file has (line
 * numbers, returns_value, platform lists as written). */
#ifndef LSIMP_SCENARIO_KINDS_H
#define LSIMP_SCENARIO_KINDS_H

#include "../internal.h"

#include "lowersim/buffer_callback.h"
#include "lowersim/callback.h"
#include "lowersim/ffi.h"
#include "lowersim/pallas.h"

#include <stdbool.h>
#include <stddef.h>

/* --- <op kind="..."> (op_kind.c) ------------------------------------------------- */

/* The elementwise ops of <op kind=...> and of platform_dependent branches. */
typedef enum lsimp_op {
  LSIMP_OP_SINE,
  LSIMP_OP_COSINE,
  LSIMP_OP_NEGATE,
  LSIMP_OP_EXPONENTIAL,
  LSIMP_OP_ADD,
  LSIMP_OP_MULTIPLY,
  LSIMP_OP_SUBTRACT,
  LSIMP_OP_COUNT
} lsimp_op;

/* An op's scenario spelling ("sine"), lax's primitive (&lsim_sin_p), its
 * arity (1 or 2); NULL / 0 / false when out of range or unknown. */
const char *lsimp_op_name(lsimp_op op);
const lsim_primitive *lsimp_op_primitive(lsimp_op op);
int lsimp_op_arity(lsimp_op op);
bool lsimp_op_from_name(const char *name, lsimp_op *out);

/* The op of attribute `name`, and that it fits the equation's operands
 * (arity; a binary op's operands of one aval: lax does not broadcast). */
int lsimp_read_op(lsimp_reader *r, const xmlNode *node, const char *name, lsimp_op *out);
int lsimp_check_operands(lsimp_reader *r, const xmlNode *node, const char *attr, lsimp_op op,
                         const lsim_scenario_eqn *e);

/* Operands for an op of `arity` (binary operands share an aval) and the
 * implied result; a random op of `arity`. */
void lsimp_gen_op_operands(lsim_scenario_gen *g, lsim_scenario_eqn *e, int arity);
lsimp_op lsimp_gen_op(lsim_scenario_gen *g, int arity);

/* A function of the equation's operands that is one op (a branch of
 * platform_dependent, compute_on's function): its program, in the
 * builder's storage; NULL when out of memory. */
const lsim_program *lsimp_build_op_program(lsimp_builder *b, const lsim_scenario_eqn *e, lsimp_op op,
                                          const lsim_aval *operands);

/* `lax.sin`: the op's lax function in the Python rendering. */
void lsimp_python_op(lsimp_strbuf *sb, lsimp_op op);

typedef struct lsimp_op_params {
  lsimp_op op;
} lsimp_op_params;

/* --- <compute_on> (compute_on_kind.c) ------------------------------------------ */

typedef struct lsimp_compute_on_params {
  char *compute_type;
  lsimp_op op;
  bool host; /* out_memory_space="host" */
} lsimp_compute_on_params;

/* --- <primitive> (primitive_kind.c) ---------------------------------------------- */

typedef struct lsimp_rule {
  char *platform; /* NULL for <default> */
  char *target;   /* NULL: a lower_fun rule */
  bool has_lower_fun; /* lower_fun="OP": mlir.lower_fun(lambda *a, **kw: [OP(*a)]) */
  lsimp_op lower_fun;
  bool not_inline; /* inline="false": register_lowering(..., inline=False) */
  int line;
} lsimp_rule;

typedef struct lsimp_primitive_params {
  char *name;
  lsim_backend_use backend_use; /* backend_access="none|required|optional" */
  lsimp_rule *rules;            /* <rule> and <default>, in document order */
  size_t num_rules;
} lsimp_primitive_params;

/* backend_access's spelling of a backend use; NULL / false when invalid. */
const char *lsimp_backend_use_name(lsim_backend_use use);
bool lsimp_backend_use_from_name(const char *name, lsim_backend_use *out);

/* --- <platform_dependent> (platform_dependent_kind.c) ---------------------------- */

typedef struct lsimp_branch {
  char *platforms; /* comma list as written; NULL for <default> */
  lsimp_op op;
  int line;
} lsimp_branch;

typedef struct lsimp_platform_dependent_params {
  lsimp_branch *branches; /* in document order; <default> last if present */
  size_t num_branches;
} lsimp_platform_dependent_params;

/* --- <buffer_callback> (buffer_callback_kind.c) ---------------------------------- */

typedef struct lsimp_buffer_callback_params {
  lsim_buffer_callback_params params; /* `callback` unset; `aliases` owned, as written */
  bool returns_value;                 /* the scenario's callback returns a value */
  int *alias_lines;                   /* per alias */
} lsimp_buffer_callback_params;

/* <alias input output> children (indices as written), into *aliases
 * (owned) and, when `lines` is not NULL, their lines; and back. */
int lsimp_read_aliases(lsimp_reader *r, const xmlNode *node, lsim_io_alias **aliases,
                       size_t *num_aliases, int **lines);
void lsimp_write_aliases(lsimp_writer *wr, const lsim_io_alias *aliases, size_t n);
/* An alias index for `n` values: mostly in range, sometimes just outside,
 * rarely extreme. */
long long lsimp_gen_alias_index(lsim_scenario_gen *g, size_t n);

/* --- <pure_callback>, <io_callback>, <debug_callback> (python_callback_kind.c) --- */

typedef struct lsimp_python_callback_params {
  lsim_python_callback_params params; /* `callback` and `sharding.device` unset */
  int sharding_arg; /* sharding="device:K" / "scalar_mesh:K": K; "mesh:N": N */
} lsimp_python_callback_params;

/* --- <pallas_call> (pallas_call_kind.c) ------------------------------------------ */

typedef struct lsimp_pallas_call_params {
  lsim_pallas_call_params params; /* `kernel`, `name`, `aliases`, `metadata` (and its strings)
                                     owned; `cost_estimate` and `mosaic_tpu` NULL here (the
                                     build points them at `cost` and `tpu`) */
  bool has_cost;                  /* <cost_estimate> */
  lsim_pallas_cost_estimate cost;
  bool has_tpu;                   /* some pltpu.CompilerParams field was given */
  lsim_mosaic_tpu_param_values tpu; /* `flags` (and their names), `allow_input_fusion` owned */
} lsimp_pallas_call_params;

/* compiler_params's spelling of a params class (NULL: "none"); NULL / false
 * when unknown. */
const char *lsimp_compiler_params_name(const lsim_pallas_params_class *cls);
bool lsimp_compiler_params_from_name(const char *name, const lsim_pallas_params_class **out);

/* --- <ffi_call> (ffi_call_kind.c) ------------------------------------------------ */

typedef struct lsimp_ffi_call_params {
  lsim_ffi_call_params params; /* `target_name`, `aliases`, `legacy_backend_config` and
                                  `vmap_method` owned */
} lsimp_ffi_call_params;

/* --- <call_exported> (call_exported_kind.c) -------------------------------------- */

typedef struct lsimp_call_exported_params {
  int lowering; /* lowering="K": the session's K-th lowering (an export) */
} lsimp_call_exported_params;

/* --- The rows --------------------------------------------------------------------- */

/* Looks up the devices of a pure/io callback's sharding= (the others: 0),
 * as the program does before it defines its primitives. */
int lsimp_resolve_callback_sharding(lsimp_builder *b, const lsim_scenario_eqn *e);

extern const lsim_scenario_kind lsimp_op_kind;
extern const lsim_scenario_kind lsimp_primitive_kind;
extern const lsim_scenario_kind lsimp_platform_dependent_kind;
extern const lsim_scenario_kind lsimp_buffer_callback_kind;
extern const lsim_scenario_kind lsimp_pure_callback_kind;
extern const lsim_scenario_kind lsimp_io_callback_kind;
extern const lsim_scenario_kind lsimp_debug_callback_kind;
extern const lsim_scenario_kind lsimp_pallas_call_kind;
extern const lsim_scenario_kind lsimp_ffi_call_kind;
extern const lsim_scenario_kind lsimp_call_exported_kind;
extern const lsim_scenario_kind lsimp_compute_on_kind;

/* Copies a string (NULL stays NULL); false when out of memory. */
bool lsimp_copy_string(char **to, const char *from);

#endif
