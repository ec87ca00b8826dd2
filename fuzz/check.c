/* fuzz/check.c: the invariants every lowering of every scenario keeps.
 *
 * A scenario is lowered (lsim_scenario_run, with <execute/> when asked)
 * three times: twice as given, once after lsim_scenario_write and
 * lsim_scenario_read_memory.  Each run is recorded as its status, message
 * and printed module; the records must agree, and the first one must be a
 * documented failure or a module that verifies and re-parses unchanged. */
#include "internal.h"
#include "lowersim/alloc.h"
#include "lowersim/scenario_run.h"
#include "lowersim/mlir_text.h"
#include "lowersim/verify.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXCERPT 60 /* bytes of context shown around a difference */

static const struct {
  const char *name;
  const char *description;
} invariants[LSIM_FUZZ_INVARIANT_COUNT] = {
    [LSIM_FUZZ_HOLDS] = {"holds", "every invariant holds"},
    [LSIM_FUZZ_CATALOGUED] = {"catalogued",
                              "a failing lowering returns a catalogued code that "
                              "lsim_scenario_run documents (a JAX error or LSIM_E_INVALID_INPUT), "
                              "with its class and a message, the same code in the error object"},
    [LSIM_FUZZ_VERIFY] = {"verify", "lowersim never emits a module that fails verification "
                                    "(LSIM_E_VERIFY is always a lowersim bug)"},
    [LSIM_FUZZ_SUCCESS_VERIFY] = {"success-verifies",
                                  "a successful lowering's module passes MLIR's verifier and "
                                  "lsim_verify_module"},
    [LSIM_FUZZ_REPARSE] = {"reparse", "a successful lowering's printed module parses (unregistered "
                                      "dialects allowed) and prints back identically"},
    [LSIM_FUZZ_DETERMINISM] = {"determinism", "lowering the same scenario twice gives the same "
                                              "status, message and module text"},
    [LSIM_FUZZ_ROUND_TRIP] = {"round-trip",
                              "the scenario written with lsim_scenario_write and read back with "
                              "lsim_scenario_read_memory lowers to the same outcome and writes the "
                              "same text"},
    [LSIM_FUZZ_CRASH] = {"crash", "checking a scenario never crashes, hangs or trips a sanitizer"},
    [LSIM_FUZZ_READER] = {"reader", "a file the reader refuses gets LSIM_E_INVALID_INPUT and one "
                                    "line `NAME:LINE: message`"},
    [LSIM_FUZZ_STREAM] = {"stream", "a lowering whose main is printed while it is lowered "
                                    "(stream_min_eqns 1, lowersim's own printer) gives the same "
                                    "status, message and module text as the whole module"},
};

const char *lsim_fuzz_invariant_name(lsim_fuzz_invariant inv) {
  return (unsigned)inv < LSIM_FUZZ_INVARIANT_COUNT ? invariants[inv].name : NULL;
}

const char *lsim_fuzz_invariant_description(lsim_fuzz_invariant inv) {
  return (unsigned)inv < LSIM_FUZZ_INVARIANT_COUNT ? invariants[inv].description : NULL;
}

void lsim_fuzz_result_clear(lsim_fuzz_result *r) {
  if (!r)
    return;
  free(r->detail);
  *r = (lsim_fuzz_result){LSIM_FUZZ_HOLDS, 0, NULL};
}

/* --- Records of a run ---------------------------------------------------------- */

typedef struct record {
  int code;             /* what lsim_scenario_run returned */
  lsim_status err_code; /* what the error object says */
  char *message;        /* owned */
  char *module;         /* owned; NULL without a lowering */
  bool verifies;        /* a lowering's module passes both verifiers again */
  char *verify_message; /* owned; why it does not */
} record;

static void record_clear(record *r) {
  free(r->message);
  free(r->module);
  free(r->verify_message);
  *r = (record){0};
}

static bool module_verifies(MlirModule m, char **why) {
  lsim_error e = LSIM_ERROR_INIT;
  bool ok = lsim_verify_module(m, &e) == LSIM_OK;
  *why = ok ? NULL : lsim_strdup(lsim_error_message(&e));
  lsim_error_clear(&e);
  return ok;
}

/* Lowers `s` into `r`; `stream`: the last lowering's stream_min_eqns. */
static int run_with(lsim_fuzz_checker *c, const lsim_scenario *s, size_t stream, record *r,
                    lsim_error *err) {
  lsim_error e = LSIM_ERROR_INIT;
  lsim_scenario_outcome out = {0};
  lsim_scenario_run_options opts = LSIM_SCENARIO_RUN_OPTIONS_INIT(.stream_min_eqns = stream);
  *r = (record){0};
  r->code = lsim_scenario_run(c->lowerer, s, &opts, &out, &e);
  r->err_code = e.code;
  r->message = lsim_strdup(lsim_error_message(&e));
  bool oom = !r->message;
  if (out.lowering) {
    r->module = lsim_lowering_print(out.lowering);
    r->verifies = module_verifies(lsim_lowering_module(out.lowering), &r->verify_message);
    oom = oom || !r->module || (!r->verifies && !r->verify_message);
  }
  lsim_scenario_outcome_clear(&out);
  lsim_error_clear(&e);
  if (oom) {
    record_clear(r);
    return lsim_fuzz_no_memory(err);
  }
  return LSIM_OK;
}

static int run(lsim_fuzz_checker *c, const lsim_scenario *s, record *r, lsim_error *err) {
  return run_with(c, s, 0, r, err);
}

/* --- Reporting what fails --------------------------------------------------- */

static int fail(lsim_fuzz_result *res, lsim_fuzz_invariant inv, lsim_error *err, const char *fmt,
                ...) __attribute__((format(printf, 4, 5)));

static int fail(lsim_fuzz_result *res, lsim_fuzz_invariant inv, lsim_error *err, const char *fmt,
                ...) {
  lsim_fuzz_text t;
  char *detail = NULL;
  if (lsim_fuzz_text_open(&t)) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(t.f, fmt, ap);
    va_end(ap);
    detail = lsim_fuzz_text_take(&t);
  }
  free(res->detail);
  res->failed = inv;
  res->detail = detail;
  return detail ? LSIM_OK : lsim_fuzz_no_memory(err);
}

/* `n` bytes of `text` on one line (newlines shown as \n), quoted. */
static void excerpt(FILE *f, const char *text, size_t n) {
  fputc('"', f);
  for (size_t i = 0; i < n && text[i]; i++) {
    if (text[i] == '\n')
      fputs("\\n", f);
    else
      fputc(text[i], f);
  }
  fputc('"', f);
}

/* Where two texts first differ, with a little of each around it. */
static void describe_difference(FILE *f, const char *a, const char *b) {
  if (!a || !b) {
    fprintf(f, "%s module vs %s module", a ? "a" : "no", b ? "a" : "no");
    return;
  }
  size_t i = 0;
  while (a[i] && a[i] == b[i])
    i++;
  size_t from = i > EXCERPT / 2 ? i - EXCERPT / 2 : 0;
  fprintf(f, "first difference at byte %zu: ", i);
  excerpt(f, a + from, EXCERPT);
  fputs(" vs ", f);
  excerpt(f, b + from, EXCERPT);
}

static const char *name_of(int code) {
  const char *name = lsim_status_name(code);
  return name ? name : "(no name)";
}

/* --- The invariants ------------------------------------------------------------ */

/* What lsim_scenario_run documents: a JAX error or LSIM_E_INVALID_INPUT. */
static bool documented_failure(int code) {
  return lsim_status_kind(code) == LSIM_KIND_JAX_ERROR || code == LSIM_E_INVALID_INPUT;
}

static int check_failure(const record *r, lsim_fuzz_result *res, lsim_error *err) {
  if (r->code == LSIM_E_VERIFY)
    return fail(res, LSIM_FUZZ_VERIFY, err, "LSIM_E_VERIFY: %s", r->message);
  if (!documented_failure(r->code))
    return fail(res, LSIM_FUZZ_CATALOGUED, err, "status %d (%s) is not documented: %s", r->code,
                name_of(r->code), r->message);
  if ((int)r->err_code != r->code)
    return fail(res, LSIM_FUZZ_CATALOGUED, err, "status %s but the error object holds %s: %s",
                name_of(r->code), name_of(r->err_code), r->message);
  if (!lsim_status_class(r->code))
    return fail(res, LSIM_FUZZ_CATALOGUED, err, "status %s has no exception class",
                name_of(r->code));
  /* An empty message only where JAX's is empty too (a bare assert). */
  const char *template = lsim_status_template(r->code);
  if (!r->message[0] && (!template || template[0]))
    return fail(res, LSIM_FUZZ_CATALOGUED, err, "status %s comes without a message",
                name_of(r->code));
  return LSIM_OK;
}

/* Fails `inv` with `what` and where texts `a` and `b` first differ. */
static int fail_difference(lsim_fuzz_result *res, lsim_fuzz_invariant inv, const char *what,
                           const char *a, const char *b, lsim_error *err) {
  lsim_fuzz_text why;
  if (!lsim_fuzz_text_open(&why))
    return lsim_fuzz_no_memory(err);
  describe_difference(why.f, a, b);
  char *text = lsim_fuzz_text_take(&why);
  int rc = text ? fail(res, inv, err, "%s: %s", what, text) : lsim_fuzz_no_memory(err);
  free(text);
  return rc;
}

/* The printed module parses back and prints identically. */
static int check_reparse(lsim_fuzz_checker *c, const char *text, lsim_fuzz_result *res,
                         lsim_error *err) {
  MlirModule m;
  lsim_error said = LSIM_ERROR_INIT;
  int rc = lsim_mlir_parse_module(c->parse, text, &m, &said);
  if (rc) {
    rc = rc == LSIM_E_NO_MEMORY ? lsim_fuzz_no_memory(err)
                                : fail(res, LSIM_FUZZ_REPARSE, err, "%s", lsim_error_message(&said));
    lsim_error_clear(&said);
    return rc;
  }
  char *again = lsim_mlir_print(mlirModuleGetOperation(m));
  mlirModuleDestroy(m);
  if (!again)
    rc = lsim_fuzz_no_memory(err);
  else if (strcmp(again, text) != 0)
    rc = fail_difference(res, LSIM_FUZZ_REPARSE, "the re-parsed module prints differently", text,
                         again, err);
  free(again);
  return rc;
}

static int check_first(lsim_fuzz_checker *c, const record *r, lsim_fuzz_result *res,
                       lsim_error *err) {
  if (r->code)
    return check_failure(r, res, err);
  if (!r->module)
    return fail(res, LSIM_FUZZ_SUCCESS_VERIFY, err, "success without a module");
  if (!r->verifies)
    return fail(res, LSIM_FUZZ_SUCCESS_VERIFY, err, "%s", r->verify_message);
  return check_reparse(c, r->module, res, err);
}

/* An LSIM_E_INVALID_INPUT message starts with `PATH:LINE: `, and a scenario
 * read from text has other lines than one built in memory. */
static const char *without_position(const record *r) {
  const char *m = r->message;
  if (r->code != LSIM_E_INVALID_INPUT)
    return m;
  const char *p = strstr(m, ": ");
  while (p && p > m && p[-1] >= '0' && p[-1] <= '9')
    p--;
  return p && p > m && p[-1] == ':' ? strstr(p, ": ") + 2 : m;
}

static bool same_text(const char *a, const char *b) {
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Whether two records agree; `why` says how they differ. */
static bool same_outcome(const record *a, const record *b, FILE *why) {
  if (a->code != b->code) {
    fprintf(why, "%s (%s) vs %s (%s)", name_of(a->code), a->message, name_of(b->code), b->message);
    return false;
  }
  if (strcmp(without_position(a), without_position(b)) != 0) {
    fprintf(why, "%s with message \"%s\" vs \"%s\"", name_of(a->code), a->message, b->message);
    return false;
  }
  if (!same_text(a->module, b->module)) {
    fputs("modules differ: ", why);
    describe_difference(why, a->module, b->module);
    return false;
  }
  return true;
}

static int compare(const record *a, const record *b, lsim_fuzz_invariant inv, const char *what,
                   lsim_fuzz_result *res, lsim_error *err) {
  lsim_fuzz_text why;
  if (!lsim_fuzz_text_open(&why))
    return lsim_fuzz_no_memory(err);
  bool same = same_outcome(a, b, why.f);
  char *text = lsim_fuzz_text_take(&why);
  int rc = !text ? lsim_fuzz_no_memory(err)
           : same ? LSIM_OK
                  : fail(res, inv, err, "%s: %s", what, text);
  free(text);
  return rc;
}

static int check_determinism(lsim_fuzz_checker *c, const lsim_scenario *s, const record *first,
                             lsim_fuzz_result *res, lsim_error *err) {
  record second;
  int rc = run(c, s, &second, err);
  if (!rc)
    rc = compare(first, &second, LSIM_FUZZ_DETERMINISM, "the second lowering differs", res, err);
  record_clear(&second);
  return rc;
}

static int check_stream(lsim_fuzz_checker *c, const lsim_scenario *s, const record *first,
                        lsim_fuzz_result *res, lsim_error *err) {
  record streamed;
  int rc = run_with(c, s, 1, &streamed, err);
  if (!rc)
    rc = compare(first, &streamed, LSIM_FUZZ_STREAM, "the streamed lowering differs", res, err);
  record_clear(&streamed);
  return rc;
}

/* Writes `s`; an invalid scenario (or a failing writer) is a finding. */
static int write_text(const lsim_scenario *s, char **text, size_t *size, lsim_fuzz_result *res,
                      lsim_error *err) {
  lsim_error e = LSIM_ERROR_INIT;
  int rc = lsim_fuzz_scenario_text(s, text, size, &e);
  if (rc == LSIM_E_NO_MEMORY)
    rc = lsim_fuzz_no_memory(err);
  else if (rc)
    rc = fail(res, LSIM_FUZZ_ROUND_TRIP, err, "lsim_scenario_write fails: %s: %s", name_of(rc),
              lsim_error_message(&e));
  lsim_error_clear(&e);
  *text = rc || res->failed ? NULL : *text;
  return rc;
}

/* Reads `text` back, lowers it and writes it again. */
static int check_read_back(lsim_fuzz_checker *c, const lsim_scenario *s, const char *text,
                           size_t size, const record *first, lsim_fuzz_result *res,
                           lsim_error *err) {
  lsim_scenario *back = NULL;
  lsim_error e = LSIM_ERROR_INIT;
  int rc = lsim_scenario_read_memory(text, size, s->path, &back, &e);
  if (rc == LSIM_E_NO_MEMORY)
    rc = lsim_fuzz_no_memory(err);
  else if (rc)
    rc = fail(res, LSIM_FUZZ_ROUND_TRIP, err, "the written scenario does not read back: %s",
              lsim_error_message(&e));
  lsim_error_clear(&e);
  if (rc || res->failed)
    return rc;
  record again;
  rc = run(c, back, &again, err);
  if (!rc)
    rc = compare(first, &again, LSIM_FUZZ_ROUND_TRIP, "the scenario read back lowers differently",
                 res, err);
  record_clear(&again);
  char *text2 = NULL;
  size_t size2 = 0;
  if (!rc && !res->failed)
    rc = write_text(back, &text2, &size2, res, err);
  if (!rc && text2 && (size2 != size || memcmp(text, text2, size) != 0))
    rc = fail_difference(res, LSIM_FUZZ_ROUND_TRIP, "the scenario read back writes differently",
                         text, text2, err);
  free(text2);
  lsim_scenario_destroy(back);
  return rc;
}

static int check_round_trip(lsim_fuzz_checker *c, const lsim_scenario *s, const record *first,
                            lsim_fuzz_result *res, lsim_error *err) {
  char *text = NULL;
  size_t size = 0;
  int rc = write_text(s, &text, &size, res, err);
  if (!rc && text)
    rc = check_read_back(c, s, text, size, first, res, err);
  free(text);
  return rc;
}

int lsim_fuzz_check_here(lsim_fuzz_checker *c, const lsim_scenario *s, lsim_fuzz_result *res,
                         lsim_error *err) {
  *res = (lsim_fuzz_result){LSIM_FUZZ_HOLDS, 0, NULL};
  record first;
  int rc = run(c, s, &first, err);
  if (rc)
    return rc;
  res->code = first.code;
  rc = check_first(c, &first, res, err);
  if (!rc && !res->failed)
    rc = check_determinism(c, s, &first, res, err);
  if (!rc && !res->failed)
    rc = check_stream(c, s, &first, res, err);
  if (!rc && !res->failed)
    rc = check_round_trip(c, s, &first, res, err);
  record_clear(&first);
  if (rc)
    lsim_fuzz_result_clear(res);
  return rc;
}
