/* scenario/python.c: a scenario as the JAX Python program it means: the
 * document level (imports, jax_enable_x64, the function, its arguments,
 * jit's keywords, the lowering or the export), each equation written by its
 * kind's `python` (scenario/kinds/).  What each element becomes is written
 * here once: the oracle runs exactly this text as JAX's side of every
 * judgement (oracle/program.py run_program). */
#include "lowersim/scenario_python.h"
#include "internal.h"
#include "kinds/kinds.h"
#include "lowersim/alloc.h"
#include "support/raise.h"

#include <stdlib.h>
#include <string.h>

/* What every program starts with: the imports. */
static const char prelude[] =
    "import jax\n"
    "import jax.numpy as jnp\n"
    "import numpy as np\n"
    "from jax import lax\n"
    "from jax._src import core\n"
    "from jax._src.interpreters import mlir\n"
    "from jax.experimental import io_callback\n"
    "from jax.experimental.buffer_callback import buffer_callback\n";

/* The program's helpers, each written (after the imports, in this order)
 * only when the program uses it: when its `use` appears in what follows.
 * A learner reads what the scenario needs, no more. */
static const struct helper {
  const char *use, *text;
} helpers[] = {
    {"zeros_callback(",
     "\n"
     "\n"
     "def zeros_callback(results):\n"
     "  \"\"\"A host callback returning zeros of its results' shapes.\"\"\"\n"
     "  def callback(*args):\n"
     "    return tuple(np.zeros(shape, dtype) for shape, dtype in results)\n"
     "  callback.__qualname__ = \"callback\"\n"
     "  return callback\n"},
    {"debug_callback",
     "\n"
     "\n"
     "def debug_callback(*args):\n"
     "  pass\n"},
    {"buffer_callback_fn(",
     "\n"
     "\n"
     "def buffer_callback_fn(returns_value):\n"
     "  \"\"\"A buffer callback (returning a value when the scenario's does).\"\"\"\n"
     "  def callback(ctx, out, *args):\n"
     "    return 0 if returns_value else None\n"
     "  callback.__qualname__ = \"callback\"\n"
     "  return callback\n"},
    {"ffi_rule(",
     "\n"
     "\n"
     "def ffi_rule(target, backend_access):\n"
     "  \"\"\"jax.ffi.ffi_lowering(target), after the backend access it asks for.\"\"\"\n"
     "  from jax import ffi\n"
     "  lower = ffi.ffi_lowering(target)\n"
     "  def rule(ctx, *operands, result_avals):\n"
     "    if backend_access == 'required':\n"
     "      ctx.module_context.get_backend()\n"
     "    elif backend_access == 'optional':\n"
     "      ctx.module_context.get_backend(optional=True)\n"
     "    return lower(ctx, *operands)\n"
     "  return rule\n"},
    {"exports[",
     "\n"
     "\n"
     "exports = {}  # a session's exports so far: lowering K's Exported.call\n"
     "\n"
     "\n"
     "def results(r):\n"
     "  \"\"\"An exported function's results as a list.\"\"\"\n"
     "  return list(r) if isinstance(r, (tuple, list)) else [r]\n"},
    {"primitive(",
     "\n"
     "\n"
     "prims = {}  # the program's own primitives, by name\n"
     "\n"
     "\n"
     "def primitive(name):\n"
     "  \"\"\"core.Primitive(name), one per name, returning its result_avals.\"\"\"\n"
     "  if name not in prims:\n"
     "    prims[name] = core.Primitive(name)\n"
     "    prims[name].multiple_results = True\n"
     "    prims[name].def_abstract_eval(lambda *avals, result_avals: list(result_avals))\n"
     "  return prims[name]\n"},
};

/* The Pallas helper, written once when a program has a pallas_call. */
static const char pallas_helper[] =
    "\n"
    "\n"
    "# The kernel library (lowersim's pallas/kernels.c), compiled under the file\n"
    "# name kernels.py, which JAX's messages about a kernel name.\n"
    "KERNELS = {\n"
    "    ('add_one', False): 'def add_one(x_ref, o_ref):\\n  o_ref[...] = x_ref[...] + 1\\n',\n"
    "    ('copy', False): 'def copy(x_ref, o_ref):\\n  o_ref[...] = x_ref[...]\\n',\n"
    "    ('tiled_add_one', False): 'def tiled_add_one(x_ref, o_ref):\\n  o_ref[...] = x_ref[...] + 1\\n',\n"
    "    ('add_one', True): 'def add_one(x_ref, o_ref):\\n  o_ref[...] = x_ref[...] + c\\n',\n"
    "    ('copy', True): 'def copy(x_ref, o_ref):\\n  o_ref[...] = x_ref[...] * c\\n',\n"
    "    ('tiled_add_one', True): 'def tiled_add_one(x_ref, o_ref):\\n  o_ref[...] = x_ref[...] + c\\n',\n"
    "    ('row_sum', False):\n"
    "        'def row_sum(x_ref, o_ref):\\n  o_ref[...] = jnp.sum(x_ref[...], axis=1, keepdims=True)\\n',\n"
    "    ('row_sum', True):\n"
    "        'def row_sum(x_ref, o_ref):\\n  o_ref[...] = jnp.sum(x_ref[...] * c, axis=1, keepdims=True)\\n',\n"
    "    ('gather_rows', False): 'def gather_rows(idx_ref, x_ref, o_ref):\\n  o_ref[...] = x_ref[...]\\n',\n"
    "    ('gather_rows', True):\n"
    "        'def gather_rows(idx_ref, x_ref, o_ref):\\n  o_ref[...] = x_ref[...] * c\\n',\n"
    "}\n"
    "INDEX_MAPS = {'gather_rows_in': 'lambda i, idx_ref: (idx_ref[i], 0)\\n',\n"
    "              'gather_rows_out': 'lambda i, idx_ref: (i, 0)\\n'}\n"
    "\n"
    "\n"
    "def compiler_params_of(cls, fields):\n"
    "  \"\"\"The backend's CompilerParams of the fields given (has_side_effects as\n"
    "  written: 'true', 'false' or 'dataflow').\"\"\"\n"
    "  if cls == 'mosaic_tpu':\n"
    "    import jax.experimental.pallas.tpu as pltpu\n"
    "    effects = fields.pop('has_side_effects', None)\n"
    "    if effects is not None:\n"
    "      fields['has_side_effects'] = (pltpu.SideEffectType.DATAFLOW_SIDE_EFFECTING\n"
    "                                    if effects == 'dataflow' else effects == 'true')\n"
    "    return pltpu.CompilerParams(**fields)\n"
    "  if cls == 'triton':\n"
    "    import jax.experimental.pallas.triton as pltriton\n"
    "    return pltriton.CompilerParams(**fields)\n"
    "  if cls == 'mosaic_gpu':\n"
    "    from jax._src.pallas.mosaic_gpu import core as mgpu_core  # plgpu.CompilerParams\n"
    "    return mgpu_core.CompilerParams()\n"
    "  return None\n"
    "\n"
    "\n"
    "def pallas(kernel, ops, results, grid, block=None, constants=False, interpret=False,\n"
    "           compiler_params=(None, {}), cost_estimate=None, **extra):\n"
    "  \"\"\"pl.pallas_call of a library kernel over its blocks (the whole array on\n"
    "  a 1-D grid; tiled_add_one's 2-D blocks; row_sum's rows; gather_rows's\n"
    "  scalar-prefetched rows).\"\"\"\n"
    "  from jax.experimental import pallas as pl\n"
    "  x = ops[1 if kernel == 'gather_rows' else 0]\n"
    "  namespace = {'c': np.ones(x.shape, x.dtype) if constants else None, 'jnp': jnp}\n"
    "  exec(compile(KERNELS[(kernel, constants)], 'kernels.py', 'exec'), namespace)\n"
    "  compiler_params = compiler_params_of(*compiler_params)\n"
    "  if cost_estimate is not None:\n"
    "    extra['cost_estimate'] = pl.CostEstimate(**cost_estimate)\n"
    "  out = results[0] if len(results) == 1 else tuple(results)\n"
    "  if kernel == 'gather_rows':\n"
    "    import jax.experimental.pallas.tpu as pltpu\n"
    "    index_map = lambda name: eval(compile(INDEX_MAPS[name], 'kernels.py', 'eval'), {})\n"
    "    extra['grid_spec'] = pltpu.PrefetchScalarGridSpec(\n"
    "        num_scalar_prefetch=1, grid=(x.shape[0] // block[0],),\n"
    "        in_specs=[pl.BlockSpec(block, index_map('gather_rows_in'))],\n"
    "        out_specs=pl.BlockSpec(block, index_map('gather_rows_out')))\n"
    "    call = pl.pallas_call(namespace[kernel], out_shape=out, interpret=interpret,\n"
    "                          compiler_params=compiler_params, **extra)\n"
    "  else:\n"
    "    grid = (grid,)\n"
    "    spec = pl.BlockSpec(x.shape, lambda i: (0,) * x.ndim)\n"
    "    out_spec = spec\n"
    "    if kernel == 'tiled_add_one':\n"
    "      grid = (x.shape[0] // block[0], x.shape[1] // block[1])\n"
    "      spec = out_spec = pl.BlockSpec(block, lambda i, j: (i, j))\n"
    "    elif kernel == 'row_sum':\n"
    "      grid = (x.shape[0] // block[0],)\n"
    "      spec = pl.BlockSpec(block, lambda i: (i, 0))\n"
    "      out_spec = pl.BlockSpec((block[0], 1), lambda i: (i, 0))\n"
    "    call = pl.pallas_call(namespace[kernel], out_shape=out, grid=grid, in_specs=[spec],\n"
    "                          out_specs=out_spec, interpret=interpret,\n"
    "                          compiler_params=compiler_params, **extra)\n"
    "  r = call(*ops)\n"
    "  return [r] if len(results) == 1 else list(r)\n";

void lsimp_python_struct(lsimp_strbuf *sb, const lsim_aval *aval) {
  lsimp_strbuf_puts(sb, "jax.ShapeDtypeStruct(");
  lsimp_py_shape(sb, aval->dims, aval->rank);
  lsimp_strbuf_printf(sb, ", jnp.dtype('%s'))", lsim_dtype_numpy_name(aval->dtype));
}

void lsimp_python_result_structs(lsimp_strbuf *sb, const lsim_scenario_eqn *e) {
  lsimp_strbuf_putc(sb, '(');
  for (size_t i = 0; i < e->num_results; i++) {
    if (i)
      lsimp_strbuf_puts(sb, ", ");
    lsimp_python_struct(sb, &e->results[i]);
  }
  lsimp_strbuf_puts(sb, e->num_results == 1 ? ",)" : ")");
}

void lsimp_python_operands(lsimp_python *py, const lsim_scenario_eqn *e) {
  for (size_t i = 0; i < e->num_args; i++)
    lsimp_strbuf_printf(&py->body, "%sv[%zu]", i ? ", " : "", e->args[i]);
}

void lsimp_python_aliases(lsimp_strbuf *sb, const lsim_io_alias *aliases, size_t n) {
  if (!n) {
    lsimp_strbuf_puts(sb, "None");
    return;
  }
  lsimp_strbuf_putc(sb, '{');
  for (size_t i = 0; i < n; i++)
    lsimp_strbuf_printf(sb, "%s%lld: %lld", i ? ", " : "", (long long)aliases[i].input,
                        (long long)aliases[i].output);
  lsimp_strbuf_putc(sb, '}');
}

/* Whether some lowering of the scenario has a pallas_call. */
static bool has_pallas(const lsim_scenario *s) {
  for (; s; s = s->next)
    for (size_t i = 0; i < s->num_eqns; i++)
      if (s->eqns[i].kind == &lsimp_pallas_call_kind)
        return true;
  return false;
}

/* What the rendering does not cover yet, before anything is written. */
static const char *uncovered(const lsim_scenario *s) {
  for (; s; s = s->next)
    for (size_t i = 0; i < s->num_eqns; i++)
      if (!s->eqns[i].kind->python)
        return s->eqns[i].kind->element;
  return NULL;
}

/* def f(*args): one statement per equation; the values returned as the
 * program returns them (one bare, else a tuple). */
static void function(lsimp_python *py) {
  const lsim_scenario *s = py->s;
  lsimp_strbuf_puts(&py->body, "\n\ndef f(*args):\n  v = list(args)\n");
  size_t num_values = s->num_args;
  for (size_t i = 0; i < s->num_eqns; i++) {
    const lsim_scenario_eqn *e = &s->eqns[i];
    py->eqn = i;
    if (e->compute_type) {
      lsimp_strbuf_puts(&py->body, "  from jax.experimental.compute_on import compute_on\n"
                                   "  with compute_on(");
      lsimp_py_str(&py->body, e->compute_type);
      lsimp_strbuf_puts(&py->body, "):\n  ");
    }
    e->kind->python(py, e);
    num_values += e->num_results;
  }
  size_t first = num_values, n = 0;
  const size_t *outputs = s->returns;
  if (s->has_return) {
    n = s->num_returns;
  } else if (s->num_eqns) {
    n = s->eqns[s->num_eqns - 1].num_results;
    first = num_values - n;
    outputs = NULL;
  }
  lsimp_strbuf_puts(&py->body, n == 1 ? "  return " : "  return (");
  for (size_t i = 0; i < n; i++)
    lsimp_strbuf_printf(&py->body, "%sv[%zu]", i ? ", " : "", outputs ? outputs[i] : first + i);
  lsimp_strbuf_puts(&py->body, n == 1 ? "\n" : n ? ",)\n" : ")\n");
  lsimp_strbuf_puts(&py->body, "\n\nf.__name__ = f.__qualname__ = ");
  lsimp_py_str(&py->body, s->function);
  lsimp_strbuf_putc(&py->body, '\n');
}

/* `platforms=('cpu', 'tpu')` as a tuple of the comma list. */
static void platforms_tuple(lsimp_strbuf *sb, const char *list) {
  lsimp_strbuf_putc(sb, '(');
  size_t n = 0;
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    char *item = lsim_malloc(len + 1);
    if (!item) {
      lsimp_strbuf_fail(sb);
      return;
    }
    memcpy(item, p, len);
    item[len] = '\0';
    lsimp_strbuf_puts(sb, n++ ? ", " : "");
    lsimp_py_str(sb, item);
    free(item);
    p += len + (p[len] == ',');
  }
  lsimp_strbuf_puts(sb, n == 1 ? ",)" : ")");
}

/* The arguments, jit's keywords, then the lowering (or the export). */
static void lowering(lsimp_python *py, lsimp_strbuf *sb) {
  const lsim_scenario *s = py->s;
  lsimp_strbuf_puts(sb, "\n\nargs = [");
  for (size_t i = 0; i < s->num_args; i++) {
    lsimp_strbuf_puts(sb, i ? ", " : "");
    lsimp_python_struct(sb, &s->args[i].aval);
  }
  lsimp_strbuf_puts(sb, "]\njitted = jax.jit(f, donate_argnums=(");
  size_t donated = 0;
  for (size_t i = 0; i < s->num_args; i++)
    if (s->args[i].donated)
      lsimp_strbuf_printf(sb, "%s%zu", donated++ ? ", " : "", i);
  lsimp_strbuf_puts(sb, donated == 1 ? ",)" : ")");
  if (s->devices)
    lsimp_strbuf_printf(sb, ", in_shardings=jax.sharding.NamedSharding(jax.sharding.Mesh("
                            "np.array(jax.devices()[:%d]), ('x',)), jax.sharding.PartitionSpec())",
                        s->devices);
  if (s->keep_unused)
    lsimp_strbuf_puts(sb, ", keep_unused=True");
  if (s->backend) {
    lsimp_strbuf_puts(sb, ", backend=");
    lsimp_py_str(sb, s->backend);
  }
  lsimp_strbuf_puts(sb, ")\n");
  const char *indent = "";
  if (s->has_abstract_device) {
    const lsim_abstract_device *d = &s->abstract_device;
    lsimp_strbuf_printf(sb, "%swith jax.sharding.use_abstract_mesh(jax.sharding.AbstractMesh(\n"
                            "    (1,), ('x',), axis_types=(jax.sharding.AxisType.Auto,),\n"
                            "    abstract_device=jax.sharding.AbstractDevice(device_kind=",
                        indent);
    lsimp_py_str(sb, d->device_kind);
    if (d->num_cores)
      lsimp_strbuf_printf(sb, ", num_cores=%d", d->num_cores);
    else
      lsimp_strbuf_puts(sb, ", num_cores=None");
    lsimp_strbuf_puts(sb, ", platform=");
    lsimp_py_str(sb, d->platform);
    lsimp_strbuf_puts(sb, "))):\n");
    indent = "  ";
  }
  if (s->for_export) {
    lsimp_strbuf_printf(sb, "%sfrom jax import export\n%sexported = export.export(jitted, platforms=",
                        indent, indent);
    if (s->platforms)
      platforms_tuple(sb, s->platforms);
    else
      lsimp_strbuf_puts(sb, "None");
    lsimp_strbuf_puts(sb, ", disabled_checks=[");
    for (const char *p = s->disabled_checks; p && *p;) {
      size_t len = strcspn(p, ",");
      lsimp_strbuf_puts(sb, p == s->disabled_checks ? "" : ", ");
      if (len == strlen("platform") && !strncmp(p, "platform", len)) {
        lsimp_strbuf_puts(sb, "export.DisabledSafetyCheck.platform()");
      } else {
        const char *t = p + strlen("custom_call:");
        lsimp_strbuf_printf(sb, "export.DisabledSafetyCheck.custom_call('%.*s')",
                            (int)(len - (size_t)(t - p)), t);
      }
      p += len + (p[len] == ',');
    }
    lsimp_strbuf_printf(sb, "])(*args)\n%sexports[%d] = exported.call\n", indent, s->step);
  } else {
    lsimp_strbuf_printf(sb, "%slowered = jitted.trace(*args).lower(", indent);
    if (s->platforms) {
      lsimp_strbuf_puts(sb, "lowering_platforms=");
      platforms_tuple(sb, s->platforms);
    }
    lsimp_strbuf_puts(sb, ")\n");
  }
}

/* `code` (Python statements) in `try:` with every non-empty line indented,
 * then `except Exception: pass`, after a blank line pair. */
static void indented_try(lsimp_strbuf *sb, const char *code) {
  while (*code == '\n')
    code++;
  lsimp_strbuf_puts(sb, "\n\ntry:  # the session goes on after what this lowering raises, as a JAX "
                        "process does\n");
  for (const char *line = code; *line;) {
    size_t len = strcspn(line, "\n");
    if (len)
      lsimp_strbuf_puts(sb, "  ");
    lsimp_strbuf_append(sb, line, len);
    lsimp_strbuf_putc(sb, '\n');
    line += len + (line[len] == '\n');
  }
  lsimp_strbuf_puts(sb, "except Exception:\n  pass\n");
}

int lsim_scenario_python(const lsim_scenario *s, const lsim_jax_profile *fallback, char **out,
                         lsim_error *err) {
  if (!s || !out)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_scenario_python: NULL argument");
  *out = NULL;
  const char *why = uncovered(s);
  if (why)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                          "the Python rendering does not cover %s%s%s yet", why[0] == 'a' ? "" : "<",
                          why, why[0] == 'a' ? "" : ">");
  lsimp_python py = {.shardings = LSIMP_STRBUF_INIT, .defs = LSIMP_STRBUF_INIT,
                     .body = LSIMP_STRBUF_INIT, .s = s,
                     .jax = lsim_scenario_profile(s, fallback)};
  /* The lowerings first (`rest`): which helpers the program needs is what
   * they use. */
  lsimp_strbuf rest = LSIMP_STRBUF_INIT, one = LSIMP_STRBUF_INIT;
  bool failed = false;
  for (const lsim_scenario *step = s; step; step = step->next) {
    /* A session: each lowering in turn, in this one process. */
    if (s->next)
      lsimp_strbuf_printf(&rest, "\n\n# Lowering %d (line %d)%s", step->step, step->lower_line,
                          step->next ? "." : ", the last: the program's outcome.");
    py.s = step;
    /* A lowering before the last runs whole in a try: what it raises (in
     * its setting-up as much as in its lowering), the session goes on. */
    lsimp_strbuf *to = step->next ? &one : &rest;
    lsimp_strbuf_printf(to, "\n\njax.config.update('jax_enable_x64', %s)\n",
                        lsim_scenario_enable_x64(step) ? "True" : "False");
    function(&py);
    lsimp_strbuf_append(to, lsimp_strbuf_cstr(&py.shardings), py.shardings.len);
    lsimp_strbuf_append(to, lsimp_strbuf_cstr(&py.defs), py.defs.len);
    lsimp_strbuf_append(to, lsimp_strbuf_cstr(&py.body), py.body.len);
    lowering(&py, to);
    if (step->next) {
      failed |= lsimp_strbuf_failed(&one);
      indented_try(&rest, lsimp_strbuf_cstr(&one));
      lsimp_strbuf_reset(&one);
    }
    failed |= lsimp_strbuf_failed(&py.shardings) || lsimp_strbuf_failed(&py.defs) ||
              lsimp_strbuf_failed(&py.body);
    lsimp_strbuf_reset(&py.shardings);
    lsimp_strbuf_reset(&py.defs);
    lsimp_strbuf_reset(&py.body);
  }
  lsimp_strbuf_free(&py.shardings);
  lsimp_strbuf_free(&py.defs);
  lsimp_strbuf_free(&py.body);
  lsimp_strbuf_free(&one);
  lsimp_strbuf text = LSIMP_STRBUF_INIT;
  lsimp_strbuf_printf(&text, "# %s%s%sfor JAX %s, as lowersim renders it.\n",
                      s->name ? "The scenario " : "", s->name ? s->name : "",
                      s->name ? " " : "The scenario ", py.jax->name);
  lsimp_strbuf_puts(&text, prelude);
  for (size_t i = 0; i < sizeof helpers / sizeof helpers[0]; i++)
    if (strstr(lsimp_strbuf_cstr(&rest), helpers[i].use))
      lsimp_strbuf_puts(&text, helpers[i].text);
  if (has_pallas(s))
    lsimp_strbuf_puts(&text, pallas_helper);
  failed |= lsimp_strbuf_failed(&rest);
  lsimp_strbuf_append(&text, lsimp_strbuf_cstr(&rest), rest.len);
  lsimp_strbuf_free(&rest);
  *out = failed ? NULL : lsimp_strbuf_take(&text);
  lsimp_strbuf_free(&text);
  return *out ? LSIM_OK : lsimp_fail_oom(err);
}
