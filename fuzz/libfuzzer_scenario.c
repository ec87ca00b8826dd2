/* fuzz/libfuzzer_scenario.c: the libFuzzer target.  Bytes are read as a
 * scenario file; a valid one is lowered and checked against the invariants
 * of `lowersim fuzz` (fuzz/check.c).  Invalid input is simply skipped;
 * a failed invariant aborts, which libFuzzer records as a crash. */
#include "fuzz.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_scenario(const lsim_scenario *s) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_fuzz_checker *checker = NULL;
  lsim_fuzz_result result = {0};
  int rc = lsim_fuzz_checker_create(&checker, &err);
  if (!rc)
    rc = lsim_fuzz_check(checker, s, &result, &err);
  if (!rc && result.failed) {
    fprintf(stderr, "lowersim_libfuzzer: the invariant '%s' fails: %s\n",
            lsim_fuzz_invariant_name(result.failed), result.detail ? result.detail : "");
    abort();
  }
  lsim_fuzz_result_clear(&result);
  lsim_fuzz_checker_destroy(checker);
  lsim_error_clear(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lsim_error err = LSIM_ERROR_INIT;
  lsim_scenario *s = NULL;
  if (lsim_scenario_read_memory((const char *)data, size, "<fuzz>", &s, &err) == LSIM_OK)
    check_scenario(s);
  lsim_scenario_destroy(s);
  lsim_error_clear(&err);
  return 0;
}
