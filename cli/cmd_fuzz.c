/* cli/cmd_fuzz.c: `lowersim fuzz` (in progress). */
#include "cli/cli.h"

#include <stdio.h>

int cmd_fuzz(int argc, char **argv) {
  (void)argc, (void)argv;
  fprintf(stderr, "lowersim fuzz: not implemented yet\n");
  return EXIT_INVALID_INPUT;
}
