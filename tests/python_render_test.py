#!/usr/bin/env python3
"""tests/python_render_test.py: `lowersim explain --python` executed by real
JAX, for every bundled scenario the rendering covers (testdata/scenarios
and testdata/conformance), each on the JAX release it pins (its
build/oracle-venvs/RELEASE), an unpinned one on build/oracle-venv's.

Each rendering is exec'd in a fork-server child the oracle's stand-ins
prepared for the scenario (oracle/standins.py), and its outcome (the
module as text, or `Class: message`, and the warnings) must be the
oracle's own construction's (oracle/program.py `lower`), which `./run
oracle` keeps equal to lowersim's: the two renderings of a scenario do
not drift.  Function addresses and the oracle's own callbacks' names are
normalized.  Skipped (exit 77) without build/oracle-venv.

Arguments: substrings of the paths to check (default: all).
Environment: LOWERSIM (the command), SOURCE_DIR, BUILD_DIR.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.environ.get("SOURCE_DIR") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD_DIR") or os.path.join(ROOT, "build")
LOWERSIM = os.environ.get("LOWERSIM") or os.path.join(BUILD, "lowersim")
PIN = re.compile(r"<scenario\b[^>]*\sjax=\"([^\"]+)\"")
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
OWN_CALLBACK = re.compile(r"_Callbacks\.(pure|buffer|debug)\.<locals>\.callback")


def scenarios(only: list[str]) -> list[str]:
  out = []
  for top in ("testdata/scenarios", "testdata/conformance"):
    for d, _, files in os.walk(os.path.join(ROOT, top)):
      out += [os.path.join(d, f) for f in files
              if f.endswith(".xml") and (not only or any(o in os.path.join(d, f) for o in only))]
  return sorted(out)


# --- In the release's environment (JAX imported) ------------------------------------

def _normal(text: str) -> str:
  return OWN_CALLBACK.sub("callback", ADDRESS.sub("0x…", text))


def _outcome(out) -> dict:
  if out.kind == "module":
    # As the oracle compares modules: canonical text, each kernel decoded.
    from oracle import compare
    c = compare.canonicalize(out.module)
    return {"kind": "module", "module": c.text or c.error,
            "kernels": [k.text or k.error for k in c.kernels],
            "warnings": [_normal(w) for w in out.warnings]}
  if out.kind == "error":
    return {"kind": "error", "error": _normal(f"{out.error_class}: {out.error_message}"),
            "warnings": [_normal(w) for w in out.warnings]}
  return {"kind": "skip", "why": out.reason}


def _rendered(task: dict) -> dict:
  """The rendering exec'd in the scenario's stand-in process."""
  from oracle import mlir_text, program, scenario as sc, standins
  s = sc.read_file(task["path"])
  try:
    program.check_expressible(s)
  except program.NotExpressible as e:
    return {"kind": "skip", "why": str(e)}
  standins.install(s)
  import jax
  jax.config.update("jax_traceback_in_locations_limit", 0)
  out = program.Outcome(kind="module")
  namespace: dict = {"__name__": "rendered"}
  with program.capture_warnings(out.warnings):
    try:
      exec(compile(task["text"], "program.py", "exec"), namespace)
      last = ([s] + list(s.steps))[-1]  # a session's outcome is its last lowering's
      if last.export:
        module = mlir_text.parse(namespace["exported"].mlir_module(), mlir_text.context())
      else:
        module = namespace["lowered"].compiler_ir("stablehlo")
      out.module = mlir_text.generic(module)
      if last.execute and not last.export:  # <execute/>: the runtime's part, as the oracle's
        program.execute(namespace["lowered"])
    except standins.BackendNotInstalled as e:
      return {"kind": "skip", "why": f"imports uninstalled {e.name}"}
    except Exception as e:  # what JAX raised
      out.kind, out.module = "error", ""
      out.error_class, out.error_message = type(e).__name__, str(e)
  return _outcome(out)


def _built(task: dict) -> dict:
  """The oracle's own construction of the scenario (a session's last
  lowering, after the ones before it)."""
  from oracle import program, scenario as sc, standins
  s = sc.read_file(task["path"])
  try:
    program.check_expressible(s)
  except program.NotExpressible as e:
    return {"kind": "skip", "why": str(e)}
  standins.install(s)
  return _outcome(program.lower_session(s)[-1])


def jax_side(tasks_file: str) -> int:
  sys.path.insert(0, ROOT)
  from oracle import server
  server.preimport()
  with open(tasks_file) as f:
    tasks = json.load(f)
  results: dict = {}
  for which, work in (("rendered", _rendered), ("built", _built)):
    for task, r in server.run([dict(t, which=which) for t in tasks], work, jobs=2, timeout=300):
      results.setdefault(task["path"], {})[which] = r
  json.dump(results, sys.stdout)
  return 0


# --- The driver ------------------------------------------------------------------------

def main() -> int:
  default = os.path.join(BUILD, "oracle-venv")
  if not os.path.isdir(default):
    print("python_render_test: skipped: no build/oracle-venv (`./run oracle` makes it)")
    return 77
  default_release = os.path.basename(os.path.realpath(default))
  venvs = os.path.join(BUILD, "oracle-venvs")
  by_release: dict[str, list[dict]] = {}
  uncovered = unjudged = 0
  for path in scenarios(sys.argv[1:]):
    with open(path, encoding="utf-8", errors="replace") as f:
      m = PIN.search(f.read())
    release = m.group(1) if m else default_release
    if not os.path.isfile(os.path.join(venvs, release, "bin", "python")):
      unjudged += 1
      continue
    r = subprocess.run([LOWERSIM, "explain", "--python", "--jax", release, path],
                       capture_output=True, text=True)
    if r.returncode == 2 and "does not cover" in r.stderr:
      uncovered += 1
      continue
    if r.returncode != 0:
      print(f"FAIL {os.path.relpath(path, ROOT)}: explain --python exit {r.returncode}: {r.stderr}")
      return 1
    by_release.setdefault(release, []).append({"path": path, "text": r.stdout})
  same = skipped = 0
  failures = []
  for release, tasks in sorted(by_release.items()):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
      json.dump(tasks, f)
    try:
      p = subprocess.run([os.path.join(venvs, release, "bin", "python"), __file__, "--jax-side",
                          f.name], cwd=ROOT, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=ROOT))
    finally:
      os.unlink(f.name)
    if p.returncode != 0:
      print(f"FAIL JAX {release}: {p.stderr[-2000:]}")
      return 1
    for path, r in sorted(json.loads(p.stdout).items()):
      rel = os.path.relpath(path, ROOT)
      a, b = r.get("rendered", {}), r.get("built", {})
      if a.get("kind") == "skip" or b.get("kind") == "skip":
        skipped += 1
      elif a == b:
        same += 1
      else:
        failures.append(f"{rel} (JAX {release}):\n  rendered: {json.dumps(a)[:1500]}\n"
                        f"  oracle:   {json.dumps(b)[:1500]}")
  for f in failures:
    print("FAIL " + f)
  print(f"python_render_test: {same} rendered programs lower as the oracle's own, "
        f"{skipped} not expressible in JAX, {uncovered} not rendered yet, "
        f"{unjudged} without their JAX here; {len(failures)} failed")
  return 1 if failures else 0


if __name__ == "__main__":
  if len(sys.argv) == 3 and sys.argv[1] == "--jax-side":
    sys.exit(jax_side(sys.argv[2]))
  sys.exit(main())
