/* cli/cmd_matrix.c: `lowersim matrix` (in progress). */
#include "cli/cli.h"

#include <stdio.h>

int cmd_matrix(int argc, char **argv) {
  (void)argc, (void)argv;
  fprintf(stderr, "lowersim matrix: not implemented yet\n");
  return EXIT_INVALID_INPUT;
}
