/* tests/test_run.c: lowering what a scenario describes (scenario_run.c):
 * what a lowering owns, and what a scenario's own primitives are. */
#include "lowersim/scenario_run.h"
#include "tests/suites.h"

#include <stdlib.h>
#include <string.h>

static lsim_scenario *read_text(const char *xml) {
  lsim_scenario *s = NULL;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL(lsim_scenario_read_memory(xml, strlen(xml), "test", &s, &err), LSIM_OK);
  if (err.code)
    fprintf(stderr, "\n  %s", lsim_error_message(&err));
  lsim_error_clear(&err);
  return s;
}

/* A lowering executes, prints and is destroyed after lsim_scenario_run has
 * returned, after the scenario it came from and the lowerer that made it are
 * gone: it references none of them (the sanitizer build checks the memory). */
static void test_lowering_outlives_its_run(void) {
  lsim_scenario *s = read_text(
      "<scenario name='outlives'><lower function='f' platforms='cpu'>"
      "<arg dtype='f32' shape='4'/>"
      "<pure_callback args='0'><result dtype='f32' shape='4'/></pure_callback>"
      "<buffer_callback args='0' returns_value='true'><result dtype='f32' shape='4'/>"
      "</buffer_callback><return values='1,2'/></lower></scenario>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  lsim_lowerer *lowerer = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_lowerer_create(&lowerer, NULL), LSIM_OK);
  lsim_scenario_outcome out;
  lsim_error err = LSIM_ERROR_INIT;
  CU_ASSERT_EQUAL_FATAL(lsim_scenario_run(lowerer, s, NULL, &out, &err), LSIM_OK);
  CU_ASSERT_FALSE(out.executed);
  lsim_lowering *lowering = out.lowering;
  out.lowering = NULL; /* the lowering is the test's now */
  lsim_scenario_outcome_clear(&out);
  lsim_scenario_destroy(s);
  lsim_lowerer_destroy(lowerer);
  /* Host callback 0 (the pure callback) runs; 1 (the buffer callback)
   * returns a value, which buffer_callback's wrapper refuses. */
  CU_ASSERT_EQUAL(lsim_module_context_host_callback_count(lsim_lowering_module_context(lowering)),
                  2);
  CU_ASSERT_EQUAL(lsim_lowering_execute(lowering, &err), LSIM_E_CALLBACK_RETURNED_VALUES);
  CU_ASSERT_STRING_EQUAL(lsim_error_message(&err),
                         "buffer_callback callback must not return any values.");
  char *text = lsim_lowering_print(lowering);
  CU_ASSERT(text && strstr(text, "xla_buffer_python_cpu_callback"));
  free(text);
  lsim_lowering_destroy(lowering);
  lsim_error_clear(&err);
}

/* lsim_scenario_run_options.profile picks the JAX version lowered as; NULL is
 * the newest. */
static void test_run_options_pick_the_jax_version(void) {
  lsim_scenario *s = read_text("<scenario name='version'><lower function='f'>"
                               "<arg dtype='f32' shape='4'/><op kind='sine' args='0'/>"
                               "</lower></scenario>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  lsim_lowerer *lowerer = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_lowerer_create(&lowerer, NULL), LSIM_OK);
  const lsim_jax_profile *asked[] = {&lsim_jax_0_10_2, NULL};
  const lsim_jax_profile *got[] = {&lsim_jax_0_10_2, lsim_jax_profile_default()};
  for (int i = 0; i < 2; i++) {
    lsim_scenario_run_options opts = LSIM_SCENARIO_RUN_OPTIONS_INIT(.profile = asked[i]);
    lsim_scenario_outcome out;
    CU_ASSERT_EQUAL_FATAL(lsim_scenario_run(lowerer, s, &opts, &out, NULL), LSIM_OK);
    CU_ASSERT_PTR_EQUAL(lsim_module_context_profile(lsim_lowering_module_context(out.lowering)),
                        got[i]);
    lsim_scenario_outcome_clear(&out);
  }
  lsim_lowerer_destroy(lowerer);
  lsim_scenario_destroy(s);
}

/* A scenario's <primitive name="add"> is a new primitive: an <op kind="add">
 * after it is still lax.add_p, lowered as stablehlo.add, and a
 * <primitive name="pallas_call"> takes nothing from pallas_call. */
static void test_own_primitives_are_new_objects(void) {
  lsim_scenario *s = read_text(
      "<scenario name='own'><lower function='f' platforms='cpu'>"
      "<arg dtype='f32' shape='4'/>"
      "<primitive name='add' args='0,0'><default target='my_add'/>"
      "<result dtype='f32' shape='4'/></primitive>"
      "<op kind='add' args='0,1'/>"
      "<primitive name='add' args='2,2'><result dtype='f32' shape='4'/></primitive>"
      "</lower></scenario>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  lsim_lowerer *lowerer = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_lowerer_create(&lowerer, NULL), LSIM_OK);
  lsim_scenario_outcome out;
  lsim_error err = LSIM_ERROR_INIT;
  /* The second <primitive name="add"> is the first's primitive: its rule. */
  CU_ASSERT_EQUAL_FATAL(lsim_scenario_run(lowerer, s, NULL, &out, &err), LSIM_OK);
  char *text = lsim_lowering_print(out.lowering);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"stablehlo.add\""));
  const char *first = strstr(text, "call_target_name = \"my_add\"");
  CU_ASSERT_TRUE(first && strstr(first + 1, "call_target_name = \"my_add\""));
  free(text);
  lsim_scenario_outcome_clear(&out);
  lsim_scenario_destroy(s);
  s = read_text("<scenario name='own2'><lower function='f' platforms='cpu'>"
                "<arg dtype='f32' shape='7'/>"
                "<pallas_call args='0' kernel='copy' interpret='true'>"
                "<result dtype='f32' shape='7'/><result dtype='f32' shape='7'/></pallas_call>"
                "<primitive name='pallas_call' args='0'><default target='t'/>"
                "<result dtype='f32' shape='7'/></primitive></lower></scenario>");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  /* pallas_call's own trace check still runs: two results do not fit copy. */
  CU_ASSERT_EQUAL(lsim_scenario_run(lowerer, s, NULL, &out, &err), LSIM_E_INVALID_INPUT);
  lsim_scenario_outcome_clear(&out);
  lsim_scenario_destroy(s);
  lsim_lowerer_destroy(lowerer);
  lsim_error_clear(&err);
}

/* <pallas use_mosaic_gpu=...> sets jax_pallas_use_mosaic_gpu, which JAX
 * has until 0.11.1: for a later JAX the scenario is refused at <pallas>'s
 * line, never lowered as if the attribute were absent; without the
 * attribute it lowers on every JAX, and the writer writes the attribute
 * only when the scenario sets it. */
static void test_use_mosaic_gpu_only_where_jax_has_it(void) {
  const char *xml = "<scenario name='flag'>\n<pallas use_mosaic_gpu='false'/>\n"
                    "<lower function='f' platforms='cuda'>"
                    "<abstract_device platform='gpu' device_kind='NVIDIA H100'/>"
                    "<arg dtype='f32' shape='128'/>"
                    "<pallas_call args='0' kernel='add_one' grid='1'>"
                    "<result dtype='f32' shape='128'/></pallas_call></lower></scenario>";
  lsim_scenario *s = read_text(xml);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_TRUE(s->has_use_mosaic_gpu);
  CU_ASSERT_EQUAL(s->pallas_line, 2);
  lsim_lowerer *lowerer = NULL;
  CU_ASSERT_EQUAL_FATAL(lsim_lowerer_create(&lowerer, NULL), LSIM_OK);
  lsim_error err = LSIM_ERROR_INIT;
  for (size_t i = 0; i < lsim_jax_profile_count(); i++) {
    const lsim_jax_profile *profile = lsim_jax_profile_at(i);
    lsim_scenario_run_options opts = LSIM_SCENARIO_RUN_OPTIONS_INIT(.profile = profile);
    lsim_scenario_outcome out;
    int rc = lsim_scenario_run(lowerer, s, &opts, &out, &err);
    if (profile->pallas_use_mosaic_gpu_option) {
      CU_ASSERT_NOT_EQUAL(rc, LSIM_E_INVALID_INPUT);
    } else {
      CU_ASSERT_EQUAL(rc, LSIM_E_INVALID_INPUT);
      CU_ASSERT_PTR_NOT_NULL(strstr(lsim_error_message(&err), "test:2: <pallas use_mosaic_gpu="));
      CU_ASSERT_PTR_NOT_NULL(strstr(lsim_error_message(&err), "no jax_pallas_use_mosaic_gpu"));
    }
    lsim_scenario_outcome_clear(&out);
  }
  /* Unset, the newest JAX lowers it with Triton (and warns). */
  s->has_use_mosaic_gpu = false;
  s->pallas.use_mosaic_gpu = true;
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(lsim_scenario_write(s, f, NULL), LSIM_OK);
  fclose(f);
  CU_ASSERT_PTR_NOT_NULL(text ? strstr(text, "<pallas") : NULL);
  CU_ASSERT_PTR_NULL(text ? strstr(text, "use_mosaic_gpu") : "no text");
  free(text);
  lsim_scenario_outcome out;
  CU_ASSERT_EQUAL(lsim_scenario_run(lowerer, s, NULL, &out, &err), LSIM_OK);
  char *module = out.lowering ? lsim_lowering_print(out.lowering) : NULL;
  CU_ASSERT_PTR_NOT_NULL(module ? strstr(module, "__gpu$xla.gpu.triton") : NULL);
  free(module);
  lsim_scenario_outcome_clear(&out);
  lsim_error_clear(&err);
  lsim_lowerer_destroy(lowerer);
  lsim_scenario_destroy(s);
}

static CU_TestInfo tests[] = {
    {"use_mosaic_gpu only where JAX has the option", test_use_mosaic_gpu_only_where_jax_has_it},
    {"a lowering outlives its run, scenario and lowerer", test_lowering_outlives_its_run},
    {"a scenario's own primitives are new objects", test_own_primitives_are_new_objects},
    {"run options pick the JAX version", test_run_options_pick_the_jax_version},
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo run_suite[] = {{"run", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
