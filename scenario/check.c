/* scenario/check.c: a scenario's <expect> against its lowering. */
#include "lowersim/scenario_run.h"
#include "internal.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include "lowersim/alloc.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void describe_outcome(lsimp_strbuf *sb, int rc, const lsim_error *err) {
  if (rc)
    lsimp_strbuf_printf(sb, "%s: %s: %s", lsim_status_name(rc), lsim_error_class(err),
                       lsim_error_message(err));
  else
    lsimp_strbuf_puts(sb, "a module (OK)");
}

static void compare_error(const lsim_scenario_expect *x, int rc, const lsim_error *err,
                          lsimp_strbuf *diff) {
  int want = lsim_status_from_name(x->error);
  bool ok = rc == want && (!x->message || strcmp(x->message, lsim_error_message(err)) == 0);
  if (ok)
    return;
  lsimp_strbuf_printf(diff, "expected %s", x->error);
  if (x->message)
    lsimp_strbuf_printf(diff, " (\"%s\")", x->message);
  lsimp_strbuf_puts(diff, ", got ");
  describe_outcome(diff, rc, err);
}

/* --- Which of many texts a module contains: Aho-Corasick ---------------------------- */

/* The texts of <contains> and <absent> as one automaton (a trie of the texts
 * with failure links), run once over the module: time linear in the module
 * and the texts together, where a strstr per text was their product (n
 * texts against a module of n equations took n^2).  A node's children are
 * a list (for building) and an open-addressing table keyed by (node, byte)
 * (for walking). */
typedef struct ac_node {
  size_t fail;       /* the longest proper suffix that is a node */
  size_t out;        /* the nearest node on the fail chain that ends a text (0: none) */
  size_t child, next; /* first child, next sibling (0: none; the root is never one) */
  unsigned char byte; /* the byte leading here */
  bool ends, found;  /* a text ends here; the module has it */
} ac_node;

typedef struct ac {
  ac_node *nodes;
  size_t count, cap;
  uint64_t *keys; /* (parent + 1) << 8 | byte; 0: free */
  size_t *vals;
  size_t slots;   /* a power of two, at most half full */
} ac;

static size_t ac_slot(const ac *a, uint64_t key) {
  size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (a->slots - 1);
  while (a->keys[i] && a->keys[i] != key)
    i = (i + 1) & (a->slots - 1);
  return i;
}

/* The child of `node` by `byte`, or 0. */
static size_t ac_child(const ac *a, size_t node, unsigned char byte) {
  uint64_t key = ((uint64_t)node + 1) << 8 | byte;
  size_t i = ac_slot(a, key);
  return a->keys[i] ? a->vals[i] : 0;
}

/* The node where `text` ends (*end), made as needed; false when out of
 * memory. */
static bool ac_add(ac *a, const char *text, size_t *end) {
  size_t node = 0;
  for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
    size_t child = ac_child(a, node, *c);
    if (!child) {
      if (!lsim_grow_array(&a->nodes, &a->cap, a->count + 1, sizeof *a->nodes))
        return false;
      child = a->count++;
      a->nodes[child] = (ac_node){0, 0, 0, a->nodes[node].child, *c, false, false};
      a->nodes[node].child = child;
      uint64_t key = ((uint64_t)node + 1) << 8 | *c;
      size_t i = ac_slot(a, key);
      a->keys[i] = key;
      a->vals[i] = child;
    }
    node = child;
  }
  a->nodes[node].ends = true;
  *end = node;
  return true;
}

/* The fail and out links, breadth first (a node's fail is shallower). */
static bool ac_link(ac *a) {
  size_t *queue = lsim_malloc_array(a->count + 1, sizeof *queue), head = 0, tail = 0;
  if (!queue)
    return false;
  for (size_t c = a->nodes[0].child; c; c = a->nodes[c].next)
    queue[tail++] = c; /* depth 1: fail to the root */
  while (head < tail) {
    size_t u = queue[head++];
    for (size_t c = a->nodes[u].child; c; c = a->nodes[c].next) {
      size_t f = a->nodes[u].fail, g;
      while ((g = ac_child(a, f, a->nodes[c].byte)) == 0 && f)
        f = a->nodes[f].fail;
      a->nodes[c].fail = g;
      a->nodes[c].out = a->nodes[g].ends ? g : a->nodes[g].out;
      queue[tail++] = c;
    }
  }
  free(queue);
  return true;
}

/* Marks every text `text` contains, each node once. */
static void ac_run(ac *a, const char *text) {
  a->nodes[0].found = a->nodes[0].ends; /* "" is in every text */
  size_t node = 0;
  for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
    size_t g;
    while ((g = ac_child(a, node, *c)) == 0 && node)
      node = a->nodes[node].fail;
    node = g;
    /* This node and the texts ending in it, up to one marked before (whose
     * own were marked then). */
    for (size_t m = a->nodes[node].ends ? node : a->nodes[node].out; m && !a->nodes[m].found;
         m = a->nodes[m].out)
      a->nodes[m].found = true;
  }
}

static void ac_free(ac *a) {
  free(a->nodes);
  free(a->keys);
  free(a->vals);
}

/* Below this many bytes searched in all (the module's length times the
 * texts), a strstr per text: no automaton to build, and bounded work. */
#define SEARCH_BUDGET ((size_t)1 << 26)

static void compare_module_searched(const lsim_scenario_expect *x, const char *text,
                                    lsimp_strbuf *diff) {
  for (size_t i = 0; i < x->num_contains; i++) {
    if (!strstr(text, x->contains[i])) {
      lsimp_strbuf_printf(diff, "the module does not contain \"%s\"", x->contains[i]);
      return;
    }
  }
  for (size_t i = 0; i < x->num_absent; i++) {
    if (strstr(text, x->absent[i])) {
      lsimp_strbuf_printf(diff, "the module contains \"%s\", which must be absent", x->absent[i]);
      return;
    }
  }
}

/* The first <contains> text the module lacks, else the first <absent> text it
 * has; `diff` failed when out of memory (the check then fails with
 * LSIM_E_NO_MEMORY). */
static void compare_module(const lsim_scenario_expect *x, const char *text, lsimp_strbuf *diff) {
  size_t n = x->num_contains + x->num_absent, total = 1;
  if (!n)
    return;
  for (size_t i = 0; i < n; i++)
    total += strlen(i < x->num_contains ? x->contains[i] : x->absent[i - x->num_contains]);
  size_t len = strlen(text);
  if (len <= SEARCH_BUDGET / n) { /* a search per text costs less than building the automaton */
    compare_module_searched(x, text, diff);
    return;
  }
  ac a = {0};
  a.slots = 16;
  while (a.slots / 2 < total)
    a.slots *= 2;
  a.keys = lsim_calloc(a.slots, sizeof *a.keys);
  a.vals = lsim_malloc_array(a.slots, sizeof *a.vals);
  size_t *ends = lsim_malloc_array(n, sizeof *ends);
  bool ok = a.keys && a.vals && ends &&
            lsim_grow_array(&a.nodes, &a.cap, 1, sizeof *a.nodes);
  if (ok) {
    a.nodes[0] = (ac_node){0};
    a.count = 1;
  }
  for (size_t i = 0; ok && i < n; i++)
    ok = ac_add(&a, i < x->num_contains ? x->contains[i] : x->absent[i - x->num_contains],
                &ends[i]);
  ok = ok && ac_link(&a);
  if (!ok) {
    lsimp_strbuf_fail(diff);
  } else {
    ac_run(&a, text);
    size_t i = 0;
    while (i < x->num_contains && a.nodes[ends[i]].found)
      i++;
    if (i < x->num_contains) {
      lsimp_strbuf_printf(diff, "the module does not contain \"%s\"", x->contains[i]);
    } else {
      for (i = 0; i < x->num_absent && !a.nodes[ends[x->num_contains + i]].found; i++)
        ;
      if (i < x->num_absent)
        lsimp_strbuf_printf(diff, "the module contains \"%s\", which must be absent",
                            x->absent[i]);
    }
  }
  free(ends);
  ac_free(&a);
}

/* The run's warnings, `CATEGORY: text` each, against <warning>s. */
static void compare_warnings(const lsim_scenario_expect *x, const lsim_runtime *rt,
                             size_t first, size_t n, lsimp_strbuf *diff) {
  lsimp_strbuf got = LSIMP_STRBUF_INIT;
  bool same = n == x->num_warnings;
  for (size_t i = 0; i < n; i++) {
    size_t start = got.len;
    lsimp_strbuf_printf(&got, "%s%s: %s", i ? "; " : "",
                        lsim_runtime_warning_category(rt, first + i),
                        lsim_runtime_warning_at(rt, first + i));
    const char *one = lsimp_strbuf_cstr(&got) + start + (i ? 2 : 0);
    same = same && strcmp(one, x->warnings[i]) == 0;
  }
  if (!same) {
    lsimp_strbuf_puts(diff, "expected the warnings ");
    for (size_t i = 0; i < x->num_warnings; i++)
      lsimp_strbuf_printf(diff, "%s\"%s\"", i ? ", " : "", x->warnings[i]);
    lsimp_strbuf_printf(diff, "%s, got %s", x->num_warnings ? "" : "(none)",
                        n ? lsimp_strbuf_cstr(&got) : "none");
  }
  lsimp_strbuf_free(&got);
}

int lsim_scenario_check(lsim_lowerer *lowerer, const lsim_scenario *s,
                        lsim_scenario_verdict *verdict, lsim_error *err) {
  return lsim_scenario_check_with(lowerer, s, NULL, verdict, err);
}

/* One lowering's outcome against its <expect> (none: nothing to check). */
static void compare_step(const lsim_scenario *s, int rc, const lsim_error *got,
                         const lsim_lowering *lowering, const lsim_runtime *rt, size_t first,
                         size_t num_warnings, lsimp_strbuf *diff) {
  if (!s->expect.present)
    return;
  if (s->next || s->step > 1)
    lsimp_strbuf_printf(diff, "lowering %d (line %d): ", s->step, s->lower_line);
  size_t prefix = diff->len;
  if (!s->expect.ok) {
    compare_error(&s->expect, rc, got, diff);
  } else if (rc) {
    lsimp_strbuf_puts(diff, "expected a module, got ");
    describe_outcome(diff, rc, got);
  } else {
    char *text = lsim_lowering_print(lowering);
    if (text)
      compare_module(&s->expect, text, diff);
    else
      lsimp_strbuf_puts(diff, "out of memory printing the module");
    free(text);
  }
  if (diff->len == prefix && s->expect.num_warnings)
    compare_warnings(&s->expect, rt, first, num_warnings, diff);
  if (diff->len == prefix)
    lsimp_strbuf_reset(diff); /* this one agrees: no prefix */
}

int lsim_scenario_check_with(lsim_lowerer *lowerer, const lsim_scenario *s,
                             const lsim_scenario_run_options *options,
                             lsim_scenario_verdict *verdict, lsim_error *err) {
  if (!lowerer || !s || !verdict)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_scenario_check: NULL argument");
  *verdict = (lsim_scenario_verdict){0};
  if (!lsim_scenario_expects(s))
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "%s: the scenario has no <expect>", s->path);
  lsim_error got = LSIM_ERROR_INIT;
  lsimp_session_outcome session;
  int rc = lsimp_scenario_run_session(lowerer, s, options, &session, &got);
  lsim_scenario_outcome outcome = session.last;
  lsimp_strbuf diff = LSIMP_STRBUF_INIT;
  if (rc == LSIM_E_NO_MEMORY) {
    lsimp_error_move(err, &got);
    lsimp_session_outcome_clear(&session);
    return LSIM_E_NO_MEMORY;
  }
  /* The lowerings of a session in order; the first that differs is the
   * verdict's difference (a session stopped by invalid input is the last's). */
  const lsim_scenario *step = s;
  size_t n = session.num_earlier;
  bool stopped = n && (session.earlier[n - 1].code == LSIM_E_INVALID_INPUT ||
                       session.earlier[n - 1].code == LSIM_E_NO_MEMORY);
  size_t first = session.first_warning;
  for (size_t i = 0; i < n && step->next && diff.len == 0; i++, step = step->next) {
    const lsimp_step_outcome *e = &session.earlier[i];
    if (stopped && i == n - 1) {
      first = e->first_warning;
      break;
    }
    compare_step(step, e->code, &e->error, e->lowering, outcome.runtime, e->first_warning,
                 e->num_warnings, &diff);
  }
  if (diff.len == 0) {
    size_t total = outcome.runtime ? lsim_runtime_warning_count(outcome.runtime) : 0;
    first = first < total ? first : total;
    compare_step(step, rc, &got, outcome.lowering, outcome.runtime, first, total - first, &diff);
  }
  verdict->passed = diff.len == 0 && !lsimp_strbuf_failed(&diff);
  verdict->difference = verdict->passed ? NULL : lsimp_strbuf_take(&diff);
  lsimp_strbuf_free(&diff);
  lsim_error_clear(&got);
  lsimp_session_outcome_clear(&session);
  if (!verdict->passed && !verdict->difference)
    return lsimp_fail_oom(err);
  return LSIM_OK;
}

void lsim_scenario_verdict_clear(lsim_scenario_verdict *verdict) {
  if (verdict) {
    free(verdict->difference);
    *verdict = (lsim_scenario_verdict){0};
  }
}
