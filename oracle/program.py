"""A scenario as the real JAX program lowersim renders, run by JAX.

The program is `lowersim explain --python --jax V FILE`'s text (scenario/python.c
and each equation kind's `python` in scenario/kinds/: what every scenario
element becomes, written once, in C), V lowersim's profile of the release
judged (releases.lowersim_jax) or the scenario's pin.  `lower_file` execs
exactly that text in a process whose JAX state oracle/standins.py has made
the scenario's (a fresh fork-server child) and returns an Outcome: the
module of the `lowered` (or `exported`) the program leaves defined, or the
exception JAX raised, and the warnings JAX gave.  The oracle adds only what
is not the program's: the stand-ins (backends, devices, Pallas backends
installed), `jax_traceback_in_locations_limit=0` (the scenario has no
source), `<execute/>` (the runtime calling the host callbacks) and the
Outcome's bookkeeping (seconds, default backend, the innermost JAX frame).

A session (several <lower>) is one program running every lowering in one
process; the judge needs each lowering's outcome, so lowering K's is the
run of the rendering of the session cut after its K-th <lower>
(judge.session_prefix, as lowersim's side is judged), each in a process of
its own (`lower_session`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
import warnings
from typing import Any, Optional

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
  seconds: float = 0.0           # the rendered program run (trace + lower) and its module
  jax_code: str = ""             # where JAX raised: file:function of the innermost JAX frame
  default_backend: str = ""      # xla_bridge's default backend after the lowering, if any

  def to_json(self) -> dict:
    return dataclasses.asdict(self)

  @staticmethod
  def from_json(d: dict) -> "Outcome":
    return Outcome(**d)


class NotExpressible(Exception):
  """The scenario has no JAX program (the message says why)."""


# The kernels of lowersim's library the rendering's `pallas` helper knows
# (pallas/kernels.c); those over 2-D blocks.
KERNELS = ("add_one", "copy", "tiled_add_one", "row_sum", "gather_rows")
KERNELS_2D = ("tiled_add_one", "row_sum", "gather_rows")


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
  values = s.values()
  for e in s.eqns:
    if e.kind == "pallas_call":
      if e.kernel not in KERNELS:
        raise NotExpressible(f"Pallas kernel {e.kernel!r}: lowersim's kernel library renders "
                             "add_one, copy, tiled_add_one, row_sum and gather_rows")
      # What the rendering's `pallas` helper needs of the scenario (its
      # operands, a block for the tiled kernels), else there is no program.
      prefetch = 1 if e.kernel == "gather_rows" else 0
      if len(e.args) != prefetch + 1:
        raise NotExpressible(f"a pallas_call of lowersim's {e.kernel} takes {prefetch + 1} "
                             "operand(s)")
      if e.kernel in KERNELS_2D and (e.block is None or len(values[e.args[prefetch]].shape) != 2):
        raise NotExpressible(f"{e.kernel} takes a 2-D array and block=")
    if e.kind == "buffer_callback":
      for i, o in e.aliases:
        if not (-2**63 <= i < 2**63 and -2**63 <= o < 2**63):
          raise NotExpressible("alias index out of int64 range")


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


# --- The rendering, run ------------------------------------------------------------

# The rendered program's file name, in tracebacks (and JAX's messages about
# its functions); its kernels are compiled as kernels.py by the program.
PROGRAM_FILE = "program.py"


class RenderError(Exception):
  """`lowersim explain --python` gave no program (an oracle failure)."""


class Unrenderable(Exception):
  """lowersim reads no program in the scenario (explain's exit 2: input it
  cannot read): JAX's side has no program either."""


def render(path: str, binary: str, jax: str) -> str:
  """The program lowersim renders for the scenario at `path`:
  `lowersim explain --python --jax JAX PATH`'s text, unchanged."""
  import subprocess
  p = subprocess.run([binary, "explain", "--python", "--jax", jax, path],
                     capture_output=True, timeout=60)
  if p.returncode == 2:
    raise Unrenderable(p.stderr.decode("utf-8", "replace").strip())
  if p.returncode != 0:
    raise RenderError(f"{binary} explain --python --jax {jax} {path}: exit {p.returncode}: "
                      + p.stderr.decode("utf-8", "replace").strip())
  return p.stdout.decode("utf-8")


def execute_program(text: str) -> dict:
  """Execs the rendered program (as PROGRAM_FILE) and returns its namespace."""
  import linecache
  linecache.cache[PROGRAM_FILE] = (len(text), None, text.splitlines(True), PROGRAM_FILE)
  namespace: dict[str, Any] = {"__name__": "__main__", "__file__": PROGRAM_FILE}
  exec(compile(text, PROGRAM_FILE, "exec"), namespace)
  return namespace


# What the program imports itself where an uninstalled Pallas backend can
# make the import fail (importing the public Pallas module imports the
# backend's pallas_call_registration: jax.experimental.pallas.triton from
# 0.11.0), by the helper of the program that imports it.
PROGRAM_IMPORTS = {
    ("compiler_params_of", "jax.experimental.pallas.tpu"): "Mosaic TPU's CompilerParams",
    ("compiler_params_of", "jax.experimental.pallas.triton"): "Triton's CompilerParams",
    ("compiler_params_of", "jax._src.pallas.mosaic_gpu.core"): "Mosaic GPU's CompilerParams",
    ("pallas", "jax.experimental.pallas.tpu"): "PrefetchScalarGridSpec",
}


def _program_import(e: BaseException) -> Optional[tuple[str, str]]:
  """When an import statement of the program itself raised `e`: (what the
  program imports it for, the module), else None (JAX's code imported it)."""
  import re
  import traceback
  frames = traceback.extract_tb(e.__traceback__)
  last = max((i for i, f in enumerate(frames) if f.filename == PROGRAM_FILE), default=None)
  # The program's frame is followed by the imported module's top level
  # (Python drops importlib's own frames from an ImportError's traceback);
  # an import inside JAX's functions has JAX's frames first.
  if last is None or last + 1 >= len(frames) or not (
      frames[last + 1].name == "<module>" or "importlib" in frames[last + 1].filename):
    return None
  m = re.match(r"\s*(?:from\s+(\S+)\s+import\s+(\w+)|import\s+(\S+))", frames[last].line or "")
  if not m:
    return None
  module = f"{m.group(1)}.{m.group(2)}" if m.group(1) else m.group(3)
  what = PROGRAM_IMPORTS.get((frames[last].name, module))
  return (what, module) if what else None


def _innermost_jax_frame(exc: BaseException) -> str:
  import traceback
  where = ""
  for frame in traceback.extract_tb(exc.__traceback__):
    fn = frame.filename
    if "/jax/" in fn and "/oracle/" not in fn:
      where = fn[fn.rindex("/jax/") + 1:] + ":" + frame.name
  return where


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


def run_program(s: sc.Scenario, text: str) -> Outcome:
  """The rendered program `text` of scenario `s` (its last lowering the
  program's outcome), exec'd in this process, whose stand-ins are the
  scenario's: module, error or not expressible, and JAX's warnings."""
  from oracle import mlir_text, standins
  import jax
  last = ([s] + list(s.steps))[-1]
  out = Outcome(kind="module")
  # The scenario has no Python source: locations (which jax.export quotes in
  # its custom-call error) carry only the name stack, as lowersim's do.
  jax.config.update("jax_traceback_in_locations_limit", 0)
  with capture_warnings(out.warnings):
    try:
      start = time.perf_counter()
      namespace = execute_program(text)
      if last.export:
        # Exported.mlir_module() is the text of the serialized module, read back.
        module = mlir_text.parse(namespace["exported"].mlir_module(), mlir_text.context())
      else:
        module = namespace["lowered"].compiler_ir("stablehlo")
      out.seconds = time.perf_counter() - start
      out.module = mlir_text.generic(module)
      if last.execute and not last.export:
        execute(namespace["lowered"])
    except standins.BackendNotInstalled as e:
      imported = _program_import(e)
      if imported:
        # The program cannot be written: it imports the module for `what`.
        what, module_name = imported
        return Outcome(kind="not_expressible",
                       reason=f"{what} without {e.backend}: importing {module_name} imports "
                              f"{e.name}, which <pallas {e.backend}=\"false\"> makes absent")
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


def lower_file(path: str, binary: str, jax: str) -> Outcome:
  """The scenario at `path` (one lowering, or a session cut after the
  lowering judged) on JAX: its stand-ins installed in this process (a fresh
  one), then lowersim's rendering of it run."""
  from oracle import standins
  s = sc.read_file(path)
  for step in [s] + list(s.steps):
    try:
      check_expressible(step)
    except NotExpressible as e:
      return Outcome(kind="not_expressible", reason=str(e))
  try:
    text = render(path, binary, jax)
  except Unrenderable as e:
    return Outcome(kind="invalid", reason=f"lowersim renders no program: {e}")
  standins.install(s)
  return run_program(s, text)


def in_child(work) -> dict:
  """`work()` (a JSON-able result) in a child forked from this process, so
  that the JAX state it makes is its own."""
  import json
  import os
  import sys
  import traceback
  r, w = os.pipe()
  sys.stdout.flush()
  sys.stderr.flush()
  pid = os.fork()
  if pid == 0:
    os.close(r)
    try:
      result = work()
    except BaseException as e:  # a bug of the oracle's
      result = {"oracle_error": f"{type(e).__name__}: {e}\n{traceback.format_exc()}"}
    data = memoryview(json.dumps(result).encode())
    while data:
      data = data[os.write(w, data[:1 << 16]):]
    os.close(w)
    os._exit(0)
  os.close(w)
  chunks = []
  while True:
    chunk = os.read(r, 1 << 16)
    if not chunk:
      break
    chunks.append(chunk)
  os.close(r)
  os.waitpid(pid, 0)
  if not chunks:
    raise RenderError("a session's child died without answering")
  return json.loads(b"".join(chunks))


def lower_session(path: str, binary: str, jax: str) -> list[Outcome]:
  """A scenario's lowerings (one, or a session's, in order): the outcome of
  each, lowering K's the run of the rendering of the session cut after it
  (its warnings those of the session so far, as `lowersim lower` of that
  cut prints them), each but the last in a child of this process, the last
  here.  A session with a lowering JAX cannot express is not expressible
  as a whole."""
  import tempfile
  from oracle import judge
  s = sc.read_file(path)
  steps = [s] + list(s.steps)
  for step in steps:
    try:
      check_expressible(step)
    except NotExpressible as e:
      return [Outcome(kind="not_expressible", reason=str(e))]
  outs: list[Outcome] = []
  with tempfile.TemporaryDirectory(prefix="oracle-session-") as tmp:
    for k in range(1, len(steps)):
      prefix = judge.session_prefix(path, k, tmp)
      d = in_child(lambda: lower_file(prefix, binary, jax).to_json())
      if "oracle_error" in d:
        raise RenderError(d["oracle_error"])
      out = Outcome.from_json(d)
      if out.kind in ("not_expressible", "invalid"):
        return [out]
      outs.append(out)
  out = lower_file(path, binary, jax)
  if out.kind in ("not_expressible", "invalid"):
    return [out]
  return outs + [out]


def jaxpr_program(text: str) -> str:
  """The rendered program with its lowering (or export) replaced by
  `jaxpr = jax.make_jaxpr(f)(*args)`: what `lowersim explain --jaxpr`
  prints, traced in the program's own setting (its abstract mesh).  jit's
  wrapper (`jitted = jax.jit(f, ...)`, whose keywords make_jaxpr does not
  take) is not made."""
  import ast
  tree = ast.parse(text)
  make = ast.parse("jaxpr = jax.make_jaxpr(f)(*args)").body[0]

  class Replace(ast.NodeTransformer):
    def visit_Assign(self, node):
      t = node.targets[0]
      if isinstance(t, ast.Name) and t.id in ("lowered", "exported"):
        return ast.copy_location(make, node)
      if isinstance(t, ast.Name) and t.id == "jitted":
        return ast.copy_location(ast.Pass(), node)
      if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == "exports":
        return ast.copy_location(ast.Pass(), node)
      return node

  return ast.unparse(ast.fix_missing_locations(Replace().visit(tree)))


def make_jaxpr_text(path: str, binary: str, jax: str) -> str:
  """`jax.make_jaxpr(f)(*args)` of the rendered program, as JAX prints it:
  what `lowersim explain --jaxpr` prints.  Not for a session (its later
  programs call the earlier lowerings' exports)."""
  s = sc.read_file(path)
  if s.steps:
    raise NotExpressible("jaxpr: a session's programs (lower the session instead)")
  return str(execute_program(jaxpr_program(render(path, binary, jax)))["jaxpr"])
