/* lower/export.c: what jax.export adds to a lowering.
 * JAX counterpart: export/_export.py _export_lowered after the
 * jit(...).trace(...).lower(lowering_platforms=...) it makes:
 * _check_lowering (host callbacks and keepalives), the module attribute
 * jax.uses_shape_polymorphism, and _check_module (custom-call targets
 * outside _CUSTOM_CALL_TARGETS_GUARANTEED_STABLE, the profile's list, unless
 * a DisabledSafetyCheck.custom_call names them).  The offending ops are
 * quoted as str(op) prints them there: MLIR's custom form of
 * stablehlo.custom_call, numbered as MLIR's printer numbers values (named
 * constants %c/%cst, %argN, %N, %N#i), then " at " and the op's location.
 * The module is then what Exported.mlir_module() gives: read back from its
 * serialization. */
#include "export.h"
#include "lowersim/alloc.h"
#include "lowersim/lowering.h"
#include "lowersim/emit.h"
#include "support/mlir_text.h"
#include "support/name_index.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lsim_check_disabled_safety_check(const char *check, lsim_error *err) {
  if (!check)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "a disabled safety check is NULL");
  if (strcmp(check, "platform") == 0)
    return LSIM_OK;
  if (strncmp(check, "custom_call:", 12) == 0 && check[12])
    return LSIM_OK;
  return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                        "'%s' is not a disabled safety check (DisabledSafetyCheck.platform() is "
                        "'platform', DisabledSafetyCheck.custom_call(TARGET) is "
                        "'custom_call:TARGET')",
                        check);
}

static MlirStringRef ref(const char *s) { return mlirStringRefCreateFromCString(s); }

/* A growable list of ops; `failed` once an allocation failed. */
typedef struct op_list {
  MlirOperation *items;
  size_t n, cap;
  bool failed;
} op_list;

static void op_list_push(op_list *l, MlirOperation op) {
  if (!lsim_grow_array(&l->items, &l->cap, l->n + 1, sizeof *l->items)) {
    l->failed = true;
    return;
  }
  l->items[l->n++] = op;
}

static bool is_op(MlirOperation op, const char *name) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(name) && memcmp(n.data, name, n.length) == 0;
}

/* --- value names, as MLIR's printer gives them --------------------------------- */

typedef struct value_name {
  const void *value; /* MlirValue.ptr */
  char *name;        /* without the leading % */
} value_name;

typedef struct namer {
  value_name *names;
  size_t n, cap;
  /* The used names of the scopes being numbered, innermost last (borrowed
   * from `names`), and how many times each is there, for O(1) lookups. */
  const char **used;
  size_t n_used, cap_used;
  lsimp_name_index in_use;
  bool failed;
} namer;

typedef struct ids {
  unsigned value, argument, conflict;
} ids;

static bool name_used(const namer *nm, const char *name) {
  size_t count;
  return lsimp_name_index_find(&nm->in_use, name, &count) && count > 0;
}

/* `name` (one of nm->names', which outlive the table) joins the current
 * scope. */
static void push_used(namer *nm, const char *name) {
  size_t count = 0;
  lsimp_name_index_find(&nm->in_use, name, &count);
  if (!lsim_grow_array(&nm->used, &nm->cap_used, nm->n_used + 1, sizeof *nm->used) ||
      !lsimp_name_index_set(&nm->in_use, name, count + 1)) {
    nm->failed = true;
    return;
  }
  nm->used[nm->n_used++] = name;
}

/* The innermost scope's names leave, down to `scope` names. */
static void pop_used(namer *nm, size_t scope) {
  while (nm->n_used > scope) {
    const char *name = nm->used[--nm->n_used];
    size_t count = 0;
    lsimp_name_index_find(&nm->in_use, name, &count);
    lsimp_name_index_set(&nm->in_use, name, count - 1); /* there already: cannot fail */
  }
}

static void add_name(namer *nm, MlirValue v, char *name) {
  if (!name || !lsim_grow_array(&nm->names, &nm->cap, nm->n + 1, sizeof *nm->names)) {
    free(name);
    nm->failed = true;
    return;
  }
  nm->names[nm->n++] = (value_name){v.ptr, name};
}

static char *format_name(const char *fmt, const char *base, unsigned n) {
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  lsimp_strbuf_printf(&sb, fmt, base, n);
  return lsimp_strbuf_take(&sb);
}

/* SSANameState::uniqueValueName: `base`, or base_N with the next conflict
 * id until unused; the name joins the current scope. */
static void set_value_name(namer *nm, ids *id, MlirValue v, const char *base) {
  char *name = name_used(nm, base) ? NULL : format_name("%s", base, 0);
  while (!name && !nm->failed) {
    char *probe = format_name("%s_%u", base, id->conflict++);
    if (probe && name_used(nm, probe)) {
      free(probe);
      continue;
    }
    name = probe;
    if (!name)
      nm->failed = true;
  }
  if (!name) {
    nm->failed = true;
    return;
  }
  add_name(nm, v, name);
  if (!nm->failed)
    push_used(nm, name);
}

static void set_value_number(namer *nm, ids *id, MlirValue v) {
  add_name(nm, v, format_name("%s%u", "", id->value++));
}

/* The name an op gives its result (OpAsmOpInterface::getAsmResultNames):
 * stablehlo.constant is %c for integer elements, %cst otherwise. */
static const char *result_name(MlirOperation op) {
  if (!is_op(op, "stablehlo.constant") || mlirOperationGetNumResults(op) != 1)
    return NULL;
  MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
  MlirType element = mlirShapedTypeGetElementType(t);
  return mlirTypeIsAInteger(element) ? "c" : "cst";
}

static void number_region(namer *nm, MlirOperation parent, MlirRegion region, ids id,
                          size_t parent_scope);

/* numberValuesInRegion, then the nested regions, each from the ids and the
 * used names this region ends with (siblings number alike). */
static void number_region(namer *nm, MlirOperation parent, MlirRegion region, ids id,
                          size_t parent_scope) {
  pop_used(nm, parent_scope);
  bool while_op = is_op(parent, "stablehlo.while");
  bool first = true;
  for (MlirBlock b = mlirRegionGetFirstBlock(region); !mlirBlockIsNull(b);
       b = mlirBlockGetNextInRegion(b), first = false) {
    for (intptr_t i = 0; i < mlirBlockGetNumArguments(b); i++) {
      MlirValue arg = mlirBlockGetArgument(b, i);
      if (while_op) {
        set_value_name(nm, &id, arg, "iterArg");
      } else if (first) {
        char base[32];
        snprintf(base, sizeof base, "arg%u", id.argument++);
        set_value_name(nm, &id, arg, base);
      } else {
        set_value_number(nm, &id, arg);
      }
    }
    for (MlirOperation op = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(op);
         op = mlirOperationGetNextInBlock(op)) {
      if (mlirOperationGetNumResults(op) == 0)
        continue;
      const char *named = result_name(op);
      if (named)
        set_value_name(nm, &id, mlirOperationGetResult(op, 0), named);
      else
        set_value_number(nm, &id, mlirOperationGetResult(op, 0));
    }
  }
  size_t scope = nm->n_used;
  for (MlirBlock b = mlirRegionGetFirstBlock(region); !mlirBlockIsNull(b);
       b = mlirBlockGetNextInRegion(b))
    for (MlirOperation op = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(op);
         op = mlirOperationGetNextInBlock(op))
      for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
        number_region(nm, op, mlirOperationGetRegion(op, r), id, scope);
}

static void namer_free(namer *nm) {
  for (size_t i = 0; i < nm->n; i++)
    free(nm->names[i].name);
  free(nm->names);
  free(nm->used);
  lsimp_name_index_free(&nm->in_use);
}

/* The name of value `v`: `%0`, `%c`, `%arg1`, `%3#1` (a result of a
 * multi-result op, when `use` says v is used; an op defining them prints
 * `%3:2`); `<<UNKNOWN SSA VALUE>>` as MLIR prints a value it did not
 * number. */
static void print_value(lsimp_strbuf *sb, const namer *nm, MlirValue v, bool use) {
  MlirValue first = v;
  intptr_t index = 0, results = 1;
  if (mlirValueIsAOpResult(v)) {
    MlirOperation owner = mlirOpResultGetOwner(v);
    index = mlirOpResultGetResultNumber(v);
    results = mlirOperationGetNumResults(owner);
    first = mlirOperationGetResult(owner, 0);
  }
  for (size_t i = 0; i < nm->n; i++) {
    if (nm->names[i].value == first.ptr) {
      lsimp_strbuf_printf(sb, "%%%s", nm->names[i].name);
      if (results > 1)
        lsimp_strbuf_printf(sb, use ? "#%ld" : ":%ld", (long)(use ? index : results));
      return;
    }
  }
  lsimp_strbuf_puts(sb, "<<UNKNOWN SSA VALUE>>");
}

/* --- stablehlo.custom_call in its custom form ------------------------------------- */

static int compare_named(const void *a, const void *b) {
  MlirStringRef x = mlirIdentifierStr(((const MlirNamedAttribute *)a)->name);
  MlirStringRef y = mlirIdentifierStr(((const MlirNamedAttribute *)b)->name);
  int c = memcmp(x.data, y.data, x.length < y.length ? x.length : y.length);
  return c ? c : (x.length > y.length) - (x.length < y.length);
}

static bool name_is(MlirNamedAttribute a, const char *name) {
  MlirStringRef n = mlirIdentifierStr(a.name);
  return n.length == strlen(name) && memcmp(n.data, name, n.length) == 0;
}

/* What the custom form leaves out: call_target_name (printed as @target)
 * and the attributes at their default values. */
static bool elided(MlirNamedAttribute a) {
  if (name_is(a, "call_target_name"))
    return true;
  if (name_is(a, "api_version"))
    return mlirAttributeIsAInteger(a.attribute) && mlirIntegerAttrGetValueInt(a.attribute) == 1;
  if (name_is(a, "has_side_effect"))
    return mlirAttributeIsABool(a.attribute) && !mlirBoolAttrGetValue(a.attribute);
  if (name_is(a, "called_computations") || name_is(a, "output_operand_aliases"))
    return mlirAttributeIsAArray(a.attribute) && mlirArrayAttrGetNumElements(a.attribute) == 0;
  return false;
}

static void print_types(lsimp_strbuf *sb, MlirOperation op, bool results) {
  intptr_t n = results ? mlirOperationGetNumResults(op) : mlirOperationGetNumOperands(op);
  bool parens = !results || n != 1;
  if (parens)
    lsimp_strbuf_putc(sb, '(');
  for (intptr_t i = 0; i < n; i++) {
    if (i)
      lsimp_strbuf_puts(sb, ", ");
    MlirValue v = results ? mlirOperationGetResult(op, i) : mlirOperationGetOperand(op, i);
    mlirTypePrint(mlirValueGetType(v), lsimp_strbuf_append_mlir, sb);
  }
  if (parens)
    lsimp_strbuf_putc(sb, ')');
}

static void print_custom_call(lsimp_strbuf *sb, const namer *nm, MlirOperation op,
                              MlirStringRef target) {
  intptr_t num_results = mlirOperationGetNumResults(op);
  if (num_results) {
    print_value(sb, nm, mlirOperationGetResult(op, 0), false);
    lsimp_strbuf_puts(sb, " = ");
  }
  lsimp_strbuf_puts(sb, "stablehlo.custom_call ");
  MlirContext mlir = mlirOperationGetContext(op);
  mlirAttributePrint(mlirFlatSymbolRefAttrGet(mlir, target), lsimp_strbuf_append_mlir, sb);
  lsimp_strbuf_putc(sb, '(');
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++) {
    if (i)
      lsimp_strbuf_puts(sb, ", ");
    print_value(sb, nm, mlirOperationGetOperand(op, i), true);
  }
  lsimp_strbuf_putc(sb, ')');
  intptr_t n = mlirOperationGetNumAttributes(op), kept = 0;
  MlirNamedAttribute *attrs = lsim_malloc_array((size_t)n, sizeof *attrs);
  if (!attrs) {
    lsimp_strbuf_fail(sb);
    return;
  }
  for (intptr_t i = 0; i < n; i++) {
    MlirNamedAttribute a = mlirOperationGetAttribute(op, i);
    if (!elided(a))
      attrs[kept++] = a;
  }
  qsort(attrs, (size_t)kept, sizeof *attrs, compare_named);
  for (intptr_t i = 0; i < kept; i++) {
    MlirStringRef name = mlirIdentifierStr(attrs[i].name);
    lsimp_strbuf_puts(sb, i ? ", " : " {");
    lsimp_strbuf_append(sb, name.data, name.length);
    if (!mlirAttributeIsAUnit(attrs[i].attribute)) {
      lsimp_strbuf_puts(sb, " = ");
      mlirAttributePrint(attrs[i].attribute, lsimp_strbuf_append_mlir, sb);
    }
  }
  if (kept)
    lsimp_strbuf_putc(sb, '}');
  free(attrs);
  lsimp_strbuf_puts(sb, " : ");
  print_types(sb, op, false);
  lsimp_strbuf_puts(sb, " -> ");
  print_types(sb, op, true);
  lsimp_strbuf_puts(sb, " at ");
  mlirLocationPrint(mlirOperationGetLocation(op), lsimp_strbuf_append_mlir, sb);
}

/* --- _check_module ------------------------------------------------------------------ */

typedef struct module_check {
  const lsim_jax_strings *stable;
  const char *const *disabled;
  size_t num_disabled;
  bool all_allowed;
  op_list offending;
} module_check;

static bool allowed(const module_check *c, MlirStringRef target) {
  for (size_t i = 0; c->stable && i < c->stable->count; i++)
    if (strlen(c->stable->items[i]) == target.length &&
        memcmp(c->stable->items[i], target.data, target.length) == 0)
      return true;
  for (size_t i = 0; i < c->num_disabled; i++) {
    if (strncmp(c->disabled[i], "custom_call:", 12) != 0)
      continue; /* before the target's pointer: "platform" is shorter than the prefix */
    const char *t = c->disabled[i] + 12;
    if (strlen(t) == target.length && memcmp(t, target.data, target.length) == 0)
      return true;
  }
  return false;
}

static MlirStringRef target_of(MlirOperation op) {
  MlirAttribute t = mlirOperationGetAttributeByName(op, ref("call_target_name"));
  return mlirAttributeIsAString(t) ? mlirStringAttrGetValue(t) : (MlirStringRef){"", 0};
}

/* walk_operations: the op, then each region's blocks' ops, in order. */
static void walk(module_check *c, MlirOperation op) {
  if (is_op(op, "stablehlo.custom_call") && !c->all_allowed && !allowed(c, target_of(op)))
    op_list_push(&c->offending, op);
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
         !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o);
           o = mlirOperationGetNextInBlock(o))
        walk(c, o);
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* _check_module's last sentence (from 0.11.2): the targets whose check
 * disabled_checks disabled beyond the stable ones (`allowed -
 * _CUSTOM_CALL_TARGETS_GUARANTEED_STABLE`, sorted), or how to disable it.
 * false: out of memory. */
static bool disabled_check_advice(lsimp_strbuf *sb, const module_check *c) {
  const char **names = lsim_malloc_array(c->num_disabled + 1, sizeof *names);
  if (!names)
    return false;
  size_t k = 0;
  for (size_t i = 0; i < c->num_disabled; i++) {
    if (strncmp(c->disabled[i], "custom_call:", 12) != 0)
      continue;
    const char *t = c->disabled[i] + 12;
    if (lsim_jax_strings_contain(c->stable, t))
      continue;
    bool seen = false;
    for (size_t j = 0; j < k && !seen; j++)
      seen = strcmp(names[j], t) == 0;
    if (!seen)
      names[k++] = t;
  }
  qsort(names, k, sizeof *names, compare_names);
  if (k == 0) {
    lsimp_strbuf_puts(sb, "The custom call safety check was not disabled for any target. You can "
                          "disable it for a target by adding "
                          "jax.export.DisabledSafetyCheck.custom_call('<target>') to "
                          "disabled_checks.\n");
  } else {
    lsimp_strbuf_puts(sb, "The custom call safety check was disabled for the following targets "
                          "via disabled_checks: ");
    for (size_t i = 0; i < k; i++)
      lsimp_strbuf_printf(sb, "%s%s", i ? ", " : "", names[i]);
    lsimp_strbuf_puts(sb, ".\n");
  }
  free(names);
  return true;
}

static int check_module(lsim_module_context *mc, const char *const *disabled, size_t n,
                        lsim_error *err) {
  MlirOperation module = mlirModuleGetOperation(lsim_module_context_module(mc));
  module_check c = {.stable = &lsim_module_context_profile(mc)->export_stable_custom_call_targets,
                    .disabled = disabled, .num_disabled = n};
  for (size_t i = 0; i < n; i++)
    c.all_allowed = c.all_allowed || strcmp(disabled[i], "custom_call:ALL") == 0;
  walk(&c, module);
  if (c.offending.failed) {
    free(c.offending.items);
    return lsimp_fail_oom(err);
  }
  size_t n_offending = c.offending.n;
  if (n_offending == 0)
    return LSIM_OK;
  namer nm = {0};
  number_region(&nm, module, mlirOperationGetRegion(module, 0), (ids){0, 0, 0}, 0);
  lsimp_strbuf ops = LSIMP_STRBUF_INIT, advice = LSIMP_STRBUF_INIT;
  for (size_t i = 0; i < n_offending; i++) {
    if (i)
      lsimp_strbuf_putc(&ops, '\n');
    print_custom_call(&ops, &nm, c.offending.items[i], target_of(c.offending.items[i]));
  }
  bool advised = !lsim_module_context_profile(mc)->export_custom_call_advice ||
                 disabled_check_advice(&advice, &c);
  int rc = nm.failed || !advised || lsimp_strbuf_failed(&ops) || lsimp_strbuf_failed(&advice)
               ? lsimp_fail_oom(err)
               : lsimp_raise(err, LSIM_E_EXPORT_CUSTOM_CALL,
                             lsim_module_context_profile(mc)->export_custom_call_doc_url,
                             lsimp_strbuf_cstr(&ops), lsimp_strbuf_cstr(&advice));
  lsim_module_context_explain(mc, LSIM_EXPLAIN_DECISION, 0,
                              "export: %zu custom call%s outside the stable targets", n_offending,
                              n_offending == 1 ? "" : "s");
  lsimp_strbuf_free(&ops);
  lsimp_strbuf_free(&advice);
  namer_free(&nm);
  free(c.offending.items);
  return rc;
}

/* --- what the serialized module looks like read back ---------------------------------- */

/* Exported.mlir_module() is the module serialized as a portable artifact
 * (VHLO) and read back (jaxlib's deserialize_portable_artifact), which
 * changes it in two ways: an empty backend_config of stablehlo.custom_call
 * is dropped, and so are its operand_layouts and result_layouts when both
 * are empty (VHLO's defaults; one empty list beside a non-empty one stays,
 * checked live on 0.10.2), and
 * constants are uniqued and hoisted as
 * MLIR's OperationFolder does: in a post-order walk of each function, a
 * stablehlo.constant equal (value and type) to one already seen is replaced
 * by it; a new one moves to the front of the function's entry block unless
 * it is there already, first or right after another uniqued constant.
 * (Checked live at 0.10.2: nothing is folded or CSE'd otherwise.) */
typedef struct uniquer {
  MlirBlock entry;
  op_list constants;
} uniquer;

static bool owned(const uniquer *u, MlirOperation op) {
  for (size_t i = 0; !mlirOperationIsNull(op) && i < u->constants.n; i++)
    if (mlirOperationEqual(u->constants.items[i], op))
      return true;
  return false;
}

static MlirOperation known_constant(const uniquer *u, MlirOperation op) {
  MlirAttribute value = mlirOperationGetAttributeByName(op, ref("value"));
  MlirType type = mlirValueGetType(mlirOperationGetResult(op, 0));
  for (size_t i = 0; i < u->constants.n; i++) {
    MlirOperation c = u->constants.items[i];
    if (mlirTypeEqual(type, mlirValueGetType(mlirOperationGetResult(c, 0))) &&
        mlirAttributeEqual(value, mlirOperationGetAttributeByName(c, ref("value"))))
      return c;
  }
  return (MlirOperation){NULL};
}

/* The op before `op` in its block (the C API has no getPrevNode). */
static MlirOperation prev_in_block(MlirOperation op) {
  MlirOperation prev = {NULL};
  for (MlirOperation o = mlirBlockGetFirstOperation(mlirOperationGetBlock(op));
       !mlirOperationIsNull(o) && !mlirOperationEqual(o, op); o = mlirOperationGetNextInBlock(o))
    prev = o;
  return prev;
}

static void insert_constant(uniquer *u, MlirOperation op) {
  MlirOperation known = known_constant(u, op);
  if (!mlirOperationIsNull(known)) {
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), mlirOperationGetResult(known, 0));
    mlirOperationDestroy(op);
    return;
  }
  MlirOperation front = mlirBlockGetFirstOperation(u->entry);
  bool in_entry = mlirBlockEqual(mlirOperationGetBlock(op), u->entry);
  if (!in_entry || (!mlirOperationEqual(front, op) && !owned(u, prev_in_block(op))))
    mlirOperationMoveBefore(op, front);
  op_list_push(&u->constants, op);
}

/* Post-order: the nested regions' ops, then the op itself. */
static void read_back(uniquer *u, MlirOperation op) {
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op) && !u->constants.failed; r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      for (MlirOperation o = mlirBlockGetFirstOperation(b), next; !mlirOperationIsNull(o); o = next) {
        next = mlirOperationGetNextInBlock(o);
        read_back(u, o);
      }
  if (is_op(op, "stablehlo.custom_call")) {
    MlirAttribute config = mlirOperationGetAttributeByName(op, ref("backend_config"));
    if (mlirAttributeIsAString(config) && mlirStringAttrGetValue(config).length == 0)
      mlirOperationRemoveAttributeByName(op, ref("backend_config"));
    /* The layouts go as a pair (StableHLO's verifier wants both or none):
     * dropped when both are empty; one empty beside the other stays. */
    MlirAttribute in = mlirOperationGetAttributeByName(op, ref("operand_layouts"));
    MlirAttribute out = mlirOperationGetAttributeByName(op, ref("result_layouts"));
    bool in_empty = mlirAttributeIsNull(in) ||
                    (mlirAttributeIsAArray(in) && mlirArrayAttrGetNumElements(in) == 0);
    bool out_empty = mlirAttributeIsNull(out) ||
                     (mlirAttributeIsAArray(out) && mlirArrayAttrGetNumElements(out) == 0);
    if (in_empty && out_empty) {
      mlirOperationRemoveAttributeByName(op, ref("operand_layouts"));
      mlirOperationRemoveAttributeByName(op, ref("result_layouts"));
    }
  } else if (is_op(op, "stablehlo.constant") && mlirOperationGetNumResults(op) == 1 &&
             !u->constants.failed) {
    insert_constant(u, op);
  }
}

/* The stablehlo ops of lowersim's modules that have no side effects
 * (Pure, a custom call without has_side_effect, or RecursiveMemoryEffects
 * over pure regions: case, while). */
static bool side_effect_free(MlirOperation op) {
  static const char *const pure[] = {
      "stablehlo.sine",     "stablehlo.cosine",      "stablehlo.exponential",
      "stablehlo.negate",   "stablehlo.add",         "stablehlo.multiply",
      "stablehlo.subtract", "stablehlo.convert",     "stablehlo.broadcast_in_dim",
      "stablehlo.compare",  "stablehlo.select",      "stablehlo.slice",
      "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice", "stablehlo.constant",
      "stablehlo.return",   "stablehlo.iota",        "stablehlo.reshape"};
  for (size_t i = 0; i < sizeof pure / sizeof pure[0]; i++)
    if (is_op(op, pure[i]))
      return true;
  /* CustomCallOp's effects are those has_side_effect says. */
  if (is_op(op, "stablehlo.custom_call")) {
    MlirAttribute effect =
        mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("has_side_effect"));
    return mlirAttributeIsNull(effect) || !mlirAttributeIsABool(effect) ||
           !mlirBoolAttrGetValue(effect);
  }
  if (!is_op(op, "stablehlo.case") && !is_op(op, "stablehlo.while"))
    return false;
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o);
           o = mlirOperationGetNextInBlock(o))
        if (!side_effect_free(o))
          return false;
  return true;
}

static bool unused(MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); i++)
    if (!mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(op, i))))
      return false;
  return mlirOperationGetNumResults(op) > 0;
}

/* isOpTriviallyDead: no result used (an op without results qualifies), no
 * side effects, not a terminator. */
static bool trivially_dead(MlirOperation op) {
  if (is_op(op, "stablehlo.return") || is_op(op, "func.return") || is_op(op, "stablehlo.constant"))
    return false;
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); i++)
    if (!mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(op, i))))
      return false;
  return side_effect_free(op);
}

static void constants_used(MlirOperation op, op_list *out) {
  for (intptr_t k = 0; k < mlirOperationGetNumOperands(op); k++) {
    MlirValue v = mlirOperationGetOperand(op, k);
    if (mlirValueIsAOpResult(v) && is_op(mlirOpResultGetOwner(v), "stablehlo.constant"))
      op_list_push(out, mlirOpResultGetOwner(v));
  }
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o);
           o = mlirOperationGetNextInBlock(o))
        constants_used(o, out);
}

/* The dead non-constant ops in `op`'s regions, at every depth (the driver
 * visits nested ops too: a dead op in a while body goes); not those inside
 * an op that is itself dead, which go with it. */
static void collect_dead(MlirOperation op, op_list *dead) {
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o);
           o = mlirOperationGetNextInBlock(o)) {
        if (trivially_dead(o))
          op_list_push(dead, o);
        else
          collect_dead(o, dead);
      }
}

/* The rewrite driver erases trivially dead ops (unused results, no side
 * effects), and, as each goes, the ops defining its operands when they die
 * with it; a constant that was unused from the start (never on the worklist)
 * stays.  Erases the dead non-constant ops below `op`, then the constants
 * their erasure left unused, until nothing changes. */
static bool erase_dead(MlirOperation root) {
  for (bool changed = true; changed;) {
    changed = false;
    op_list dead = {0};
    collect_dead(root, &dead);
    for (size_t i = 0; i < dead.n; i++) {
      /* The constants this op and the ops in its regions use, which may
       * die with it. */
      op_list operands = {0};
      constants_used(dead.items[i], &operands);
      if (operands.failed || dead.failed) {
        free(operands.items);
        free(dead.items);
        return false;
      }
      mlirOperationDestroy(dead.items[i]);
      for (size_t k = 0; k < operands.n; k++) {
        bool seen = false;
        for (size_t j = 0; j < k; j++)
          seen = seen || mlirOperationEqual(operands.items[j], operands.items[k]);
        if (!seen && unused(operands.items[k]))
          mlirOperationDestroy(operands.items[k]);
      }
      free(operands.items);
      changed = true;
    }
    free(dead.items);
  }
  return true;
}

static int serialization_round_trip(lsim_module_context *mc, lsim_error *err) {
  MlirBlock body = mlirModuleGetBody(lsim_module_context_module(mc));
  bool failed = false;
  for (MlirOperation f = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(f);
       f = mlirOperationGetNextInBlock(f)) {
    if (!is_op(f, "func.func") || mlirOperationGetNumRegions(f) != 1)
      continue;
    uniquer u = {mlirRegionGetFirstBlock(mlirOperationGetRegion(f, 0)), {NULL, 0, 0, false}};
    if (!mlirBlockIsNull(u.entry)) {
      read_back(&u, f);
      failed = failed || !erase_dead(f);
    }
    failed = failed || u.constants.failed;
    free(u.constants.items);
  }
  return failed ? lsimp_fail_oom(err) : LSIM_OK;
}

int lsimp_export(lsim_module_context *mc, const char *const *disabled, size_t num_disabled,
                 lsim_error *err) {
  for (size_t i = 0; i < num_disabled; i++) {
    int rc = lsim_check_disabled_safety_check(disabled[i], err);
    if (rc)
      return rc;
  }
  lsim_module_context_explain_source(
      mc, LSIM_JAX_SOURCE("jax/_src/export/_export.py", "_export_lowered"));
  lsim_module_context_explain(mc, LSIM_EXPLAIN_STEP, 0,
                              "jax.export: _check_lowering, jax.uses_shape_polymorphism, "
                              "_check_module");
  if (lsim_module_context_host_callback_count(mc) || lsim_module_context_keepalive_count(mc))
    return lsimp_raise0(err, LSIM_E_EXPORT_HOST_CALLBACKS);
  size_t n;
  lsim_module_context_platforms(mc, &n);
  MlirOperation module = mlirModuleGetOperation(lsim_module_context_module(mc));
  /* uses_dim_vars: "_platform_index" is a dimension variable with several
   * platforms; lowersim's shapes are static. */
  mlirOperationSetAttributeByName(module, ref("jax.uses_shape_polymorphism"),
                                  mlirBoolAttrGet(lsim_module_context_mlir_context(mc), n > 1));
  lsim_module_context_explain(mc, LSIM_EXPLAIN_DETAIL, 0, "jax.uses_shape_polymorphism = %s",
                              n > 1 ? "true (several platforms)" : "false");
  int rc = check_module(mc, disabled, num_disabled, err);
  return rc ? rc : serialization_round_trip(mc, err);
}
