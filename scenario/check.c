/* scenario/check.c: a scenario's <expect> against its lowering. */
#include "lowersim/scenario_run.h"
#include "internal.h"
#include "support/raise.h"
#include "support/strbuf.h"

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

static void compare_module(const lsim_scenario_expect *x, const char *text, lsimp_strbuf *diff) {
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
