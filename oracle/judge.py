"""One scenario, judged: lowersim's outcome (its CLI) against JAX's (in this
process, which the fork server made fresh for the scenario)."""

from __future__ import annotations

import os
import subprocess
import time

from oracle import compare
from oracle import program
from oracle import scenario as sc
from oracle import standins

LOWERSIM_TIMEOUT = 60.0


def lowersim_binary(root: str) -> str:
  return os.environ.get("LOWERSIM", os.path.join(root, "build", "lowersim"))


def run_lowersim(binary: str, path: str) -> compare.LowersimOutcome:
  if os.environ.get("LOWERSIM_BINDINGS"):
    return run_lowersim_bindings(binary, path)
  try:
    p = subprocess.run([binary, "lower", path], capture_output=True, timeout=LOWERSIM_TIMEOUT)
  except subprocess.TimeoutExpired:
    return compare.LowersimOutcome("crash", stderr=f"lowersim lower took over {LOWERSIM_TIMEOUT} s",
                                   exit_code=-1)
  return compare.parse_lowersim(p.returncode, p.stdout.decode("utf-8", "replace"),
                                p.stderr.decode("utf-8", "replace"))


def run_lowersim_bindings(binary: str, path: str) -> compare.LowersimOutcome:
  """lowersim's outcome through its Python bindings (python/lowersim, with the
  libraries of `binary`'s build), in this process, instead of `lowersim
  lower`: LOWERSIM_BINDINGS=1.  The same outcome as the command's."""
  import sys
  import warnings
  os.environ.setdefault("LOWERSIM_LIBRARY_DIR", os.path.dirname(os.path.abspath(binary)))
  python = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python")
  if python not in sys.path:
    sys.path.insert(0, python)
  import lowersim
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", lowersim.JaxWarning)
    try:
      module, error = lowersim.lower_file(path), None
    except lowersim.Error as e:
      module, error = "", e
  said = [str(w.message) for w in caught if w.category is lowersim.JaxWarning]
  stderr = "".join(f"warning: {w}\n" for w in said)
  if error is None:
    return compare.LowersimOutcome("module", module=module, warnings=said, stderr=stderr)
  if isinstance(error, lowersim.InvalidScenario):
    return compare.LowersimOutcome("invalid", stderr=stderr + f"{error.message}\n", exit_code=2,
                                   warnings=said)
  return compare.LowersimOutcome("error", code=error.code, error_class=error.jax_class,
                                 error_message=error.message, warnings=said,
                                 stderr=stderr + f"{error}\n", exit_code=1)


def jax_outcome(path: str, version: str | None = None) -> program.Outcome:
  """The scenario on JAX (`version` overrides the scenario's jax= profile).
  Must run in a fresh process (a fork-server child)."""
  try:
    s = sc.read_file(path)
  except sc.InvalidScenario as e:
    return program.Outcome(kind="invalid", reason=str(e))
  if version:
    s.jax = version
  try:
    program.check_expressible(s)
  except program.NotExpressible as e:
    return program.Outcome(kind="not_expressible", reason=str(e))
  standins.install(s)
  return program.lower(s)


# lowersim's own priorities (ctx/runtime.c lsim_backend_factory_defaults).
LOWERSIM_PRIORITY = {"cpu": 0, "tpu": 300, "cuda": 500, "rocm": 500}
BUILTIN_PRIMITIVES = {"sin", "cos", "neg", "exp", "add", "mul", "sub", "platform_dependent",
                      "platform_index", "cond", "buffer_callback", "pure_callback", "io_callback",
                      "debug_callback", "pallas_call"}


def lowersim_default_backend(s: sc.Scenario):
  """The default backend lowersim's model picks without JAX_PLATFORMS: the
  declared backends in declaration order, strictly higher priority wins."""
  if not s.runtime.present:
    return "cpu"
  if s.runtime.jax_platforms:
    return None
  best, best_p = None, -1000
  for b in s.runtime.backends:
    if b.error is not None or b.devices == 0:
      continue
    p = b.priority if b.priority is not None else LOWERSIM_PRIORITY.get(b.platform, 400)
    if p > best_p:
      best, best_p = b.platform, p
  return best


def context_of(s: sc.Scenario, out: program.Outcome) -> list[str]:
  """What in the scenario explains any difference it shows."""
  ctx = []
  low_default = lowersim_default_backend(s)
  if out.default_backend and low_default and out.default_backend != low_default:
    ctx.append(f"default backend: JAX {out.default_backend}, lowersim {low_default}")
  used = set()
  for e in s.eqns:
    used.add(sc.OP_KINDS[e.op][0] if e.kind == "op" else e.kind)
  for e in s.eqns:
    if e.kind == "primitive" and e.name in BUILTIN_PRIMITIVES and (
        e.name in used or any(x.kind == "platform_dependent" for x in s.eqns)):
      ctx.append(f"shadowed built-in primitive: {e.name}")
      break
  return ctx


def judge(task: dict) -> dict:
  """Fork-server work: {"path", "lowersim"} -> a Verdict as JSON."""
  path = task["path"]
  low = run_lowersim(task["lowersim"], path)
  start = time.perf_counter()
  out = jax_outcome(path, task.get("jax"))
  v = compare.verdict(path, low, out)
  if v.status == "differ":
    try:
      v.context = context_of(sc.read_file(path), out)
    except sc.InvalidScenario:
      pass
  d = v.to_json()
  d["judge_seconds"] = time.perf_counter() - start
  return d
