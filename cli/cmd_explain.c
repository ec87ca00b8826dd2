/* cli/cmd_explain.c: `lowersim explain FILE`: the lowering of `lower`,
 * narrated in JAX's terms: the runtime's backends, the canonicalized
 * platforms, each equation's rule lookup and the platforms sharing a
 * branch, channels and host callbacks, verification, then the module;
 * each step followed by the JAX function it is about, linked to its line at
 * the profile's source_ref.  --json: the same as one object; --html: one
 * page (explain_html.c). */
#include "cli.h"
#include "explain_html.h"
#include "lowersim/alloc.h"
#include "lowersim/scenario_run.h"
#include "json.h"
#include "options.h"
#include "output.h"

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
  const lsim_jax_profile *profile; /* whose source the links name */
  FILE *text; /* in memory (open_memstream): printed after the runtime */
  char *data;
  size_t size;
  char source[256]; /* the JAX function of the next line ("": none) */
} narration;

/* `@ jaxpr_subcomp (mlir.py:2075) https://github.com/...#L2075`. */
static void print_source(narration *n, int depth) {
  const char *sp = strchr(n->source, ' ');
  if (!sp)
    return;
  char file[256], url[512];
  snprintf(file, sizeof file, "%.*s", (int)(sp - n->source), n->source);
  lsim_jax_source_url(n->profile, file, sp + 1, url, sizeof url);
  const char *base = strrchr(file, '/');
  fprintf(n->text, "  %*s%s@ %s (%s:%d) %s%s\n", depth * 2, "", n->st->dim, sp + 1,
          base ? base + 1 : file, lsim_jax_source_line(n->profile, file, sp + 1), url,
          n->st->reset);
}

static void on_explain(void *data, lsim_explain_kind kind, int depth, const char *line) {
  narration *n = data;
  if (kind == LSIM_EXPLAIN_SOURCE) {
    snprintf(n->source, sizeof n->source, "%s", line);
    return;
  }
  static const char *const marks[] = {
      [LSIM_EXPLAIN_STEP] = "", [LSIM_EXPLAIN_DETAIL] = "- ", [LSIM_EXPLAIN_DECISION] = "> ",
      [LSIM_EXPLAIN_ALLOC] = "+ ", [LSIM_EXPLAIN_ERROR] = "! ", [LSIM_EXPLAIN_TEXT] = "  "};
  const char *colours[] = {[LSIM_EXPLAIN_STEP] = n->st->bold, [LSIM_EXPLAIN_DETAIL] = n->st->dim,
                           [LSIM_EXPLAIN_DECISION] = n->st->cyan, [LSIM_EXPLAIN_ALLOC] = n->st->yellow,
                           [LSIM_EXPLAIN_ERROR] = n->st->red, [LSIM_EXPLAIN_TEXT] = n->st->dim};
  fprintf(n->text, "  %*s%s%s%s%s\n", depth * 2, "", colours[kind], marks[kind], line,
                     n->st->reset);
  if (n->source[0]) {
    print_source(n, depth + 1);
    n->source[0] = '\0';
  }
}

/* --json: each narrated line an item {kind, depth, text} of "narration". */
typedef struct json_narration {
  cli_json j; /* an array's items, into the memory stream */
  char *data;
  size_t size;
} json_narration;

static void on_explain_json(void *data, lsim_explain_kind kind, int depth, const char *line) {
  if (kind == LSIM_EXPLAIN_SOURCE) /* --json is as it was: no links */
    return;
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

/* The scenario as written: the file's text, or (standard input) the
 * scenario written back; NULL when out of memory or unreadable. */
static char *scenario_text(const char *path, const lsim_scenario *s) {
  char *data = NULL;
  size_t size = 0;
  FILE *mem = open_memstream(&data, &size);
  if (!mem)
    return NULL;
  FILE *in = strcmp(path, "-") ? fopen(path, "r") : NULL;
  bool ok = true;
  if (in) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
      ok = ok && fwrite(buf, 1, n, mem) == n;
    ok = ok && !ferror(in);
    fclose(in);
  } else if (s) {
    lsim_error err = LSIM_ERROR_INIT;
    ok = lsim_scenario_write(s, mem, &err) == 0;
    lsim_error_clear(&err);
  }
  if (fclose(mem) || !ok) {
    free(data);
    return NULL;
  }
  return data;
}

/* explain --html OUT: the page, written whole or not at all; the exit code
 * is the lowering's, as for the text. */
static int explain_html(const char *path, const lsim_jax_profile *profile, const char *out_path) {
  cli_inputs inputs = {0};
  if (!cli_inputs_add(&inputs, path))
    return cli_report(&(lsim_error){LSIM_E_NO_MEMORY, NULL});
  lsim_scenario *s = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  explain_record record = {0};
  lsim_lowerer *lowerer = NULL;
  lsim_scenario_outcome outcome = {0};
  int rc = cli_read_scenario(path, &s, &err);
  bool invalid = rc != 0;
  char *text = scenario_text(path, s);
  if (!rc) {
    lsim_scenario_run_options opts = LSIM_SCENARIO_RUN_OPTIONS_INIT(
        .explain = explain_record_line, .explain_data = &record, .explain_ops = true,
        .profile = profile);
    rc = lsim_lowerer_create(&lowerer, &err);
    if (!rc)
      rc = lsim_scenario_run(lowerer, s, &opts, &outcome, &err);
  }
  if (record.failed && !rc)
    rc = err.code = LSIM_E_NO_MEMORY;
  explain_page page = {
      .path = path,
      .scenario_text = text,
      .scenario_name = s ? s->name : NULL,
      .profile = s ? lsim_scenario_profile(s, profile) : lsim_jax_profile_or_default(profile),
      .narration = &record,
      .outcome = invalid ? NULL : &outcome,
      .code = rc,
      .error_class = rc ? lsim_error_class(&err) : NULL,
      .error_message = rc ? lsim_error_message(&err) : NULL};
  int code = 0;
  cli_output *o = cli_output_open("explain", out_path, &inputs);
  if (!o) {
    code = EXIT_INVALID_INPUT;
  } else if (!explain_html_write(cli_output_stream(o), &page)) {
    cli_output_abort(o);
    code = cli_report(&(lsim_error){LSIM_E_NO_MEMORY, NULL});
  } else {
    code = cli_output_commit(o);
  }
  if (!code && invalid) {
    fprintf(stderr, "%s\n", lsim_error_message(&err));
    code = EXIT_INVALID_INPUT;
  } else if (!code && rc) {
    code = cli_report(&err);
  }
  free(text);
  explain_record_free(&record);
  lsim_scenario_outcome_clear(&outcome);
  lsim_lowerer_destroy(lowerer);
  lsim_scenario_destroy(s);
  lsim_error_clear(&err);
  cli_inputs_free(&inputs);
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
  printf("usage: lowersim explain [--jax VERSION] [--json | --html OUT.html] FILE\n\n"
         "Lowers the scenario FILE (\"-\": standard input) as `lowersim lower` does and\n"
         "narrates it in JAX's terms (the JAX version first), then prints the module.\n"
         "Each step is followed by the JAX function it is about, as `@ FUNCTION\n"
         "(FILE:LINE) URL`, the line of its def at the profile's source ref\n"
         "(`lowersim versions`: explain.source_ref).\n"
         "Colour as --color says (every command takes it): auto (the default) colours a\n"
         "terminal only, unless NO_COLOR is set and not empty or TERM is dumb. --jax and\n"
         "exit codes as for `lower`.\n"
         "--json: one JSON object on stdout instead: `lower --json`'s members and\n"
         "\"narration\", each narrated line as {kind, depth, text} (no links).\n"
         "--html OUT.html: one self-contained page instead (no network): the scenario,\n"
         "the narration beside the module, each op linked to the step that made it and\n"
         "back, each stablehlo.case dispatch drawn, an error as the outcome. Replaced\n"
         "whole, never half-written; nothing on stdout; the exit code is the lowering's.\n");
}

int cmd_explain(int argc, char **argv) {
  const char *jax_name = NULL;
  const lsim_jax_profile *profile = NULL;
  const char *html = NULL;
  bool json = false;
  const cli_option options[] = {
      CLI_OPT_CHOICE("jax", 0, &jax_name, cli_jax_values,
                     CLI_HELP("VERSION", "the JAX version of a scenario that names none")),
      CLI_OPT_FLAG("json", 0, &json, CLI_HELP(NULL, "one JSON object on stdout instead")),
      CLI_OPT_STRING("html", 0, &html, CLI_HELP("OUT.html", "one self-contained page instead"))};
  cli_args args;
  int code = cli_parse("explain", argc, argv, options, 3, help, &args);
  if (code)
    return code < 0 ? 0 : code;
  if (jax_name && (code = cli_parse_jax("explain", "--jax", jax_name, &profile)))
    return code;
  if (args.num_operands != 1)
    return cli_usage_error("explain", "one scenario file (usage: lowersim explain FILE)");
  const char *path = args.operands[0];
  if (json && html)
    return cli_usage_error("explain", "--json and --html are two outputs: give one");
  if (json)
    return explain_json(path, profile);
  if (html)
    return explain_html(path, profile, html);
  lsim_scenario *s = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  if (cli_read_scenario(path, &s, &err)) {
    fprintf(stderr, "%s\n", lsim_error_message(&err));
    lsim_error_clear(&err);
    return EXIT_INVALID_INPUT;
  }
  narration n = {cli_use_colour(stdout) ? &colour : &plain, lsim_scenario_profile(s, profile),
                 NULL, NULL, 0, ""};
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
  printf("  source links at github.com/jax-ml/jax %s\n", jax->source_ref);
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
