/* lower/verify.c: lowersim's structural checks of the stablehlo and sdy
 * subset it emits.  MLIR's verifier cannot check these ops here (the
 * dialects are not upstream: the ops are unregistered and their attributes
 * opaque), so each op kind's invariants (those StableHLO's and Shardy's own
 * verifiers enforce and lowersim relies on) are checked here.  A failure is
 * always a lowersim bug: LSIM_E_VERIFY. */
#include "lowersim/verify.h"
#include "lowersim/emit.h"
#include "support/mlir_text.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <mlir-c/Diagnostics.h>

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <stdio.h>
#include <string.h>

#define MAX_MESHES LSIM_VERIFY_MAX_MESHES

typedef struct walk_state {
  char problem[256];
  MlirType token;
  MlirType i32;
  MlirStringRef meshes[MAX_MESHES]; /* the sdy.mesh symbols of the module */
  size_t num_meshes;
} walk_state;

static bool named(MlirOperation op, const char *name) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(name) && memcmp(n.data, name, n.length) == 0;
}

static MlirAttribute attr(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

static bool fail(walk_state *st, const char *op, const char *what) {
  snprintf(st->problem, sizeof st->problem, "%s: %s", op, what);
  return false;
}

/* stablehlo.case: a tensor<i32> index, and every branch ends in a
 * stablehlo.return whose operand types are the case's result types. */
/* The last op of a block (unregistered ops carry no terminator trait, so
 * mlirBlockGetTerminator does not see stablehlo.return). */
static MlirOperation last_op(MlirBlock block) {
  MlirOperation last = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    last = op;
  return last;
}

static bool check_case(walk_state *st, MlirOperation op) {
  if (mlirOperationGetNumOperands(op) != 1 ||
      !mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(op, 0)), st->i32))
    return fail(st, "stablehlo.case", "the index is not one tensor<i32>");
  intptr_t branches = mlirOperationGetNumRegions(op);
  if (branches < 1)
    return fail(st, "stablehlo.case", "no branches");
  for (intptr_t b = 0; b < branches; b++) {
    MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, b));
    MlirOperation ret = mlirBlockIsNull(block) ? (MlirOperation){NULL} : last_op(block);
    if (mlirOperationIsNull(ret) || !named(ret, "stablehlo.return"))
      return fail(st, "stablehlo.case", "a branch does not end in stablehlo.return");
    if (mlirOperationGetNumOperands(ret) != mlirOperationGetNumResults(op))
      return fail(st, "stablehlo.case", "a branch returns a different number of values");
    for (intptr_t i = 0; i < mlirOperationGetNumResults(op); i++)
      if (!mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(ret, i)),
                         mlirValueGetType(mlirOperationGetResult(op, i))))
        return fail(st, "stablehlo.case", "a branch result type differs from the case's");
  }
  return true;
}

static bool layouts_match(MlirAttribute layouts, intptr_t count) {
  return mlirAttributeIsNull(layouts) ||
         (mlirAttributeIsAArray(layouts) && mlirArrayAttrGetNumElements(layouts) == count);
}

/* stablehlo.custom_call: target and api_version present with the right
 * kinds, backend_config a string when present (jax.export's module drops an
 * empty one, as its serialization round trip does); layouts, when present,
 * one per operand/result. */
static bool check_custom_call(walk_state *st, MlirOperation op) {
  MlirAttribute target = attr(op, "call_target_name");
  if (mlirAttributeIsNull(target) || !mlirAttributeIsAString(target) ||
      mlirStringAttrGetValue(target).length == 0)
    return fail(st, "stablehlo.custom_call", "no call_target_name");
  MlirAttribute api = attr(op, "api_version");
  if (mlirAttributeIsNull(api) || !mlirAttributeIsAInteger(api))
    return fail(st, "stablehlo.custom_call", "no integer api_version");
  MlirAttribute config = attr(op, "backend_config");
  if (!mlirAttributeIsNull(config) && !mlirAttributeIsAString(config))
    return fail(st, "stablehlo.custom_call", "a backend_config that is not a string");
  MlirAttribute dict = attr(op, "mhlo.backend_config");
  if (!mlirAttributeIsNull(dict) &&
      (!mlirAttributeIsADictionary(dict) || mlirIntegerAttrGetValueInt(api) != 1))
    return fail(st, "stablehlo.custom_call", "mhlo.backend_config without api_version = 1");
  if (!layouts_match(attr(op, "operand_layouts"), mlirOperationGetNumOperands(op)) ||
      !layouts_match(attr(op, "result_layouts"), mlirOperationGetNumResults(op)))
    return fail(st, "stablehlo.custom_call", "layouts do not match the operands or results");
  return true;
}

/* stablehlo.send/recv: a token in, a token out (last), a channel handle and
 * is_host_transfer. */
static bool check_transfer(walk_state *st, MlirOperation op, const char *name) {
  intptr_t n_in = mlirOperationGetNumOperands(op), n_out = mlirOperationGetNumResults(op);
  if (n_in < 1 || !mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(op, n_in - 1)), st->token))
    return fail(st, name, "the last operand is not a !stablehlo.token");
  if (n_out < 1 ||
      !mlirTypeEqual(mlirValueGetType(mlirOperationGetResult(op, n_out - 1)), st->token))
    return fail(st, name, "the last result is not a !stablehlo.token");
  if (mlirAttributeIsNull(attr(op, "channel_handle")) ||
      mlirAttributeIsNull(attr(op, "is_host_transfer")))
    return fail(st, name, "no channel_handle or is_host_transfer");
  return true;
}

/* stablehlo.constant: a value attribute of the result's type. */
static bool check_constant(walk_state *st, MlirOperation op) {
  MlirAttribute value = attr(op, "value");
  if (mlirAttributeIsNull(value) || mlirOperationGetNumResults(op) != 1 ||
      !mlirTypeEqual(mlirAttributeGetType(value), mlirValueGetType(mlirOperationGetResult(op, 0))))
    return fail(st, "stablehlo.constant", "the value's type is not the result type");
  return true;
}

/* --- Shardy ------------------------------------------------------------------ */

/* A cursor over the text of an opaque #sdy attribute. */
typedef struct cursor {
  const char *p, *end;
} cursor;

static bool eat(cursor *c, const char *s) {
  size_t n = strlen(s);
  if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n) != 0)
    return false;
  c->p += n;
  return true;
}

static bool declared(const walk_state *st, const char *name, size_t n) {
  for (size_t i = 0; i < st->num_meshes; i++)
    if (st->meshes[i].length == n && memcmp(st->meshes[i].data, name, n) == 0)
      return true;
  return false;
}

/* `<@NAME, [{}, ...]>` (the tail of a TensorShardingAttr): the mesh is
 * declared; *dims receives the number of dimension shardings. */
static bool tensor_sharding(const walk_state *st, cursor *c, size_t *dims) {
  if (!eat(c, "<@"))
    return false;
  const char *name = c->p;
  while (c->p < c->end && *c->p != ',')
    c->p++;
  if (!declared(st, name, (size_t)(c->p - name)) || !eat(c, ", ["))
    return false;
  *dims = 0;
  while (eat(c, *dims ? ", {}" : "{}"))
    ++*dims;
  return eat(c, "]>");
}

/* The opaque #sdy attribute `a` is `prefix` followed by what `tail` accepts. */
static bool sdy_text(MlirAttribute a, cursor *c, const char *prefix) {
  if (!mlirAttributeIsAOpaque(a))
    return false;
  MlirStringRef ns = mlirOpaqueAttrGetDialectNamespace(a), data = mlirOpaqueAttrGetData(a);
  if (ns.length != 3 || memcmp(ns.data, "sdy", 3) != 0)
    return false;
  *c = (cursor){data.data, data.data + data.length};
  return eat(c, prefix);
}

/* An op's sdy.sharding: a #sdy.sharding_per_value with one rank-0 entry per
 * result (one for an op without results), each on a declared mesh. */
static bool check_op_sharding(walk_state *st, MlirOperation op, MlirAttribute a) {
  cursor c;
  intptr_t results = mlirOperationGetNumResults(op);
  size_t entries = 0, dims = 0;
  bool ok = sdy_text(a, &c, "sharding_per_value<[");
  while (ok && !eat(&c, "]>")) {
    ok = (entries == 0 || eat(&c, ", ")) && tensor_sharding(st, &c, &dims) && dims == 0;
    entries++;
  }
  if (!ok || c.p != c.end)
    return fail(st, "sdy.sharding", "not a sharding_per_value of maximal shardings on declared meshes");
  if (entries != (size_t)(results ? results : 1))
    return fail(st, "sdy.sharding", "the number of shardings is not the op's number of results");
  return true;
}

/* A function argument's or result's sdy.sharding: a #sdy.sharding on a
 * declared mesh with one dimension sharding per dimension of `type`. */
static bool check_value_sharding(walk_state *st, MlirAttribute a, MlirType type) {
  cursor c;
  size_t dims = 0;
  bool ok = sdy_text(a, &c, "sharding") && tensor_sharding(st, &c, &dims) && c.p == c.end;
  intptr_t rank = mlirTypeIsARankedTensor(type) ? mlirShapedTypeGetRank(type) : -1;
  if (!ok || rank < 0 || dims != (size_t)rank)
    return fail(st, "func.func", "an sdy.sharding of an argument or result does not fit its type");
  return true;
}

/* The sdy.sharding entries of func.func's arg_attrs / res_attrs. */
static bool check_func_shardings(walk_state *st, MlirOperation op) {
  MlirType type = mlirTypeAttrGetValue(attr(op, "function_type"));
  const char *lists[] = {"arg_attrs", "res_attrs"};
  for (int l = 0; l < 2; l++) {
    MlirAttribute list = attr(op, lists[l]);
    for (intptr_t i = 0; !mlirAttributeIsNull(list) && i < mlirArrayAttrGetNumElements(list); i++) {
      MlirAttribute s = mlirDictionaryAttrGetElementByName(mlirArrayAttrGetElement(list, i),
                                                           mlirStringRefCreateFromCString("sdy.sharding"));
      MlirType t = l == 0 ? mlirFunctionTypeGetInput(type, i) : mlirFunctionTypeGetResult(type, i);
      if (!mlirAttributeIsNull(s) && !check_value_sharding(st, s, t))
        return false;
    }
  }
  return true;
}

/* sdy.mesh: a symbol and a #sdy.mesh, no operands, results or regions, in
 * the module's body.  Records the symbol. */
static bool check_mesh(walk_state *st, MlirOperation op) {
  MlirAttribute name = attr(op, "sym_name");
  cursor c;
  if (mlirAttributeIsNull(name) || !mlirAttributeIsAString(name) ||
      !sdy_text(attr(op, "mesh"), &c, "mesh<"))
    return fail(st, "sdy.mesh", "no sym_name or no #sdy.mesh");
  if (mlirOperationGetNumOperands(op) || mlirOperationGetNumResults(op) ||
      mlirOperationGetNumRegions(op))
    return fail(st, "sdy.mesh", "operands, results or regions");
  if (st->num_meshes == MAX_MESHES)
    return fail(st, "sdy.mesh", "more meshes than lowersim declares");
  st->meshes[st->num_meshes++] = mlirStringAttrGetValue(name);
  return true;
}

/* The module's sdy.mesh ops, before anything refers to them. */
static bool collect_meshes(walk_state *st, MlirOperation module) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (named(op, "sdy.mesh") && !check_mesh(st, op))
      return false;
  return true;
}

/* `n` is the literal `lit` (its length known at compile time: the compare
 * is inlined). */
#define NAME_IS(n, lit) ((n).length == sizeof lit - 1 && memcmp((n).data, lit, sizeof lit - 1) == 0)

static MlirWalkResult check_op(MlirOperation op, void *data) {
  walk_state *st = data;
  static const char sdy_sharding[] = "sdy.sharding";
  MlirAttribute sharding = mlirOperationGetAttributeByName(
      op, mlirStringRefCreate(sdy_sharding, sizeof sdy_sharding - 1));
  bool ok = mlirAttributeIsNull(sharding) || check_op_sharding(st, op, sharding);
  if (!ok)
    return MlirWalkResultInterrupt;
  /* The op's name once: every op of a module passes here. */
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  if (NAME_IS(n, "sdy.mesh")) {
    MlirOperation parent = mlirOperationGetParentOperation(op);
    ok = !mlirOperationIsNull(parent) && named(parent, "builtin.module");
    if (!ok)
      fail(st, "sdy.mesh", "not in the module's body");
  } else if (NAME_IS(n, "func.func"))
    ok = check_func_shardings(st, op);
  else if (NAME_IS(n, "stablehlo.case"))
    ok = check_case(st, op);
  else if (NAME_IS(n, "stablehlo.custom_call"))
    ok = check_custom_call(st, op);
  else if (NAME_IS(n, "stablehlo.send"))
    ok = check_transfer(st, op, "stablehlo.send");
  else if (NAME_IS(n, "stablehlo.recv"))
    ok = check_transfer(st, op, "stablehlo.recv");
  else if (NAME_IS(n, "stablehlo.constant"))
    ok = check_constant(st, op);
  return ok ? MlirWalkResultAdvance : MlirWalkResultInterrupt;
}

/* MLIR's own verifier, its diagnostics in the message. */
static int mlir_verify(MlirOperation op, lsim_error *err) {
  MlirContext mlir = mlirOperationGetContext(op);
  lsimp_strbuf said = LSIMP_STRBUF_INIT;
  MlirDiagnosticHandlerID handler =
      mlirContextAttachDiagnosticHandler(mlir, lsimp_strbuf_collect_diagnostic, &said, NULL);
  bool ok = mlirOperationVerify(op);
  mlirContextDetachDiagnosticHandler(mlir, handler);
  int rc = ok                           ? LSIM_OK
           : lsimp_strbuf_failed(&said) ? lsimp_fail_oom(err)
                                        : lsim_error_set(err, LSIM_E_VERIFY,
                                                         "the emitted module fails MLIR "
                                                         "verification: %s",
                                                         lsimp_strbuf_cstr(&said));
  lsimp_strbuf_free(&said);
  return rc;
}

static int checks_failed(const walk_state *st, lsim_error *err) {
  return lsim_error_set(err, LSIM_E_VERIFY, "lowersim's stablehlo checks fail: %s", st->problem);
}

int lsim_verify_module(MlirModule module, lsim_error *err) {
  MlirOperation op = mlirModuleGetOperation(module);
  MlirContext mlir = mlirOperationGetContext(op);
  int rc = mlir_verify(op, err);
  if (rc)
    return rc;
  walk_state st = {.token = lsim_token_type(mlir), .i32 = lsim_i32_scalar_type(mlir)};
  if (collect_meshes(&st, op))
    mlirOperationWalk(op, check_op, &st, MlirWalkPreOrder);
  return st.problem[0] ? checks_failed(&st, err) : LSIM_OK;
}

int lsim_verify_op(MlirOperation op, const MlirStringRef *meshes, size_t num_meshes,
                   lsim_error *err) {
  MlirContext mlir = mlirOperationGetContext(op);
  int rc = mlir_verify(op, err);
  if (rc)
    return rc;
  walk_state st = {.token = lsim_token_type(mlir), .i32 = lsim_i32_scalar_type(mlir)};
  if (num_meshes > MAX_MESHES)
    fail(&st, "sdy.mesh", "more meshes than lowersim declares");
  else
    memcpy(st.meshes, meshes, num_meshes * sizeof *meshes);
  st.num_meshes = num_meshes > MAX_MESHES ? 0 : num_meshes;
  if (!st.problem[0])
    mlirOperationWalk(op, check_op, &st, MlirWalkPreOrder);
  return st.problem[0] ? checks_failed(&st, err) : LSIM_OK;
}
