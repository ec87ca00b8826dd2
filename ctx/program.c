/* ctx/program.c: straight-line jaxprs (core.Jaxpr): values numbered args
 * first, then every equation's results. */
#include "lowersim/alloc.h"
#include "lowersim/program.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <stdarg.h>

#include <stdlib.h>
#include <string.h>

int lsim_program_check(const lsim_program *prog, lsim_error *err) {
  size_t num_values = prog->num_args;
  if (prog->num_args && !prog->args)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "the program's args are missing");
  for (size_t i = 0; i < prog->num_eqns; i++) {
    const lsim_eqn *e = &prog->eqns[i];
    if (!e->primitive || !e->primitive->name)
      return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "equation %zu has no primitive", i);
    for (size_t j = 0; j < e->num_operands; j++)
      if (e->operands[j] >= num_values)
        return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                              "equation %zu (%s) uses value %zu, which is not defined before it",
                              i, e->primitive->name, e->operands[j]);
    num_values += e->num_results;
  }
  if (prog->has_outputs && prog->num_outputs && !prog->outputs)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "the program's outputs are missing");
  for (size_t i = 0; prog->has_outputs && i < prog->num_outputs; i++)
    if (prog->outputs[i] >= num_values)
      return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                            "output %zu is value %zu, which is undefined", i, prog->outputs[i]);
  return LSIM_OK;
}

size_t lsim_program_num_values(const lsim_program *prog) {
  size_t n = prog->num_args;
  for (size_t i = 0; i < prog->num_eqns; i++)
    n += prog->eqns[i].num_results;
  return n;
}

bool lsim_program_has_ordered_effects(const lsim_program *prog) {
  for (size_t i = 0; i < prog->num_eqns; i++)
    if (prog->eqns[i].ordered_effect)
      return true;
  return false;
}

lsim_effect_kind lsim_eqn_effect_kind(const lsim_eqn *eqn) {
  const lsim_effect *effect = eqn->primitive ? eqn->primitive->ordered_effect : NULL;
  return (lsim_effect_kind){effect, effect ? NULL : eqn->primitive};
}

bool lsim_effect_kind_equal(lsim_effect_kind a, lsim_effect_kind b) {
  return a.effect == b.effect && a.primitive == b.primitive;
}

const char *lsim_effect_kind_name(lsim_effect_kind kind) {
  return kind.effect ? kind.effect->name : kind.primitive ? kind.primitive->name : "";
}

size_t lsim_program_ordered_effects(const lsim_program *prog, lsim_effect_kind *out, size_t max) {
  /* Each equation's kind is compared with the kinds found so far, not with
   * every equation before it (n ordered equations after m others were n x m
   * comparisons); past FEW kinds, with the equations before. */
  enum { FEW = 32 };
  lsim_effect_kind found[FEW];
  size_t n = 0;
  for (size_t i = 0; i < prog->num_eqns; i++) {
    if (!prog->eqns[i].ordered_effect)
      continue;
    lsim_effect_kind kind = lsim_eqn_effect_kind(&prog->eqns[i]);
    bool seen = false;
    for (size_t k = 0; n <= FEW && k < n && !seen; k++)
      seen = lsim_effect_kind_equal(found[k], kind);
    for (size_t j = 0; n > FEW && j < i && !seen; j++)
      seen = prog->eqns[j].ordered_effect &&
             lsim_effect_kind_equal(lsim_eqn_effect_kind(&prog->eqns[j]), kind);
    if (seen)
      continue;
    if (n < FEW)
      found[n] = kind;
    if (n < max)
      out[n] = kind;
    n++;
  }
  return n;
}

size_t lsim_program_num_outputs(const lsim_program *prog) {
  if (prog->has_outputs)
    return prog->num_outputs;
  return prog->num_eqns ? prog->eqns[prog->num_eqns - 1].num_results : 0;
}

size_t lsim_program_output(const lsim_program *prog, size_t num_values, size_t i) {
  if (prog->has_outputs)
    return prog->outputs[i];
  return num_values - prog->eqns[prog->num_eqns - 1].num_results + i;
}

void lsim_program_value_avals(const lsim_program *prog, lsim_aval *out) {
  size_t k = 0;
  if (prog->num_args)
    memcpy(out, prog->args, prog->num_args * sizeof *out);
  k = prog->num_args;
  for (size_t i = 0; i < prog->num_eqns; i++) {
    const lsim_eqn *e = &prog->eqns[i];
    if (e->num_results)
      memcpy(out + k, e->results, e->num_results * sizeof *out);
    k += e->num_results;
  }
}

/* Entering compute_on(compute_type) around the equation: _check_valid, or,
 * once the context manager is gone, compute_on's TypeError. */
static int check_compute_type(const char *c_type, const lsim_jax_profile *profile,
                              lsim_error *err) {
  if (!c_type)
    return LSIM_OK;
  if (!lsim_jax_profile_or_default(profile)->compute_on_context_manager)
    return lsimp_raise0(err, LSIM_E_COMPUTE_ON_NOT_CONTEXT_MANAGER);
  if (strcmp(c_type, "device_host") == 0 || strcmp(c_type, "device") == 0 ||
      strcmp(c_type, "tpu_sparsecore") == 0 || strncmp(c_type, "gpu_stream:", 11) == 0)
    return LSIM_OK;
  return lsimp_raise(err, LSIM_E_INVALID_COMPUTE_TYPE, c_type);
}

int lsim_program_trace(const lsim_program *prog, lsim_error *err) {
  return lsim_program_trace_for(prog, NULL, err);
}

int lsim_program_trace_for(const lsim_program *prog, const lsim_jax_profile *profile,
                           lsim_error *err) {
  size_t num_values = lsim_program_num_values(prog);
  lsim_aval *avals = lsim_malloc_array(num_values + 1, sizeof *avals);
  lsim_aval *in = NULL;
  int rc = avals ? LSIM_OK : lsimp_fail_oom(err);
  if (!rc)
    lsim_program_value_avals(prog, avals);
  for (size_t i = 0; i < prog->num_eqns && !rc; i++) {
    const lsim_eqn *e = &prog->eqns[i];
    rc = check_compute_type(e->compute_type, profile, err);
    if (rc || !e->primitive->trace_check)
      continue;
    lsim_aval *grown = lsim_realloc_array(in, e->num_operands + 1, sizeof *in);
    if (!grown)
      rc = lsimp_fail_oom(err);
    in = grown ? grown : in;
    for (size_t j = 0; !rc && j < e->num_operands; j++)
      in[j] = avals[e->operands[j]];
    if (!rc)
      rc = e->primitive->trace_check(in, e->num_operands, e->results, e->num_results, e->params,
                                     profile, err);
  }
  free(in);
  free(avals);
  return rc;
}

/* --- The jaxpr, as jax.make_jaxpr prints it -------------------------------
 *
 * The text is built as a stream of layout tokens (texts, breaks, groups,
 * nests, fills), then laid out in 80 columns as JAX's pretty printer lays
 * it out: a group is printed flat when its own content fits before the
 * 81st column, else its breaks are newlines at the current nest; a fill
 * (an equation's operands) breaks only before an item that would not fit,
 * the separating space not counted. */

enum { JAXPR_WIDTH = 80 };

typedef enum tok_kind {
  TOK_TEXT,  /* text[at, at+len) */
  TOK_BREAK, /* a space or nothing when flat, a newline when broken */
  TOK_GROUP,
  TOK_FILL,
  TOK_END,   /* closes a group or fill */
  TOK_NEST,  /* indent += len */
  TOK_UNNEST
} tok_kind;

typedef struct tok {
  tok_kind kind;
  size_t at, len;
} tok;

struct lsim_jaxpr_printer {
  const lsim_jax_profile *jax;
  lsimp_strbuf text; /* the tokens' texts */
  tok *toks;
  size_t num_toks, cap_toks;
  bool failed;
  size_t next_name;  /* names given so far */
  size_t *names;     /* per value of the jaxpr printed: its name + 1, 0 unnamed */
  lsim_aval *avals;  /* per value: its aval */
  bool *unused;      /* per value of the program printed: no equation or output uses it */
  size_t num_program_values;
  size_t num_values; /* its values (the program's and the equations' added) */
  size_t *operands;  /* the open equation's */
  size_t num_operands;
  size_t num_params; /* the open equation's so far */
  const lsim_eqn *eqn; /* the program's equation printed */
  size_t eqn_results;  /* the value of its first result */
  size_t eqns_begun;   /* how many equations it has printed as (jaxpr_eqns) */
};

static void push_tok(lsim_jaxpr_printer *p, tok_kind kind, const char *s, size_t len) {
  if (p->failed)
    return;
  if (!lsim_grow_array(&p->toks, &p->cap_toks, p->num_toks + 1, sizeof *p->toks)) {
    p->failed = true;
    return;
  }
  size_t at = p->text.len;
  if (s)
    lsimp_strbuf_append(&p->text, s, len);
  p->toks[p->num_toks++] = (tok){kind, at, len};
}

static void text(lsim_jaxpr_printer *p, const char *s) { push_tok(p, TOK_TEXT, s, strlen(s)); }
static void brk(lsim_jaxpr_printer *p, const char *s) { push_tok(p, TOK_BREAK, s, strlen(s)); }
static void mark(lsim_jaxpr_printer *p, tok_kind kind, size_t n) { push_tok(p, kind, NULL, n); }

/* a, ..., z, ba, bb, ...: the digits of n in base 26, 'a' the zero. */
static void var_name(size_t n, char *buf) {
  char tmp[32];
  size_t len = 0;
  do {
    tmp[len++] = (char)('a' + n % 26);
    n /= 26;
  } while (n);
  for (size_t i = 0; i < len; i++)
    buf[i] = tmp[len - 1 - i];
  buf[len] = '\0';
}

/* Makes room for values up to `n` (unnamed). */
static bool ensure_values(lsim_jaxpr_printer *p, size_t n) {
  if (n <= p->num_values)
    return true;
  size_t *names = lsim_realloc_array(p->names, n, sizeof *names);
  if (names)
    p->names = names;
  lsim_aval *avals = names ? lsim_realloc_array(p->avals, n, sizeof *avals) : NULL;
  if (!avals) {
    p->failed = true;
    return false;
  }
  p->avals = avals;
  memset(names + p->num_values, 0, (n - p->num_values) * sizeof *names);
  memset(avals + p->num_values, 0, (n - p->num_values) * sizeof *avals);
  p->num_values = n;
  return true;
}

/* The value's name, given now when it has none. */
static void value(lsim_jaxpr_printer *p, size_t v) {
  char name[32];
  if (v >= p->num_values || p->failed) {
    p->failed = true;
    return;
  }
  if (!p->names[v])
    p->names[v] = ++p->next_name;
  var_name(p->names[v] - 1, name);
  text(p, name);
}

/* `a:f32[4]`: a binder; `_:f32[4]` for a result nothing uses, which takes
 * no name. */
static void binder(lsim_jaxpr_printer *p, size_t v, const lsim_aval *aval) {
  char buf[LSIM_AVAL_TEXT_MAX + 1];
  if (v < p->num_program_values && p->unused[v])
    text(p, "_");
  else
    value(p, v);
  buf[0] = ':';
  lsim_aval_format(aval, buf + 1, sizeof buf - 1);
  text(p, buf);
}

size_t lsim_jaxpr_eqn_begin(lsim_jaxpr_printer *p, const char *primitive, const size_t *operands,
                            size_t num_operands, const lsim_aval *results, size_t num_results) {
  size_t first = p->eqn && results == p->eqn->results ? p->eqn_results : p->num_values;
  if (p->eqns_begun++)
    brk(p, "; "); /* between the equations one equation is printed as */
  free(p->operands);
  p->operands = NULL;
  p->num_operands = 0;
  if (!ensure_values(p, first + num_results))
    return first;
  p->operands = lsim_malloc_array(num_operands, sizeof *operands);
  if (!p->operands) {
    p->failed = true;
    return first;
  }
  if (num_operands)
    memcpy(p->operands, operands, num_operands * sizeof *operands);
  p->num_operands = num_operands;
  p->num_params = 0;
  for (size_t i = 0; i < num_results; i++) {
    if (i)
      text(p, " ");
    p->avals[first + i] = results[i];
    binder(p, first + i, &results[i]);
  }
  if (num_results)
    text(p, " = ");
  text(p, primitive);
  return first;
}

const lsim_aval *lsim_jaxpr_value_aval(const lsim_jaxpr_printer *p, size_t value) {
  static const lsim_aval none = {0};
  return value < p->num_values ? &p->avals[value] : &none;
}

void lsim_jaxpr_fail(lsim_jaxpr_printer *p) { p->failed = true; }

/* Before a param: `[` opening the params' group, or the break between two. */
static void param_key(lsim_jaxpr_printer *p, const char *key) {
  if (p->num_params++) {
    brk(p, " ");
  } else {
    mark(p, TOK_GROUP, 0);
    text(p, "[");
    mark(p, TOK_NEST, 2);
    brk(p, "");
  }
  text(p, key);
  text(p, "=");
}

void lsim_jaxpr_param(lsim_jaxpr_printer *p, const char *key, const char *fmt, ...) {
  lsimp_strbuf v = LSIMP_STRBUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  lsimp_strbuf_vprintf(&v, fmt, ap);
  va_end(ap);
  param_key(p, key);
  if (lsimp_strbuf_failed(&v))
    p->failed = true;
  text(p, lsimp_strbuf_cstr(&v));
  lsimp_strbuf_free(&v);
}

void lsim_jaxpr_param_result_avals(lsim_jaxpr_printer *p, const lsim_eqn *eqn) {
  lsimp_strbuf v = LSIMP_STRBUF_INIT;
  char buf[LSIM_AVAL_TEXT_MAX];
  lsimp_strbuf_putc(&v, '(');
  for (size_t i = 0; i < eqn->num_results; i++)
    lsimp_strbuf_printf(&v, "%sShapedArray(%s)", i ? ", " : "",
                        lsim_aval_str(&eqn->results[i], buf, sizeof buf));
  lsimp_strbuf_puts(&v, eqn->num_results == 1 ? ",)" : ")");
  lsim_jaxpr_param(p, "result_avals", "%s", lsimp_strbuf_cstr(&v));
  p->failed |= lsimp_strbuf_failed(&v);
  lsimp_strbuf_free(&v);
}

void lsim_jaxpr_param_tree(lsim_jaxpr_printer *p, const char *key, size_t n, bool call) {
  lsimp_strbuf v = LSIMP_STRBUF_INIT;
  lsimp_strbuf_puts(&v, call ? "PyTreeDef(((" : "PyTreeDef((");
  for (size_t i = 0; i < n; i++)
    lsimp_strbuf_puts(&v, i ? ", *" : "*");
  lsimp_strbuf_puts(&v, n == 1 ? ",)" : ")");
  lsimp_strbuf_puts(&v, call ? ", {}))" : ")");
  lsim_jaxpr_param(p, key, "%s", lsimp_strbuf_cstr(&v));
  p->failed |= lsimp_strbuf_failed(&v);
  lsimp_strbuf_free(&v);
}

void lsim_jaxpr_eqn_end(lsim_jaxpr_printer *p) {
  if (p->num_params) {
    mark(p, TOK_UNNEST, 0);
    brk(p, "");
    text(p, "]");
    mark(p, TOK_END, 0);
  }
  text(p, " ");
  mark(p, TOK_NEST, 2);
  mark(p, TOK_FILL, 0);
  for (size_t i = 0; i < p->num_operands; i++) {
    if (i)
      brk(p, " ");
    value(p, p->operands[i]);
  }
  mark(p, TOK_END, 0);
  mark(p, TOK_UNNEST, 0);
  p->num_params = 0;
}

static void print_jaxpr(lsim_jaxpr_printer *p, const lsim_program *prog);

/* The results no equation and no output uses (the arguments count as used:
 * a jaxpr names its invars). */
static void mark_unused(const lsim_program *prog, size_t num_values, bool *unused) {
  for (size_t v = 0; v < num_values; v++)
    unused[v] = v >= prog->num_args;
  for (size_t i = 0; i < prog->num_eqns; i++)
    for (size_t j = 0; j < prog->eqns[i].num_operands; j++)
      unused[prog->eqns[i].operands[j]] = false;
  size_t n = lsim_program_num_outputs(prog);
  for (size_t i = 0; i < n; i++)
    unused[lsim_program_output(prog, num_values, i)] = false;
}

void lsim_jaxpr_param_jaxprs(lsim_jaxpr_printer *p, const char *key,
                             const lsim_program *const *jaxprs, size_t num_jaxprs) {
  param_key(p, key);
  mark(p, TOK_GROUP, 0);
  text(p, "(");
  mark(p, TOK_NEST, 2);
  for (size_t i = 0; i < num_jaxprs; i++) {
    brk(p, i ? " " : "");
    print_jaxpr(p, jaxprs[i]);
  }
  mark(p, TOK_UNNEST, 0);
  brk(p, "");
  text(p, ")");
  mark(p, TOK_END, 0);
}

void lsim_jaxpr_param_jaxpr(lsim_jaxpr_printer *p, const char *key, const lsim_program *jaxpr) {
  param_key(p, key);
  print_jaxpr(p, jaxpr);
}

static void print_eqn(lsim_jaxpr_printer *p, const lsim_eqn *e, size_t first_result) {
  const lsim_primitive *prim = e->primitive;
  p->eqn = e;
  p->eqn_results = first_result;
  p->eqns_begun = 0;
  if (prim->jaxpr_eqns) {
    prim->jaxpr_eqns(e, p->jax, p);
    return;
  }
  lsim_jaxpr_eqn_begin(p, prim->name, e->operands, e->num_operands, e->results, e->num_results);
  if (prim->jaxpr_params)
    prim->jaxpr_params(e, p->jax, p);
  lsim_jaxpr_eqn_end(p);
}

/* `{ lambda ; a:f32[4]. let EQNS in (OUTS) }`, its values named afresh
 * (a nested jaxpr keeps the count of names going). */
static void print_jaxpr(lsim_jaxpr_printer *p, const lsim_program *prog) {
  size_t *outer = p->names, outer_n = p->num_values;
  lsim_aval *outer_avals = p->avals;
  bool *outer_unused = p->unused;
  size_t outer_program_values = p->num_program_values;
  size_t *outer_ops = p->operands, outer_num_ops = p->num_operands, outer_params = p->num_params;
  const lsim_eqn *outer_eqn = p->eqn;
  size_t outer_results = p->eqn_results, outer_begun = p->eqns_begun;
  p->names = NULL;
  p->avals = NULL;
  p->num_values = 0;
  p->operands = NULL;
  size_t num_values = lsim_program_num_values(prog);
  p->unused = lsim_malloc_array(num_values, sizeof *p->unused);
  p->num_program_values = 0;
  if (!p->unused)
    p->failed = true;
  if (p->unused && ensure_values(p, num_values)) {
    lsim_program_value_avals(prog, p->avals);
    mark_unused(prog, num_values, p->unused);
    p->num_program_values = num_values;
    mark(p, TOK_GROUP, 0);
    text(p, "{ lambda ; ");
    for (size_t i = 0; i < prog->num_args; i++) {
      if (i)
        text(p, " ");
      binder(p, i, &prog->args[i]);
    }
    text(p, ". let");
    mark(p, TOK_NEST, 2);
    mark(p, TOK_NEST, 2);
    size_t v = prog->num_args;
    if (!prog->num_eqns)
      brk(p, " "); /* `let  in`: the empty line of no equations */
    for (size_t i = 0; i < prog->num_eqns; i++) {
      brk(p, i ? "; " : " ");
      print_eqn(p, &prog->eqns[i], v);
      v += prog->eqns[i].num_results;
    }
    mark(p, TOK_UNNEST, 0);
    brk(p, " ");
    text(p, "in (");
    size_t n = lsim_program_num_outputs(prog);
    for (size_t i = 0; i < n; i++) {
      if (i)
        text(p, ", ");
      value(p, lsim_program_output(prog, num_values, i));
    }
    text(p, n == 1 ? ",)" : ")");
    mark(p, TOK_UNNEST, 0);
    text(p, " }");
    mark(p, TOK_END, 0);
  }
  free(p->names);
  free(p->avals);
  free(p->unused);
  free(p->operands);
  p->names = outer;
  p->avals = outer_avals;
  p->unused = outer_unused;
  p->num_program_values = outer_program_values;
  p->num_values = outer_n;
  p->operands = outer_ops;
  p->num_operands = outer_num_ops;
  p->num_params = outer_params;
  p->eqn = outer_eqn;
  p->eqn_results = outer_results;
  p->eqns_begun = outer_begun;
}

/* The width of tokens [i, the end of the group or fill i opens, or the
 * next break at its level when `item`), printed flat; *end is where it
 * stopped. */
static size_t flat_width(const lsim_jaxpr_printer *p, size_t i, bool item, size_t *end) {
  size_t w = 0;
  int depth = 0;
  for (; i < p->num_toks; i++) {
    const tok *t = &p->toks[i];
    if (t->kind == TOK_GROUP || t->kind == TOK_FILL) {
      depth++;
    } else if (t->kind == TOK_END) {
      if (--depth <= 0 && !item)
        break;
      if (depth < 0)
        break;
    } else if (t->kind == TOK_BREAK && item && depth == 0) {
      break;
    } else if (t->kind == TOK_TEXT || t->kind == TOK_BREAK) {
      w += t->len;
    }
  }
  *end = i;
  return w;
}

typedef enum mode { FLAT, BROKEN, FILLING } mode;

static void layout(const lsim_jaxpr_printer *p, lsimp_strbuf *out) {
  mode modes[256];
  int indents[256];
  int num_modes = 0, num_indents = 0, indent = 0;
  size_t col = 0, end;
  for (size_t i = 0; i < p->num_toks; i++) {
    const tok *t = &p->toks[i];
    mode m = num_modes ? modes[num_modes - 1] : BROKEN;
    const char *s = p->text.data + t->at;
    switch (t->kind) {
    case TOK_TEXT:
      lsimp_strbuf_append(out, s, t->len);
      col += t->len;
      break;
    case TOK_BREAK:
      if (m == FLAT ||
          (m == FILLING && col + flat_width(p, i + 1, true, &end) <= JAXPR_WIDTH)) {
        lsimp_strbuf_append(out, s, t->len);
        col += t->len;
      } else {
        lsimp_strbuf_printf(out, "\n%*s", indent, "");
        col = (size_t)indent;
      }
      break;
    case TOK_GROUP:
    case TOK_FILL:
      if (num_modes == (int)(sizeof modes / sizeof *modes))
        break; /* deeper than any jaxpr lowersim prints: laid out as its parent */
      modes[num_modes++] = m == FLAT                                                   ? FLAT
                           : t->kind == TOK_FILL                                       ? FILLING
                           : col + flat_width(p, i, false, &end) <= JAXPR_WIDTH ? FLAT
                                                                                       : BROKEN;
      break;
    case TOK_END:
      if (num_modes)
        num_modes--;
      break;
    case TOK_NEST:
      if (num_indents < (int)(sizeof indents / sizeof *indents))
        indents[num_indents++] = indent;
      indent += (int)t->len;
      break;
    case TOK_UNNEST:
      if (num_indents)
        indent = indents[--num_indents];
      break;
    }
  }
}

char *lsim_program_jaxpr(const lsim_program *program, const lsim_jax_profile *jax) {
  lsim_error err = LSIM_ERROR_INIT;
  if (!program || lsim_program_check(program, &err)) {
    lsim_error_clear(&err);
    return NULL;
  }
  lsim_jaxpr_printer p = {.jax = lsim_jax_profile_or_default(jax), .text = LSIMP_STRBUF_INIT};
  print_jaxpr(&p, program);
  lsimp_strbuf out = LSIMP_STRBUF_INIT;
  if (!p.failed && !lsimp_strbuf_failed(&p.text))
    layout(&p, &out);
  char *result = p.failed || lsimp_strbuf_failed(&p.text) ? NULL : lsimp_strbuf_take(&out);
  lsimp_strbuf_free(&out);
  lsimp_strbuf_free(&p.text);
  free(p.toks);
  return result;
}
