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
  """`lowersim lower --jax 0.10.2 PATH`: a scenario that pins no JAX version
  is lowered for the oracle's (one that pins another is not expressible)."""
  try:
    p = subprocess.run([binary, "lower", "--jax", program.JAX_VERSION, path],
                       capture_output=True, timeout=LOWERSIM_TIMEOUT)
  except subprocess.TimeoutExpired:
    return compare.LowersimOutcome("crash", stderr=f"lowersim lower took over {LOWERSIM_TIMEOUT} s",
                                   exit_code=-1)
  return compare.parse_lowersim(p.returncode, p.stdout.decode("utf-8", "replace"),
                                p.stderr.decode("utf-8", "replace"))


def jax_outcome(path: str, version: str | None = None) -> program.Outcome:
  """The scenario on JAX (`version`, when given, is the version of a
  scenario that pins none; a scenario's own jax= wins, as in lowersim).
  Must run in a fresh process (a fork-server child)."""
  try:
    s = sc.read_file(path)
  except sc.InvalidScenario as e:
    return program.Outcome(kind="invalid", reason=str(e))
  if version and s.jax is None:
    s.jax = version
  try:
    program.check_expressible(s)
  except program.NotExpressible as e:
    return program.Outcome(kind="not_expressible", reason=str(e))
  standins.install(s)
  return program.lower(s)


BUILTIN_PRIMITIVES = {"sin", "cos", "neg", "exp", "add", "mul", "sub", "platform_dependent",
                      "platform_index", "cond", "buffer_callback", "pure_callback", "io_callback",
                      "debug_callback", "pallas_call"}


def context_of(s: sc.Scenario, out: program.Outcome) -> list[str]:
  """What in the scenario explains any difference it shows.  (lowersim's
  runtime is JAX's registry, so the default backend is JAX's by
  construction: a different one would show as differences of its own.)"""
  ctx = []
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
