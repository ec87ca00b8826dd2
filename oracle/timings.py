"""JAX, the peer, measured beside lowersim in the same run.

JAX's time for a scenario is taken in-process, in a fork-server child (no
process start, no import): after WARMUP lowerings, the best of REPEATS of
`jax.jit(f).trace(*args).lower(...)` plus `compiler_ir("stablehlo")` (the
module built, not printed), each from a fresh Python function so that no
JAX cache answers.  lowersim's time is in-process too: `lowersim bench` for
its three workloads (lowerings per second, best of rounds) and, for the
corpus, `lowersim check` over the same files (one process: reading, lowering,
verifying and checking every scenario).  The default `lowersim matrix` is run
whole; JAX's time for it is estimated from its median per-scenario time.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import tempfile
import time

from oracle import judge, server

WARMUP = 2
REPEATS = 5
MATRIX_CASES = 1591520

# lowersim bench's three workloads (cli/cmd_bench.c) as scenarios.
BENCH = {
    "buffer_callback, cpu": """<scenario name="bench-buffer-callback-cpu">
  <lower function="f" platforms="cpu"><arg dtype="f32" shape="8"/>
    <buffer_callback args="0"><result dtype="f32" shape="8"/></buffer_callback></lower>
</scenario>""",
    "platform_dependent, 4 platforms": """<scenario name="bench-platform-dependent">
  <lower function="f" platforms="cpu,cuda,rocm,tpu"><arg dtype="f32" shape="8"/>
    <platform_dependent args="0"><branch platforms="tpu" op="sine"/>
      <branch platforms="cuda,rocm" op="cosine"/><default op="negate"/></platform_dependent>
  </lower>
</scenario>""",
    "pallas_call, tpu (bytecode)": """<scenario name="bench-pallas-tpu">
  <runtime><backend platform="cpu"/><backend platform="tpu"/></runtime>
  <lower function="f" platforms="tpu"><arg dtype="f32" shape="8"/>
    <pallas_call args="0" kernel="add_one" grid="4"><result dtype="f32" shape="8"/></pallas_call>
  </lower>
</scenario>""",
}


def _time_jax(task: dict) -> dict:
  """Fork-server work: the scenario's JAX lowering time, or why none."""
  from oracle import program, scenario as sc, standins
  import jax
  s = sc.read_file(task["path"])
  try:
    program.check_expressible(s)
  except program.NotExpressible as e:
    return {"skip": str(e)}
  text = program.render(task["path"], task["lowersim"], task["lowersim_jax"])
  standins.install(s)
  jax.config.update("jax_traceback_in_locations_limit", 0)
  times = []
  ok = True
  for i in range(WARMUP + REPEATS):
    # lowersim's rendering of the scenario, run: trace and lower (or export).
    start = time.perf_counter()
    try:
      program.execute_program(text)
    except Exception:
      ok = False
    t = time.perf_counter() - start
    if i >= WARMUP:
      times.append(t)
  return {"seconds": min(times), "ok": ok}


def _jax_times(paths: list[str], a) -> dict[str, dict]:
  binary = judge.lowersim_binary(judge.ROOT)
  tasks = [{"path": p, "lowersim": binary, "lowersim_jax": a.lowersim_jax} for p in paths]
  out = {}
  for task, result in server.run(tasks, _time_jax, jobs=1, timeout=a.timeout):
    out[task["path"]] = result
  return out


def _lowersim_bench(binary: str) -> dict[str, float]:
  p = subprocess.run([binary, "bench"], capture_output=True, text=True)
  rates = {}
  for line in p.stdout.splitlines():
    for name in BENCH:
      if line.startswith(name):
        rates[name] = float(line[len(name):].split()[0])
  return rates


def run(a, verdicts) -> str:
  root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  binary = judge.lowersim_binary(root)
  lines = [f"JAX: in-process, best of {REPEATS} after {WARMUP} warm-up lowerings "
           "(trace + lower to an ir.Module, not printed), one process at a time; "
           "lowersim: `lowersim bench` (in-process lowerings/s) and `lowersim check` (one process)."]
  # The bench's workloads.
  tmp = tempfile.mkdtemp(prefix="lowersim-oracle-bench-")
  paths = {}
  for name, xml in BENCH.items():
    p = os.path.join(tmp, re.sub(r"\W+", "-", name) + ".xml")
    with open(p, "w") as f:
      f.write(xml)
    paths[name] = p
  jt = _jax_times(list(paths.values()), a)
  rates = _lowersim_bench(binary)
  lines.append(f"  {'workload':<34}{'JAX/s':>10}{'lowersim/s':>13}{'lowersim/JAX':>14}")
  for name, p in paths.items():
    r = jt.get(p, {})
    jax_rate = 1 / r["seconds"] if r.get("seconds") else 0
    low = rates.get(name, 0)
    lines.append(f"  {name:<34}{jax_rate:>10.0f}{low:>13.0f}{(low / jax_rate if jax_rate else 0):>13.0f}x"
                 + ("" if r.get("ok", True) else "  (JAX raised)"))
  # The corpus: the conformance files (all have <expect>, so lowersim check lowers each).
  corpus = sorted(v.path for v in verdicts if v.path.startswith("testdata/conformance/"))
  if corpus:
    jc = _jax_times(corpus, a)
    secs = [r["seconds"] for r in jc.values() if "seconds" in r]
    start = time.perf_counter()
    subprocess.run([binary, "check", *corpus], capture_output=True)
    low_total = time.perf_counter() - start
    jax_total = sum(secs)
    med = statistics.median(secs) if secs else 0
    lines.append(f"  corpus (testdata/conformance, {len(secs)} of {len(corpus)} scenarios JAX can "
                 f"express): JAX {jax_total:.2f} s (median {med * 1e3:.1f} ms, "
                 f"max {max(secs) * 1e3:.0f} ms), lowersim check {low_total:.3f} s "
                 f"(one process) -> lowersim {jax_total / max(low_total, 1e-9):.0f}x faster")
    start = time.perf_counter()
    p = subprocess.run([binary, "matrix"], capture_output=True, text=True)
    matrix_s = time.perf_counter() - start
    m = re.search(r"(\d+) cases in ([\d.]+) s", p.stdout + p.stderr)
    cases = int(m.group(1)) if m else MATRIX_CASES
    est = cases * med
    lines.append(f"  default matrix ({cases} cases): lowersim {matrix_s:.0f} s on 1 thread; "
                 f"JAX at its median {med * 1e3:.1f} ms a lowering would need {est / 3600:.1f} "
                 f"core-hours ({est / 86400:.1f} core-days)")
  return "\n".join(lines)
