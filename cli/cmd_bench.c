/* cli/cmd_bench.c: `lowersim bench` (in progress). */
#include "cli/cli.h"

#include <stdio.h>

int cmd_bench(int argc, char **argv) {
  (void)argc, (void)argv;
  fprintf(stderr, "lowersim bench: not implemented yet\n");
  return EXIT_INVALID_INPUT;
}
