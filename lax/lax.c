/* lax/lax.c: the elementwise primitives.
 * JAX counterpart: lax.py's sin_p ... sub_p, their shape and dtype rules
 * (checked when they are bound, while tracing) and their
 * mlir.register_lowering(prim, partial(_nary_lower_hlo, hlo.SineOp)). */
#include "lowersim/lax.h"
#include "lowersim/emit.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <stdio.h>
#include <string.h>

/* The dtype classes of lax.py's rules (_float | _complex, _num). */
typedef enum accepted { FLOATING, NUMERIC } accepted;

static bool accepts(accepted a, lsim_dtype d) {
  bool floating = d == LSIM_DTYPE_F16 || d == LSIM_DTYPE_BF16 || d == LSIM_DTYPE_F32 ||
                  d == LSIM_DTYPE_F64;
  return a == FLOATING ? floating : d != LSIM_DTYPE_BOOL;
}

static const char *accepted_names(accepted a) {
  return a == FLOATING ? "floating, complexfloating" : "integer, floating, complexfloating";
}

/* unop_dtype_rule: "sin does not accept dtype int32. Accepted dtypes are
 * subtypes of floating, complexfloating." */
static int unary_check(const char *name, accepted a, const lsim_aval *in, size_t n,
                       lsim_error *err) {
  if (n != 1 || accepts(a, in[0].dtype))
    return LSIM_OK;
  return lsimp_raise(err, LSIM_E_DTYPE, name, lsim_dtype_numpy_name(in[0].dtype),
                     accepted_names(a));
}

#define UNARY(fn, name, a)                                                                     \
  static int fn(const lsim_aval *in, size_t n, const lsim_aval *out, size_t m,                 \
                const void *params, const lsim_jax_profile *jax, lsim_error *err) {            \
    (void)out, (void)m, (void)params, (void)jax;                                               \
    return unary_check(name, a, in, n, err);                                                   \
  }
UNARY(sin_check, "sin", FLOATING)
UNARY(cos_check, "cos", FLOATING)
UNARY(exp_check, "exp", FLOATING)
UNARY(neg_check, "neg", NUMERIC)

/* broadcasting_shape_rule, then naryop_dtype_rule (each position, then
 * check_same_dtypes), as binding add_p, mul_p or sub_p checks them. */
static int binary_check(const char *name, const char *jnp_name, const lsim_aval *in, size_t n,
                        lsim_error *err) {
  if (n != 2)
    return LSIM_OK;
  int rc = LSIM_OK;
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  if (in[0].rank != in[1].rank && in[0].rank && in[1].rank) {
    lsimp_strbuf_printf(&sb, "%s: arrays must have the same number of dimensions, got {%d, %d}",
                        name, in[0].rank < in[1].rank ? in[0].rank : in[1].rank,
                        in[0].rank < in[1].rank ? in[1].rank : in[0].rank);
    rc = lsimp_strbuf_failed(&sb) ? lsimp_fail_oom(err)
                                  : lsim_error_set(err, LSIM_E_SHAPE_MISMATCH, "%s",
                                                   lsimp_strbuf_cstr(&sb));
  } else if (in[0].rank != in[1].rank) {
    rc = lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                        "%s of a rank-0 and a rank-%d operand: lax's implicit scalar "
                        "broadcasting is not modelled",
                        name, in[0].rank ? in[0].rank : in[1].rank);
  } else if (memcmp(in[0].dims, in[1].dims, (size_t)in[0].rank * sizeof in[0].dims[0]) != 0) {
    lsimp_py_shape(&sb, in[0].dims, in[0].rank);
    lsimp_strbuf_puts(&sb, ", ");
    lsimp_py_shape(&sb, in[1].dims, in[1].rank);
    rc = lsimp_strbuf_failed(&sb) ? lsimp_fail_oom(err)
                                  : lsimp_raise(err, LSIM_E_SHAPE_MISMATCH, name,
                                                lsimp_strbuf_cstr(&sb));
  }
  for (size_t i = 0; !rc && i < 2; i++) {
    if (!accepts(NUMERIC, in[i].dtype)) {
      char position[8];
      snprintf(position, sizeof position, "%zu", i);
      rc = lsimp_raise(err, LSIM_E_DTYPE_AT, name, lsim_dtype_numpy_name(in[i].dtype), position,
                       accepted_names(NUMERIC));
    }
  }
  if (!rc && in[0].dtype != in[1].dtype) {
    lsimp_strbuf_reset(&sb);
    lsimp_strbuf_printf(&sb, "%s, %s", lsim_dtype_numpy_name(in[0].dtype),
                        lsim_dtype_numpy_name(in[1].dtype));
    rc = lsimp_strbuf_failed(&sb) ? lsimp_fail_oom(err)
                                  : lsimp_raise(err, LSIM_E_DTYPE_MISMATCH, name,
                                                lsimp_strbuf_cstr(&sb), jnp_name);
  }
  /* _default_memory_space_rule: the arrays' memory spaces agree (scalars
   * are not compared; the ranks agree by now). */
  if (!rc && in[0].rank && in[0].memory_space != in[1].memory_space) {
    char first[LSIM_AVAL_TEXT_MAX], second[LSIM_AVAL_TEXT_MAX];
    rc = lsimp_raise(err, LSIM_E_MEMORY_SPACE_MISMATCH, name,
                     lsim_aval_str(&in[0], first, sizeof first),
                     lsim_aval_str(&in[1], second, sizeof second));
  }
  lsimp_strbuf_free(&sb);
  return rc;
}

#define BINARY(fn, name, jnp_name)                                                             \
  static int fn(const lsim_aval *in, size_t n, const lsim_aval *out, size_t m,                 \
                const void *params, const lsim_jax_profile *jax, lsim_error *err) {            \
    (void)out, (void)m, (void)params, (void)jax;                                               \
    return binary_check(name, jnp_name, in, n, err);                                           \
  }
BINARY(add_check, "add", "add")
BINARY(mul_check, "mul", "multiply")
BINARY(sub_check, "sub", "subtract")

const lsim_primitive lsim_sin_p = {.name = "sin", .trace_check = sin_check};
const lsim_primitive lsim_cos_p = {.name = "cos", .trace_check = cos_check};
const lsim_primitive lsim_neg_p = {.name = "neg", .trace_check = neg_check};
const lsim_primitive lsim_exp_p = {.name = "exp", .trace_check = exp_check};
const lsim_primitive lsim_add_p = {.name = "add", .trace_check = add_check};
const lsim_primitive lsim_mul_p = {.name = "mul", .trace_check = mul_check};
const lsim_primitive lsim_sub_p = {.name = "sub", .trace_check = sub_check};

static const struct {
  const lsim_primitive *primitive;
  const char *op;
} elementwise[] = {
    {&lsim_sin_p, "stablehlo.sine"},    {&lsim_cos_p, "stablehlo.cosine"},
    {&lsim_neg_p, "stablehlo.negate"},  {&lsim_exp_p, "stablehlo.exponential"},
    {&lsim_add_p, "stablehlo.add"},     {&lsim_mul_p, "stablehlo.multiply"},
    {&lsim_sub_p, "stablehlo.subtract"},
};

/* _nary_lower_hlo: the op over the operands, of the first one's type. */
static int elementwise_rule(lsim_lowering_rule_context *ctx, const MlirValue *args,
                            MlirValue *results, const void *params, void *op, lsim_error *err) {
  (void)params;
  return lsim_emit_elementwise(&ctx->ip, op, args, ctx->num_avals_in, &results[0], err);
}

int lsim_register_lax_rules(lsim_registry *reg, lsim_error *err) {
  int rc = LSIM_OK;
  for (size_t i = 0; !rc && i < sizeof elementwise / sizeof elementwise[0]; i++)
    rc = lsim_register_lowering(reg, elementwise[i].primitive,
                                (lsim_rule){elementwise_rule, (void *)elementwise[i].op}, NULL,
                                err);
  return rc;
}
