/* support/alloc.h: the library's allocator is lowersim/alloc.h's (one
 * function, lsim_alloc_at, with sizes checked for overflow and a fault
 * hook); this private header only brings it into support/'s view. */
#ifndef LSIMP_SUPPORT_ALLOC_H
#define LSIMP_SUPPORT_ALLOC_H

#include "lowersim/alloc.h"

#endif
