/* cli/cmd_lower.c: `lowersim lower FILE [-o OUT]` and `lowersim explain FILE`. */
#include "cli.h"
#include "lowersim/scenario_kind.h"
#include "lowersim/scenario_run.h"
#include "json.h"
#include "options.h"
#include "output.h"
#include "pretty.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The equation elements of the format, from its table of kinds, after what
 * <lower>'s attributes and the sharding values stand for. */
static void print_kinds(void) {
  static const char *const lower_attrs[][2] = {
      {"<lower>", "jax.jit(f).trace(*args).lower()"},
      {"platforms=\"a,b\"", ".lower(lowering_platforms=(\"a\", \"b\"))"},
      {"backend=\"x\"", "jax.jit(f, backend=\"x\") (deprecated in JAX: it warns)"},
      {"devices=\"N\"", "jit(f, in_shardings=NamedSharding(Mesh(jax.devices()[:N], (\"x\",)),"},
      {"", "P()))"},
      {"keep_unused=\"true\"", "jax.jit(f, keep_unused=True): no dead-code elimination (by"},
      {"", "default jit drops effect-free equations and arguments nothing uses)"},
      {"enable_x64=", "jax_enable_x64 (default: on when a value is 64-bit): the platform"},
      {"", "index is then tensor<i64>"},
      {"export=\"true\"", "jax.export.export(jax.jit(f), platforms=...)(*args): host callbacks"},
      {"", "and unstable custom-call targets refused, jax.uses_shape_polymorphism set"},
      {"disabled_checks=", "with export: DisabledSafetyCheck's as str() spells them,"},
      {"", "\"custom_call:TARGET\" (TARGET ALL: any) and \"platform\""},
      {"<scenario jax=\"V\">", "the JAX version the scenario pins (`lowersim versions`)"},
      {"<lower> ... <lower>", "a process session: the lowerings in order in one JAX process"},
      {"", "(backends, Pallas state, primitives and rules shared), each with its"},
      {"", "<execute/> and <expect>; `lower` prints the last one's outcome"},
      {"sharding=\"device:K\"", "SingleDeviceSharding(jax.devices()[K]) (<pure_callback>,"},
      {"", "<io_callback>)"},
      {"sharding=\"scalar_mesh:K\"", "NamedSharding(Mesh(jax.devices()[K], ()), P())"},
      {"sharding=\"mesh:N\"", "NamedSharding(Mesh(jax.devices()[:N], (\"x\",)), P())"},
      {"compute_on=\"T\"", "on any equation: traced inside compute_on(T) (device_host lowers"},
      {"", "it for cpu, tpu_sparsecore for tpu; its ops carry the compute type)"},
      {"inline=\"false\"", "on a <rule>/<default>: register_lowering(..., inline=False), a"},
      {"", "private func.func per distinct equation and a func.call of it"},
      {"<alias input output>", "in <buffer_callback>, <ffi_call> and <pallas_call>:"},
      {"", "input_output_aliases={input: output}"},
      {"<pallas_call name=>", "pallas_call(name=): the kernel function's name, sanitized"},
      {"<cost_estimate>", "pallas_call(cost_estimate=pl.CostEstimate(flops=, transcendentals=,"},
      {"", "bytes_accessed=, remote_bytes_transferred=))"},
      {"<metadata key value>", "pallas_call(metadata={key: value}); metadata=\"true\": a dict"},
      {"num_warps= num_stages=", "pltriton.CompilerParams(...) (with compiler_params=\"triton\")"},
      {"vmem_limit_bytes= ...", "pltpu.CompilerParams(...) (with compiler_params=\"mosaic_tpu\"):"},
      {"", "also allow_input_fusion=\"true,false\", has_side_effects=\"true|dataflow\","},
      {"", "internal_scratch_in_bytes=, disable_bounds_checks=, <flag name type value>"},
  };
  printf("\nWhat <lower> stands for:\n");
  for (size_t i = 0; i < sizeof lower_attrs / sizeof lower_attrs[0]; i++)
    printf("  %-22s %s\n", lower_attrs[i][0], lower_attrs[i][1]);
  printf("\nThe equations of <lower>, one element each:\n");
  for (size_t i = 0; i < lsim_scenario_kind_count(); i++) {
    const lsim_scenario_kind *kind = lsim_scenario_kind_at(i);
    const char *element = lsim_scenario_kind_element(kind);
    printf("  <%s>%*s %s\n", element, (int)(20 - strlen(element)), "",
           lsim_scenario_kind_summary(kind));
  }
  printf("\nThe op kinds of <op kind=> and <compute_on op=>, as the format spells them:\n  ");
  for (size_t i = 0; lsim_scenario_op_name(i); i++)
    printf("%s%s", i ? ", " : "", lsim_scenario_op_name(i));
  printf("\n");
}

/* From how many equations `lower` prints main's body as it lowers it.
 * Streaming takes fewer instructions from about 100 equations on (callgrind:
 * 1,000 platform_dependent 361M instead of 490M, 1,000 sine 31.7M instead of
 * 32.2M); smaller lowerings keep MLIR's printer and make no file. */
#define STREAM_MIN_EQNS 1024
#define STREAM_STR2_(x) #x
#define STREAM_STR_(x) STREAM_STR2_(x)
#define STREAM_DEFAULT STREAM_STR_(STREAM_MIN_EQNS)

static void help(void) {
  printf("usage: lowersim lower [-o OUT] [--jax VERSION] [--max-bytes N] [--stream-eqns N]\n"
         "                      [--json | --pretty] FILE\n\n"
         "Lowers the scenario FILE (\"-\": standard input) and prints the MLIR module, or\n"
         "writes it to OUT (\"-\": standard output). OUT is written only when the lowering\n"
         "succeeds, and whole: a regular file is replaced atomically (keeping its mode),\n"
         "a device or FIFO is written in place, the input is never overwritten.\n"
         "--stream-eqns prints main's body while it lowers it, into a temporary file in\n"
         "$TMPDIR (else /tmp), and frees each op once nothing reads it: the same text,\n"
         "in memory about flat in the equations.\n"
         "JAX's warnings come first on stderr, one line each: `warning: CATEGORY: text`\n"
         "(CATEGORY the warnings.warn class, e.g. DeprecationWarning, or the name of\n"
         "the JAX logger, e.g. jax._src.xla_bridge; a newline is written \\n).\n"
         "Exit codes: 0 ok; 1 a typed lowering error, printed as one line\n"
         "`CODE: ErrorClass: message` on stderr (a newline is written \\n); 2 invalid\n"
         "input (`FILE:LINE: ...`) or an output that cannot be written.\n"
         "--pretty: the module in the pretty form JAX prints (`%%0 = stablehlo.sine %%arg0 :\n"
         "tensor<4xf32>`) instead of MLIR 19's generic form of stablehlo ops; a module\n"
         "with an op whose pretty form lowersim does not print is refused (exit 2, the\n"
         "op named). It prints: %s.\n"
         "--json: one JSON object on stdout instead (testdata/schema/output.schema.json):\n"
         "the version profile, the outcome (module, error or invalid), the module or the\n"
         "error's code, class and message, and the warnings; nothing on stderr; the same\n"
         "exit codes.\n", cli_pretty_ops);
  print_kinds();
}

/* The module to OUT, or to standard output, written as it is printed (the
 * text is never held whole); OUT is replaced only once all of it is written.
 * A write error shows in the stream's error flag (cli_output_commit, and
 * cli_finish_stdout at the end, report it); out of memory while printing is
 * reported here, OUT left as it was. */
static int write_module(const char *file, const char *out_path, const lsim_lowering *lowering,
                        bool pretty) {
  lsim_error err = LSIM_ERROR_INIT;
  int code = 0;
  char *text = NULL;
  size_t size = 0;
  if (pretty) { /* whole in memory first: a refused module writes nothing */
    if ((code = cli_pretty_text("lower", lsim_lowering_module(lowering), &text, &size)))
      return code;
    if (!out_path) {
      fwrite(text, 1, size, stdout);
      free(text);
      return 0;
    }
  }
  if (!out_path) {
    if (lsim_lowering_write(lowering, stdout, &err) == LSIM_E_NO_MEMORY)
      code = cli_report(&err);
    lsim_error_clear(&err);
    return code;
  }
  cli_inputs inputs = {0};
  if (!cli_inputs_add(&inputs, file)) {
    free(text);
    return cli_usage_error("lower", "out of memory");
  }
  cli_output *o = cli_output_open("lower", out_path, &inputs);
  cli_inputs_free(&inputs);
  if (!o) {
    free(text);
    return EXIT_INVALID_INPUT;
  }
  if (text) {
    fwrite(text, 1, size, cli_output_stream(o));
    code = cli_output_commit(o);
  } else if (lsim_lowering_write(lowering, cli_output_stream(o), &err) == LSIM_E_NO_MEMORY) {
    cli_output_abort(o);
    code = cli_report(&err);
  } else {
    code = cli_output_commit(o);
  }
  free(text);
  lsim_error_clear(&err);
  return code;
}

int cmd_lower(int argc, char **argv) {
  const char *out_path = NULL, *jax = NULL;
  const lsim_jax_profile *profile = NULL;
  uint64_t max_bytes = 0, stream_eqns = STREAM_MIN_EQNS;
  bool json = false, pretty = false;
  const cli_option options[] = {
      CLI_OPT_STRING("output", 'o', &out_path, CLI_OUTPUT, CLI_HELP("OUT", "write the module to OUT")),
      CLI_OPT_FLAG("pretty", 0, &pretty,
                   CLI_HELP(NULL, "the module in the pretty form JAX prints")),
      CLI_OPT_CHOICE("jax", 0, &jax, cli_jax_values,
                     CLI_HELP("VERSION", "the JAX version of a scenario that names none in "
                              "<scenario jax=...> (default: the newest; `lowersim versions`)")),
      CLI_OPT_U64("max-bytes", 0, &max_bytes, 1, CLI_MAX_BYTES_LIMIT,
                  CLI_HELP("N", "the largest scenario file read (default 8388608, at most "
                           "2^40)")),
      CLI_OPT_U64("stream-eqns", 0, &stream_eqns, 0, SIZE_MAX,
                  CLI_HELP("N", "print main's body while lowering it from N equations on "
                           "(default " STREAM_DEFAULT "; 0: never)")),
      CLI_OPT_FLAG("json", 0, &json, CLI_OUTPUT, CLI_HELP(NULL, "one JSON object on stdout instead"))};
  cli_args args;
  int code = cli_parse("lower", argc, argv, options, sizeof options / sizeof options[0], help, &args);
  if (code)
    return code < 0 ? 0 : code;
  lsim_scenario_set_max_bytes((size_t)max_bytes);
  if (jax && (code = cli_parse_jax("lower", "--jax", jax, &profile)))
    return code;
  if (args.num_operands != 1)
    return cli_usage_error("lower", args.num_operands ? "one scenario file at a time (see --help)"
                                                      : "no scenario file (usage: lowersim lower "
                                                        "[-o OUT] [--jax VERSION] FILE)");
  const char *file = args.operands[0];
  if (pretty && json)
    return cli_usage_error("lower", "--pretty and --json: --json carries the generic form");
  if (pretty) /* the printer reads the whole module: nothing spilled */
    stream_eqns = 0;
  lsim_scenario *s = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  if (json && cli_read_scenario(file, &s, &err)) {
    cli_json j;
    cli_json_begin(&j, stdout, "lower");
    cli_json_lowering(&j, file, NULL, profile, err.code, &err, NULL, NULL);
    cli_json_end(&j);
    lsim_error_clear(&err);
    return EXIT_INVALID_INPUT;
  }
  code = s ? 0 : cli_read_scenario_or_report(file, &s);
  if (code)
    return code;
  lsim_lowerer *lowerer = NULL;
  lsim_scenario_outcome outcome = {0};
  lsim_scenario_run_options opts = LSIM_SCENARIO_RUN_OPTIONS_INIT(
      .profile = profile, .stream_min_eqns = (size_t)stream_eqns);
  int rc = lsim_lowerer_create(&lowerer, &err);
  if (!rc)
    rc = lsim_scenario_run(lowerer, s, &opts, &outcome, &err);
  if (outcome.runtime && !json)
    cli_print_warnings(stderr, outcome.runtime);
  if (json) {
    /* The JSON carries the module's text; -o still streams it to OUT. */
    char *text = rc ? NULL : lsim_lowering_print(outcome.lowering);
    if (!rc && !text)
      rc = LSIM_E_NO_MEMORY, err.code = LSIM_E_NO_MEMORY;
    cli_json j;
    cli_json_begin(&j, stdout, "lower");
    cli_json_lowering(&j, file, s, profile, rc, &err, text, outcome.runtime);
    cli_json_end(&j);
    code = rc ? cli_json_exit_code(rc)
              : out_path ? write_module(file, out_path, outcome.lowering, false) : 0;
    free(text);
  } else {
    code = rc ? cli_report(&err) : write_module(file, out_path, outcome.lowering, pretty);
  }
  lsim_scenario_outcome_clear(&outcome);
  lsim_lowerer_destroy(lowerer);
  lsim_scenario_destroy(s);
  lsim_error_clear(&err);
  return code;
}
