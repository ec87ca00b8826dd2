/* cli/lowersim.c: the lowersim executable: the command, then standard
 * output flushed and checked (a failed write is exit 2, never 0). */
#include "cli.h"
#include "output.h"
#include "lowersim/scenario_output.h"

int main(int argc, char **argv) {
  cli_stdout_install();
  lsim_scenario_output_catch_signals(); /* temporaries removed, SIGXFSZ ignored */
  int code = cli_main(argc, argv);
  return cli_finish_stdout(argc > 1 ? argv[1] : "", code);
}
