/* fuzz/text.c: text in memory, and allocation failures, for the fuzzer. */
#include "internal.h"

#include <stdlib.h>

int lsim_fuzz_no_memory(lsim_error *err) {
  return lsim_error_set(err, LSIM_E_NO_MEMORY, "out of memory");
}

bool lsim_fuzz_text_open(lsim_fuzz_text *t) {
  *t = (lsim_fuzz_text){NULL, NULL, 0};
  t->f = open_memstream(&t->data, &t->size);
  return t->f != NULL;
}

char *lsim_fuzz_text_take(lsim_fuzz_text *t) {
  bool ok = !ferror(t->f);
  ok = fclose(t->f) == 0 && ok;
  if (!ok) {
    free(t->data);
    return NULL;
  }
  return t->data;
}
