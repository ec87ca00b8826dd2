/* cli/cmd_errors.c: `lowersim errors` prints the error catalogue. */
#include "cli/cli.h"

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
  size_t n;
  const lsim_status *codes = lsim_status_all(&n);
  for (size_t i = 0; i < n; i++) {
    printf("%-40s %5d  %-20s %s\n", lsim_status_name(codes[i]), (int)codes[i],
           lsim_status_class(codes[i]), lsim_status_reference(codes[i]));
    printf("    %s\n", lsim_status_template(codes[i]));
  }
  return 0;
}
