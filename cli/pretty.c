/* cli/pretty.c: a module in the pretty form JAX's MLIR prints (see
 * pretty.h).  Values are named as MLIR's SSANameState names them: numbers
 * per region tree from 0 in each function (nested regions go on from where
 * their parent region ends, siblings from the same point), entry block
 * arguments %argN, constants named by their kind (%c for integers, %cst
 * otherwise), a name taken in a scope made unique with _N from a counter
 * that nested regions inherit. */
#include "pretty.h"

#include "cli.h"
#include "lowersim/alloc.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char cli_pretty_ops[] =
    "module, func.func, func.return, func.call, sdy.mesh, stablehlo.constant, the "
    "elementwise unary (sine, cosine, negate, exponential) and binary (add, subtract, "
    "multiply) ops, convert, reshape, broadcast_in_dim, compare, select, dynamic_slice, "
    "dynamic_update_slice, custom_call, create_token, send, recv, return, case, while and "
    "reduce with one binary op as its body (stablehlo.*)";

/* --- names ---------------------------------------------------------------- */

typedef struct name_entry {
  const void *key; /* the value's pointer; NULL: empty slot */
  char *name;      /* "%0", "%arg1", "%c_0", "%3#1" (owned) */
} name_entry;

typedef struct printer {
  FILE *out;
  name_entry *names;
  size_t cap, count;
  char **scope;      /* the names taken, innermost scope last */
  size_t scope_len, scope_cap;
  bool failed;       /* out of memory */
  bool func_default; /* the default dialect is func's: `return`, `call` (in a function's body) */
  bool refused;      /* an op has no pretty form here: refused_name */
  char refused_name[128];
} printer;

static size_t slot_of(const printer *p, const void *key) {
  size_t h = ((uintptr_t)key >> 4) * 0x9E3779B97F4A7C15u;
  size_t i = h & (p->cap - 1);
  while (p->names[i].key && p->names[i].key != key)
    i = (i + 1) & (p->cap - 1);
  return i;
}

static bool grow_names(printer *p) {
  size_t cap = p->cap ? p->cap * 2 : 256;
  name_entry *old = p->names;
  size_t old_cap = p->cap;
  p->names = lsim_calloc(cap, sizeof *p->names);
  if (!p->names) {
    p->names = old;
    return false;
  }
  p->cap = cap;
  for (size_t i = 0; i < old_cap; i++)
    if (old[i].key)
      p->names[slot_of(p, old[i].key)] = old[i];
  free(old);
  return true;
}

static void set_name(printer *p, MlirValue v, const char *fmt, const char *a, long n) {
  if (p->failed)
    return;
  if ((p->count + 1) * 2 > p->cap && !grow_names(p)) {
    p->failed = true;
    return;
  }
  char buf[128];
  snprintf(buf, sizeof buf, fmt, a, n);
  size_t i = slot_of(p, v.ptr);
  char *copy = lsim_strdup(buf);
  if (!copy) {
    p->failed = true;
    return;
  }
  if (p->names[i].key)
    free(p->names[i].name);
  else
    p->count++;
  p->names[i] = (name_entry){v.ptr, copy};
}

static const char *name_of(const printer *p, MlirValue v) {
  if (!p->cap)
    return "%<unknown>";
  const name_entry *e = &p->names[slot_of(p, v.ptr)];
  return e->key ? e->name : "%<unknown>";
}

/* The counters a region tree inherits (SSANameState's nameContext). */
typedef struct counters {
  long value, argument, conflict;
} counters;

static bool scope_has(const printer *p, const char *name) {
  for (size_t i = 0; i < p->scope_len; i++)
    if (strcmp(p->scope[i], name) == 0)
      return true;
  return false;
}

/* SSANameState::uniqueValueName: NAME, or NAME_K for the next free K. */
static void take_name(printer *p, counters *c, const char *hint, char *out, size_t size) {
  snprintf(out, size, "%s", hint);
  while (scope_has(p, out))
    snprintf(out, size, "%s_%ld", hint, c->conflict++);
  char *copy = lsim_strdup(out);
  if (!copy || !lsim_grow_array(&p->scope, &p->scope_cap, p->scope_len + 1, sizeof *p->scope)) {
    free(copy);
    p->failed = true;
    return;
  }
  p->scope[p->scope_len++] = copy;
}

static bool op_is(MlirOperation op, const char *name) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  return s.length == strlen(name) && memcmp(s.data, name, s.length) == 0;
}

/* stablehlo.constant's getAsmResultNames: "c" for integers, "cst" else. */
static const char *result_hint(MlirOperation op) {
  if (!op_is(op, "stablehlo.constant") || mlirOperationGetNumResults(op) != 1)
    return NULL;
  MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
  MlirType e = mlirTypeIsAShaped(t) ? mlirShapedTypeGetElementType(t) : t;
  return mlirTypeIsAInteger(e) ? "c" : "cst";
}

static void number_region(printer *p, MlirRegion region, counters c, bool iter_args);

static void number_op(printer *p, MlirOperation op, counters *c) {
  intptr_t n = mlirOperationGetNumResults(op);
  if (!n)
    return;
  const char *hint = result_hint(op);
  char base[96];
  if (hint)
    take_name(p, c, hint, base, sizeof base);
  else
    snprintf(base, sizeof base, "%ld", c->value++);
  for (intptr_t i = 0; i < n; i++) {
    if (n == 1)
      set_name(p, mlirOperationGetResult(op, i), "%%%s", base, 0);
    else
      set_name(p, mlirOperationGetResult(op, i), "%%%s#%ld", base, (long)i);
  }
}

/* One region: its blocks' arguments (%argN, or stablehlo.while's
 * %iterArg names) and ops, then each nested region from the counters as
 * this region left them, in a scope of its own. */
static void number_region(printer *p, MlirRegion region, counters c, bool iter_args) {
  for (MlirBlock b = mlirRegionGetFirstBlock(region); !mlirBlockIsNull(b);
       b = mlirBlockGetNextInRegion(b)) {
    for (intptr_t i = 0; i < mlirBlockGetNumArguments(b); i++) {
      char name[96];
      if (iter_args) {
        take_name(p, &c, "iterArg", name, sizeof name);
        set_name(p, mlirBlockGetArgument(b, i), "%%%s", name, 0);
      } else {
        set_name(p, mlirBlockGetArgument(b, i), "%%%s%ld", "arg", c.argument++);
      }
    }
    for (MlirOperation op = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(op);
         op = mlirOperationGetNextInBlock(op))
      number_op(p, op, &c);
  }
  for (MlirBlock b = mlirRegionGetFirstBlock(region); !mlirBlockIsNull(b);
       b = mlirBlockGetNextInRegion(b))
    for (MlirOperation op = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(op);
         op = mlirOperationGetNextInBlock(op)) {
      bool isolated = op_is(op, "func.func") || op_is(op, "builtin.module");
      bool loop = op_is(op, "stablehlo.while");
      for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++) {
        size_t mark = p->scope_len;
        number_region(p, mlirOperationGetRegion(op, r), isolated ? (counters){0, 0, 0} : c,
                      loop);
        while (p->scope_len > mark)
          free(p->scope[--p->scope_len]);
      }
    }
}

/* --- printing ------------------------------------------------------------- */

static void put_cb(MlirStringRef s, void *data) { fwrite(s.data, 1, s.length, data); }

static void type(printer *p, MlirType t) { mlirTypePrint(t, put_cb, p->out); }

static void attr(printer *p, MlirAttribute a) { mlirAttributePrint(a, put_cb, p->out); }

static bool named(MlirNamedAttribute na, const char *name) {
  MlirStringRef s = mlirIdentifierStr(na.name);
  return s.length == strlen(name) && memcmp(s.data, name, s.length) == 0;
}

/* `name = value`, or `name` alone for a unit attribute. */
static void named_attr(printer *p, MlirNamedAttribute na) {
  MlirStringRef s = mlirIdentifierStr(na.name);
  fwrite(s.data, 1, s.length, p->out);
  if (!mlirAttributeIsAUnit(na.attribute)) {
    fputs(" = ", p->out);
    attr(p, na.attribute);
  }
}

/* The op's attributes whose name is in `names` (NULL-ended; NULL: none)
 * when `listed`, else those whose name is not, as `OPEN a = 1, b CLOSE`;
 * nothing when there are none. */
static void attrs_where(printer *p, MlirOperation op, const char *const *names, bool listed,
                        const char *open, const char *close) {
  bool first = true;
  for (intptr_t i = 0; i < mlirOperationGetNumAttributes(op); i++) {
    MlirNamedAttribute na = mlirOperationGetAttribute(op, i);
    bool in = false;
    for (const char *const *n = names; n && *n && !in; n++)
      in = named(na, *n);
    if (in != listed)
      continue;
    fputs(first ? open : ", ", p->out);
    first = false;
    named_attr(p, na);
  }
  if (!first)
    fputs(close, p->out);
}

/* ` {a = 1, b}`: the op's attributes but those in `skip` (NULL-ended). */
static void attr_dict(printer *p, MlirOperation op, const char *const *skip) {
  attrs_where(p, op, skip, false, " {", "}");
}

static void operands(printer *p, MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++)
    fprintf(p->out, "%s%s", i ? ", " : "", name_of(p, mlirOperationGetOperand(op, i)));
}

static void operand_types(printer *p, MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++) {
    fputs(i ? ", " : "", p->out);
    type(p, mlirValueGetType(mlirOperationGetOperand(op, i)));
  }
}

static void result_types(printer *p, MlirOperation op) {
  intptr_t n = mlirOperationGetNumResults(op);
  if (n != 1)
    fputc('(', p->out);
  for (intptr_t i = 0; i < n; i++) {
    fputs(i ? ", " : "", p->out);
    type(p, mlirValueGetType(mlirOperationGetResult(op, i)));
  }
  if (n != 1)
    fputc(')', p->out);
}

/* `(A, B) -> R`. */
static void functional_type(printer *p, MlirOperation op) {
  fputc('(', p->out);
  operand_types(p, op);
  fputs(") -> ", p->out);
  result_types(p, op);
}

/* `%0 = `, `%0:2 = `, or nothing. */
static void results(printer *p, MlirOperation op) {
  intptr_t n = mlirOperationGetNumResults(op);
  if (!n)
    return;
  const char *first = name_of(p, mlirOperationGetResult(op, 0));
  if (n == 1) {
    fprintf(p->out, "%s = ", first);
    return;
  }
  fprintf(p->out, "%.*s:%ld = ", (int)strcspn(first, "#"), first, (long)n);
}

/* Every operand and result of one type: that type alone; else the
 * functional type (hlo::printSameOperandsAndResultType). */
static void same_type(printer *p, MlirOperation op) {
  MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
  bool same = mlirOperationGetNumResults(op) == 1;
  for (intptr_t i = 0; same && i < mlirOperationGetNumOperands(op); i++)
    same = mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(op, i)), t);
  if (same)
    type(p, t);
  else
    functional_type(p, op);
}

static void indent(printer *p, int depth) { fprintf(p->out, "%*s", depth * 2, ""); }

static void print_op(printer *p, MlirOperation op, int depth);

static MlirAttribute attr_named(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
}

/* An attribute's text, for the pieces a custom syntax takes from it. */
typedef struct text_buf {
  char data[256];
  size_t len;
} text_buf;

static void buf_cb(MlirStringRef s, void *data) {
  text_buf *b = data;
  size_t n = s.length < sizeof b->data - 1 - b->len ? s.length : sizeof b->data - 1 - b->len;
  memcpy(b->data + b->len, s.data, n);
  b->len += n;
  b->data[b->len] = '\0';
}

/* The WORD of `#stablehlo<comparison_direction WORD>`. */
static void enum_word(printer *p, MlirAttribute a) {
  text_buf b = {.len = 0};
  b.data[0] = '\0';
  mlirAttributePrint(a, buf_cb, &b);
  const char *sp = strrchr(b.data, ' ');
  const char *end = strrchr(b.data, '>');
  if (sp && end && end > sp)
    fprintf(p->out, "%.*s", (int)(end - sp - 1), sp + 1);
  else
    fputs(b.data, p->out);
}

/* `[0, 1]` of a DenseI64ArrayAttr. */
static void i64_list(printer *p, MlirAttribute a) {
  fputc('[', p->out);
  for (intptr_t i = 0; !mlirAttributeIsNull(a) && i < mlirDenseArrayGetNumElements(a); i++)
    fprintf(p->out, "%s%lld", i ? ", " : "", (long long)mlirDenseI64ArrayGetElement(a, i));
  fputc(']', p->out);
}

/* `sdy.mesh @name = <...> {attrs}`: the mesh attribute without its
 * `#sdy.mesh` (longer meshes than the buffer are refused). */
static bool print_mesh(printer *p, MlirOperation op) {
  static const char *const own[] = {"sym_name", "mesh", NULL};
  text_buf b = {.len = 0};
  b.data[0] = '\0';
  mlirAttributePrint(attr_named(op, "mesh"), buf_cb, &b);
  if (strncmp(b.data, "#sdy.mesh<", 10) != 0 || b.len + 1 >= sizeof b.data)
    return false;
  fputs("sdy.mesh ", p->out);
  attr(p, mlirFlatSymbolRefAttrGet(mlirOperationGetContext(op),
                                   mlirStringAttrGetValue(attr_named(op, "sym_name"))));
  fprintf(p->out, " = %s", b.data + 9);
  attr_dict(p, op, own);
  return true;
}

/* The generic form with the op's inherent attributes `inherent` as
 * properties `<{...}>` and the others as its dictionary (send, recv). */
static void generic_with_properties(printer *p, MlirOperation op, const char *const *inherent) {
  fputc('"', p->out);
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  fwrite(s.data, 1, s.length, p->out);
  fputs("\"(", p->out);
  operands(p, op);
  fputc(')', p->out);
  attrs_where(p, op, inherent, true, " <{", "}>");
  attr_dict(p, op, inherent);
  fputs(" : ", p->out);
  functional_type(p, op);
}

/* Whether the attribute is `name`'s default, which the pretty form elides. */
static bool custom_call_default(MlirNamedAttribute na) {
  if (named(na, "api_version"))
    return mlirAttributeIsAInteger(na.attribute) && mlirIntegerAttrGetValueInt(na.attribute) == 1;
  if (named(na, "has_side_effect"))
    return mlirAttributeIsABool(na.attribute) && !mlirBoolAttrGetValue(na.attribute);
  if (named(na, "called_computations") || named(na, "output_operand_aliases"))
    return mlirAttributeIsAArray(na.attribute) && mlirArrayAttrGetNumElements(na.attribute) == 0;
  return false;
}

/* `stablehlo.custom_call @target(%a) {attrs} : (A) -> R`. */
static void print_custom_call(printer *p, MlirOperation op) {
  fputs("stablehlo.custom_call ", p->out);
  attr(p, mlirFlatSymbolRefAttrGet(mlirOperationGetContext(op),
                                   mlirStringAttrGetValue(attr_named(op, "call_target_name"))));
  fputc('(', p->out);
  operands(p, op);
  fputc(')', p->out);
  bool first = true;
  for (intptr_t i = 0; i < mlirOperationGetNumAttributes(op); i++) {
    MlirNamedAttribute na = mlirOperationGetAttribute(op, i);
    if (named(na, "call_target_name") || custom_call_default(na))
      continue;
    fputs(first ? " {" : ", ", p->out);
    first = false;
    named_attr(p, na);
  }
  if (!first)
    fputc('}', p->out);
  fputs(" : ", p->out);
  functional_type(p, op);
}

/* `@name`, or `@"na-me"` when MLIR quotes it: printed as MLIR prints a
 * symbol reference. */
static void symbol(printer *p, MlirOperation op, MlirStringRef name) {
  attr(p, mlirFlatSymbolRefAttrGet(mlirOperationGetContext(op), name));
}

static void block_ops(printer *p, MlirBlock b, int depth) {
  for (MlirOperation op = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(op) && !p->refused;
       op = mlirOperationGetNextInBlock(op))
    print_op(p, op, depth);
}

/* `({ ... }, { ... })`: regions of one block without arguments. */
static bool regions(printer *p, MlirOperation op, int depth) {
  fputs(" (", p->out);
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++) {
    MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
    if (mlirBlockIsNull(b) || mlirBlockGetNumArguments(b) ||
        !mlirBlockIsNull(mlirBlockGetNextInRegion(b)))
      return false;
    fputs(r ? ", {\n" : "{\n", p->out);
    block_ops(p, b, depth + 1);
    indent(p, depth);
    fputc('}', p->out);
  }
  fputc(')', p->out);
  return true;
}

static const char *const unary[] = {"stablehlo.sine", "stablehlo.cosine", "stablehlo.negate",
                                    "stablehlo.exponential", NULL};
static const char *const binary[] = {"stablehlo.add", "stablehlo.subtract", "stablehlo.multiply",
                                     NULL};

static bool one_of(MlirOperation op, const char *const *names) {
  for (; *names; names++)
    if (op_is(op, *names))
      return true;
  return false;
}

static void op_name(printer *p, MlirOperation op) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  fwrite(s.data, 1, s.length, p->out);
}

/* `func.func public @main(%arg0: T {attrs}) -> (R {attrs}) {`. */
static void print_func(printer *p, MlirOperation op, int depth) {
  static const char *const own[] = {"sym_name", "function_type", "arg_attrs", "res_attrs",
                                    "sym_visibility", NULL};
  MlirAttribute name = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
  MlirAttribute vis =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_visibility"));
  MlirType ft = mlirTypeAttrGetValue(
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("function_type")));
  MlirAttribute args = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("arg_attrs"));
  MlirAttribute res = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("res_attrs"));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  fputs("func.func ", p->out);
  if (!mlirAttributeIsNull(vis)) {
    MlirStringRef v = mlirStringAttrGetValue(vis);
    fprintf(p->out, "%.*s ", (int)v.length, v.data);
  }
  symbol(p, op, mlirStringAttrGetValue(name));
  fputc('(', p->out);
  for (intptr_t i = 0; i < mlirFunctionTypeGetNumInputs(ft); i++) {
    fprintf(p->out, "%s%s: ", i ? ", " : "",
            mlirBlockIsNull(body) ? "" : name_of(p, mlirBlockGetArgument(body, i)));
    type(p, mlirFunctionTypeGetInput(ft, i));
    MlirAttribute d = mlirAttributeIsNull(args) ? args : mlirArrayAttrGetElement(args, i);
    if (!mlirAttributeIsNull(d) && mlirDictionaryAttrGetNumElements(d)) {
      fputc(' ', p->out);
      attr(p, d);
    }
  }
  fputc(')', p->out);
  intptr_t nres = mlirFunctionTypeGetNumResults(ft);
  bool res_attrs = false;
  for (intptr_t i = 0; i < nres && !mlirAttributeIsNull(res); i++)
    res_attrs |= mlirDictionaryAttrGetNumElements(mlirArrayAttrGetElement(res, i)) > 0;
  if (nres) {
    bool parens = nres > 1 || res_attrs;
    fputs(parens ? " -> (" : " -> ", p->out);
    for (intptr_t i = 0; i < nres; i++) {
      fputs(i ? ", " : "", p->out);
      type(p, mlirFunctionTypeGetResult(ft, i));
      MlirAttribute d = mlirAttributeIsNull(res) ? res : mlirArrayAttrGetElement(res, i);
      if (!mlirAttributeIsNull(d) && mlirDictionaryAttrGetNumElements(d)) {
        fputc(' ', p->out);
        attr(p, d);
      }
    }
    if (parens)
      fputc(')', p->out);
  }
  if (mlirOperationGetNumAttributes(op) > 0) {
    /* Any other attribute: `attributes {...}` after the signature. */
    bool other = false;
    for (intptr_t i = 0; i < mlirOperationGetNumAttributes(op) && !other; i++) {
      bool is_own = false;
      for (const char *const *s = own; *s && !is_own; s++)
        is_own = named(mlirOperationGetAttribute(op, i), *s);
      other = !is_own;
    }
    if (other)
      fputs(" attributes", p->out);
  }
  attr_dict(p, op, own);
  if (mlirBlockIsNull(body)) {
    fputc('\n', p->out);
    return;
  }
  fputs(" {\n", p->out);
  bool saved = p->func_default;
  p->func_default = true;
  block_ops(p, body, depth + 1);
  p->func_default = saved;
  indent(p, depth);
  fputs("}\n", p->out);
}

static void print_module(printer *p, MlirOperation op, int depth) {
  static const char *const own[] = {"sym_name", NULL};
  MlirAttribute name = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
  fputs("module", p->out);
  if (!mlirAttributeIsNull(name)) {
    fputc(' ', p->out);
    symbol(p, op, mlirStringAttrGetValue(name));
  }
  bool has_attrs = mlirOperationGetNumAttributes(op) > (mlirAttributeIsNull(name) ? 0 : 1);
  if (has_attrs) {
    fputs(" attributes", p->out);
    attr_dict(p, op, own);
  }
  fputs(" {\n", p->out);
  block_ops(p, mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)), depth + 1);
  indent(p, depth);
  fputs("}\n", p->out);
}

/* `stablehlo.while(%iterArg = %a, ...) : A, ...` then `cond { ... } do
 * { ... }` (its attributes after the types), its regions in a custom-form
 * op's scope (func's names whole); false (refused) for regions of other
 * shapes. */
static bool print_while(printer *p, MlirOperation op, int depth) {
  MlirBlock cond = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 1));
  intptr_t n = mlirOperationGetNumOperands(op);
  if (mlirOperationGetNumRegions(op) != 2 || mlirBlockIsNull(cond) || mlirBlockIsNull(body) || mlirBlockGetNumArguments(cond) != n)
    return false;
  fputs("stablehlo.while(", p->out);
  for (intptr_t i = 0; i < n; i++)
    fprintf(p->out, "%s%s = %s", i ? ", " : "", name_of(p, mlirBlockGetArgument(cond, i)),
            name_of(p, mlirOperationGetOperand(op, i)));
  fputs(")", p->out);
  if (n) {
    fputs(" : ", p->out);
    operand_types(p, op);
  }
  if (mlirOperationGetNumAttributes(op)) {
    fputs(" attributes", p->out);
    attr_dict(p, op, NULL);
  }
  fputc('\n', p->out);
  bool saved = p->func_default;
  p->func_default = false;
  indent(p, depth);
  fputs("cond {\n", p->out);
  block_ops(p, cond, depth + 1);
  indent(p, depth);
  fputs("} do {\n", p->out);
  block_ops(p, body, depth + 1);
  indent(p, depth);
  fputc('}', p->out);
  p->func_default = saved;
  return true;
}

/* The compact form of a reduction whose body is one binary op of its two
 * arguments, returned (stablehlo's printReduceOp): `stablehlo.reduce(%x
 * init: %i) applies stablehlo.add across dimensions = [1] : (A, I) -> R`;
 * false (refused) for any other reduction. */
static bool print_reduce(printer *p, MlirOperation op) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  MlirAttribute dims = attr_named(op, "dimensions");
  if (mlirOperationGetNumRegions(op) != 1 || mlirBlockIsNull(body) ||
      mlirOperationGetNumOperands(op) != 2 || mlirBlockGetNumArguments(body) != 2 ||
      mlirOperationGetNumAttributes(op) != 1 || mlirAttributeIsNull(dims))
    return false;
  MlirOperation inner = mlirBlockGetFirstOperation(body);
  MlirOperation ret = mlirOperationIsNull(inner) ? inner : mlirOperationGetNextInBlock(inner);
  if (mlirOperationIsNull(ret) || !mlirOperationIsNull(mlirOperationGetNextInBlock(ret)) ||
      !one_of(inner, binary) || mlirOperationGetNumAttributes(inner) ||
      mlirOperationGetNumResults(inner) != 1 || !op_is(ret, "stablehlo.return") ||
      mlirOperationGetNumOperands(ret) != 1 ||
      !mlirValueEqual(mlirOperationGetOperand(ret, 0), mlirOperationGetResult(inner, 0)) ||
      !mlirValueEqual(mlirOperationGetOperand(inner, 0), mlirBlockGetArgument(body, 0)) ||
      !mlirValueEqual(mlirOperationGetOperand(inner, 1), mlirBlockGetArgument(body, 1)))
    return false;
  fprintf(p->out, "stablehlo.reduce(%s init: %s) applies ",
          name_of(p, mlirOperationGetOperand(op, 0)), name_of(p, mlirOperationGetOperand(op, 1)));
  op_name(p, inner);
  fputs(" across dimensions = ", p->out);
  i64_list(p, dims);
  fputs(" : ", p->out);
  functional_type(p, op);
  return true;
}

static void print_op(printer *p, MlirOperation op, int depth) {
  if (op_is(op, "builtin.module")) {
    indent(p, depth);
    print_module(p, op, depth);
    return;
  }
  if (op_is(op, "func.func")) {
    indent(p, depth);
    print_func(p, op, depth);
    return;
  }
  indent(p, depth);
  results(p, op);
  static const char *const callee[] = {"callee", NULL};
  static const char *const value[] = {"value", NULL};
  if (op_is(op, "func.return") || op_is(op, "stablehlo.return")) {
    fputs(op_is(op, "stablehlo.return") ? "stablehlo.return"
          : p->func_default             ? "return"
                                        : "func.return",
          p->out);
    if (mlirOperationGetNumOperands(op)) {
      fputc(' ', p->out);
      operands(p, op);
    }
    attr_dict(p, op, NULL);
    if (mlirOperationGetNumOperands(op)) {
      fputs(" : ", p->out);
      operand_types(p, op);
    }
  } else if (op_is(op, "func.call")) {
    MlirAttribute c = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("callee"));
    fputs(p->func_default ? "call " : "func.call ", p->out);
    attr(p, c);
    fputc('(', p->out);
    operands(p, op);
    fputc(')', p->out);
    attr_dict(p, op, callee);
    fputs(" : ", p->out);
    functional_type(p, op);
  } else if (op_is(op, "stablehlo.constant") && mlirOperationGetNumOperands(op) == 0) {
    fputs("stablehlo.constant", p->out);
    attr_dict(p, op, value);
    fputc(' ', p->out);
    attr(p, mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("value")));
  } else if (one_of(op, unary) || one_of(op, binary) || op_is(op, "stablehlo.convert") ||
             op_is(op, "stablehlo.reshape")) {
    op_name(p, op);
    fputc(' ', p->out);
    operands(p, op);
    attr_dict(p, op, NULL);
    fputs(" : ", p->out);
    if (op_is(op, "stablehlo.reshape"))
      functional_type(p, op);
    else
      same_type(p, op);
  } else if (op_is(op, "stablehlo.broadcast_in_dim") || op_is(op, "stablehlo.dynamic_slice")) {
    static const char *const dims[] = {"broadcast_dimensions", NULL};
    static const char *const sizes[] = {"slice_sizes", NULL};
    bool broadcast = op_is(op, "stablehlo.broadcast_in_dim");
    op_name(p, op);
    fputc(' ', p->out);
    operands(p, op);
    fputs(broadcast ? ", dims = " : ", sizes = ", p->out);
    i64_list(p, attr_named(op, broadcast ? "broadcast_dimensions" : "slice_sizes"));
    attr_dict(p, op, broadcast ? dims : sizes);
    fputs(" : ", p->out);
    functional_type(p, op);
  } else if (op_is(op, "stablehlo.dynamic_update_slice")) {
    fputs("stablehlo.dynamic_update_slice ", p->out);
    operands(p, op);
    attr_dict(p, op, NULL);
    fputs(" : ", p->out);
    functional_type(p, op);
  } else if (op_is(op, "stablehlo.compare")) {
    static const char *const own[] = {"comparison_direction", "compare_type", NULL};
    MlirAttribute type_attr = attr_named(op, "compare_type");
    fputs("stablehlo.compare ", p->out);
    enum_word(p, attr_named(op, "comparison_direction"));
    fputs(", ", p->out);
    operands(p, op);
    if (!mlirAttributeIsNull(type_attr)) {
      fputs(", ", p->out);
      enum_word(p, type_attr);
    }
    attr_dict(p, op, own);
    fputs(" : ", p->out);
    functional_type(p, op);
  } else if (op_is(op, "stablehlo.select") && mlirOperationGetNumOperands(op) == 3) {
    fputs("stablehlo.select ", p->out);
    operands(p, op);
    attr_dict(p, op, NULL);
    fputs(" : ", p->out);
    /* hlo::printSelectOpType: the predicate's and the result's type when
     * both branches have the result's, else the functional type. */
    MlirType r = mlirValueGetType(mlirOperationGetResult(op, 0));
    if (mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(op, 1)), r) &&
        mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(op, 2)), r)) {
      type(p, mlirValueGetType(mlirOperationGetOperand(op, 0)));
      fputs(", ", p->out);
      type(p, r);
    } else {
      functional_type(p, op);
    }
  } else if (op_is(op, "stablehlo.create_token") && !mlirOperationGetNumOperands(op)) {
    fputs("stablehlo.create_token", p->out);
    attr_dict(p, op, NULL);
    fputs(" : ", p->out);
    result_types(p, op);
  } else if (op_is(op, "stablehlo.send") || op_is(op, "stablehlo.recv")) {
    static const char *const inherent[] = {"channel_handle", "is_host_transfer",
                                           "source_target_pairs", NULL};
    generic_with_properties(p, op, inherent);
  } else if (op_is(op, "stablehlo.custom_call") &&
             !mlirAttributeIsNull(attr_named(op, "call_target_name"))) {
    print_custom_call(p, op);
  } else if (op_is(op, "sdy.mesh") && print_mesh(p, op)) {
  } else if (op_is(op, "stablehlo.while") && print_while(p, op, depth)) {
  } else if (op_is(op, "stablehlo.reduce") && print_reduce(p, op)) {
  } else if (op_is(op, "stablehlo.case")) {
    fputs("\"stablehlo.case\"(", p->out);
    operands(p, op);
    fputc(')', p->out);
    if (!regions(p, op, depth)) {
      p->refused = true;
      snprintf(p->refused_name, sizeof p->refused_name, "stablehlo.case");
      return;
    }
    attr_dict(p, op, NULL);
    fputs(" : ", p->out);
    functional_type(p, op);
  } else {
    MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
    snprintf(p->refused_name, sizeof p->refused_name, "%.*s", (int)s.length, s.data);
    p->refused = true;
    return;
  }
  fputc('\n', p->out);
}

bool cli_pretty_print(MlirModule module, FILE *out, char *refused, size_t refused_size) {
  printer p = {.out = out};
  MlirOperation top = mlirModuleGetOperation(module);
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(top); r++)
    number_region(&p, mlirOperationGetRegion(top, r), (counters){0, 0, 0}, false);
  if (!p.failed)
    print_op(&p, top, 0);
  bool ok = !p.failed && !p.refused;
  if (refused_size)
    snprintf(refused, refused_size, "%s", p.refused ? p.refused_name : "");
  for (size_t i = 0; i < p.cap; i++)
    free(p.names[i].name);
  free(p.names);
  while (p.scope_len)
    free(p.scope[--p.scope_len]);
  free(p.scope);
  return ok;
}

int cli_pretty_text(const char *command, MlirModule module, char **text, size_t *size) {
  *text = NULL;
  *size = 0;
  FILE *mem = open_memstream(text, size);
  char refused[128] = "";
  bool ok = mem && cli_pretty_print(module, mem, refused, sizeof refused);
  if (mem && fclose(mem))
    ok = false;
  if (ok)
    return 0;
  free(*text);
  *text = NULL;
  if (!refused[0])
    return cli_report(&(lsim_error){LSIM_E_NO_MEMORY, NULL});
  fprintf(stderr,
          "lowersim %s: the module has %s, whose pretty form lowersim does not print (it "
          "prints: %s); without --pretty the module is printed in MLIR's generic form\n",
          command, refused, cli_pretty_ops);
  return EXIT_INVALID_INPUT;
}

char *cli_module_text(const lsim_lowering *lowering, bool generic, char *refused,
                      size_t refused_size) {
  if (refused_size)
    refused[0] = '\0';
  if (generic)
    return lsim_lowering_print(lowering);
  char *text = NULL;
  size_t size = 0;
  FILE *mem = open_memstream(&text, &size);
  if (!mem)
    return NULL;
  bool ok = cli_pretty_print(lsim_lowering_module(lowering), mem, refused, refused_size);
  if (fclose(mem))
    ok = false;
  if (ok)
    return text;
  free(text);
  return refused_size && refused[0] ? lsim_lowering_print(lowering) : NULL;
}
