/* cli/cmd_explain.c: `lowersim explain FILE`: the lowering of `lower`,
 * narrated in JAX's terms: the runtime's backends, the canonicalized
 * platforms, each equation's rule lookup and the platforms sharing a
 * branch, channels and host callbacks, verification, then the module. */
#include "cli.h"
#include "lowersim/scenario_run.h"
#include "json.h"
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct style {
  const char *bold, *dim, *cyan, *yellow, *red, *green, *reset;
} style;

static const style plain = {"", "", "", "", "", "", ""};
static const style colour = {"\033[1m",  "\033[2m",  "\033[36m", "\033[33m",
                             "\033[31m", "\033[32m", "\033[0m"};

typedef struct narration {
  const style *st;
  FILE *text; /* in memory (open_memstream): printed after the runtime */
  char *data;
  size_t size;
} narration;

static void on_explain(void *data, lsim_explain_kind kind, int depth, const char *line) {
  narration *n = data;
  static const char *const marks[] = {
      [LSIM_EXPLAIN_STEP] = "", [LSIM_EXPLAIN_DETAIL] = "- ", [LSIM_EXPLAIN_DECISION] = "> ",
      [LSIM_EXPLAIN_ALLOC] = "+ ", [LSIM_EXPLAIN_ERROR] = "! ", [LSIM_EXPLAIN_TEXT] = "  "};
  const char *colours[] = {[LSIM_EXPLAIN_STEP] = n->st->bold, [LSIM_EXPLAIN_DETAIL] = n->st->dim,
                           [LSIM_EXPLAIN_DECISION] = n->st->cyan, [LSIM_EXPLAIN_ALLOC] = n->st->yellow,
                           [LSIM_EXPLAIN_ERROR] = n->st->red, [LSIM_EXPLAIN_TEXT] = n->st->dim};
  fprintf(n->text, "  %*s%s%s%s%s\n", depth * 2, "", colours[kind], marks[kind], line,
                     n->st->reset);
}

/* --json: each narrated line an item {kind, depth, text} of "narration". */
typedef struct json_narration {
  cli_json j; /* an array's items, into the memory stream */
  char *data;
  size_t size;
} json_narration;

static void on_explain_json(void *data, lsim_explain_kind kind, int depth, const char *line) {
  static const char *const kinds[] = {
      [LSIM_EXPLAIN_STEP] = "step",   [LSIM_EXPLAIN_DETAIL] = "detail",
      [LSIM_EXPLAIN_DECISION] = "decision", [LSIM_EXPLAIN_ALLOC] = "alloc",
      [LSIM_EXPLAIN_ERROR] = "error", [LSIM_EXPLAIN_TEXT] = "text"};
  json_narration *n = data;
  cli_json_open_object(&n->j, NULL);
  cli_json_string(&n->j, "kind", kinds[kind]);
  cli_json_int(&n->j, "depth", depth);
  cli_json_string(&n->j, "text", line);
  cli_json_close_object(&n->j);
}

/* explain --json: the lowering's result and its narration, one object. */
static int explain_json(const char *path, const lsim_jax_profile *profile) {
  lsim_scenario *s = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  cli_json j;
  cli_json_begin(&j, stdout, "explain");
  if (cli_read_scenario(path, &s, &err)) {
    cli_json_lowering(&j, path, NULL, profile, err.code, &err, NULL, NULL);
    cli_json_open_array(&j, "narration");
    cli_json_close_array(&j);
    cli_json_end(&j);
    lsim_error_clear(&err);
    return EXIT_INVALID_INPUT;
  }
  json_narration n = {.j = {.depth = 1, .first = {true}}};
  FILE *mem = open_memstream(&n.data, &n.size);
  n.j.f = mem;
  lsim_lowerer *lowerer = NULL;
  lsim_scenario_outcome outcome = {0};
  lsim_scenario_run_options opts = LSIM_SCENARIO_RUN_OPTIONS_INIT(
      .explain = on_explain_json, .explain_data = &n, .profile = profile);
  int rc = mem ? lsim_lowerer_create(&lowerer, &err) : (err.code = LSIM_E_NO_MEMORY);
  if (!rc)
    rc = lsim_scenario_run(lowerer, s, &opts, &outcome, &err);
  char *text = rc ? NULL : lsim_lowering_print(outcome.lowering);
  if (!rc && !text)
    rc = err.code = LSIM_E_NO_MEMORY;
  if (mem)
    fclose(mem);
  cli_json_lowering(&j, path, s, profile, rc, &err, text, outcome.runtime);
  cli_json_open_array(&j, "narration");
  fputs(n.data ? n.data : "", stdout);
  cli_json_close_array(&j);
  cli_json_end(&j);
  int code = cli_json_exit_code(rc);
  free(text);
  free(n.data);
  lsim_scenario_outcome_clear(&outcome);
  lsim_lowerer_destroy(lowerer);
  lsim_scenario_destroy(s);
  lsim_error_clear(&err);
  return code;
}

static void heading(const style *st, const char *title) {
  printf("\n%s%s%s\n", st->bold, title, st->reset);
}

static void explain_runtime(const style *st, const lsim_scenario *s, const lsim_runtime *rt) {
  heading(st, "runtime (xla_bridge)");
  printf("  JAX_PLATFORMS    %s\n",
         s->runtime.jax_platforms ? s->runtime.jax_platforms : "(unset: every factory is tried)");
  printf("  factories        cpu and tpu (registered on import; tpu fails quietly without "
         "libtpu)%s\n",
         s->runtime.num_backends ? ", then the scenario's" : "");
  size_t n = lsim_runtime_backend_count(rt);
  const lsim_backend *def = lsim_runtime_default_backend(rt);
  for (size_t i = 0; i < n; i++) {
    const lsim_backend *b = lsim_runtime_backend_at(rt, i);
    printf("  %-16s %-8s %d device%s, priority %d%s%s%s\n", i ? "" : "backends", b->platform,
           b->device_count, b->device_count == 1 ? "" : "s", b->priority, st->green,
           b == def ? "   <- default backend" : "", st->reset);
  }
  if (n == 0)
    printf("  backends         (not initialized: see the error below)\n");
  for (size_t i = 0; i < s->runtime.num_backends; i++) {
    const char *e = lsim_runtime_backend_error(rt, s->runtime.backends[i].platform);
    if (e)
      printf("  %-16s %-8s failed quietly: %s\n", "", s->runtime.backends[i].platform, e);
  }
  for (size_t i = 0; i < lsim_runtime_warning_count(rt); i++) {
    printf("  %swarning          %s: ", st->yellow, lsim_runtime_warning_category(rt, i));
    fputs(st->reset, stdout);
    cli_put_line(stdout, lsim_runtime_warning_at(rt, i));
  }
}

static void explain_request(const style *st, const lsim_scenario *s) {
  heading(st, "request");
  printf("  function         %s  (module jit_%s)\n", s->function, s->function);
  printf("  platforms        %s\n", s->platforms ? s->platforms : "(none given: the default backend's)");
  printf("  pinned backend   %s\n", s->backend ? s->backend : "(none)");
  if (s->devices)
    printf("  in_shardings     NamedSharding(Mesh(jax.devices()[:%d], ('x',)), P())\n", s->devices);
  printf("  arguments        %zu, equations %zu%s\n", s->num_args, s->num_eqns,
         s->execute ? ", then <execute/>" : "");
}

static void explain_summary(const style *st, const lsim_scenario_outcome *o) {
  if (!o->lowering)
    return;
  lsim_module_context *mc = lsim_lowering_module_context(o->lowering);
  heading(st, "module context");
  printf("  host callbacks   %zu\n", lsim_module_context_host_callback_count(mc));
  printf("  channels         %lld%s\n", (long long)lsim_module_context_channel_count(mc),
         lsim_module_context_channel_count(mc) ? " (ids from 2; 1 is for collectives)" : "");
  if (o->executed)
    printf("  executed         every host callback ran once, in index order\n");
}

static void help(void) {
  printf("usage: lowersim explain [--jax VERSION] [--json] FILE\n\n"
         "Lowers the scenario FILE (\"-\": standard input) as `lowersim lower` does and\n"
         "narrates it in JAX's terms (the JAX version first), then prints the module.\n"
         "Colour only on a terminal (NO_COLOR turns it off). --jax and exit codes as for\n"
         "`lower`.\n"
         "--json: one JSON object on stdout instead: `lower --json`'s members and\n"
         "\"narration\", each narrated line as {kind, depth, text}.\n");
}

int cmd_explain(int argc, char **argv) {
  const char *jax_name = NULL;
  const lsim_jax_profile *profile = NULL;
  bool json = false;
  const cli_option options[] = {CLI_OPT_STRING("jax", 0, &jax_name),
                                CLI_OPT_FLAG("json", 0, &json)};
  cli_args args;
  int code = cli_parse("explain", argc, argv, options, 2, help, &args);
  if (code)
    return code < 0 ? 0 : code;
  if (jax_name && (code = cli_parse_jax("explain", "--jax", jax_name, &profile)))
    return code;
  if (args.num_operands != 1)
    return cli_usage_error("explain", "one scenario file (usage: lowersim explain FILE)");
  const char *path = args.operands[0];
  if (json)
    return explain_json(path, profile);
  lsim_scenario *s = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  if (cli_read_scenario(path, &s, &err)) {
    fprintf(stderr, "%s\n", lsim_error_message(&err));
    lsim_error_clear(&err);
    return EXIT_INVALID_INPUT;
  }
  narration n = {cli_use_colour(stdout) ? &colour : &plain, NULL, NULL, 0};
  if (!(n.text = open_memstream(&n.data, &n.size))) {
    lsim_scenario_destroy(s);
    return cli_report(&(lsim_error){LSIM_E_NO_MEMORY, NULL});
  }
  const style *st = n.st;
  printf("%slowersim explain%s %s%s%s\n", st->bold, st->reset, path,
         s->name ? "  scenario " : "", s->name ? s->name : "");
  if (s->description)
    printf("  %s\n", s->description);
  const lsim_jax_profile *jax = lsim_scenario_profile(s, profile);
  printf("  JAX %s (commit %s; %s)\n", jax->name, jax->commit,
         s->jax ? "the scenario's jax=" : profile ? "--jax" : "the newest: neither jax= nor --jax");
  lsim_lowerer *lowerer = NULL;
  lsim_scenario_outcome outcome = {0};
  lsim_scenario_run_options opts = LSIM_SCENARIO_RUN_OPTIONS_INIT(
      .explain = on_explain, .explain_data = &n, .profile = profile);
  int rc = lsim_lowerer_create(&lowerer, &err);
  if (!rc)
    rc = lsim_scenario_run(lowerer, s, &opts, &outcome, &err);
  explain_request(st, s);
  if (outcome.runtime) {
    /* Show the backends even when the lowering never needed them. */
    lsim_error init = LSIM_ERROR_INIT;
    lsim_runtime_backends(outcome.runtime, &init);
    lsim_error_clear(&init);
    explain_runtime(st, s, outcome.runtime);
  }
  heading(st, "lowering (lower_jaxpr_to_module)");
  fclose(n.text);
  fputs(n.data ? n.data : "", stdout);
  explain_summary(st, &outcome);
  if (rc) {
    heading(st, "result");
    printf("  %s%s: %s: ", st->red, lsim_status_name(err.code), lsim_error_class(&err));
    fputs(st->reset, stdout);
    cli_put_line(stdout, lsim_error_message(&err));
    fflush(stdout);
    code = cli_report(&err);
  } else {
    char *text = lsim_lowering_print(outcome.lowering);
    heading(st, "module (verified)");
    fputs(text ? text : "(out of memory)\n", stdout);
    if (!text)
      code = cli_report(&(lsim_error){LSIM_E_NO_MEMORY, NULL});
    free(text);
  }
  free(n.data);
  lsim_scenario_outcome_clear(&outcome);
  lsim_lowerer_destroy(lowerer);
  lsim_scenario_destroy(s);
  lsim_error_clear(&err);
  return code;
}
