/* cli/cmd_errors.c: `lowersim errors` prints the error catalogue. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cmd_errors(int argc, char **argv) {
  if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    printf("usage: lowersim errors\n\nPrints every status code with its number, JAX exception "
           "class,\nwhere it comes from, and its message template ({x}: a substituted value).\n");
    return 0;
  }
  if (argc > 1)
    return cli_usage_error("errors", "unexpected argument '%s'", argv[1]);
  for (size_t i = 0; i < lsim_status_count(); i++) {
    lsim_status code = lsim_status_at(i);
    printf("%-40s %5d  %-20s %s\n", lsim_status_name(code), (int)code, lsim_status_class(code),
           lsim_status_reference(code));
    printf("    %s\n", lsim_status_template(code));
  }
  return 0;
}
