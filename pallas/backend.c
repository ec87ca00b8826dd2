/* pallas/backend.c: what the backends' pallas_call lowerings share: the
 * kernel serialized as bytecode, and the custom call that carries it. */
#include "lowersim/alloc.h"
#include "backend.h"
#include "support/mlir_text.h"
#include "support/raise.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kernel context of this thread, reused: Pallas builds each kernel in a
 * fresh context (pallas_call_registration.py), but nothing of a context's
 * history reaches the bytecode, so one context per thread serves every
 * kernel and the ~190k instructions of making and destroying a context are
 * spent once per KERNEL_CONTEXT_USES kernels (the bound keeps what a
 * context accumulates, the attributes of kernels already built, small).
 * Freed when the thread exits; the main thread's is reachable until exit. */
enum { KERNEL_CONTEXT_USES = 256 };

typedef struct kernel_slot {
  MlirContext mlir;
  unsigned uses;
} kernel_slot;

static _Thread_local kernel_slot *this_thread;
static pthread_key_t slot_key;
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;
static bool have_key;

static void slot_free(void *data) {
  kernel_slot *slot = data;
  if (!mlirContextIsNull(slot->mlir))
    mlirContextDestroy(slot->mlir);
  free(slot);
}

static void make_key(void) { have_key = pthread_key_create(&slot_key, slot_free) == 0; }

/* This thread's kernel context, made afresh every KERNEL_CONTEXT_USES
 * kernels; a null context when out of memory. */
static MlirContext kernel_context(void) {
  pthread_once(&slot_once, make_key);
  kernel_slot *slot = this_thread;
  if (!slot) {
    if (!have_key || !(slot = lsim_calloc(1, sizeof *slot)))
      return (MlirContext){NULL};
    if (pthread_setspecific(slot_key, slot) != 0) {
      free(slot);
      return (MlirContext){NULL};
    }
    this_thread = slot;
  }
  if (!mlirContextIsNull(slot->mlir) && slot->uses >= KERNEL_CONTEXT_USES) {
    mlirContextDestroy(slot->mlir);
    slot->mlir = (MlirContext){NULL};
  }
  if (mlirContextIsNull(slot->mlir)) {
    slot->mlir = lsimp_kernel_context();
    slot->uses = 0;
  }
  slot->uses++;
  return slot->mlir;
}

/* Narrates the kernel module, one line per line of its text. */
static void narrate_kernel(lsim_lowering_rule_context *ctx, MlirModule kernel) {
  lsim_module_context *mc = ctx->module_context;
  if (!lsim_module_context_explaining(mc))
    return;
  lsimp_strbuf text = LSIMP_STRBUF_INIT;
  mlirOperationPrint(mlirModuleGetOperation(kernel), lsimp_strbuf_append_mlir, &text);
  lsim_module_context_explain(mc, LSIM_EXPLAIN_DETAIL, +1, "kernel module:");
  for (char *line = text.data; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    lsim_module_context_explain(mc, LSIM_EXPLAIN_TEXT, 0, "%s", line);
    line = nl ? nl + 1 : NULL;
  }
  lsim_module_context_explain_nest(mc, -1);
  lsimp_strbuf_free(&text);
}

/* `op` as bytecode into `bytes`: desired_version 0 when `version0`. */
static bool write_bytecode(MlirOperation op, bool version0, lsimp_strbuf *bytes) {
  if (!version0) {
    mlirOperationWriteBytecode(op, lsimp_strbuf_append_mlir, bytes);
    return true;
  }
  MlirBytecodeWriterConfig config = mlirBytecodeWriterConfigCreate();
  mlirBytecodeWriterConfigDesiredEmitVersion(config, 0);
  bool ok = mlirLogicalResultIsSuccess(
      mlirOperationWriteBytecodeWithConfig(op, config, lsimp_strbuf_append_mlir, bytes));
  mlirBytecodeWriterConfigDestroy(config);
  return ok;
}

int lsimp_kernel_bytecode(lsim_lowering_rule_context *ctx, const lsim_pallas_call_params *p,
                          lsimp_kernel_spec spec, bool version0, lsimp_strbuf *bytes,
                          lsimp_strbuf *locations, lsim_error *err) {
  MlirModule kernel, unzipped;
  char *func_name = lsimp_kernel_func_name(p);
  if (!func_name)
    return lsimp_fail_oom(err);
  spec.kernel = p->kernel;
  spec.func_name = func_name;
  size_t num_prefetch = lsimp_kernel_num_scalar_prefetch(p->kernel);
  spec.block = &ctx->avals_in[num_prefetch];
  spec.prefetch = num_prefetch ? &ctx->avals_in[0] : NULL;
  spec.grid = p->grid;
  spec.tile[0] = p->block[0];
  spec.tile[1] = p->block[1];
  MlirContext mlir = kernel_context();
  if (mlirContextIsNull(mlir)) {
    free(func_name);
    return lsimp_fail_oom(err);
  }
  int rc = lsimp_pallas_build_kernel(mlir, &spec, &kernel, &unzipped, err);
  free(func_name);
  if (rc)
    return rc;
  narrate_kernel(ctx, kernel);
  if (!write_bytecode(mlirModuleGetOperation(kernel), version0, bytes))
    rc = lsim_error_set(err, LSIM_E_VERIFY, "MLIR could not write the %s kernel as bytecode",
                        p->kernel);
  if (!rc && locations && !mlirModuleIsNull(unzipped) &&
      !write_bytecode(mlirModuleGetOperation(unzipped), version0, locations))
    rc = lsim_error_set(err, LSIM_E_VERIFY,
                        "MLIR could not write the %s kernel's locations as bytecode", p->kernel);
  mlirModuleDestroy(kernel);
  if (!mlirModuleIsNull(unzipped))
    mlirModuleDestroy(unzipped);
  if (!rc && (lsimp_strbuf_failed(bytes) || (locations && lsimp_strbuf_failed(locations))))
    rc = lsimp_fail_oom(err);
  return rc;
}

int lsimp_emit_kernel_call(lsim_lowering_rule_context *ctx, lsim_custom_call *call,
                           const MlirValue *args, MlirValue *results,
                           const lsim_pallas_call_params *p, lsim_error *err) {
  MlirType types[1];
  int rc = lsim_lowering_rule_context_out_types(ctx, types, err);
  lsim_operand_alias aliases[1];
  size_t n = 0;
  for (size_t i = 0; i < p->num_aliases && n < 1; i++) /* checked at trace time: 0:0 */
    aliases[n++] = (lsim_operand_alias){(size_t)p->aliases[i].input, (size_t)p->aliases[i].output};
  call->layouts = true;
  call->has_aliases = true;
  call->aliases = aliases;
  call->num_aliases = n;
  MlirOperation op;
  if (!rc)
    rc = lsim_emit_custom_call(&ctx->ip, call, args, ctx->num_avals_in, types, 1, &op, err);
  if (!rc)
    results[0] = mlirOperationGetResult(op, 0);
  return rc;
}

MlirAttribute lsimp_bytes_attr(MlirContext mlir, const lsimp_strbuf *bytes) {
  return mlirStringAttrGet(mlir, (MlirStringRef){bytes->data ? bytes->data : "", bytes->len});
}

MlirAttribute lsimp_i32_attr(MlirContext mlir, int64_t v) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(mlir, 32), v);
}

void lsimp_json_string(lsimp_strbuf *sb, const char *s) {
  lsimp_strbuf_putc(sb, '"');
  for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
    unsigned cp = *p;
    int n = cp < 0x80 ? 1 : (cp >> 5) == 6 ? 2 : (cp >> 4) == 14 ? 3 : (cp >> 3) == 30 ? 4 : 1;
    if (n > 1) {
      cp &= n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07;
      for (int i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80) { /* not UTF-8: the byte as a code point */
          cp = *p;
          n = 1;
          break;
        }
        cp = (cp << 6) | (p[i] & 0x3f);
      }
    }
    p += n;
    switch (cp) {
    case '"': lsimp_strbuf_puts(sb, "\\\""); continue;
    case '\\': lsimp_strbuf_puts(sb, "\\\\"); continue;
    case '\n': lsimp_strbuf_puts(sb, "\\n"); continue;
    case '\r': lsimp_strbuf_puts(sb, "\\r"); continue;
    case '\t': lsimp_strbuf_puts(sb, "\\t"); continue;
    case '\b': lsimp_strbuf_puts(sb, "\\b"); continue;
    case '\f': lsimp_strbuf_puts(sb, "\\f"); continue;
    default: break;
    }
    if (cp >= 0x20 && cp < 0x7f)
      lsimp_strbuf_putc(sb, (char)cp);
    else if (cp < 0x10000)
      lsimp_strbuf_printf(sb, "\\u%04x", cp);
    else
      lsimp_strbuf_printf(sb, "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10),
                          0xdc00 + ((cp - 0x10000) & 0x3ff));
  }
  lsimp_strbuf_putc(sb, '"');
}

void lsimp_py_float(lsimp_strbuf *sb, double v) {
  if (isnan(v)) {
    lsimp_strbuf_puts(sb, "nan");
    return;
  }
  if (isinf(v)) {
    lsimp_strbuf_puts(sb, v < 0 ? "-inf" : "inf");
    return;
  }
  /* The shortest %.Ne that reads back as v: its digits and exponent. */
  char text[40];
  for (int digits = 1; digits <= 17; digits++) {
    snprintf(text, sizeof text, "%.*e", digits - 1, v);
    if (strtod(text, NULL) == v)
      break;
  }
  char *e = strchr(text, 'e');
  int exp = atoi(e + 1);
  *e = '\0';
  char mantissa[24];
  size_t m = 0;
  bool negative = text[0] == '-';
  for (const char *c = text + negative; *c; c++)
    if (*c != '.')
      mantissa[m++] = *c;
  while (m > 1 && mantissa[m - 1] == '0')
    m--;
  mantissa[m] = '\0';
  if (negative)
    lsimp_strbuf_putc(sb, '-');
  if (exp < -4 || exp >= 16) { /* repr's exponent form: 1e-05, 1.5e+16 */
    lsimp_strbuf_putc(sb, mantissa[0]);
    if (m > 1) {
      lsimp_strbuf_putc(sb, '.');
      lsimp_strbuf_puts(sb, mantissa + 1);
    }
    lsimp_strbuf_printf(sb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
  } else if (exp < 0) { /* 0.00015 */
    lsimp_strbuf_puts(sb, "0.");
    for (int i = -1; i > exp; i--)
      lsimp_strbuf_putc(sb, '0');
    lsimp_strbuf_puts(sb, mantissa);
  } else { /* 150.0, 1.5 */
    for (int i = 0; i <= exp; i++)
      lsimp_strbuf_putc(sb, (size_t)i < m ? mantissa[i] : '0');
    lsimp_strbuf_putc(sb, '.');
    lsimp_strbuf_puts(sb, (size_t)exp + 1 < m ? mantissa + exp + 1 : "0");
  }
}

static int compare_keys(const void *a, const void *b) {
  return strcmp(((const lsim_pallas_metadata *)a)->key, ((const lsim_pallas_metadata *)b)->key);
}

void lsimp_metadata_json(lsimp_strbuf *sb, const lsim_pallas_call_params *p, bool compact) {
  size_t n = p->num_metadata;
  lsim_pallas_metadata *sorted = n ? lsim_malloc(n * sizeof *sorted) : NULL;
  if (n && !sorted) {
    lsimp_strbuf_fail(sb);
    return;
  }
  if (n)
    memcpy(sorted, p->metadata, n * sizeof *sorted);
  /* sort_keys orders by code point, as strcmp orders UTF-8. */
  if (compact && n)
    qsort(sorted, n, sizeof *sorted, compare_keys);
  lsimp_strbuf_putc(sb, '{');
  for (size_t i = 0; i < n; i++) {
    lsimp_strbuf_puts(sb, compact ? (i ? ",\n" : "\n") : (i ? ", " : ""));
    lsimp_json_string(sb, sorted[i].key);
    lsimp_strbuf_puts(sb, compact ? ":" : ": ");
    lsimp_json_string(sb, sorted[i].value);
  }
  lsimp_strbuf_puts(sb, compact && n ? "\n}" : "}");
  free(sorted);
}

int lsimp_warn_deprecated(lsim_lowering_rule_context *ctx, const char *message, lsim_error *err) {
  lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DECISION, 0,
                              "DeprecationWarning: %s", message);
  return lsim_runtime_warn(lsim_module_context_runtime(ctx->module_context), "DeprecationWarning",
                           message, err);
}

char *lsimp_kernel_func_name(const lsim_pallas_call_params *p) {
  lsimp_strbuf out = LSIMP_STRBUF_INIT;
  if (!p->name) {
    lsimp_strbuf_puts(&out, p->kernel);
    return lsimp_strbuf_take(&out);
  }
  for (const unsigned char *c = (const unsigned char *)p->name; *c; c++)
    lsimp_strbuf_putc(&out, isalnum(*c) || *c == '_' || *c == '.' || *c == '-' || *c >= 0x80
                                ? (char)*c
                                : '_');
  return lsimp_strbuf_take(&out);
}
