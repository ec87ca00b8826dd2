/* cli/cmd_errors.c: `lowersim errors` prints the error catalogue. */
#include "cli.h"
#include "options.h"

#include <stdio.h>
#include <string.h>

static void help(void) {
  printf("usage: lowersim errors\n\nPrints every status code with its number, JAX exception "
         "class,\nwhere it comes from, and its message template ({x}: a substituted value).\n");
}

int cmd_errors(int argc, char **argv) {
  int parsed = cli_parse_options("errors", argc, argv, NULL, 0, help);
  if (parsed)
    return parsed < 0 ? 0 : parsed;
  for (size_t i = 0; i < lsim_status_count(); i++) {
    lsim_status code = lsim_status_at(i);
    printf("%-40s %5d  %-20s %s\n", lsim_status_name(code), (int)code, lsim_status_class(code),
           lsim_status_reference(code));
    printf("    %s\n", lsim_status_template(code));
  }
  return 0;
}
