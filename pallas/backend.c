/* pallas/backend.c: what the backends' pallas_call lowerings share: the
 * kernel serialized as bytecode, and the custom call that carries it. */
#include "lowersim/alloc.h"
#include "backend.h"
#include "support/mlir_text.h"
#include "support/raise.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <pthread.h>
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

int lsimp_kernel_bytecode(lsim_lowering_rule_context *ctx, const lsim_pallas_call_params *p,
                          lsimp_kernel_spec spec, bool version0, lsimp_strbuf *bytes,
                          lsim_error *err) {
  MlirModule kernel;
  spec.kernel = p->kernel;
  spec.block = &ctx->avals_in[0];
  spec.grid = p->grid;
  MlirContext mlir = kernel_context();
  if (mlirContextIsNull(mlir))
    return lsimp_fail_oom(err);
  int rc = lsimp_pallas_build_kernel(mlir, &spec, &kernel, err);
  if (rc)
    return rc;
  narrate_kernel(ctx, kernel);
  MlirOperation op = mlirModuleGetOperation(kernel);
  if (version0) {
    MlirBytecodeWriterConfig config = mlirBytecodeWriterConfigCreate();
    mlirBytecodeWriterConfigDesiredEmitVersion(config, 0);
    if (mlirLogicalResultIsFailure(
            mlirOperationWriteBytecodeWithConfig(op, config, lsimp_strbuf_append_mlir, bytes)))
      rc = lsim_error_set(err, LSIM_E_VERIFY, "MLIR could not write the %s kernel as bytecode",
                          p->kernel);
    mlirBytecodeWriterConfigDestroy(config);
  } else {
    mlirOperationWriteBytecode(op, lsimp_strbuf_append_mlir, bytes);
  }
  mlirModuleDestroy(kernel);
  if (!rc && lsimp_strbuf_failed(bytes))
    rc = lsimp_fail_oom(err);
  return rc;
}

int lsimp_emit_kernel_call(lsim_lowering_rule_context *ctx, lsim_custom_call *call,
                           const MlirValue *args, MlirValue *results, lsim_error *err) {
  MlirType types[1];
  int rc = lsim_lowering_rule_context_out_types(ctx, types, err);
  call->layouts = true;
  call->has_aliases = true;
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
