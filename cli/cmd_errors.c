/* cli/cmd_errors.c: `lowersim errors` prints the error catalogue. */
#include "cli.h"
#include "json.h"
#include "options.h"

#include <stdio.h>
#include <string.h>

static void help(void) {
  printf("usage: lowersim errors [--json]\n\nPrints every status code with its number, JAX exception "
         "class,\nwhere it comes from, its message template ({x}: a substituted value) and\n"
         "the section of the repository's docs that explains it (see: PATH#ANCHOR).\n"
         "--json: the same as one JSON object, \"errors\" [{code, status, kind, class,\n"
         "reference, template, doc}].\n");
}

int cmd_errors(int argc, char **argv) {
  bool json = false;
  const cli_option options[] = {
      CLI_OPT_FLAG("json", 0, &json, CLI_OUTPUT, CLI_HELP(NULL, "the same as one JSON object"))};
  int parsed = cli_parse_options("errors", argc, argv, options, 1, help);
  if (parsed)
    return parsed < 0 ? 0 : parsed;
  if (json) {
    cli_json j;
    cli_json_begin(&j, stdout, "errors");
    cli_json_open_array(&j, "errors");
    for (size_t i = 0; i < lsim_status_count(); i++) {
      lsim_status code = lsim_status_at(i);
      lsim_error e = {code, NULL};
      cli_json_open_object(&j, NULL);
      cli_json_string(&j, "code", lsim_status_name(code));
      cli_json_int(&j, "status", code);
      cli_json_string(&j, "kind", cli_json_kind(lsim_status_kind(code)));
      cli_json_string(&j, "class", lsim_error_class(&e));
      cli_json_string(&j, "reference", lsim_status_reference(code));
      cli_json_string(&j, "template", lsim_status_template(code));
      cli_json_string(&j, "doc", lsim_status_doc(code));
      cli_json_close_object(&j);
    }
    cli_json_close_array(&j);
    cli_json_end(&j);
    return 0;
  }
  for (size_t i = 0; i < lsim_status_count(); i++) {
    lsim_status code = lsim_status_at(i);
    printf("%-40s %5d  %-20s %s\n", lsim_status_name(code), (int)code, lsim_status_class(code),
           lsim_status_reference(code));
    printf("    %s\n", lsim_status_template(code));
    printf("    see: %s\n", lsim_status_doc(code));
  }
  return 0;
}
