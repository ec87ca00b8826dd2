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
  try:
    p = subprocess.run([binary, "lower", path], capture_output=True, timeout=LOWERSIM_TIMEOUT)
  except subprocess.TimeoutExpired:
    return compare.LowersimOutcome("crash", stderr=f"lowersim lower took over {LOWERSIM_TIMEOUT} s",
                                   exit_code=-1)
  return compare.parse_lowersim(p.returncode, p.stdout.decode("utf-8", "replace"),
                                p.stderr.decode("utf-8", "replace"))


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


def judge(task: dict) -> dict:
  """Fork-server work: {"path", "lowersim"} -> a Verdict as JSON."""
  path = task["path"]
  low = run_lowersim(task["lowersim"], path)
  start = time.perf_counter()
  out = jax_outcome(path, task.get("jax"))
  v = compare.verdict(path, low, out)
  d = v.to_json()
  d["judge_seconds"] = time.perf_counter() - start
  return d
