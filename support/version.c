/* support/version.c: the library's version, as lowersim/version.h has it. */
#include "lowersim/version.h"

const char *lsim_version(void) { return LOWERSIM_VERSION_STRING; }
