/* lower/spill.c: main's body printed while it is lowered, and freed (see
 * spill.h).  The printer follows MLIR 19's AsmPrinter: value numbers as
 * SSANameState gives them (main's values first, then each nested region's
 * from where its parent region's end, siblings alike; entry-block arguments
 * %argN counted on from main's), the generic form, func's custom forms, and
 * types and attributes printed by MLIR itself.  tests/test_spill.c and
 * tests/stream_test.sh hold the text to MLIR's, the latter on every module
 * of testdata/. */
#include "spill.h"
#include "lowersim/alloc.h"
#include "lowersim/sharding.h"
#include "lowersim/verify.h"
#include "support/raise.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* In the file, a nested value's number relative to where nested values
 * start: MARK, its digits, END (MARK END alone is a MARK byte of MLIR's
 * own text).  MLIR's text never holds either byte otherwise: it escapes
 * control characters in strings. */
enum { MARK = 0x01, END = 0x02 };

/* The body's placeholder, as MLIR prints it on its own line in main. */
static const char placeholder_op[] = "lsimp.spilled_body";
static const char placeholder_line[] = "\n    \"lsimp.spilled_body\"() : () -> ()";

/* --- a table keyed by an op's or a block's address ---------------------------- */

typedef struct slot {
  const void *key; /* NULL, or of an older generation: free */
  unsigned gen;
  bool queued;     /* (ops of main) on the queue of ops to free */
  bool hollow;     /* (ops of main) its operands and nested ops dropped */
  uint32_t holds;  /* (ops of main) jaxpr values it defines still to be read */
  size_t number;   /* its value number (an op), its first argument's (a block) */
} slot;

typedef struct table {
  slot *slots;
  size_t cap, count;
  unsigned gen; /* clearing starts a generation */
} table;

static size_t hash_of(const void *key, size_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 32) & (cap - 1);
}

static bool used(const table *t, const slot *s) { return s->key && s->gen == t->gen; }

static slot *probe(const table *t, const void *key) {
  size_t i = hash_of(key, t->cap);
  while (used(t, &t->slots[i]) && t->slots[i].key != key)
    i = (i + 1) & (t->cap - 1);
  return &t->slots[i];
}

static slot *find(const table *t, const void *key) {
  if (!t->cap)
    return NULL;
  slot *s = probe(t, key);
  return used(t, s) ? s : NULL;
}

/* Where lsim_hash_grow puts an old slot in the bigger table (NULL: free). */
static void *place(void *slots, size_t cap, const void *old) {
  const slot *o = old;
  if (!o->key)
    return NULL;
  slot *to = slots;
  size_t i = hash_of(o->key, cap);
  while (to[i].key)
    i = (i + 1) & (cap - 1);
  return &to[i];
}

static bool grow(table *t) {
  for (size_t i = 0; i < t->cap; i++) /* an older generation's slots are not moved */
    if (!used(t, &t->slots[i]))
      t->slots[i].key = NULL;
  return lsim_hash_grow(&t->slots, &t->cap, t->cap ? t->cap * 2 : 256, 256, sizeof(slot), place);
}

/* The slot of `key`, added (zeroed) when absent; NULL when out of memory. */
static slot *add(table *t, const void *key) {
  if ((t->count + 1) * 4 > t->cap * 3 && !grow(t))
    return NULL;
  slot *s = probe(t, key);
  if (!used(t, s)) {
    *s = (slot){.key = key, .gen = t->gen};
    t->count++;
  }
  return s;
}

/* Removes `s` (linear probing: the entries after it move back to where a
 * probe finds them). */
static void remove_slot(table *t, slot *s) {
  size_t i = (size_t)(s - t->slots), j = i;
  for (;;) {
    t->slots[i].key = NULL;
    for (;;) {
      j = (j + 1) & (t->cap - 1);
      if (!used(t, &t->slots[j]))
        goto done;
      size_t home = hash_of(t->slots[j].key, t->cap);
      /* Moves back unless its home lies cyclically in (i, j]. */
      if (i <= j ? (home <= i || home > j) : (home <= i && home > j))
        break;
    }
    t->slots[i] = t->slots[j];
    i = j;
  }
done:
  t->count--;
}

static void clear(table *t) {
  t->count = 0;
  if (++t->gen == 0) { /* wrapped: every slot free for real */
    memset(t->slots, 0, t->cap * sizeof *t->slots);
    t->gen = 1;
  }
}

/* --- the spill ------------------------------------------------------------------- */

enum { BUFFER = 1 << 16 };

struct lsimp_spill {
  int fd; /* the temporary file, unlinked */
  bool write_failed;
  size_t buffered;   /* bytes of `buffer` not written yet */
  char *buffer;      /* BUFFER bytes */
  lsimp_strbuf scratch; /* one type's or attribute's text */
  lsimp_strbuf texts;   /* the cached texts */
  table cache;          /* type or attribute -> its text: `number` its offset in
                           texts, `holds` its length */
  char problem[160]; /* what the printer cannot print */
  bool out_of_memory; /* the printer's tables could not grow */
  lsim_module_context *mc;
  MlirContext mlir;
  MlirBlock block;        /* main's body */
  MlirOperation frontier; /* the last op printed (kept until the next is) */
  size_t num_args;
  size_t next_number; /* main's values numbered so far */
  size_t total;       /* after finish: all of main's values (nested ones start there) */
  const lsim_token_set *tokens;
  MlirOperation *token_owners; /* per token kind, the op whose result it was */
  table ops;                   /* main's ops in memory */
  table nested;                /* one op's nested ops and blocks */
  /* main's func.calls, their symbol uses checked once the module has all
   * its functions (lsimp_spill_seal): the callee, and the call's type. */
  struct call {
    MlirAttribute callee;
    MlirType type;
  } *calls;
  size_t num_calls, cap_calls;
  MlirOperation *queue;        /* main's ops that may be freed */
  size_t queue_len, queue_cap;
  size_t printed, peak;
  bool finished, sealed;
};

int lsimp_spill_create(lsimp_spill **out, lsim_error *err) {
  *out = NULL;
  lsimp_spill *sp = lsim_calloc(1, sizeof *sp);
  if (!sp)
    return lsimp_fail_oom(err);
  const char *dir = getenv("TMPDIR");
  char path[4096];
  int n = snprintf(path, sizeof path, "%s/lowersim-spill-XXXXXX", dir && *dir ? dir : "/tmp");
  sp->fd = n > 0 && (size_t)n < sizeof path ? mkstemp(path) : -1;
  if (sp->fd < 0) {
    int e = errno;
    free(sp);
    return lsim_error_set(err, LSIM_E_IO, "no temporary file for main's body in %s: %s",
                          dir && *dir ? dir : "/tmp", strerror(e));
  }
  unlink(path);
  sp->buffer = lsim_malloc(BUFFER);
  if (!sp->buffer) {
    lsimp_spill_destroy(sp);
    return lsimp_fail_oom(err);
  }
  *out = sp;
  return LSIM_OK;
}

void lsimp_spill_destroy(lsimp_spill *sp) {
  if (!sp)
    return;
  close(sp->fd);
  free(sp->buffer);
  lsimp_strbuf_free(&sp->scratch);
  lsimp_strbuf_free(&sp->texts);
  free(sp->cache.slots);
  free(sp->token_owners);
  free(sp->calls);
  free(sp->ops.slots);
  free(sp->nested.slots);
  free(sp->queue);
  free(sp);
}

size_t lsimp_spill_ops_printed(const lsimp_spill *sp) { return sp->printed; }
size_t lsimp_spill_ops_peak(const lsimp_spill *sp) { return sp->peak; }

/* --- the printer ------------------------------------------------------------------ */

static void write_all(lsimp_spill *sp, const char *p, size_t n) {
  while (n && !sp->write_failed) {
    ssize_t done = write(sp->fd, p, n);
    if (done < 0 && errno == EINTR)
      continue;
    if (done <= 0)
      sp->write_failed = true;
    else
      p += done, n -= (size_t)done;
  }
}

static void flush(lsimp_spill *sp) {
  write_all(sp, sp->buffer, sp->buffered);
  sp->buffered = 0;
}

static void put(lsimp_spill *sp, const char *s, size_t n) {
  if (n > BUFFER - sp->buffered) {
    flush(sp);
    if (n >= BUFFER) {
      write_all(sp, s, n);
      return;
    }
  }
  memcpy(sp->buffer + sp->buffered, s, n);
  sp->buffered += n;
}

static void puts_(lsimp_spill *sp, const char *s) { put(sp, s, strlen(s)); }

static void put_number(lsimp_spill *sp, size_t v) {
  char digits[24];
  int n = snprintf(digits, sizeof digits, "%zu", v);
  put(sp, digits, (size_t)n);
}

static void indent(lsimp_spill *sp, size_t n) {
  static const char spaces[] = "                                ";
  for (; n > sizeof spaces - 1; n -= sizeof spaces - 1)
    put(sp, spaces, sizeof spaces - 1);
  put(sp, spaces, n);
}

/* MLIR's text, MARK bytes escaped. */
static void put_mlir(MlirStringRef text, void *data) {
  lsimp_spill *sp = data;
  const char *s = text.data, *end = s + text.length;
  for (const char *m; (m = memchr(s, MARK, (size_t)(end - s))); s = m + 1) {
    static const char mark[2] = {MARK, END};
    put(sp, s, (size_t)(m - s));
    put(sp, mark, 2);
  }
  put(sp, s, (size_t)(end - s));
}

/* Texts of up to this many bytes are kept: MLIR's printer sets up its
 * state for every type or attribute printed alone, and a module repeats a
 * few of them. */
enum { CACHED_MAX = 256 };

/* A type's or an attribute's text, MLIR's, cached by its address (MLIR
 * uniques both). */
static void cached_text(lsimp_spill *sp, const void *key, bool is_type) {
  slot *s = find(&sp->cache, key);
  if (s) {
    put_mlir(mlirStringRefCreate(sp->texts.data + s->number, s->holds), sp);
    return;
  }
  lsimp_strbuf_reset(&sp->scratch);
  if (is_type)
    mlirTypePrint((MlirType){key}, lsimp_strbuf_append_mlir, &sp->scratch);
  else
    mlirAttributePrint((MlirAttribute){key}, lsimp_strbuf_append_mlir, &sp->scratch);
  if (lsimp_strbuf_failed(&sp->scratch)) {
    sp->out_of_memory = true;
    return;
  }
  size_t n = sp->scratch.len, at = sp->texts.len;
  put_mlir(mlirStringRefCreate(sp->scratch.data, n), sp);
  if (n > CACHED_MAX)
    return;
  lsimp_strbuf_append(&sp->texts, sp->scratch.data, n);
  if (lsimp_strbuf_failed(&sp->texts) || !(s = add(&sp->cache, key))) {
    sp->out_of_memory = true;
    return;
  }
  s->number = at;
  s->holds = (uint32_t)n;
}

static void type(lsimp_spill *sp, MlirType t) { cached_text(sp, t.ptr, true); }

static void attribute(lsimp_spill *sp, MlirAttribute a) { cached_text(sp, a.ptr, false); }

/* llvm::printEscapedString: `\\` doubled, unprintable bytes and `"` as
 * \XX. */
static void escaped(lsimp_spill *sp, MlirStringRef s) {
  static const char hex[] = "0123456789ABCDEF";
  for (size_t i = 0; i < s.length; i++) {
    unsigned char c = (unsigned char)s.data[i];
    if (c == '\\') {
      put(sp, "\\\\", 2);
    } else if (c >= 0x20 && c < 0x7f && c != '"') {
      put(sp, (const char *)&c, 1);
    } else {
      char e[3] = {'\\', hex[c >> 4], hex[c & 15]};
      put(sp, e, 3);
    }
  }
}

/* An attribute's name: bare when it is an identifier, else quoted. */
static bool letter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static void keyword_or_string(lsimp_spill *sp, MlirStringRef s) {
  bool bare = s.length > 0 && (s.data[0] == '_' || letter((unsigned char)s.data[0]));
  for (size_t i = 1; bare && i < s.length; i++) {
    unsigned char c = (unsigned char)s.data[i];
    bare = c == '_' || c == '$' || c == '.' || (c >= '0' && c <= '9') || letter(c);
  }
  if (bare) {
    put(sp, s.data, s.length);
  } else {
    put(sp, "\"", 1);
    escaped(sp, s);
    put(sp, "\"", 1);
  }
}

static bool named(MlirOperation op, const char *name) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(name) && memcmp(n.data, name, n.length) == 0;
}

static bool cannot(lsimp_spill *sp, const char *what, MlirOperation op) {
  if (!sp->problem[0]) {
    MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
    snprintf(sp->problem, sizeof sp->problem, "%.*s: %s", (int)(n.length > 80 ? 80 : n.length),
             n.data, what);
  }
  return false;
}

/* The number of an op's results: %N (main's), or a nested one relative to
 * where nested values start.  False: the op is not numbered. */
static bool number(lsimp_spill *sp, MlirOperation op) {
  slot *s = find(&sp->nested, op.ptr);
  put(sp, "%", 1);
  if (s) {
    const char mark = MARK, end = END;
    put(sp, &mark, 1);
    put_number(sp, s->number);
    put(sp, &end, 1);
  } else if ((s = find(&sp->ops, op.ptr))) {
    put_number(sp, s->number);
  } else {
    return false;
  }
  return true;
}

/* A value: %argN, or its op's number, with #k of an op of several
 * results. */
static bool value(lsimp_spill *sp, MlirValue v, MlirOperation user) {
  if (mlirValueIsABlockArgument(v)) {
    MlirBlock b = mlirBlockArgumentGetOwner(v);
    size_t first;
    if (b.ptr == sp->block.ptr) {
      first = 0;
    } else {
      slot *s = find(&sp->nested, b.ptr);
      if (!s)
        return cannot(sp, "an operand is an argument of a block outside main", user);
      first = s->number;
    }
    puts_(sp, "%arg");
    put_number(sp, first + (size_t)mlirBlockArgumentGetArgNumber(v));
    return true;
  }
  MlirOperation owner = mlirOpResultGetOwner(v);
  if (!number(sp, owner))
    return cannot(sp, "an operand is defined outside main", user);
  if (mlirOperationGetNumResults(owner) > 1) {
    put(sp, "#", 1);
    put_number(sp, (size_t)mlirOpResultGetResultNumber(v));
  }
  return true;
}

static bool operands(lsimp_spill *sp, MlirOperation op) {
  bool ok = true;
  for (intptr_t i = 0; ok && i < mlirOperationGetNumOperands(op); i++) {
    if (i)
      put(sp, ", ", 2);
    ok = value(sp, mlirOperationGetOperand(op, i), op);
  }
  return ok;
}

/* ` {a = 1 : i32, b}`, skipping `skip` (NULL: none); nothing when empty. */
static void attr_dict(lsimp_spill *sp, MlirOperation op, const char *skip) {
  size_t printed = 0;
  for (intptr_t i = 0; i < mlirOperationGetNumDiscardableAttributes(op); i++) {
    MlirNamedAttribute a = mlirOperationGetDiscardableAttribute(op, i);
    MlirStringRef name = mlirIdentifierStr(a.name);
    if (skip && name.length == strlen(skip) && memcmp(name.data, skip, name.length) == 0)
      continue;
    put(sp, printed++ ? ", " : " {", 2);
    keyword_or_string(sp, name);
    if (!mlirAttributeIsAUnit(a.attribute)) {
      put(sp, " = ", 3);
      attribute(sp, a.attribute);
    }
  }
  if (printed)
    put(sp, "}", 1);
}

/* `(operand types) -> result` (several, none or a function type: in
 * parentheses). */
static void functional_type(lsimp_spill *sp, MlirOperation op) {
  put(sp, "(", 1);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++) {
    if (i)
      put(sp, ", ", 2);
    type(sp, mlirValueGetType(mlirOperationGetOperand(op, i)));
  }
  put(sp, ") -> ", 5);
  intptr_t n = mlirOperationGetNumResults(op);
  bool wrapped = n != 1 || mlirTypeIsAFunction(mlirValueGetType(mlirOperationGetResult(op, 0)));
  if (wrapped)
    put(sp, "(", 1);
  for (intptr_t i = 0; i < n; i++) {
    if (i)
      put(sp, ", ", 2);
    type(sp, mlirValueGetType(mlirOperationGetResult(op, i)));
  }
  if (wrapped)
    put(sp, ")", 1);
}

static bool print_op(lsimp_spill *sp, MlirOperation op, size_t at, size_t rel, size_t arg,
                     bool in_main);

/* A region of a generic op: its one block's ops numbered from `rel`
 * (relative), its arguments from %arg`arg`; the regions of its ops start
 * where its own values end. */
static bool print_region(lsimp_spill *sp, MlirRegion region, size_t at, size_t rel, size_t arg,
                         MlirOperation parent) {
  MlirBlock block = mlirRegionGetFirstBlock(region);
  put(sp, "{\n", 2);
  if (mlirBlockIsNull(block)) {
    indent(sp, at);
    put(sp, "}", 1);
    return true;
  }
  if (!mlirBlockIsNull(mlirBlockGetNextInRegion(block)))
    return cannot(sp, "a region of several blocks", parent);
  slot *b = add(&sp->nested, block.ptr);
  if (!b)
    return sp->out_of_memory = true, false;
  b->number = arg;
  size_t num_args = (size_t)mlirBlockGetNumArguments(block), next = rel;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (mlirOperationGetNumResults(op) == 0)
      continue;
    slot *s = add(&sp->nested, op.ptr);
    if (!s)
      return sp->out_of_memory = true, false;
    s->number = next++;
  }
  MlirOperation first = mlirBlockGetFirstOperation(block);
  if (num_args || mlirOperationIsNull(first)) {
    indent(sp, at);
    put(sp, "^bb0", 4);
    for (size_t i = 0; i < num_args; i++) {
      put(sp, i ? ", " : "(", i ? 2 : 1);
      puts_(sp, "%arg");
      put_number(sp, arg + i);
      put(sp, ": ", 2);
      type(sp, mlirValueGetType(mlirBlockGetArgument(block, (intptr_t)i)));
    }
    put(sp, num_args ? "):\n" : ":\n", num_args ? 3 : 2);
  }
  bool ok = true;
  for (MlirOperation op = first; ok && !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    ok = print_op(sp, op, at + 2, next, arg + num_args, false);
    put(sp, "\n", 1);
  }
  indent(sp, at);
  put(sp, "}", 1);
  return ok;
}

/* A call's callee and type, for lsimp_spill_seal. */
static void note_call(lsimp_spill *sp, MlirOperation op, MlirAttribute callee) {
  MlirType few[8], *types = few;
  intptr_t n = mlirOperationGetNumOperands(op), m = mlirOperationGetNumResults(op);
  if (n + m > 8 && !(types = lsim_malloc_array((size_t)(n + m), sizeof *types))) {
    sp->out_of_memory = true;
    return;
  }
  for (intptr_t i = 0; i < n; i++)
    types[i] = mlirValueGetType(mlirOperationGetOperand(op, i));
  for (intptr_t i = 0; i < m; i++)
    types[n + i] = mlirValueGetType(mlirOperationGetResult(op, i));
  MlirType type = mlirFunctionTypeGet(sp->mlir, n, types, m, types + n);
  if (types != few)
    free(types);
  if (!lsim_grow_array(&sp->calls, &sp->cap_calls, sp->num_calls + 1, sizeof *sp->calls)) {
    sp->out_of_memory = true;
    return;
  }
  sp->calls[sp->num_calls++] = (struct call){callee, type};
}

/* func.call as func prints it: `call @f(%0) {attrs} : (t) -> t`. */
static bool print_call(lsimp_spill *sp, MlirOperation op, bool in_main) {
  MlirAttribute callee =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("callee"));
  if (mlirAttributeIsNull(callee) || !mlirAttributeIsAFlatSymbolRef(callee))
    return cannot(sp, "a call without a callee", op);
  note_call(sp, op, callee);
  puts_(sp, in_main ? "call " : "func.call ");
  attribute(sp, callee);
  put(sp, "(", 1);
  bool ok = operands(sp, op);
  put(sp, ")", 1);
  attr_dict(sp, op, "callee");
  put(sp, " : ", 3);
  functional_type(sp, op);
  return ok;
}

/* func.return: `return %0, %1 : t, u`. */
static bool print_return(lsimp_spill *sp, MlirOperation op, bool in_main) {
  puts_(sp, in_main ? "return" : "func.return");
  attr_dict(sp, op, NULL);
  intptr_t n = mlirOperationGetNumOperands(op);
  if (!n)
    return true;
  put(sp, " ", 1);
  bool ok = operands(sp, op);
  put(sp, " : ", 3);
  for (intptr_t i = 0; i < n; i++) {
    if (i)
      put(sp, ", ", 2);
    type(sp, mlirValueGetType(mlirOperationGetOperand(op, i)));
  }
  return ok;
}

/* One op at indentation `at`, its regions' values from `rel` and their
 * arguments from %arg`arg`; `in_main`: in main's body, where func is the
 * default dialect. */
static bool print_op(lsimp_spill *sp, MlirOperation op, size_t at, size_t rel, size_t arg,
                     bool in_main) {
  indent(sp, at);
  intptr_t num_results = mlirOperationGetNumResults(op);
  if (num_results) {
    number(sp, op);
    if (num_results > 1) {
      put(sp, ":", 1);
      put_number(sp, (size_t)num_results);
    }
    put(sp, " = ", 3);
  }
  MlirIdentifier name = mlirOperationGetName(op);
  if (mlirContextIsRegisteredOperation(sp->mlir, mlirIdentifierStr(name))) {
    if (named(op, "func.call"))
      return print_call(sp, op, in_main);
    if (named(op, "func.return"))
      return print_return(sp, op, in_main);
    return cannot(sp, "a registered op lowersim does not print", op);
  }
  if (mlirOperationGetNumSuccessors(op))
    return cannot(sp, "an op with successors", op);
  put(sp, "\"", 1);
  escaped(sp, mlirIdentifierStr(name));
  put(sp, "\"(", 2);
  bool ok = operands(sp, op);
  put(sp, ")", 1);
  intptr_t num_regions = mlirOperationGetNumRegions(op);
  if (num_regions) {
    put(sp, " (", 2);
    for (intptr_t i = 0; ok && i < num_regions; i++) {
      if (i)
        put(sp, ", ", 2);
      ok = print_region(sp, mlirOperationGetRegion(op, i), at, rel, arg, op);
    }
    put(sp, ")", 1);
  }
  attr_dict(sp, op, NULL);
  put(sp, " : ", 3);
  functional_type(sp, op);
  return ok;
}

/* --- main's ops: verified, printed, freed -------------------------------------- */

enum { MAX_MESHES = LSIM_VERIFY_MAX_MESHES, MESH_NAME_MAX = 48 };

/* lsim_verify_op with the meshes the module context has named so far. */
static int verify(lsimp_spill *sp, MlirOperation op, lsim_error *err) {
  char names[MAX_MESHES][MESH_NAME_MAX];
  MlirStringRef refs[MAX_MESHES];
  size_t n = sp->mc && lsim_module_context_profile(sp->mc)->use_shardy_partitioner
                 ? lsim_module_context_mesh_count(sp->mc)
                 : 0;
  if (n > MAX_MESHES)
    return lsim_error_set(err, LSIM_E_VERIFY, "lowersim's stablehlo checks fail: sdy.mesh: "
                                              "more meshes than lowersim declares");
  for (size_t i = 0; i < n; i++)
    refs[i] = mlirStringRefCreateFromCString(
        lsim_mesh_name(lsim_module_context_mesh_at(sp->mc, i), names[i], MESH_NAME_MAX));
  return lsim_verify_op(op, refs, n, err);
}

static bool enqueue(lsimp_spill *sp, slot *s) {
  if (s->queued)
    return true;
  if (!lsim_grow_array(&sp->queue, &sp->queue_cap, sp->queue_len + 1, sizeof *sp->queue))
    return false;
  s->queued = true;
  sp->queue[sp->queue_len++] = (MlirOperation){(void *)s->key};
  return true;
}

/* Each op of main not printed yet: verified, numbered, printed and put on
 * the queue; so is the op printed before it, which stops being the
 * frontier (the queue may have passed it over as the frontier). */
static int print_new_ops(lsimp_spill *sp, lsim_error *err) {
  MlirOperation op = mlirOperationIsNull(sp->frontier) ? mlirBlockGetFirstOperation(sp->block)
                                                       : mlirOperationGetNextInBlock(sp->frontier);
  for (; !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    int rc = verify(sp, op, err);
    if (rc)
      return rc;
    slot *s = add(&sp->ops, op.ptr);
    if (!s || (!mlirOperationIsNull(sp->frontier) &&
               !enqueue(sp, find(&sp->ops, sp->frontier.ptr))))
      return lsimp_fail_oom(err);
    s = find(&sp->ops, op.ptr); /* the queue's growth does not move slots, a table's does */
    if (!enqueue(sp, s))
      return lsimp_fail_oom(err);
    if (mlirOperationGetNumResults(op))
      s->number = sp->next_number++;
    clear(&sp->nested);
    put(sp, "\n", 1);
    bool ok = print_op(sp, op, 4, 0, sp->num_args, true) && !sp->out_of_memory;
    if (!ok)
      return sp->out_of_memory ? lsimp_fail_oom(err)
                 : lsim_error_set(err, LSIM_E_VERIFY,
                                  "lowersim cannot print main's body as it lowers it: %s",
                                  sp->problem);
    sp->frontier = op;
    sp->printed++;
    if (sp->ops.count > sp->peak)
      sp->peak = sp->ops.count;
  }
  return LSIM_OK;
}

/* The op of main whose result `v` is, or NULL. */
static slot *owner_slot(const lsimp_spill *sp, MlirValue v) {
  return mlirValueIsAOpResult(v) ? find(&sp->ops, mlirOpResultGetOwner(v).ptr) : NULL;
}

static bool has_uses(MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); i++)
    if (!mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(op, i))))
      return true;
  return false;
}

static bool holds_token(const lsimp_spill *sp, MlirOperation op) {
  for (size_t i = 0; sp->tokens && i < sp->tokens->count; i++)
    if (sp->token_owners[i].ptr == op.ptr)
      return true;
  return false;
}

/* The ops of main an op's operands (its nested ops' too) are results of,
 * queued: freeing it may leave them unused. */
typedef struct queue_walk {
  lsimp_spill *sp;
  bool failed;
} queue_walk;

static MlirWalkResult queue_operand_owners(MlirOperation op, void *data) {
  queue_walk *w = data;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++) {
    slot *s = owner_slot(w->sp, mlirOperationGetOperand(op, i));
    if (s && !enqueue(w->sp, s)) {
      w->failed = true;
      return MlirWalkResultInterrupt;
    }
  }
  return MlirWalkResultAdvance;
}

/* The ops of a block destroyed, the last first: users go before what they
 * use. */
static bool empty_block(MlirBlock block) {
  size_t n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    n++;
  MlirOperation few[16], *ops = n <= 16 ? few : lsim_malloc_array(n, sizeof *ops);
  if (!ops)
    return false;
  n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    ops[n++] = op;
  while (n)
    mlirOperationDestroy(ops[--n]);
  if (ops != few)
    free(ops);
  return true;
}

/* A printed op of main whose results are still read: its operands and
 * nested ops dropped, so that it holds nothing else alive; the ops it used
 * queued. */
static bool hollow_out(lsimp_spill *sp, MlirOperation op) {
  queue_walk w = {sp, false};
  mlirOperationWalk(op, queue_operand_owners, &w, MlirWalkPreOrder);
  if (w.failed)
    return false;
  mlirOperationSetOperands(op, 0, NULL);
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      if (!empty_block(b))
        return false;
  return true;
}

/* Each queued op: freed when no equation will read it and no op uses it,
 * else hollowed out.  (The frontier stays, hollowed.) */
static int free_dead_ops(lsimp_spill *sp, lsim_error *err) {
  while (sp->queue_len) {
    MlirOperation op = sp->queue[--sp->queue_len];
    slot *s = find(&sp->ops, op.ptr);
    s->queued = false;
    if (op.ptr == sp->frontier.ptr || s->holds || holds_token(sp, op) || has_uses(op)) {
      if (!s->hollow) {
        s->hollow = true;
        if (!hollow_out(sp, op))
          return lsimp_fail_oom(err);
      }
      continue;
    }
    queue_walk w = {sp, false};
    if (!s->hollow)
      mlirOperationWalk(op, queue_operand_owners, &w, MlirWalkPreOrder);
    remove_slot(&sp->ops, s);
    mlirOperationDestroy(op);
    if (w.failed)
      return lsimp_fail_oom(err);
  }
  return LSIM_OK;
}

/* The tokens' owners now; the ops that held the old ones queued. */
static bool note_tokens(lsimp_spill *sp) {
  for (size_t i = 0; sp->tokens && i < sp->tokens->count; i++) {
    MlirValue t = sp->tokens->tokens[i];
    MlirOperation owner = !mlirValueIsNull(t) && mlirValueIsAOpResult(t)
                              ? mlirOpResultGetOwner(t)
                              : (MlirOperation){NULL};
    if (owner.ptr == sp->token_owners[i].ptr)
      continue;
    slot *old = mlirOperationIsNull(sp->token_owners[i]) ? NULL
                                                         : find(&sp->ops, sp->token_owners[i].ptr);
    sp->token_owners[i] = owner;
    if (old && !enqueue(sp, old))
      return false;
  }
  return true;
}

static int after_eqn(void *data, const MlirValue *born, size_t num_born, const MlirValue *dead,
                     size_t num_dead, lsim_error *err) {
  lsimp_spill *sp = data;
  int rc = print_new_ops(sp, err);
  if (rc)
    return rc;
  for (size_t i = 0; i < num_born; i++) {
    slot *s = owner_slot(sp, born[i]);
    if (s)
      s->holds++;
  }
  for (size_t i = 0; i < num_dead; i++) {
    slot *s = owner_slot(sp, dead[i]);
    if (s && s->holds)
      s->holds--;
    if (s && !enqueue(sp, s))
      return lsimp_fail_oom(err);
  }
  if (!note_tokens(sp))
    return lsimp_fail_oom(err);
  return free_dead_ops(sp, err);
}

int lsimp_spill_begin(lsimp_spill *sp, lsim_module_context *mc, MlirBlock block, size_t num_args,
                      const lsim_token_set *tokens, lsim_subcomp_observer *observer,
                      lsim_error *err) {
  sp->mc = mc;
  sp->mlir = mlirOperationGetContext(mlirBlockGetParentOperation(block));
  sp->block = block;
  sp->num_args = num_args;
  sp->tokens = tokens;
  sp->token_owners = lsim_calloc(tokens && tokens->count ? tokens->count : 1,
                                 sizeof *sp->token_owners);
  if (!sp->token_owners)
    return lsimp_fail_oom(err);
  *observer = (lsim_subcomp_observer){after_eqn, sp};
  return LSIM_OK;
}

static int io_failed(lsim_error *err) {
  return lsim_error_set(err, LSIM_E_IO, "main's body could not be written to its temporary "
                                        "file: %s",
                        strerror(errno ? errno : EIO));
}

int lsimp_spill_finish(lsimp_spill *sp, lsim_error *err) {
  int rc = print_new_ops(sp, err);
  if (rc)
    return rc;
  flush(sp);
  if (sp->out_of_memory)
    return lsimp_fail_oom(err);
  sp->total = sp->next_number;
  sp->finished = true;
  return sp->write_failed ? io_failed(err) : LSIM_OK;
}

/* What the module's verifier checks of a call in a function it sees
 * (CallOp::verifySymbolUses): the callee is a func.func of the module, of
 * the call's type. */
static int check_calls(lsimp_spill *sp, lsim_error *err) {
  if (!sp->num_calls)
    return LSIM_OK;
  MlirOperation module = mlirOperationGetParentOperation(mlirBlockGetParentOperation(sp->block));
  MlirSymbolTable symbols = mlirSymbolTableCreate(module);
  if (mlirSymbolTableIsNull(symbols))
    return lsimp_fail_oom(err);
  int rc = LSIM_OK;
  for (size_t i = 0; !rc && i < sp->num_calls; i++) {
    MlirStringRef name = mlirFlatSymbolRefAttrGetValue(sp->calls[i].callee);
    MlirOperation f = mlirSymbolTableLookup(symbols, name);
    const char *problem = NULL;
    if (mlirOperationIsNull(f) || !named(f, "func.func")) {
      problem = "'callee' does not reference a valid function";
    } else {
      MlirAttribute type =
          mlirOperationGetAttributeByName(f, mlirStringRefCreateFromCString("function_type"));
      if (mlirAttributeIsNull(type) ||
          !mlirTypeEqual(mlirTypeAttrGetValue(type), sp->calls[i].type))
        problem = "the callee's type is not the call's";
    }
    if (problem)
      rc = lsim_error_set(err, LSIM_E_VERIFY,
                          "the emitted module fails MLIR verification: 'func.call' op to "
                          "@%.*s in main: %s",
                          (int)(name.length > 80 ? 80 : name.length), name.data, problem);
  }
  mlirSymbolTableDestroy(symbols);
  return rc;
}

int lsimp_spill_seal(lsimp_spill *sp, lsim_error *err) {
  if (!sp->finished)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsimp_spill_seal before finish");
  int rc = check_calls(sp, err);
  if (rc)
    return rc;
  size_t n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(sp->block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    n++;
  MlirOperation *left = lsim_malloc_array(n + 1, sizeof *left);
  if (!left)
    return lsimp_fail_oom(err);
  n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(sp->block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    /* An op put before the ones printed (a rule's, not at the end of the
     * block) would be lost. */
    if (!find(&sp->ops, op.ptr)) {
      free(left);
      MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
      return lsim_error_set(err, LSIM_E_VERIFY,
                            "lowersim cannot print main's body as it lowers it: %.*s: put "
                            "before ops already printed",
                            (int)(name.length > 80 ? 80 : name.length), name.data);
    }
    left[n++] = op;
  }
    /* Users before what they use. */
  while (n)
    mlirOperationDestroy(left[--n]);
  free(left);
  free(sp->ops.slots);
  free(sp->nested.slots);
  free(sp->queue);
  sp->ops = sp->nested = (table){0};
  sp->queue = NULL;
  sp->queue_len = sp->queue_cap = 0;
  MlirOperationState state = mlirOperationStateGet(
      mlirStringRefCreateFromCString(placeholder_op), mlirLocationUnknownGet(sp->mlir));
  MlirOperation placeholder = mlirOperationCreate(&state);
  if (mlirOperationIsNull(placeholder))
    return lsimp_fail_oom(err);
  mlirBlockAppendOwnedOperation(sp->block, placeholder);
  sp->sealed = true;
  return LSIM_OK;
}

/* --- printing the sealed module -------------------------------------------------- */

enum { CHUNK = 1 << 16 };

/* The module's text on its way to `write`: the placeholder's line replaced
 * with the file's text, nested numbers put right. */
typedef struct splice {
  const lsimp_spill *sp;
  lsimp_text_writer write;
  void *dest;
  size_t matched; /* bytes of placeholder_line seen last */
  bool failed;
  size_t len;
  char out[CHUNK];
  char in[CHUNK];
} splice;

static void flush_out(splice *s) {
  if (s->len && !s->failed && !s->write(s->dest, s->out, s->len))
    s->failed = true;
  s->len = 0;
}

static void emit(splice *s, const char *data, size_t n) {
  while (n) {
    size_t room = CHUNK - s->len, k = n < room ? n : room;
    memcpy(s->out + s->len, data, k);
    s->len += k;
    data += k;
    n -= k;
    if (s->len == CHUNK)
      flush_out(s);
  }
}

/* The file, each MARK digits END as `total + digits` (MARK END: MARK). */
static void emit_body(splice *s) {
  char *in = s->in;
  const lsimp_spill *sp = s->sp;
  bool in_number = false, digits = false;
  size_t k = 0;
  off_t at = 0;
  for (;;) {
    ssize_t got = pread(sp->fd, in, CHUNK, at);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      if (got < 0)
        s->failed = true;
      return;
    }
    at += got;
    const char *p = in, *end = in + got;
    while (p < end) {
      if (!in_number) {
        const char *m = memchr(p, MARK, (size_t)(end - p));
        emit(s, p, (size_t)((m ? m : end) - p));
        if (!m)
          break;
        p = m + 1;
        in_number = true;
        digits = false;
        k = 0;
        continue;
      }
      char c = *p++;
      if (c == END) {
        in_number = false;
        if (!digits) {
          const char mark = MARK;
          emit(s, &mark, 1);
        } else {
          char text[24];
          int n = snprintf(text, sizeof text, "%zu", sp->total + k);
          emit(s, text, (size_t)n);
        }
      } else {
        k = k * 10 + (size_t)(c - '0');
        digits = true;
      }
    }
  }
}

static bool splice_write(void *dest, const char *data, size_t n) {
  splice *s = dest;
  const size_t len = sizeof placeholder_line - 1;
  while (n && !s->failed) {
    if (s->matched == 0) {
      const char *nl = memchr(data, '\n', n);
      size_t plain = nl ? (size_t)(nl - data) : n;
      emit(s, data, plain);
      data += plain;
      n -= plain;
      if (!n)
        break;
    }
    if (*data == placeholder_line[s->matched]) {
      data++, n--;
      if (++s->matched == len) {
        s->matched = 0;
        emit_body(s);
      }
    } else {
      /* No byte of the line but its first is a newline: start again here. */
      emit(s, placeholder_line, s->matched);
      if (*data == '\n') {
        s->matched = 1;
        data++, n--;
      } else {
        s->matched = 0;
      }
    }
  }
  return !s->failed;
}

bool lsimp_spill_print(const lsimp_spill *sp, MlirOperation module, lsimp_print_mode mode,
                       lsimp_text_writer write, void *dest) {
  splice *s = lsim_malloc(sizeof *s);
  if (!s)
    return false;
  s->sp = sp;
  s->write = write;
  s->dest = dest;
  s->matched = 0;
  s->failed = !sp->sealed;
  s->len = 0;
  bool ok = lsimp_mlir_print_to(module, mode, splice_write, s);
  emit(s, placeholder_line, s->matched);
  flush_out(s);
  ok = ok && !s->failed;
  free(s);
  return ok;
}
