/* cli/cmd_explain.c: `lowersim explain FILE`: the lowering of `lower`,
 * narrated in JAX's terms: the runtime's backends, the canonicalized
 * platforms, each equation's rule lookup and the platforms sharing a
 * branch, channels and host callbacks, verification, then the module;
 * each step followed by the JAX function it is about, linked to its line at
 * the profile's source_ref.  --json: the same as one object; --html: one
 * page (explain_html.c). */
#include "cli.h"
#include "explain_facts.h"
#include "explain_html.h"
#include "pretty.h"
#include "lowersim/alloc.h"
#include "lowersim/scenario_python.h"
#include "lowersim/scenario_run.h"
#include "json.h"
#include "options.h"
#include "output.h"
#include "lowersim/scenario_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
  bool error_told;  /* the narration has had its error step */
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
  int line = lsim_jax_source_line(n->profile, file, sp + 1);
  char where[300];
  if (line)
    snprintf(where, sizeof where, "%s:%d", base ? base + 1 : file, line);
  else /* a function the table places in its file only */
    snprintf(where, sizeof where, "%s", base ? base + 1 : file);
  fprintf(n->text, "  %*s%s@ %s (%s) %s%s\n", depth * 2, "", n->st->dim, sp + 1, where, url,
          n->st->reset);
}

static void on_explain(void *data, lsim_explain_kind kind, int depth, const char *line) {
  narration *n = data;
  n->error_told |= kind == LSIM_EXPLAIN_ERROR;
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
  /* A line of several (an error's message) keeps its continuation lines
   * under its first, so that the narration's shape holds. */
  fprintf(n->text, "  %*s%s%s", depth * 2, "", colours[kind], marks[kind]);
  for (const char *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1)
    fprintf(n->text, "%.*s\n  %*s%*s", (int)(nl - line), line, depth * 2, "",
            (int)strlen(marks[kind]), "");
  fprintf(n->text, "%s%s\n", line, n->st->reset);
  if (n->source[0]) {
    print_source(n, depth + 1);
    n->source[0] = '\0';
  }
}

/* --json: each narrated line an item {kind, depth, text} of "narration". */
typedef struct json_narration {
  cli_json j; /* an array's items, into the memory stream */
  bool error_told; /* the narration has had its error step */
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
  n->error_told |= kind == LSIM_EXPLAIN_ERROR;
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
  if (rc && mem && !n.error_told) /* raised before or after the lowering */
    lsim_explain_error(on_explain_json, &n, 0, &err, lsim_scenario_profile(s, profile));
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
  /* The file as written when it is a regular one (never a FIFO or a device,
   * which the reader refused, nor a pipe it emptied), else as read. */
  FILE *in = NULL;
  lsim_error oerr = LSIM_ERROR_INIT;
  struct stat st;
  if (strcmp(path, "-") && !lsim_scenario_open_read(path, &in, &oerr) &&
      (fstat(fileno(in), &st) != 0 || !S_ISREG(st.st_mode))) {
    fclose(in);
    in = NULL;
  }
  lsim_error_clear(&oerr);
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
static int explain_html(const char *path, const lsim_jax_profile *profile, const char *out_path,
                        bool generic) {
  cli_inputs inputs = {0};
  if (!cli_inputs_add(&inputs, path))
    return cli_report(&(lsim_error){LSIM_E_NO_MEMORY, NULL});
  lsim_scenario *s = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  explain_record record = {0};
  lsim_lowerer *lowerer = NULL;
  lsim_scenario_outcome outcome = {0};
  char *jaxpr = NULL, *python = NULL;
  int rc = cli_read_scenario(path, &s, &err);
  bool invalid = rc != 0;
  char *text = scenario_text(path, s);
  if (!rc) {
    /* The program as JAX Python, as the terminal shows it first (NULL, and
     * the page says so, when the rendering does not cover the scenario). */
    lsim_error perr = LSIM_ERROR_INIT;
    if (lsim_scenario_python(s, profile, &python, &perr) == LSIM_E_NO_MEMORY)
      rc = err.code = LSIM_E_NO_MEMORY;
    lsim_error_clear(&perr);
  }
  if (!rc) {
    lsim_scenario_run_options opts = LSIM_SCENARIO_RUN_OPTIONS_INIT(
        .explain = explain_record_line, .explain_data = &record, .explain_ops = true,
        .profile = profile, .jaxpr = &jaxpr);
    rc = lsim_lowerer_create(&lowerer, &err);
    if (!rc)
      rc = lsim_scenario_run(lowerer, s, &opts, &outcome, &err);
  }
  bool error_told = false;
  for (size_t i = 0; i < record.count; i++)
    error_told |= record.lines[i].kind == LSIM_EXPLAIN_ERROR;
  if (rc && !invalid && !error_told)
    lsim_explain_error(explain_record_line, &record, 0, &err, lsim_scenario_profile(s, profile));
  if (record.failed && !rc)
    rc = err.code = LSIM_E_NO_MEMORY;
  explain_facts facts = {0};
  if (s)
    explain_facts_make(&facts, s, profile, invalid ? NULL : &outcome, rc);
  if (facts.failed && !rc)
    rc = err.code = LSIM_E_NO_MEMORY;
  explain_page page = {
      .path = path,
      .facts = s ? &facts : NULL,
      .generic = generic,
      .scenario_text = text,
      .scenario_name = s ? s->name : NULL,
      .python = python,
      .jaxpr = jaxpr,
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
  free(python);
  free(jaxpr);
  explain_facts_free(&facts);
  explain_record_free(&record);
  lsim_scenario_outcome_clear(&outcome);
  lsim_lowerer_destroy(lowerer);
  lsim_scenario_destroy(s);
  lsim_error_clear(&err);
  cli_inputs_free(&inputs);
  return code;
}

static void heading(const style *st, const char *title);

/* explain --python: the program as JAX Python alone on stdout (what the
 * oracle executes), or why it has none yet. */
static int explain_python_only(const char *path, const lsim_jax_profile *profile) {
  lsim_scenario *s = NULL;
  int read = cli_read_scenario_or_report(path, &s);
  if (read)
    return read;
  lsim_error err = LSIM_ERROR_INIT;
  char *text = NULL;
  int code = lsim_scenario_python(s, profile, &text, &err) ? cli_report(&err) : 0;
  if (text && (fputs(text, stdout) < 0 || fflush(stdout)))
    code = EXIT_FAILURE;
  free(text);
  lsim_scenario_destroy(s);
  lsim_error_clear(&err);
  return code;
}

/* The program as JAX Python, first: what the scenario means.  False when
 * out of memory. */
static bool explain_python(const style *st, const lsim_scenario *s,
                           const lsim_jax_profile *profile) {
  char *text = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  heading(st, "JAX program (Python; explain --python prints it alone)");
  int rc = lsim_scenario_python(s, profile, &text, &err);
  if (rc)
    printf("  (none: %s)\n", lsim_error_message(&err));
  else
    fputs(text, stdout);
  free(text);
  lsim_error_clear(&err);
  return rc != LSIM_E_NO_MEMORY;
}

/* explain --jaxpr: the jaxpr alone on stdout, or, when tracing fails, the
 * lowering's error as `lower` reports it. */
static int explain_jaxpr_only(const char *path, const lsim_jax_profile *profile) {
  lsim_scenario *s = NULL;
  int read = cli_read_scenario_or_report(path, &s);
  if (read)
    return read;
  lsim_error err = LSIM_ERROR_INIT;
  lsim_lowerer *lowerer = NULL;
  lsim_scenario_outcome outcome = {0};
  char *jaxpr = NULL;
  lsim_error trace = LSIM_ERROR_INIT;
  lsim_scenario_run_options opts = LSIM_SCENARIO_RUN_OPTIONS_INIT(
      .profile = profile, .jaxpr = &jaxpr, .jaxpr_error = &trace);
  int rc = lsim_lowerer_create(&lowerer, &err);
  if (!rc)
    rc = lsim_scenario_run(lowerer, s, &opts, &outcome, &err);
  int code = 0;
  /* make_jaxpr traces only: a lowering that fails after tracing (or
   * before it: jit(backend=)) has its jaxpr, or tracing's error. */
  if (jaxpr && lsim_status_kind(rc) != LSIM_KIND_INVALID_INPUT &&
      lsim_status_kind(rc) != LSIM_KIND_NO_MEMORY)
    code = printf("%s\n", jaxpr) < 0 || fflush(stdout) ? EXIT_FAILURE : 0;
  else if (trace.code && lsim_status_kind(rc) != LSIM_KIND_INVALID_INPUT)
    code = cli_report(&trace);
  else
    code = cli_report(rc ? &err : &(lsim_error){LSIM_E_NO_MEMORY, NULL});
  lsim_error_clear(&trace);
  free(jaxpr);
  lsim_scenario_outcome_clear(&outcome);
  lsim_lowerer_destroy(lowerer);
  lsim_scenario_destroy(s);
  lsim_error_clear(&err);
  return code;
}

static void heading(const style *st, const char *title) {
  printf("\n%s%s%s\n", st->bold, title, st->reset);
}

/* The program as jax.make_jaxpr(f)(*args) prints it (a session: its last
 * lowering's), as it is, not indented: it is JAX's text. */
static void explain_jaxpr(const style *st, const char *jaxpr) {
  heading(st, "jaxpr (jax.make_jaxpr(f)(*args))");
  if (jaxpr)
    printf("%s\n", jaxpr);
  else
    printf("  (none: tracing fails; the result below says why)\n");
}

/* A section of explain_facts: its heading and `  KEY  VALUE[NOTE]` rows;
 * nothing when it has none. */
static void print_section(const style *st, const explain_section *sec) {
  if (!sec->count)
    return;
  heading(st, sec->title);
  for (size_t i = 0; i < sec->count; i++) {
    const explain_row *r = &sec->rows[i];
    const char *on = r->tone == EXPLAIN_TONE_WARN ? st->yellow : "";
    printf("  %s%-16s%s ", on, r->key, *on ? st->reset : "");
    if (r->tone == EXPLAIN_TONE_GOOD) {
      printf("%s%s%s%s\n", r->value, st->green, r->note ? r->note : "", st->reset);
      continue;
    }
    cli_put_line(stdout, r->value);
  }
}

static void help(void) {
  printf("usage: lowersim explain [--jax VERSION] [--generic] [--json | --html OUT.html | --jaxpr |"
         " --python] FILE\n\n"
         "Lowers the scenario FILE (\"-\": standard input) as `lowersim lower` does and\n"
         "narrates it in JAX's terms (the JAX version first, then the JAX Python program\n"
         "the scenario means and its jaxpr as jax.make_jaxpr(f)(*args) prints it), then\n"
         "prints the module.\n"
         "Each step is followed by the JAX function it is about, as `@ FUNCTION\n"
         "(FILE:LINE) URL`, the line of its def at the profile's source ref\n"
         "(`lowersim versions`: explain.source_ref).\n"
         "The module is shown in JAX's pretty form (as `lowersim lower` prints it with\n"
         "its pretty option), or in MLIR's generic form with --generic or when it has an\n"
         "op lowersim prints no pretty form of (the heading says which).\n"
         "Colour as --color says (every command takes it): auto (the default) colours a\n"
         "terminal only, unless NO_COLOR is set and not empty or TERM is dumb. --jax and\n"
         "exit codes as for `lower`.\n"
         "--json: one JSON object on stdout instead: `lower --json`'s members and\n"
         "\"narration\", each narrated line as {kind, depth, text} (no links).\n"
         "--html OUT.html: one self-contained page instead (no network): the scenario,\n"
         "the narration beside the module, each op linked to the step that made it and\n"
         "back, each stablehlo.case dispatch drawn, an error as the outcome. Replaced\n"
         "whole, never half-written; nothing on stdout; the exit code is the lowering's.\n"
         "--jaxpr: only the jaxpr (a session: its last lowering's) on stdout, exit 0;\n"
         "when tracing fails, tracing's error as `lower` reports an error.\n"
         "--python: only the JAX Python program (runnable: it leaves `lowered`, or\n"
         "`exported`, defined); a scenario the rendering does not cover yet exits 2.\n");
}

int cmd_explain(int argc, char **argv) {
  const char *jax_name = NULL;
  const lsim_jax_profile *profile = NULL;
  const char *html = NULL;
  bool json = false, generic = false, jaxpr_only = false, python_only = false;
  const cli_option options[] = {
      CLI_OPT_CHOICE("jax", 0, &jax_name, cli_jax_values,
                     CLI_HELP("VERSION", "the JAX version of a scenario that names none")),
      CLI_OPT_FLAG("json", 0, &json, CLI_OUTPUT, CLI_HELP(NULL, "one JSON object on stdout instead")),
      CLI_OPT_FLAG("generic", 0, &generic,
                   CLI_HELP(NULL, "the module in MLIR's generic form, not JAX's pretty form")),
      CLI_OPT_STRING("html", 0, &html, CLI_OUTPUT, CLI_HELP("OUT.html", "one self-contained page instead")),
      CLI_OPT_FLAG("jaxpr", 0, &jaxpr_only,
                   CLI_HELP(NULL, "only the jaxpr, as jax.make_jaxpr prints it")),
      CLI_OPT_FLAG("python", 0, &python_only,
                   CLI_HELP(NULL, "only the scenario as the JAX Python program it means"))};
  cli_args args;
  int code = cli_parse("explain", argc, argv, options, sizeof options / sizeof options[0], help, &args);
  if (code)
    return code < 0 ? 0 : code;
  if (jax_name && (code = cli_parse_jax("explain", "--jax", jax_name, &profile)))
    return code;
  if (args.num_operands != 1)
    return cli_usage_error("explain", "one scenario file (usage: lowersim explain FILE)");
  const char *path = args.operands[0];
  if (json + !!html + jaxpr_only + python_only > 1)
    return cli_usage_error("explain",
                           "--json, --html, --jaxpr and --python are four outputs: give one");
  if (jaxpr_only)
    return explain_jaxpr_only(path, profile);
  if (python_only)
    return explain_python_only(path, profile);
  if (json)
    return explain_json(path, profile);
  if (html)
    return explain_html(path, profile, html, generic);
  lsim_scenario *s = NULL;
  int read = cli_read_scenario_or_report(path, &s);
  if (read)
    return read;
  lsim_error err = LSIM_ERROR_INIT;
  narration n = {cli_use_colour(stdout) ? &colour : &plain, lsim_scenario_profile(s, profile),
                 NULL, NULL, 0, "", false};
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
  char jax_line[256];
  explain_jax_line(s, profile, jax_line, sizeof jax_line);
  printf("  %s\n", jax_line);
  explain_source_line(s, profile, jax_line, sizeof jax_line);
  printf("  %s\n", jax_line);
  lsim_lowerer *lowerer = NULL;
  lsim_scenario_outcome outcome = {0};
  char *jaxpr = NULL;
  lsim_scenario_run_options opts = LSIM_SCENARIO_RUN_OPTIONS_INIT(
      .explain = on_explain, .explain_data = &n, .profile = profile, .jaxpr = &jaxpr);
  int rc = lsim_lowerer_create(&lowerer, &err);
  if (!rc)
    rc = lsim_scenario_run(lowerer, s, &opts, &outcome, &err);
  bool rendered = explain_python(st, s, profile);
  explain_jaxpr(st, jaxpr);
  free(jaxpr);
  explain_facts facts;
  explain_facts_make(&facts, s, profile, &outcome, rc);
  print_section(st, &facts.request);
  print_section(st, &facts.runtime);
  /* An error raised before or after the lowering (tracing, execution)
   * still ends the narration with its step. */
  if (rc && !n.error_told)
    lsim_explain_error(on_explain, &n, 0, &err, jax);
  heading(st, "lowering (lower_jaxpr_to_module)");
  fclose(n.text);
  fputs(n.data ? n.data : "", stdout);
  print_section(st, &facts.context);
  if (facts.failed && !rc)
    rc = err.code = LSIM_E_NO_MEMORY;
  explain_facts_free(&facts);
  if (rc) {
    heading(st, "result");
    printf("  %s%s: %s: ", st->red, lsim_status_name(err.code), lsim_error_class(&err));
    fputs(st->reset, stdout);
    cli_put_line(stdout, lsim_error_message(&err));
    fflush(stdout);
    code = cli_report(&err);
  } else {
    char refused[128];
    char *text = cli_module_text(outcome.lowering, generic, refused, sizeof refused);
    heading(st, "module (verified)");
    if (refused[0])
      printf("  %s(MLIR's generic form: lowersim has no pretty form for %s)%s\n", st->dim,
             refused, st->reset);
    else if (generic)
      printf("  %s(MLIR's generic form, as --generic asks)%s\n", st->dim, st->reset);
    else
      printf("  %s(JAX's pretty form, as jax.jit(f).lower(...).as_text() prints it; "
             "--generic: MLIR's generic form)%s\n",
             st->dim, st->reset);
    fputs(text ? text : "(out of memory)\n", stdout);
    if (!text)
      code = cli_report(&(lsim_error){LSIM_E_NO_MEMORY, NULL});
    free(text);
  }
  if (!rendered && !code)
    code = cli_report(&(lsim_error){LSIM_E_NO_MEMORY, NULL});
  free(n.data);
  lsim_scenario_outcome_clear(&outcome);
  lsim_lowerer_destroy(lowerer);
  lsim_scenario_destroy(s);
  lsim_error_clear(&err);
  return code;
}
