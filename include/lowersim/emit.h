/* lowersim/emit.h: one helper per op kind that lowersim emits, so attribute
 * spelling lives in one place, and the one builder of functions.
 * stablehlo is not an upstream MLIR dialect: its ops are built generically in
 * a context that allows unregistered dialects, and lsim_verify_module checks
 * their structure.
 *
 * Every helper appends at an insertion point (`ip`: a block and a location
 * in an MLIR context) and returns 0, or LSIM_E_NO_MEMORY /
 * LSIM_E_INVALID_ARGUMENT with `err` filled.  Handles are borrowed.
 * JAX counterparts: mlir.py custom_call, ir_constant, hlo.CaseOp/ReturnOp,
 * lower_jaxpr_to_fun's func.FuncOp, ffi.py ffi_lowering, callback.py
 * send_to_host/receive_from_host. */
#ifndef LOWERSIM_EMIT_H
#define LOWERSIM_EMIT_H

#include "lowersim/error.h"
#include "lowersim/lowering_rule_context.h"
#include "lowersim/module_context.h"

#include <mlir-c/IR.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* tensor<i32>, !stablehlo.token. */
MlirType lsim_i32_scalar_type(MlirContext mlir);
MlirType lsim_token_type(MlirContext mlir);

/* Helpers for attributes. */
MlirNamedAttribute lsim_named(MlirContext mlir, const char *name, MlirAttribute value);
MlirAttribute lsim_string_attr(MlirContext mlir, const char *s);

/* Any op: `num_regions` regions, each with one empty block. */
int lsim_emit_op(const lsim_insertion_point *ip, const char *name, const MlirValue *operands,
                 size_t num_operands, const MlirType *result_types, size_t num_results,
                 const MlirNamedAttribute *attrs, size_t num_attrs, size_t num_regions,
                 MlirOperation *out, lsim_error *err);

/* A function op (`func.func`, or `tt.func` for Triton kernels) and its body,
 * whose block takes the inputs as arguments. */
typedef struct lsim_func {
  const char *op_name;         /* NULL: "func.func" */
  const char *name;            /* sym_name */
  const char *visibility;      /* sym_visibility, or NULL for none */
  const MlirType *inputs;
  size_t num_inputs;
  const MlirType *results;
  size_t num_results;
  const MlirAttribute *arg_attrs; /* one dictionary per input, or NULL for none */
  const MlirAttribute *res_attrs; /* one dictionary per result, or NULL for none */
  const MlirNamedAttribute *extra; /* more attributes (Mosaic's window params) */
  size_t num_extra;
  const MlirLocation *arg_locs; /* one location per input, or NULL: the insertion point's */
} lsim_func;

/* Emits `f` at `ip`; `*body` receives its entry block (`*op` the op, when
 * `op` is not NULL). */
int lsim_emit_func(const lsim_insertion_point *ip, const lsim_func *f, MlirOperation *op,
                   MlirBlock *body, lsim_error *err);

/* The insertion point at the end of `block`, at ip's location. */
lsim_insertion_point lsim_insertion_point_in(const lsim_insertion_point *ip, MlirBlock block);

/* stablehlo.constant dense<value> : tensor<i32>. */
int lsim_emit_constant_i32(const lsim_insertion_point *ip, int32_t value, MlirValue *out,
                           lsim_error *err);

/* stablehlo.constant of `value` (a dense elements attribute; the result has
 * its type). */
int lsim_emit_constant(const lsim_insertion_point *ip, MlirAttribute value, MlirValue *out,
                       lsim_error *err);

/* stablehlo.constant of zeros of `type` (a ranked tensor type). */
int lsim_emit_zeros(const lsim_insertion_point *ip, MlirType type, MlirValue *out,
                    lsim_error *err);

/* stablehlo.constant of ones of `type` (a ranked tensor type). */
int lsim_emit_ones(const lsim_insertion_point *ip, MlirType type, MlirValue *out,
                   lsim_error *err);

/* An elementwise op (`name` such as "stablehlo.sine") with one result of
 * the first operand's type. */
int lsim_emit_elementwise(const lsim_insertion_point *ip, const char *name,
                          const MlirValue *operands, size_t num_operands, MlirValue *out,
                          lsim_error *err);

/* stablehlo.convert of `value` to `type`. */
int lsim_emit_convert(const lsim_insertion_point *ip, MlirValue value, MlirType type,
                      MlirValue *out, lsim_error *err);

/* The ops of Pallas's HLO interpreter (jnp and lax lowerings in JAX):
 * stablehlo.broadcast_in_dim of a scalar to `type` (broadcast_dimensions =
 * array<i64>); stablehlo.compare with comparison_direction `direction`
 * ("LT", "EQ") and compare_type SIGNED; stablehlo.select;
 * stablehlo.dynamic_slice of `operand` (of rank `rank`, at most
 * LSIM_EMIT_MAX_SLICE_RANK) at `starts` with slice_sizes `sizes`;
 * stablehlo.dynamic_update_slice of `update` into `operand` at `starts`;
 * func.call of `callee` with one result. */
#define LSIM_EMIT_MAX_SLICE_RANK 8
int lsim_emit_broadcast_scalar(const lsim_insertion_point *ip, MlirValue scalar, MlirType type,
                               MlirValue *out, lsim_error *err);
int lsim_emit_compare_signed(const lsim_insertion_point *ip, MlirValue a, MlirValue b,
                             const char *direction, MlirValue *out, lsim_error *err);
int lsim_emit_select(const lsim_insertion_point *ip, MlirValue pred, MlirValue on_true,
                     MlirValue on_false, MlirValue *out, lsim_error *err);
int lsim_emit_dynamic_slice(const lsim_insertion_point *ip, MlirValue operand,
                            const MlirValue *starts, size_t rank, const int64_t *sizes,
                            MlirValue *out, lsim_error *err);
int lsim_emit_dynamic_update_slice(const lsim_insertion_point *ip, MlirValue operand,
                                   MlirValue update, const MlirValue *starts, size_t rank,
                                   MlirValue *out, lsim_error *err);
int lsim_emit_call(const lsim_insertion_point *ip, const char *callee, const MlirValue *operands,
                   size_t num_operands, MlirType result, MlirValue *out, lsim_error *err);

/* stablehlo.while over `operands`: *cond and *body receive its two blocks,
 * each taking the operands' types as arguments (the caller fills them,
 * ending each in stablehlo.return). */
int lsim_emit_while(const lsim_insertion_point *ip, const MlirValue *operands, size_t count,
                    MlirOperation *out, MlirBlock *cond, MlirBlock *body, lsim_error *err);

/* stablehlo.case over `index` (tensor<i32>) with `num_branches` branches;
 * lsim_case_branch gives branch i's block, to fill and end with
 * lsim_emit_return. */
int lsim_emit_case(const lsim_insertion_point *ip, MlirValue index, const MlirType *result_types,
                   size_t num_results, size_t num_branches, MlirOperation *out, lsim_error *err);
MlirBlock lsim_case_branch(MlirOperation case_op, size_t i);

/* stablehlo.return (in a case branch). */
int lsim_emit_return(const lsim_insertion_point *ip, const MlirValue *values, size_t count,
                     lsim_error *err);

/* stablehlo.create_token. */
int lsim_emit_create_token(const lsim_insertion_point *ip, MlirValue *out, lsim_error *err);

/* An operand-to-output alias of a custom call (output_operand_aliases). */
typedef struct lsim_operand_alias {
  size_t operand;
  size_t output;
} lsim_operand_alias;

/* stablehlo.custom_call as mlir.custom_call builds it. */
typedef struct lsim_custom_call {
  const char *target;             /* call_target_name */
  bool has_side_effect;
  const char *backend_config;     /* a string config (NULL: "") */
  MlirAttribute backend_config_dict; /* non-null: a dict config: then backend_config = "",
                                        api_version = 1 and mhlo.backend_config = the dict */
  int api_version;                /* with a string config (JAX's default: 2) */
  bool layouts;                   /* operand_layouts/result_layouts, row-major from the types */
  bool has_aliases;               /* output_operand_aliases present (possibly []) */
  const lsim_operand_alias *aliases;
  size_t num_aliases;
  const MlirNamedAttribute *extra; /* more attributes (e.g. kernel_name) */
  size_t num_extra;
} lsim_custom_call;

int lsim_emit_custom_call(const lsim_insertion_point *ip, const lsim_custom_call *call,
                          const MlirValue *operands, size_t num_operands,
                          const MlirType *result_types, size_t num_results, MlirOperation *out,
                          lsim_error *err);

/* mlir.py wrap_with_memory_kind: *value through stablehlo.custom_call
 * @annotate_device_placement (has_side_effect, api_version 1), its
 * mhlo.frontend_attributes _xla_buffer_placement = `memory_kind`
 * ("device", "pinned_host"); *value becomes its result. */
int lsim_emit_wrap_with_memory_kind(const lsim_insertion_point *ip, const char *memory_kind,
                                    MlirValue *value, lsim_error *err);

/* A named parameter of an FFI call's backend config. */
typedef struct lsim_ffi_param {
  const char *name;
  MlirAttribute value;
} lsim_ffi_param;

/* An FFI call (ffi.py build_ffi_lowering_function): `call` with a dictionary
 * config of `params` and row-major layouts. */
typedef struct lsim_ffi_call {
  const char *target;
  bool has_side_effect;
  const lsim_ffi_param *params;
  size_t num_params;
  bool has_aliases;               /* output_operand_aliases present (possibly []) */
  const lsim_operand_alias *aliases;
  size_t num_aliases;
} lsim_ffi_call;

int lsim_emit_ffi_call(const lsim_insertion_point *ip, const lsim_ffi_call *call,
                       const MlirValue *operands, size_t num_operands,
                       const MlirType *result_types, size_t num_results, MlirOperation *out,
                       lsim_error *err);

/* build_ffi_lowering_function's op in a lowering rule: `call` over the
 * rule's operands at its insertion point, of its result types (avals_out);
 * its results into `results`. */
int lsim_emit_ffi_lowering_op(lsim_lowering_rule_context *ctx, const lsim_ffi_call *call,
                              const MlirValue *args, MlirValue *results, lsim_error *err);

/* stablehlo.send to the host / stablehlo.recv from the host on `channel`
 * (callback.py send_to_host / receive_from_host): channel_handle type 2 or
 * 3, is_host_transfer, the pjrt_rendezvous frontend attributes. */
int lsim_emit_send_to_host(const lsim_insertion_point *ip, MlirValue token, MlirValue operand,
                           int64_t channel, MlirValue *token_out, lsim_error *err);
int lsim_emit_recv_from_host(const lsim_insertion_point *ip, MlirValue token, MlirType type,
                             int64_t channel, MlirValue *value_out, MlirValue *token_out,
                             lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_EMIT_H */
