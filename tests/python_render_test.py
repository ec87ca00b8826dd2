#!/usr/bin/env python3
"""tests/python_render_test.py: `lowersim explain --python` is a program a
user runs as it is.

The oracle judges every scenario by executing exactly this text in a
process its stand-ins prepared (oracle/program.py `run_program`): `./run
oracle` at 0 differences says that the rendering's outcome is lowersim's.
What the oracle cannot say is that the text needs nothing of the oracle's.
This test runs the rendering of every bundled scenario that needs no
stand-in (no <runtime>, no <pallas>: plain JAX on this machine's CPU) as a
user would, exec'd in a fresh process with nothing installed or configured,
and requires the oracle's outcome for the scenario (module, or `Class:
message`, and warnings): the stand-ins change nothing for these programs.
Only <execute/> (the runtime's part) and the oracle's one setting
(`jax_traceback_in_locations_limit=0`: no source frames in locations) are
applied as the oracle applies them; main's ordered-effect tokens may come
in either of JAX's orders.
Each scenario runs on the JAX release it pins (its build/oracle-venvs/RELEASE),
an unpinned one on build/oracle-venv's.  Skipped (exit 77) without
build/oracle-venv.

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
STANDINS = re.compile(r"<(runtime|pallas)\b")
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def scenarios(only: list[str]) -> list[str]:
  out = []
  for top in ("testdata/scenarios", "testdata/conformance"):
    for d, _, files in os.walk(os.path.join(ROOT, top)):
      out += [os.path.join(d, f) for f in files
              if f.endswith(".xml") and (not only or any(o in os.path.join(d, f) for o in only))]
  return sorted(out)


# --- In the release's environment (JAX imported) ------------------------------------

def _outcome(out) -> dict:
  """An Outcome as compared: the module as the oracle compares modules
  (canonical text, kernels decoded), or `Class: message`; the warnings."""
  warnings = [ADDRESS.sub("0x…", w) for w in out.warnings]
  if out.kind == "module":
    from oracle import compare
    c = compare.canonicalize(out.module)
    return {"kind": "module", "module": c.text or c.error,
            "kernels": [k.text or k.error for k in c.kernels], "warnings": warnings}
  if out.kind == "error":
    return {"kind": "error", "error": ADDRESS.sub("0x…", f"{out.error_class}: {out.error_message}"),
            "warnings": warnings}
  return {"kind": "skip", "why": out.reason}


def _as_user_runs_it(task: dict) -> dict:
  """The rendering exec'd as `python program.py` runs it: nothing of the
  oracle's installed (JAX's real CPU client), only JAX's warnings observed;
  then the module of the `lowered` (or `exported`) it leaves, and for
  <execute/> its host callbacks called as the runtime calls them.  One
  setting is the oracle's: the scenario has no Python source, so locations
  carry no frames (jax_traceback_in_locations_limit=0); run as a file, the
  program's frames are in the locations that Mosaic TPU's debug_locations
  and export's custom-call error quote."""
  from oracle import mlir_text, program, scenario as sc
  import jax
  s = sc.read_file(task["path"])
  last = ([s] + list(s.steps))[-1]
  jax.config.update("jax_traceback_in_locations_limit", 0)
  out = program.Outcome(kind="module")
  namespace: dict = {"__name__": "__main__"}
  with program.capture_warnings(out.warnings):
    try:
      exec(compile(task["text"], "program.py", "exec"), namespace)
      if last.export:
        module = mlir_text.parse(namespace["exported"].mlir_module(), mlir_text.context())
      else:
        module = namespace["lowered"].compiler_ir("stablehlo")
      out.module = mlir_text.generic(module)
      if last.execute and not last.export:
        program.execute(namespace["lowered"])
    except Exception as e:  # what JAX raised
      out.kind, out.module = "error", ""
      out.error_class, out.error_message = type(e).__name__, str(e)
  return _outcome(out)


def _oracle(task: dict) -> dict:
  """The oracle's outcome (its stand-ins, then the same rendering run)."""
  from oracle import judge
  return _outcome(judge.jax_outcome(task["path"], LOWERSIM, task["jax"]))


def jax_side(tasks_file: str) -> int:
  sys.path.insert(0, ROOT)
  from oracle import server
  server.preimport()
  with open(tasks_file) as f:
    tasks = json.load(f)
  results: dict = {}
  for which, work in (("user", _as_user_runs_it), ("oracle", _oracle)):
    for task, r in server.run(tasks, work, jobs=2, timeout=300):
      results.setdefault(task["path"], {})[which] = r
  from oracle import compare
  for r in results.values():
    a, b = r.get("user", {}), r.get("oracle", {})
    if a.get("kind") == b.get("kind") == "module" and a["module"] != b["module"] and \
        compare._detect_token_order(a["module"], b["module"]):
      # main's ordered-effect tokens in the order a set of effect objects
      # iterates: either order from one JAX process to the next (the oracle
      # pins one, standins.install_effect_order); one of JAX's outcomes.
      a["module"] = b["module"]
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
  standins = unjudged = 0
  for path in scenarios(sys.argv[1:]):
    with open(path, encoding="utf-8", errors="replace") as f:
      text = f.read()
    if STANDINS.search(text):
      standins += 1
      continue
    m = PIN.search(text)
    release = m.group(1) if m else default_release
    if not os.path.isfile(os.path.join(venvs, release, "bin", "python")):
      unjudged += 1
      continue
    r = subprocess.run([LOWERSIM, "explain", "--python", "--jax", release, path],
                       capture_output=True, text=True)
    if r.returncode != 0:
      print(f"FAIL {os.path.relpath(path, ROOT)}: explain --python exit {r.returncode}: {r.stderr}")
      return 1
    by_release.setdefault(release, []).append({"path": path, "text": r.stdout, "jax": release})
  same = skipped = 0
  failures = []
  for release, tasks in sorted(by_release.items()):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
      json.dump(tasks, f)
    try:
      p = subprocess.run([os.path.join(venvs, release, "bin", "python"), __file__, "--jax-side",
                          f.name], cwd=ROOT, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=ROOT, LOWERSIM=LOWERSIM))
    finally:
      os.unlink(f.name)
    if p.returncode != 0:
      print(f"FAIL JAX {release}: {p.stderr[-2000:]}")
      return 1
    for path, r in sorted(json.loads(p.stdout).items()):
      rel = os.path.relpath(path, ROOT)
      a, b = r.get("user", {}), r.get("oracle", {})
      if b.get("kind") == "skip":
        skipped += 1
      elif a == b:
        same += 1
      else:
        failures.append(f"{rel} (JAX {release}):\n  as a user runs it: {json.dumps(a)[:1500]}\n"
                        f"  the oracle's:      {json.dumps(b)[:1500]}")
  for f in failures:
    print("FAIL " + f)
  print(f"python_render_test: {same} rendered programs run by plain JAX give the oracle's "
        f"outcome, {skipped} not expressible in JAX, {standins} need the oracle's stand-ins "
        f"(<runtime>, <pallas>), {unjudged} without their JAX here; {len(failures)} failed")
  return 1 if failures else 0


if __name__ == "__main__":
  if len(sys.argv) == 3 and sys.argv[1] == "--jax-side":
    sys.exit(jax_side(sys.argv[2]))
  sys.exit(main())
