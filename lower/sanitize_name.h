/* lower/sanitize_name.h: the module's name.  Private to lower/. */
#ifndef LSIMP_LOWER_SANITIZE_NAME_H
#define LSIMP_LOWER_SANITIZE_NAME_H

#include <locale.h>

/* The module name of a jitted function: sanitize_name("jit(" + name + ")")
 * with trailing '_' stripped (mlir.py sanitize_name; pxla's jit(...) module
 * names).  `utf8` is a C.UTF-8 locale for Unicode \w, or (locale_t)0.
 * Owned; NULL when out of memory. */
char *lsimp_module_name(const char *function, locale_t utf8);

#endif
