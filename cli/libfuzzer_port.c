/* cli/libfuzzer_port.c: the libFuzzer target of a port's output, as the
 * runner and the judge read it (cli/impl.c, scenario/scenario_port.c).
 *
 * An input's first byte chooses what its other bytes are:
 *  - (b & 3) == 0: a batch stream, the bytes a batch port writes on its
 *    stdout; its frames are parsed as the runner parses them (with a bound
 *    chosen by the second byte) and each whole one judged as an answer;
 *  - 1 and 2: one process's answer, exit status b >> 2, its stdout the next
 *    N bytes (N the second and third bytes, little-endian, cut to what is
 *    there) and its stderr the rest, judged against lowersim's module (1) or
 *    JAX's error (2);
 *  - 3: the same, judged as a time-out or a signal (b >> 2 odd or even).
 * Every verdict is also shown as a person sees it (impl_shown) and written
 * as --json writes it.  Findings abort (libFuzzer's crash):
 *  - a frame parse that is not consistent (a header past its bound, a frame
 *    longer than the bytes, a prefix of a whole frame that is not partial, a
 *    verdict on a prefix that a longer prefix changes);
 *  - the judge failing, or passing an answer holding a NUL byte, a module
 *    for an error or the other way round;
 *  - shown text with a control character (newline and tab aside; the
 *    judge's colour marks with colour on) or bytes that are not UTF-8;
 *  - --json text that is not valid UTF-8 or holds a raw control character. */
#define _GNU_SOURCE /* open_memstream */
#include "impl.h"
#include "json.h"

#include "lowersim/alloc.h"
#include "lowersim/lowering.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* lowersim's outcome for testdata/scenarios/single-platform.xml, as
 * `lowersim lower` prints it, and missing-rule.xml's error. */
static const char ours[] =
    "module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n"
    "  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "
    "\"result\"}) {\n"
    "    %0 = \"stablehlo.sine\"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "    %1 = \"stablehlo.custom_call\"(%0) {api_version = 1 : i32, backend_config = \"\", "
    "call_target_name = \"my_cpu_kernel\", called_computations = [], has_side_effect = false, "
    "mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = "
    "[dense<0> : tensor<1xindex>]} : (tensor<4xf32>) -> tensor<4xf32>\n"
    "    %2 = \"stablehlo.add\"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
    "    return %2 : tensor<4xf32>\n"
    "  }\n"
    "}\n";
static const char error_message[] =
    "MLIR translation rule for primitive 'my_op' not found for platforms ['tpu', 'rocm']";

static lsim_lowerer *lowerer;
static lsim_error jax_error = LSIM_ERROR_INIT;

static void finding(const char *what, const char *text, size_t len) {
  fprintf(stderr, "finding: %s\n", what);
  if (text)
    fprintf(stderr, "--- text (%zu bytes):\n%.*s\n---\n", len, (int)(len > 4000 ? 4000 : len),
            text);
  abort();
}

/* Valid UTF-8 with no control character but newline and tab (and, with
 * `colour`, the judge's marks' ESC). */
static void check_shown(const char *what, const char *s, bool colour) {
  size_t len = strlen(s);
  for (size_t i = 0; i < len;) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x80) {
      uint32_t cp = 0;
      size_t n = cli_utf8_sequence(s + i, len - i, &cp);
      if (!n || (cp >= 0x80 && cp < 0xa0))
        finding(what, s, len);
      i += n;
      continue;
    }
    if ((c < 0x20 && c != '\n' && c != '\t' && !(colour && c == 0x1b)) || c == 0x7f)
      finding(what, s, len);
    i++;
  }
}

/* The verdict's texts as a person sees them and as --json writes them. */
static void check_outputs(const lsim_scenario_port_verdict *v, bool colour) {
  const char *texts[] = {v->first,           v->difference,     v->notes,
                         v->expected_class,  v->expected_message, v->expected_module,
                         v->actual_class,    v->actual_message, v->actual_module};
  char *json = NULL;
  size_t json_len = 0;
  FILE *f = open_memstream(&json, &json_len);
  if (!f)
    abort();
  cli_json j = {.f = f};
  cli_json_open_object(&j, NULL);
  for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
    if (!texts[k])
      continue;
    char *shown = impl_shown(texts[k], strlen(texts[k]), colour);
    if (!shown)
      abort();
    check_shown("shown text", shown, colour);
    free(shown);
    cli_json_string(&j, "t", texts[k]);
  }
  cli_json_close_object(&j);
  if (fclose(f) != 0)
    abort();
  for (size_t i = 0; i < json_len;) {
    unsigned char c = (unsigned char)json[i];
    uint32_t cp;
    size_t n = c >= 0x80 ? cli_utf8_sequence(json + i, json_len - i, &cp) : 1;
    if (n == 0 || c < 0x20 || c == 0x7f)
      finding("--json text", json, json_len);
    i += n;
  }
  free(json);
}

static void judge(const impl_answer *a, bool module, bool colour) {
  lsim_scenario_port_verdict v;
  impl_judging how = {.colour = colour};
  if (impl_judge(lsim_lowerer_mlir_context(lowerer), module ? ours : NULL, &jax_error, a, &how,
                 &v))
    finding("the judge failed", NULL, 0);
  if (v.passed) {
    if (a->how != IMPL_EXITED || (module != (a->code == 0)))
      finding("passed: a wrong outcome", a->err, a->err_len);
    if (memchr(a->out, '\0', a->out_len) || memchr(a->err, '\0', a->err_len))
      finding("passed: an answer holding a NUL byte", a->out, a->out_len);
  } else if (!v.first || !v.difference) {
    finding("failed without saying why", NULL, 0);
  }
  check_outputs(&v, colour);
  lsim_scenario_port_verdict_clear(&v);
}

/* An answer over borrowed bytes (the judge does not keep them). */
static impl_answer answer(impl_how how, int code, const uint8_t *out, size_t out_len,
                          const uint8_t *err, size_t err_len) {
  return (impl_answer){.how = how, .code = code, .out = (char *)out, .out_len = out_len,
                       .err = (char *)err, .err_len = err_len};
}

static int init(void) {
  if (lsim_lowerer_create(&lowerer, NULL))
    abort();
  lsim_error_set(&jax_error, LSIM_E_NO_LOWERING_RULE, "%s", error_message);
  /* lowersim against itself passes, and so does JAX's error line. */
  impl_answer a = answer(IMPL_EXITED, 0, (const uint8_t *)ours, strlen(ours), NULL, 0);
  a.err = "";
  lsim_scenario_port_verdict v;
  if (impl_judge(lsim_lowerer_mlir_context(lowerer), ours, &jax_error, &a, &(impl_judging){0},
                 &v) ||
      !v.passed)
    finding("lowersim's module against itself", v.difference, v.difference ? strlen(v.difference) : 0);
  lsim_scenario_port_verdict_clear(&v);
  return 0;
}

/* Bytes with a NUL after them (the judge's strings have one). */
static uint8_t *terminated(const uint8_t *p, size_t n) {
  uint8_t *s = lsim_malloc(n + 1);
  if (!s)
    abort();
  if (n)
    memcpy(s, p, n);
  s[n] = '\0';
  return s;
}

static void batch(const uint8_t *data, size_t size, size_t max) {
  const char *p = (const char *)data;
  size_t left = size;
  for (int frames = 0; frames < 8; frames++) {
    impl_frame f;
    int r = impl_frame_parse(p, left, max, &f);
    /* A longer stream never changes a malformed or too large header, and
     * a shorter one is partial or says the same. */
    for (size_t cut = 0; cut < left && cut < IMPL_FRAME_HEADER_MAX + 2; cut += 7) {
      impl_frame g;
      int s = impl_frame_parse(p, cut, max, &g);
      if (s != r && s != IMPL_FRAME_PARTIAL)
        finding("a prefix of the stream parses otherwise", p, cut);
    }
    if (r == IMPL_FRAME_PARTIAL || r == IMPL_FRAME_MALFORMED)
      return;
    if (f.head == 0 || f.head > IMPL_FRAME_HEADER_MAX || f.code < 0 || f.code > 255)
      finding("a header out of its bounds", p, left);
    if (r == IMPL_FRAME_TOO_LARGE) {
      if (f.out + f.err <= max)
        finding("too large, yet within the bound", p, left);
      return;
    }
    if (f.out > max || f.err > max - f.out || f.head + f.out + f.err > left)
      finding("a whole frame past its bytes or its bound", p, left);
    if (f.head + f.out + f.err > 0) {
      impl_frame g;
      if (impl_frame_parse(p, f.head + f.out + f.err - 1, max, &g) != IMPL_FRAME_PARTIAL)
        finding("a whole frame less its last byte is not partial", p, left);
    }
    uint8_t *out = terminated((const uint8_t *)p + f.head, f.out);
    uint8_t *err = terminated((const uint8_t *)p + f.head + f.out, f.err);
    impl_answer a = answer(IMPL_EXITED, f.code, out, f.out, err, f.err);
    judge(&a, frames % 2 == 0, false);
    free(out);
    free(err);
    p += f.head + f.out + f.err;
    left -= f.head + f.out + f.err;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int ready = -1;
  if (ready < 0)
    ready = init();
  if (size < 3)
    return 0;
  unsigned mode = data[0] & 3, code = data[0] >> 2;
  if (mode == 0) {
    batch(data + 2, size - 2, (size_t)1 << (data[1] % 24));
    return 0;
  }
  size_t n = (size_t)data[1] | (size_t)data[2] << 8;
  if (n > size - 3)
    n = size - 3;
  uint8_t *out = terminated(data + 3, n), *err = terminated(data + 3 + n, size - 3 - n);
  impl_answer a = answer(mode == 3 ? (code & 1 ? IMPL_TIMED_OUT : IMPL_SIGNALLED) : IMPL_EXITED,
                         mode == 3 ? 9 : (int)code, out, n, err, size - 3 - n);
  judge(&a, mode != 2, code & 2);
  free(out);
  free(err);
  return 0;
}
