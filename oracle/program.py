"""A scenario as the real JAX program it describes, lowered by JAX.

`lower(scenario)` runs in a process whose JAX state oracle/standins.py has
made the scenario's (a fresh fork-server child) and returns an Outcome:
the module, or the exception JAX raised, and the warnings JAX gave.

What each scenario element becomes (the format: docs/scenario-format.md, testdata/schema/scenario.rng):
  <lower function="f">         jax.jit(f).trace(*args).lower()
  keep_unused="true"           jax.jit(f, keep_unused=True)
  backend="x"                  jax.jit(f, backend="x")
  devices="N"                  jax.jit(f, in_shardings=NamedSharding(
                               Mesh(jax.devices()[:N], ("x",)), P()))
  platforms="a,b"              .lower(lowering_platforms=("a", "b"))
  export="true"                jax.export.export(jax.jit(f), platforms=...,
                               disabled_checks=[...])(*args).mlir_module();
                               "platform" is DisabledSafetyCheck.platform(),
                               "custom_call:T" DisabledSafetyCheck.custom_call(T)
  <abstract_device>            the lowering (and the export) inside
                               jax.sharding.use_abstract_mesh(AbstractMesh(
                               (1,), ("x",), axis_types=(AxisType.Auto,),
                               abstract_device=AbstractDevice(device_kind,
                               num_cores, platform)))
  <arg donated="true">         donate_argnums
  <op kind>                    lax.sin, cos, neg, exp, add, mul, sub
  <compute_on compute_type op> compute_on's function form (compute_on2,
                               or compute_on where that is it:
                               features.compute_on_function)(
                               compute_type=T, out_memory_spaces=
                               MemorySpace.Device, or Host for
                               out_memory_space="host")(OP)
  <primitive>                  core.Primitive(name) (multiple results), an
                               abstract eval giving the <result> avals,
                               mlir.register_lowering(prim, rule, platform,
                               inline=...) per <rule>/<default>, each rule
                               mlir.lower_fun(lambda *a, **kw: [OP(*a)]) for
                               lower_fun="OP", else
                               ffi.ffi_lowering(target) after
                               ctx.module_context.get_backend(...) as
                               backend_access says
  <platform_dependent>         lax.platform_dependent(*args, default=...,
                               **{platform: branch}); one function per op
                               kind, so branches with one op are joined
  <buffer_callback>            jax.experimental.buffer_callback.buffer_callback
  <pure_callback>              jax.pure_callback
  <io_callback>                jax.experimental.io_callback
  sharding="device:K"          sharding=SingleDeviceSharding(jax.devices()[K])
  sharding="scalar_mesh:K"     sharding=NamedSharding(Mesh(jax.devices()[K], ()), P())
  sharding="mesh:N"            sharding=NamedSharding(Mesh(jax.devices()[:N], ("x",)), P())
                               (the shardings and the mesh are made before jit)
  <debug_callback>             jax.debug.callback
  <ffi_call>                   jax.ffi.ffi_call(target, results,
                               has_side_effect=..., vmap_method=...,
                               input_output_aliases={<alias>s},
                               custom_call_api_version=api_version,
                               legacy_backend_config=...)
  <pallas use_mosaic_gpu>      jax_pallas_use_mosaic_gpu, when set (not
                               expressible where the option is gone)
  <pallas_call>                pl.pallas_call of the add_one/copy kernel over
                               grid=(g,), one block (the whole array),
                               (gather_rows: grid_spec=pltpu.PrefetchScalarGridSpec(
                               num_scalar_prefetch=1, ...), the index array first),
                               compiler_params=pltpu/pltriton/plgpu
                               .CompilerParams(), interpret=
  compute_on="T" (any equation) the equation inside `with
                               jax.experimental.compute_on.compute_on(T):`
  <execute/>                   each host callback of the lowering called once,
                               in index order, as the runtime would
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
import warnings
from typing import Any, Optional

import numpy as np

from oracle import scenario as sc

from oracle import features, releases


@dataclasses.dataclass
class Outcome:
  kind: str                      # "module" | "error" | "not_expressible" | "invalid"
  module: str = ""               # generic MLIR text without locations (kind "module")
  error_class: str = ""
  error_message: str = ""
  reason: str = ""               # not_expressible / invalid: why
  warnings: list[str] = dataclasses.field(default_factory=list)
  seconds: float = 0.0           # the lowering alone (trace + lower + module text)
  jax_code: str = ""             # where JAX raised: file:function of the innermost JAX frame
  default_backend: str = ""      # xla_bridge's default backend after the lowering, if any

  def to_json(self) -> dict:
    return dataclasses.asdict(self)

  @staticmethod
  def from_json(d: dict) -> "Outcome":
    return Outcome(**d)


class NotExpressible(Exception):
  """The scenario has no JAX program (the message says why)."""


# --- dtypes -------------------------------------------------------------------

def numpy_dtype(name: str):
  import ml_dtypes
  return {
      "bool": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
      "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
      "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64,
  }[name]


def _needs_x64(s: sc.Scenario) -> bool:
  return any(a.dtype in ("i64", "u64", "f64") for a in s.values())


def _struct(aval: sc.Aval):
  import jax
  return jax.ShapeDtypeStruct(aval.shape, numpy_dtype(aval.dtype))


def _zeros(aval: sc.Aval):
  return np.zeros(aval.shape, numpy_dtype(aval.dtype))


# --- What JAX cannot express ----------------------------------------------------

def check_expressible(s: sc.Scenario) -> None:
  """Raises NotExpressible when the installed JAX cannot run the scenario:
  it pins another JAX (a scenario's jax= names the release it is judged
  on; unknown pins, e.g. a development commit, no release judges), or its
  program needs a feature this JAX lacks (oracle/features.py)."""
  if not releases.pins(s.jax):
    raise NotExpressible(f"version: the scenario is for JAX {s.jax}; this oracle is JAX "
                         f"{releases.installed()}")
  missing = features.missing_for(s)
  if missing:
    raise NotExpressible(missing)
  for e in s.eqns:
    if e.kind == "pallas_call" and e.kernel not in ("add_one", "copy", "tiled_add_one",
                                                    "row_sum", "gather_rows"):
      raise NotExpressible(f"Pallas kernel {e.kernel!r}: the oracle knows add_one, copy, "
                           "tiled_add_one, row_sum and gather_rows")
    if e.kind == "buffer_callback":
      for i, o in e.aliases:
        if not (-2**63 <= i < 2**63 and -2**63 <= o < 2**63):
          raise NotExpressible("alias index out of int64 range")


# --- The program -----------------------------------------------------------------

_OP_FUNCTIONS: dict[str, Any] = {}


def _op_function(kind: str):
  """One Python function per op kind, so that lax.platform_dependent joins
  branches with the same op (it compares the callables)."""
  from jax import lax
  if kind not in _OP_FUNCTIONS:
    _OP_FUNCTIONS[kind] = getattr(lax, sc.OP_KINDS[kind][0])
  return _OP_FUNCTIONS[kind]


class _Primitives:
  """The scenario's own primitives: one core.Primitive per name (two
  <primitive>s with one name are the same primitive), lowering rules
  registered in document order before tracing."""

  def __init__(self, s: sc.Scenario, prims: Optional[dict[str, Any]] = None):
    from jax._src import core
    from jax._src.interpreters import mlir
    # A session's lowerings share one table: a primitive and its rules
    # outlive the lowering that made them, as in a JAX process.
    self.prims: dict[str, Any] = prims if prims is not None else {}
    for e in s.eqns:
      if e.kind != "primitive":
        continue
      prim = self.prims.get(e.name)
      if prim is None:
        prim = core.Primitive(e.name)
        prim.multiple_results = True
        prim.def_abstract_eval(lambda *avals, result_avals: list(result_avals))
        self.prims[e.name] = prim
      for r in e.rules:
        rule = (_lower_fun_rule(r.lower_fun) if r.lower_fun is not None
                else _ffi_rule(r.target, e.backend_access))
        mlir.register_lowering(prim, rule, platform=r.platform, inline=r.inline)

  def bind(self, e: sc.Eqn, operands):
    from jax._src import core
    avals = tuple(core.ShapedArray(a.shape, numpy_dtype(a.dtype)) for a in e.results)
    return self.prims[e.name].bind(*operands, result_avals=avals)


def _lower_fun_rule(op: str):
  from jax._src.interpreters import mlir
  fn = _op_function(op)
  return mlir.lower_fun(lambda *args, result_avals: [fn(*args)], multiple_results=True)


def _ffi_rule(target: str, backend_access: str):
  from jax import ffi
  lower = ffi.ffi_lowering(target)

  def rule(ctx, *operands, result_avals):
    del result_avals
    if backend_access == "required":
      ctx.module_context.get_backend()
    elif backend_access == "optional":
      ctx.module_context.get_backend(optional=True)
    return lower(ctx, *operands)

  return rule


class _Callbacks:
  """The Python functions behind the scenario's host callbacks."""

  def __init__(self):
    self.calls: list[str] = []

  def pure(self, results):
    def callback(*args):
      self.calls.append("pure")
      return tuple(_zeros(a) for a in results)
    return callback

  def debug(self):
    def callback(*args):
      self.calls.append("debug")
    return callback

  def buffer(self, returns_value: bool):
    def callback(ctx, out, *args):
      self.calls.append("buffer")
      return 0 if returns_value else None
    return callback


# The kernel library (lowersim's pallas/kernels.c): Pallas kernels on one
# block.  They are compiled from this text under the file name
# KERNEL_FILE, so that JAX's messages naming a kernel's source
# ("add_one at kernels.py:1") do not depend on where the oracle lives.
KERNEL_FILE = "kernels.py"
KERNEL_SOURCE = {
    ("add_one", False): "def add_one(x_ref, o_ref):\n  o_ref[...] = x_ref[...] + 1\n",
    ("copy", False): "def copy(x_ref, o_ref):\n  o_ref[...] = x_ref[...]\n",
    ("tiled_add_one", False): "def tiled_add_one(x_ref, o_ref):\n  o_ref[...] = x_ref[...] + 1\n",
    # constants="true": the kernel captures an array (`c`, ones).
    ("add_one", True): "def add_one(x_ref, o_ref):\n  o_ref[...] = x_ref[...] + c\n",
    ("copy", True): "def copy(x_ref, o_ref):\n  o_ref[...] = x_ref[...] * c\n",
    ("tiled_add_one", True): "def tiled_add_one(x_ref, o_ref):\n  o_ref[...] = x_ref[...] + c\n",
    ("row_sum", False):
        "def row_sum(x_ref, o_ref):\n  o_ref[...] = jnp.sum(x_ref[...], axis=1, keepdims=True)\n",
    ("row_sum", True):
        "def row_sum(x_ref, o_ref):\n  o_ref[...] = jnp.sum(x_ref[...] * c, axis=1, keepdims=True)\n",
    # Scalar prefetch: the index array idx first (in SMEM), the kernel's refs after it.
    ("gather_rows", False): "def gather_rows(idx_ref, x_ref, o_ref):\n  o_ref[...] = x_ref[...]\n",
    ("gather_rows", True):
        "def gather_rows(idx_ref, x_ref, o_ref):\n  o_ref[...] = x_ref[...] * c\n",
}

# gather_rows's index maps, each compiled from its own text under
# KERNEL_FILE too (JAX's index-map errors name them "<lambda> at
# kernels.py:1"): the input block is the one idx names, the output's is i.
INDEX_MAP_SOURCE = {
    "gather_rows_in": "lambda i, idx_ref: (idx_ref[i], 0)\n",
    "gather_rows_out": "lambda i, idx_ref: (i, 0)\n",
}


def index_map(name: str):
  return eval(compile(INDEX_MAP_SOURCE[name], KERNEL_FILE, "eval"), {})


def kernel_function(name: str, constant=None):
  import jax.numpy as jnp
  namespace = {"c": constant, "jnp": jnp}
  exec(compile(KERNEL_SOURCE[(name, constant is not None)], KERNEL_FILE, "exec"), namespace)
  return namespace[name]


def _pallas_call(e: sc.Eqn, ops):
  import jax
  from jax.experimental import pallas as pl
  prefetch = 1 if e.kernel == "gather_rows" else 0
  if len(ops) != prefetch + 1:
    raise NotExpressible(f"a pallas_call of the oracle's {e.kernel} takes {prefetch + 1} "
                         "operand(s)")
  x = ops[prefetch]
  kernel = kernel_function(e.kernel, np.ones(x.shape, x.dtype) if e.constants else None)
  params = None
  fields = dict(e.params_fields)
  if e.compiler_params == "mosaic_tpu":
    pltpu = _import_pallas_module("jax.experimental.pallas.tpu", "Mosaic TPU's CompilerParams")
    effects = fields.pop("has_side_effects", None)
    if effects is not None:
      fields["has_side_effects"] = (pltpu.SideEffectType.DATAFLOW_SIDE_EFFECTING
                                    if effects == "dataflow" else effects == "true")
    params = pltpu.CompilerParams(**fields)
  elif e.compiler_params == "triton":
    pltriton = _import_pallas_module("jax.experimental.pallas.triton", "Triton's CompilerParams")
    params = pltriton.CompilerParams(**fields)
  elif e.compiler_params == "mosaic_gpu":
    mgpu_core = _import_pallas_module("jax._src.pallas.mosaic_gpu.core",  # plgpu.CompilerParams
                                      "Mosaic GPU's CompilerParams")
    params = mgpu_core.CompilerParams()
  extra = {}
  if e.pallas_name is not None:
    extra["name"] = e.pallas_name
  if e.metadata is not None:
    extra["metadata"] = e.metadata
  if e.cost_estimate is not None:
    extra["cost_estimate"] = pl.CostEstimate(**e.cost_estimate)
  if e.aliases:
    extra["input_output_aliases"] = dict(e.aliases)
  grid = (e.grid,)
  block = pl.BlockSpec(x.shape, lambda i: (0,) * x.ndim)
  if e.kernel == "tiled_add_one":  # blocks over a 2-D grid
    if e.block is None or x.ndim != 2:
      raise NotExpressible("tiled_add_one takes a 2-D array and block=")
    grid = (x.shape[0] // e.block[0], x.shape[1] // e.block[1])
    block = pl.BlockSpec(e.block, lambda i, j: (i, j))
  out_block = block
  if e.kernel == "row_sum":  # whole rows in, their sums out
    if e.block is None or x.ndim != 2:
      raise NotExpressible("row_sum takes a 2-D array and block=")
    grid = (x.shape[0] // e.block[0],)
    block = pl.BlockSpec(e.block, lambda i: (i, 0))
    out_block = pl.BlockSpec((e.block[0], 1), lambda i: (i, 0))
  out = [jax.ShapeDtypeStruct(a.shape, numpy_dtype(a.dtype)) for a in e.results]
  if e.kernel == "gather_rows":  # out block i is x's block idx[i]
    if e.block is None or x.ndim != 2:
      raise NotExpressible("gather_rows takes a 2-D array and block=")
    pltpu = _import_pallas_module("jax.experimental.pallas.tpu", "PrefetchScalarGridSpec")
    extra["grid_spec"] = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1, grid=(x.shape[0] // e.block[0],),
        in_specs=[pl.BlockSpec(e.block, index_map("gather_rows_in"))],
        out_specs=pl.BlockSpec(e.block, index_map("gather_rows_out")))
    call = pl.pallas_call(kernel, out_shape=out[0] if len(out) == 1 else tuple(out),
                          interpret=e.interpret, compiler_params=params, **extra)
  else:
    call = pl.pallas_call(kernel, out_shape=out[0] if len(out) == 1 else tuple(out),
                          grid=grid, in_specs=[block], out_specs=out_block,
                          interpret=e.interpret, compiler_params=params, **extra)
  result = call(*ops)
  return [result] if len(out) == 1 else list(result)


def _import_pallas_module(name: str, what: str):
  """A public Pallas module the program imports.  Where importing it
  imports a backend's pallas_call_registration (jax.experimental.pallas.triton
  from 0.11.0) and the scenario has that backend uninstalled, the program
  cannot be written: not expressible."""
  import importlib
  from oracle import standins
  try:
    return importlib.import_module(name)
  except standins.BackendNotInstalled as e:
    raise NotExpressible(f"{what} without {e.backend}: importing {name} imports {e.name}, "
                         f"which <pallas {e.backend}=\"false\"> makes absent") from None


def make_shardings(s: sc.Scenario) -> dict[int, Any]:
  """The shardings the program names, made as a program makes them before
  calling jit (in equation order, from jax.devices(): the default backend's
  devices, which initializes the backends): per callback equation (by
  position) its `sharding=`.
    device:K       jax.sharding.SingleDeviceSharding(jax.devices()[K])
    scalar_mesh:K  NamedSharding(Mesh(np.array(jax.devices()[K]), ()), P())
    mesh:N         NamedSharding(Mesh(np.array(jax.devices()[:N]), ("x",)), P())"""
  import jax
  from jax.sharding import Mesh, NamedSharding, PartitionSpec, SingleDeviceSharding
  out: dict[int, Any] = {}
  for i, e in enumerate(s.eqns):
    if e.sharding is None:
      continue
    kind, n = e.sharding
    if kind == "device":
      out[i] = SingleDeviceSharding(jax.devices()[n])
    elif kind == "scalar_mesh":
      out[i] = NamedSharding(Mesh(np.array(jax.devices()[n]), ()), PartitionSpec())
    else:
      out[i] = NamedSharding(Mesh(np.array(jax.devices()[:n]), ("x",)), PartitionSpec())
  return out


def in_shardings(s: sc.Scenario):
  """<lower devices="N">: every arg replicated over jax.devices()[:N]."""
  import jax
  from jax.sharding import Mesh, NamedSharding, PartitionSpec
  return NamedSharding(Mesh(np.array(jax.devices()[:s.devices]), ("x",)), PartitionSpec())


def build_function(s: sc.Scenario, callbacks: _Callbacks, shardings: Optional[dict] = None):
  """The Python function the scenario describes, named as the scenario says."""
  import jax
  from jax import lax
  from jax.experimental import io_callback
  from jax.experimental.buffer_callback import buffer_callback

  prims = _Primitives(s, _session_primitives)
  shardings = shardings or {}

  def run_eqn(i: int, e: sc.Eqn, ops):
    if e.kind == "op":
      return [_op_function(e.op)(*ops)]
    if e.kind == "compute_on":
      # compute_on's function form (compute_on2, or compute_on once the
      # context manager was deleted: features.compute_on_function); one
      # Python function per op, so JAX's trace cache gives equal calls one
      # jaxpr.
      compute_on_fn, _ = features.compute_on_function()
      fn = compute_on_fn(compute_type=e.compute_type,
                         out_memory_spaces=features.memory_space(e.out_memory_space == "host"))
      return [fn(_op_function(e.op))(*ops)]
    if e.kind == "primitive":
      return list(prims.bind(e, ops))
    if e.kind == "platform_dependent":
      per_platform: dict[str, Any] = {}
      default = None
      for b in e.branches:
        if b.platforms is None:
          default = _op_function(b.op)
        else:
          for p in b.platforms:
            per_platform[p] = _op_function(b.op)
      return [lax.platform_dependent(*ops, default=default, **per_platform)]
    if e.kind == "pure_callback":
      out = [_struct(a) for a in e.results]
      return list(jax.pure_callback(callbacks.pure(e.results), tuple(out), *ops,
                                    sharding=shardings.get(i)))
    if e.kind == "io_callback":
      out = [_struct(a) for a in e.results]
      return list(io_callback(callbacks.pure(e.results), tuple(out), *ops, ordered=e.ordered,
                              sharding=shardings.get(i)))
    if e.kind == "debug_callback":
      jax.debug.callback(callbacks.debug(), *ops, ordered=e.ordered, partitioned=e.partitioned)
      return []
    if e.kind == "buffer_callback":
      out = tuple(_struct(a) for a in e.results)
      fn = buffer_callback(callbacks.buffer(e.returns_value), out,
                           has_side_effect=e.side_effect,
                           input_output_aliases=dict(e.aliases) if e.aliases else None,
                           command_buffer_compatible=e.command_buffer)
      return list(fn(*ops))
    if e.kind == "call_exported":
      res = _session_exports[e.lowering](*ops)
      return list(res) if isinstance(res, (tuple, list)) else [res]
    if e.kind == "ffi_call":
      out = tuple(_struct(a) for a in e.results)
      return list(jax.ffi.ffi_call(
          e.target, out, has_side_effect=e.side_effect, vmap_method=e.vmap_method,
          input_output_aliases=dict(e.aliases) if e.aliases else None,
          custom_call_api_version=e.api_version,
          legacy_backend_config=e.legacy_backend_config)(*ops))
    if e.kind == "pallas_call":
      return _pallas_call(e, ops)
    raise NotExpressible(f"<{e.kind}>")

  outputs = s.outputs()

  def f(*args):
    values = list(args)
    for i, e in enumerate(s.eqns):
      ops = [values[j] for j in e.args]
      if e.compute_on is None:
        values.extend(run_eqn(i, e, ops))
      else:
        from jax.experimental.compute_on import compute_on
        with compute_on(e.compute_on):
          values.extend(run_eqn(i, e, ops))
    if len(outputs) == 1:
      return values[outputs[0]]
    return tuple(values[i] for i in outputs)

  f.__name__ = f.__qualname__ = s.function
  return f


# --- Warnings ------------------------------------------------------------------

class _LogCapture(logging.Handler):
  def __init__(self, out: list[str]):
    super().__init__(level=logging.WARNING)
    self.out = out

  def emit(self, record):
    self.out.append(f"{record.name}: {record.getMessage()}")


@contextlib.contextmanager
def capture_warnings(out: list[str]):
  """JAX's warnings, in the order given, each as `CATEGORY: text` (the
  lowersim CLI's `warning: CATEGORY: text` lines): `warnings.warn`
  (CATEGORY its class: DeprecationWarning for jit(backend=), UserWarning
  for unusable donations) and WARNING records of the jax loggers (CATEGORY
  the logger's name: jax._src.xla_bridge's experimental-plugin and
  _suggest_missing_backends warnings)."""
  handler = _LogCapture(out)
  logger = logging.getLogger("jax")
  logger.addHandler(handler)
  old_propagate = logger.propagate
  logger.propagate = False
  with warnings.catch_warnings():
    warnings.simplefilter("always")
    warnings.showwarning = (lambda message, category, filename, lineno, file=None, line=None:
                            out.append(f"{category.__name__}: {message}"))
    try:
      yield
    finally:
      logger.removeHandler(handler)
      logger.propagate = old_propagate


# --- Lowering ------------------------------------------------------------------

def _innermost_jax_frame(exc: BaseException) -> str:
  import traceback
  where = ""
  for frame in traceback.extract_tb(exc.__traceback__):
    fn = frame.filename
    if "/jax/" in fn and "/oracle/" not in fn:
      where = fn[fn.rindex("/jax/") + 1:] + ":" + frame.name
  return where


def abstract_mesh(s: sc.Scenario):
  """<abstract_device>: the use_abstract_mesh block the lowering runs in
  (a one-device mesh of that device), else no block."""
  import jax
  d = s.abstract_device
  if d is None:
    return contextlib.nullcontext()
  device = jax.sharding.AbstractDevice(device_kind=d.device_kind, num_cores=d.num_cores,
                                       platform=d.platform)
  # An Auto axis, so that the mesh is only where Pallas finds its device:
  # jit takes a mesh with an Explicit axis as the computation's (its default
  # axis type changed after 0.10.2).
  return jax.sharding.use_abstract_mesh(jax.sharding.AbstractMesh(
      (1,), ("x",), axis_types=(jax.sharding.AxisType.Auto,), abstract_device=device))


def lower_module(s: sc.Scenario, callbacks: Optional[_Callbacks] = None):
  """Traces and lowers the scenario's program; returns (module, lowered or
  exported, seconds).  Raises what JAX raises."""
  with abstract_mesh(s):
    return _lower_module(s, callbacks)


def _lower_module(s: sc.Scenario, callbacks: Optional[_Callbacks] = None):
  import jax
  callbacks = callbacks or _Callbacks()
  start = time.perf_counter()
  f = build_function(s, callbacks, make_shardings(s))
  donate = tuple(i for i, a in enumerate(s.args) if a.donated)
  args = [_struct(a.aval) for a in s.args]
  jit_kwargs: dict[str, Any] = {"donate_argnums": donate}
  if s.devices is not None:
    jit_kwargs["in_shardings"] = in_shardings(s)
  if s.keep_unused:
    jit_kwargs["keep_unused"] = True
  if s.backend is not None:
    jit_kwargs["backend"] = s.backend
  if s.export:
    from jax import export
    checks = [export.DisabledSafetyCheck.platform() if c == "platform"
              else export.DisabledSafetyCheck.custom_call(c[len("custom_call:"):])
              for c in s.disabled_checks]
    exp = export.export(jax.jit(f, **jit_kwargs),
                        platforms=tuple(s.platforms) if s.platforms else None,
                        disabled_checks=checks)(*args)
    if s.step:
      _session_exports[s.step] = exp.call
    from oracle import mlir_text
    # Exported.mlir_module() is the text of the serialized module, read back.
    module = mlir_text.parse(exp.mlir_module(), mlir_text.context())
    seconds = time.perf_counter() - start
    return module, exp, seconds, callbacks
  traced = jax.jit(f, **jit_kwargs).trace(*args)
  if s.platforms is not None:
    lowered = traced.lower(lowering_platforms=tuple(s.platforms))
  else:
    lowered = traced.lower()
  module = lowered.compiler_ir("stablehlo")
  seconds = time.perf_counter() - start
  return module, lowered, seconds, callbacks


def host_callbacks(lowered) -> list:
  try:
    return list(lowered._lowering.compile_args["host_callbacks"])
  except (AttributeError, KeyError):
    return []


def execute(lowered) -> None:
  """<execute/>: the runtime calls each host callback once, in index order.

  The host callbacks of a jit lowering are JAX's own wrappers.
  buffer_callback's (`wrapped_callback`, buffer_callback.py) checks that the
  user's callback returns nothing; the oracle calls it as XLA would, with
  placeholder buffers.  The wrappers of pure_callback, io_callback and
  debug_callback (callback.py `_wrapped_callback`, or on tpu the runtime
  object made by make_python_callback_from_host_send_and_recv) first place
  their operands on a real CPU device, which a stand-in backend does not
  have; the scenario's callbacks return zeros of the declared shapes, so
  those calls cannot fail and the oracle does not make them."""
  import inspect
  for cb in host_callbacks(lowered):
    if getattr(cb, "__module__", "") == "jax._src.buffer_callback":
      closure = inspect.getclosurevars(cb).nonlocals
      n = closure["in_tree"].num_leaves + closure["out_tree"].num_leaves
      cb(None, *([None] * n))


# The primitives of the session being lowered (lower_session), else None.
_session_primitives: Optional[dict[str, Any]] = None
# The session's exports so far: the K-th lowering's exp.call.
_session_exports: dict[int, Any] = {}


def lower_session(s: sc.Scenario) -> list[Outcome]:
  """A scenario's lowerings (one, or a session's, in order) in this one
  process: the outcome of each, its warnings those of the session so far
  (as `lowersim lower` of the session up to it prints them).  A session with
  a lowering JAX cannot express is not expressible as a whole."""
  global _session_primitives
  steps = [s] + list(s.steps)
  for step in steps:
    try:
      check_expressible(step)
    except NotExpressible as e:
      return [Outcome(kind="not_expressible", reason=str(e))]
  _session_primitives = {}
  _session_exports.clear()
  outs: list[Outcome] = []
  try:
    for k, step in enumerate(steps):
      step.step = k + 1
      out = lower(step)
      out.warnings = (outs[-1].warnings if outs else []) + out.warnings
      outs.append(out)
      if out.kind == "not_expressible":
        return [out]
  finally:
    _session_primitives = None
  return outs


def lower(s: sc.Scenario) -> Outcome:
  """The scenario on JAX: module, error or not expressible."""
  from oracle import mlir_text, standins
  out = Outcome(kind="module")
  try:
    check_expressible(s)
  except NotExpressible as e:
    return Outcome(kind="not_expressible", reason=str(e))
  import jax
  jax.config.update("jax_enable_x64",
                    s.enable_x64 if s.enable_x64 is not None else _needs_x64(s))
  # A scenario's program has no Python source: locations (which jax.export
  # quotes in its custom-call error) carry only the name stack, as
  # lowersim's do.
  jax.config.update("jax_traceback_in_locations_limit", 0)
  with capture_warnings(out.warnings):
    try:
      module, lowered, seconds, callbacks = lower_module(s)
      out.seconds = seconds
      out.module = mlir_text.generic(module)
      if s.execute and not s.export:
        execute(lowered)
    except NotExpressible as e:
      return Outcome(kind="not_expressible", reason=str(e))
    except standins.BackendNotInstalled as e:
      # JAX imported an uninstalled backend's registration where it does
      # not catch ImportError: a machine without the backend has no
      # message to compare (the oracle's finder wrote this one).
      return Outcome(kind="not_expressible",
                     reason=f"<pallas {e.backend}=\"false\">: JAX {releases.installed()} imports "
                            f"{e.name} without catching ImportError ({_innermost_jax_frame(e)})")
    except Exception as e:  # what JAX raised
      out.kind = "error"
      out.module = ""
      out.error_class = type(e).__name__
      out.error_message = str(e)
      out.jax_code = _innermost_jax_frame(e)
  from jax._src import xla_bridge as xb
  if xb._default_backend is not None:
    out.default_backend = xb._default_backend.platform
  return out
