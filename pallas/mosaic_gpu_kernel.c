/* pallas/mosaic_gpu_kernel.c: Mosaic GPU's kernel module, rendered from
 * pallas/mosaic_gpu_kernel.mlir (JAX's own module for lowersim's kernels,
 * parametrised; its header documents the template's @NAME@ values and ?X
 * line conditions) and parsed into a module of unregistered ops.
 *
 * MLIR 19's parser refuses two things the module has, a memref in shared
 * memory (#gpu.address_space<workgroup> is an opaque attribute without the
 * gpu dialect, and a builtin memref takes no builtin attribute as memory
 * space) and a memref of barriers (!mosaic_gpu.barrier is an opaque type,
 * not a memref element type).  They are parsed as stand-ins (memory space
 * 3, element complex<i1>, neither of which the module has otherwise) and
 * the values of those types then given the real ones, built without the
 * checks; the bytecode writer writes such attributes and types as their
 * text, which jaxlib parses as its own. */
#include "kernels.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define SHARED_MEMORY "#gpu.address_space<workgroup>"
#define SHARED_MEMORY_STANDIN "3"
#define BARRIER "!mosaic_gpu.barrier"
#define BARRIER_STANDIN "complex<i1>"
/* The serialized form's prefix (mosaic_gpu-serde's kMangledDialect). */
#define SERDE_PREFIX "stable_mosaic_gpu."
/* The first mosaic_gpu-serde version whose gpu.launch has the asyncObject
 * operand segment (jaxlib/mosaic/gpu/serde.cc gpu_launch_upgrade). */
#define GPU_LAUNCH_ASYNC_OBJECT_VERSION 7

typedef struct param {
  const char *name;
  char value[320]; /* a kernel's name is sanitize_name(name=), of any length */
} param;

/* What renders the template for one kernel. */
typedef struct renderer {
  param params[40];
  int num_params;
  bool add, one_register, wide; /* the ?A, ?1/?2 and ?W/?N conditions */
  bool contiguous;              /* the ?B and ?D conditions */
  bool x64;                     /* the ?X and ?Y conditions */
  bool expect_tx_constant;      /* the ?E condition */
  bool one_row;                 /* the ?O and ?K conditions: an array of one row */
  bool tall_block;              /* the ?M condition: a block of more than one row */
  long long registers, per;     /* ?R runs: repeated `registers` times, PER elements each */
  /* The run of ?R lines being read (their text in the template). */
  struct {
    const char *s;
    size_t n;
  } group[16];
  int num_group;
  /* The run of ?C lines being read (expanded), and the names of those
   * dropped, which become those of the constants kept. */
  char cached[24][200];
  int num_cached;
  struct {
    char from[16], to[16];
  } alias[24];
  int num_alias;
  lsimp_strbuf out;
} renderer;

/* Sets @name@ (again, when it is set already). */
static void set(renderer *r, const char *name, const char *fmt, long long v) {
  param *p = r->params;
  while (p < r->params + r->num_params && strcmp(p->name, name) != 0)
    p++;
  if (p == r->params + r->num_params)
    r->num_params++;
  p->name = name;
  snprintf(p->value, sizeof p->value, fmt, v);
}

static void set_text(renderer *r, const char *name, const char *text) {
  param *p = &r->params[r->num_params++];
  p->name = name;
  snprintf(p->value, sizeof p->value, "%s", text);
}

static const char *lookup(const renderer *r, const char *name, size_t n) {
  for (int i = 0; i < r->num_params; i++)
    if (strlen(r->params[i].name) == n && strncmp(r->params[i].name, name, n) == 0)
      return r->params[i].value;
  return NULL;
}

static bool is_ssa_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

static bool starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* One template line (without its conditions) into `line`: the @NAME@
 * values and the aliases of deduplicated constants.  -1 for an unknown
 * @NAME@. */
static int expand(renderer *r, const char *s, size_t n, lsimp_strbuf *line) {
  const char *end = s + n;
  while (s < end) {
    if (*s == '@' && s + 1 < end && s[1] == '[') { /* @[TEXT]@: TEXT per register */
      const char *close = s + 2;
      while (close + 1 < end && !(close[0] == ']' && close[1] == '@'))
        close++;
      if (close + 1 >= end)
        return -1;
      for (long long i = 0; i < r->registers; i++) {
        if (i)
          lsimp_strbuf_puts(line, ", ");
        set(r, "I", "%lld", i);
        if (expand(r, s + 2, (size_t)(close - s - 2), line))
          return -1;
      }
      s = close + 2;
    } else if (*s == '@' && s + 1 < end && isupper((unsigned char)s[1])) {
      const char *close = memchr(s + 1, '@', (size_t)(end - s - 1));
      const char *value = close ? lookup(r, s + 1, (size_t)(close - s - 1)) : NULL;
      if (!value)
        return -1;
      lsimp_strbuf_puts(line, value);
      s = close + 1;
    } else if (*s == '%') {
      size_t len = 1;
      while (s + len < end && is_ssa_char(s[len]))
        len++;
      const char *to = NULL;
      for (int i = 0; i < r->num_alias && !to; i++)
        if (strlen(r->alias[i].from) == len && strncmp(r->alias[i].from, s, len) == 0)
          to = r->alias[i].to;
      if (to)
        lsimp_strbuf_puts(line, to);
      else
        lsimp_strbuf_append(line, s, len);
      s += len;
    } else {
      lsimp_strbuf_putc(line, *s++);
    }
  }
  return 0;
}

/* An expanded line into `out` in the serialized form: every op name
 * ("dialect.op"() but the module's prefixed stable_mosaic_gpu., and the
 * parser's stand-ins. */
static void serialize_line(const char *s, lsimp_strbuf *out) {
  while (*s) {
    if (*s == '"' && islower((unsigned char)s[1])) {
      const char *q = s + 1;
      while (islower((unsigned char)*q) || *q == '_' || *q == '.')
        q++;
      bool op = q[0] == '"' && q[1] == '(' && memchr(s + 1, '.', (size_t)(q - s - 1));
      lsimp_strbuf_putc(out, '"');
      if (op && !starts(s + 1, "builtin.module\""))
        lsimp_strbuf_puts(out, SERDE_PREFIX);
      lsimp_strbuf_append(out, s + 1, (size_t)(q - s - 1));
      s = q;
    } else if (starts(s, SHARED_MEMORY)) {
      lsimp_strbuf_puts(out, SHARED_MEMORY_STANDIN);
      s += strlen(SHARED_MEMORY);
    } else if (starts(s, BARRIER)) {
      lsimp_strbuf_puts(out, BARRIER_STANDIN);
      s += strlen(BARRIER);
    } else {
      lsimp_strbuf_putc(out, *s++);
    }
  }
  lsimp_strbuf_putc(out, '\n');
}

/* The name a line "  %name = ..." defines, and what follows " = ". */
static bool split_constant(const char *line, const char **name, size_t *len, const char **key) {
  const char *eq = strstr(line, " = ");
  *name = line + strspn(line, " ");
  *len = eq ? (size_t)(eq - *name) : 0;
  *key = eq ? eq + 3 : NULL;
  return eq && *len < 16;
}

/* The run of ?C lines into r->out.  The launch's constants are made through
 * a cache and hoisted to the top of the function in the reverse order of
 * their first use, so of the lines making the same constant the last one
 * stays and the uses of the others are renamed to it. */
static void flush_cached(renderer *r) {
  for (int i = 0; i < r->num_cached; i++) {
    const char *name, *key, *name2, *key2, *kept = NULL;
    size_t len, len2, kept_len = 0;
    if (split_constant(r->cached[i], &name, &len, &key)) {
      for (int j = i + 1; j < r->num_cached; j++) {
        if (split_constant(r->cached[j], &name2, &len2, &key2) && strcmp(key, key2) == 0)
          kept = name2, kept_len = len2;
      }
    }
    if (kept && r->num_alias < 24) {
      snprintf(r->alias[r->num_alias].from, 16, "%.*s", (int)len, name);
      snprintf(r->alias[r->num_alias].to, 16, "%.*s", (int)kept_len, kept);
      r->num_alias++;
    } else {
      serialize_line(r->cached[i], &r->out);
    }
  }
  r->num_cached = 0;
}

/* The run of ?R lines into r->out, once per register: @I@ its number, @OFF@
 * its first element. */
static int flush_group(renderer *r, lsimp_strbuf *line) {
  for (long long i = 0; i < r->registers; i++) {
    set(r, "I", "%lld", i);
    set(r, "OFF", "%lld", i * 128 * r->per);
    for (int k = 0; k < r->num_group; k++) {
      lsimp_strbuf_reset(line);
      if (expand(r, r->group[k].s, r->group[k].n, line))
        return -1;
      serialize_line(lsimp_strbuf_cstr(line), &r->out);
    }
  }
  r->num_group = 0;
  return 0;
}

/* The lines of `section` ("//! legacy") rendered into r->out. */
static int render(renderer *r, const char *section, lsim_error *err) {
  const char *text = (const char *)lsimp_mosaic_gpu_kernel_mlir;
  char marker[32];
  snprintf(marker, sizeof marker, "//! %s\n", section);
  const char *s = strstr(text, marker);
  if (!s)
    return lsim_error_set(err, LSIM_E_VERIFY, "mosaic_gpu_kernel.mlir has no %s", marker);
  s += strlen(marker);
  lsimp_strbuf line = LSIMP_STRBUF_INIT;
  int rc = LSIM_OK;
  while (*s && !starts(s, "//!")) {
    const char *eol = strchr(s, '\n');
    size_t n = eol ? (size_t)(eol - s) : strlen(s);
    bool keep = true, cached = false, repeated = false;
    while (n >= 2 && s[0] == '?') {
      switch (s[1]) {
      case 'A': keep &= r->add; break;
      case 'B': keep &= r->contiguous; break;
      case 'D': keep &= !r->contiguous; break;
      case 'R': repeated = true; break;
      case 'X': keep &= r->x64; break;
      case 'O': keep &= r->one_row; break;
      case 'K': keep &= !r->one_row; break;
      case 'M': keep &= r->tall_block; break;
      case 'S': keep &= !r->tall_block; break;
      case 'Y': keep &= !r->x64; break;
      case 'E': keep &= r->expect_tx_constant; break;
      case '1': keep &= r->one_register; break;
      case '2': keep &= !r->one_register; break;
      case 'W': keep &= r->wide; break;
      case 'N': keep &= !r->wide; break;
      case 'C': cached = true; break;
      default: keep = false; break;
      }
      s += 2, n -= 2;
    }
    if (keep && !cached && r->num_cached)
      flush_cached(r); /* before the constants' uses are expanded */
    if (keep && repeated && r->num_group == 16) {
      rc = lsim_error_set(err, LSIM_E_VERIFY, "mosaic_gpu_kernel.mlir: a ?R run over 16 lines");
      break;
    }
    if (keep && repeated) {
      r->group[r->num_group].s = s;
      r->group[r->num_group++].n = n;
      keep = false;
    }
    if (keep && r->num_group && flush_group(r, &line)) {
      rc = lsim_error_set(err, LSIM_E_VERIFY, "mosaic_gpu_kernel.mlir: cannot render a ?R run");
      break;
    }
    if (keep) {
      lsimp_strbuf_reset(&line);
      if (expand(r, s, n, &line) ||
          (cached && (r->num_cached == 24 || line.len >= sizeof r->cached[0]))) {
        rc = lsim_error_set(err, LSIM_E_VERIFY, "mosaic_gpu_kernel.mlir: cannot render %.*s",
                            (int)n, s);
        break;
      }
      if (cached)
        memcpy(r->cached[r->num_cached++], lsimp_strbuf_cstr(&line), line.len + 1);
      else
        serialize_line(lsimp_strbuf_cstr(&line), &r->out);
    }
    s += n + (eol ? 1 : 0);
  }
  if (!rc && r->num_group && flush_group(r, &line))
    rc = lsim_error_set(err, LSIM_E_VERIFY, "mosaic_gpu_kernel.mlir: cannot render a ?R run");
  if (!rc && r->num_cached)
    flush_cached(r);
  if (!rc && (lsimp_strbuf_failed(&r->out) || lsimp_strbuf_failed(&line)))
    rc = lsimp_fail_oom(err);
  lsimp_strbuf_free(&line);
  return rc;
}

/* --- The stand-ins' real types ---------------------------------------------- */

typedef struct real_types {
  MlirAttribute shared_memory, standin_space;
  MlirType barrier, standin_barrier;
} real_types;

static MlirType real_type(const real_types *rt, MlirType t) {
  if (!mlirTypeIsAMemRef(t))
    return t;
  MlirAttribute space = mlirMemRefTypeGetMemorySpace(t);
  MlirType elt = mlirShapedTypeGetElementType(t);
  bool shared = !mlirAttributeIsNull(space) && mlirAttributeEqual(space, rt->standin_space);
  bool barrier = mlirTypeEqual(elt, rt->standin_barrier);
  if (!shared && !barrier)
    return t;
  intptr_t rank = mlirShapedTypeGetRank(t);
  int64_t shape[8];
  for (intptr_t i = 0; i < rank && i < 8; i++)
    shape[i] = mlirShapedTypeGetDimSize(t, i);
  return mlirMemRefTypeGet(barrier ? rt->barrier : elt, rank, shape, mlirMemRefTypeGetLayout(t),
                           shared ? rt->shared_memory : space);
}

static void fix_types(const real_types *rt, MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); i++) {
    MlirValue v = mlirOperationGetResult(op, i);
    mlirValueSetType(v, real_type(rt, mlirValueGetType(v)));
  }
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++) {
    MlirRegion region = mlirOperationGetRegion(op, r);
    for (MlirBlock b = mlirRegionGetFirstBlock(region); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b)) {
      for (intptr_t a = 0; a < mlirBlockGetNumArguments(b); a++) {
        MlirValue v = mlirBlockGetArgument(b, a);
        mlirValueSetType(v, real_type(rt, mlirValueGetType(v)));
      }
      for (MlirOperation inner = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(inner);
           inner = mlirOperationGetNextInBlock(inner))
        fix_types(rt, inner);
    }
  }
}

/* --- The kernel ----------------------------------------------------------------- */

/* launch_context._tma_dma_type for lowersim's dtypes. */
static int tma_dtype(lsim_dtype d) {
  switch (d) {
  case LSIM_DTYPE_F16: return 5;
  case LSIM_DTYPE_F32: return 6;
  case LSIM_DTYPE_BF16: return 7;
  default: break;
  }
  switch (lsim_dtype_itemsize(d)) {
  case 1: return 1;
  case 2: return 2;
  case 4: return 3;
  default: return 4;
  }
}

int lsimp_mosaic_gpu_kernel(MlirContext mlir, const lsimp_kernel_spec *spec, bool add_one,
                            bool tiled, MlirModule *out, lsim_error *err) {
  const lsim_aval *block = spec->block;
  long long rows = tiled ? spec->tile[0] : 1, cols = tiled ? spec->tile[1] : block->dims[0];
  long long n = rows * cols;
  long long isz = (long long)lsim_dtype_itemsize(block->dtype);
  long long bytes = n * isz, aligned = (bytes + 1023) / 1024 * 1024;
  /* WGStridedFragLayout.from_shaped_type: up to 8 bytes a register, the
   * warpgroup's 128 threads covering the block. */
  long long per = 8 / isz < n / 128 ? 8 / isz : n / 128;
  while (per > 1 && n % (per * 128))
    per /= 2;
  bool fp = block->dtype == LSIM_DTYPE_F16 || block->dtype == LSIM_DTYPE_BF16 ||
            block->dtype == LSIM_DTYPE_F32 || block->dtype == LSIM_DTYPE_F64;
  const char *elt = lsimp_kernel_element_type(block->dtype);
  renderer r = {.add = add_one, .one_register = n == per * 128, .wide = isz > 1,
                .registers = per ? n / (per * 128) : 0, .per = per, .x64 = spec->x64,
                .expect_tx_constant = spec->expect_tx_constant,
                .out = LSIMP_STRBUF_INIT};
  char one[48];
  snprintf(one, sizeof one, fp ? "1.000000e+00 : %s" : "1 : %s", elt);
  if (tiled) {
    long long array_rows = (long long)block->dims[0], array_cols = (long long)block->dims[1];
    /* The block is contiguous in the array when it is whole rows or one
     * row: one descriptor, and the output goes back by a bulk copy (its
     * bytes bounded by the array's end). */
    r.contiguous = cols == array_cols || rows == 1;
    r.one_row = array_rows == 1;
    r.tall_block = rows > 1;
    set(&r, "R", "%lld", array_rows);
    set(&r, "C", "%lld", array_cols);
    set(&r, "BR", "%lld", rows);
    set(&r, "BC", "%lld", cols);
    set(&r, "GR", "%lld", array_rows / rows);
    set(&r, "GC", "%lld", array_cols / cols);
    set(&r, "RC", "%lld", array_rows * array_cols);
    set(&r, "DESC", "%lld", r.contiguous ? 128 : 256);
  }
  set_text(&r, "KERNEL", spec->func_name);
  set_text(&r, "T", elt);
  set(&r, "N", "%lld", n);
  set(&r, "G", "%lld", (long long)spec->grid);
  set(&r, "ISZ", "%lld", isz);
  set(&r, "BYTES", "%lld", bytes);
  set(&r, "TX", "%lld", bytes / 128);
  set(&r, "AL", "%lld", aligned);
  set(&r, "AL2", "%lld", 2 * aligned);
  set(&r, "SMEM", "%lld", 2 * aligned + 8);
  set(&r, "PER", "%lld", per);
  set(&r, "TMA", "%lld", tma_dtype(block->dtype));
  set(&r, "IW", "%lld", spec->x64 ? 64 : 32);
  set_text(&r, "ONE", one);
  set_text(&r, "ADD", fp ? "addf" : "addi");
  set_text(&r, "FLAGS", fp ? "fastmath = #arith.fastmath<contract>"
                           : "overflowFlags = #arith.overflow<none>");
  set_text(&r, "Y", add_one ? "%y0" : "%x0");
  set_text(&r, "Y1", add_one ? "%y1" : "%x1");
  set(&r, "MAJOR", "%lld", spec->arch_major);
  set(&r, "MINOR", "%lld", spec->arch_minor);
  set(&r, "VERSION", "%lld", spec->mosaic_version);
  /* From mosaic_gpu-serde version 7 (4656473b67, LLVM's 056dae16f7) a
   * gpu.launch has a twelfth operand segment, the asyncObject (none):
   * serde.cc gpu_launch_upgrade appends it to a kernel of an older
   * version, gpu_launch_downgrade drops it for one (jax.export's). */
  set_text(&r, "ASYNC_OBJECT", spec->mosaic_version >= GPU_LAUNCH_ASYNC_OBJECT_VERSION ? ", 0" : "");
  /* lower_mgpu_module's get_or_set_dump_options: "NAME_N" (dump.cc). */
  char dump[sizeof r.params[0].value] = "";
  if (spec->dump_basename)
    snprintf(dump, sizeof dump, "mosaic_gpu.dump_basename = \"%s_%lld\", ", spec->func_name,
             spec->dump_count);
  set_text(&r, "DUMP", dump);
  const char *section = tiled ? (spec->warpgroup ? "tiled-warpgroup" : "tiled")
                              : spec->warpgroup ? "warpgroup" : "legacy";
  int rc = render(&r, section, err);
  if (!rc) {
    MlirModule module = mlirModuleCreateParse(mlir, mlirStringRefCreateFromCString(
                                                         lsimp_strbuf_cstr(&r.out)));
    if (mlirModuleIsNull(module)) {
      rc = lsim_error_set(err, LSIM_E_VERIFY,
                          "MLIR 19 does not parse the Mosaic GPU kernel lowersim rendered");
    } else {
      real_types rt = {
          .shared_memory = mlirAttributeParseGet(mlir, mlirStringRefCreateFromCString(SHARED_MEMORY)),
          .standin_space = mlirAttributeParseGet(mlir,
                                                 mlirStringRefCreateFromCString(SHARED_MEMORY_STANDIN)),
          .barrier = mlirTypeParseGet(mlir, mlirStringRefCreateFromCString(BARRIER)),
          .standin_barrier = mlirTypeParseGet(mlir, mlirStringRefCreateFromCString(BARRIER_STANDIN)),
      };
      fix_types(&rt, mlirModuleGetOperation(module));
      *out = module;
    }
  }
  lsimp_strbuf_free(&r.out);
  return rc;
}
