#!/usr/bin/env python3
"""The scenarios pinned to the seeds' JAX, run live on JAX 0.11.0.

The oracle is JAX 0.10.2, so the scenarios that pin the seeds' JAX
(`jax="0.11.1.dev20260827+1e1c6a8fc0"`) are "not expressible (version)" for
it.  Some of the facts they pin were already true at 0.11.0 (see
/work/notes/jax-versions.md, V01..V09); this script runs each of them on a
JAX 0.11.0 install through the oracle's own program and stand-ins (in a
fork-server child each, as the oracle does) and compares JAX 0.11.0's
outcome with the committed `<expect>` (oracle/expect.py's check).  It is a
side check, not a profile: lowersim has no 0.11.0 profile, and a scenario
that differs here may pin something that changed after 0.11.0.

    PY=/tmp/jax011venv/bin/python   # jax==0.11.0 jaxlib==0.11.0
    $PY tools/seeds_on_jax011.py [PATHS...]   # default: every such scenario under testdata/

Prints one line per scenario (`agrees`: outcome, message, <contains>,
<absent> and any listed <warning>s are 0.11.0's; `differs:` with what;
`no-expect`: the scenario has none) and the totals; exit 0.
"""

from __future__ import annotations

import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
SEEDS = "0.11.1.dev20260827+1e1c6a8fc0"


def scenarios(paths: list[str]) -> list[str]:
  files = []
  for p in paths or [os.path.join(ROOT, "testdata")]:
    files += glob.glob(os.path.join(p, "**", "*.xml"), recursive=True) if os.path.isdir(p) else [p]
  pinned = []
  for f in sorted(set(files)):
    with open(f, encoding="utf-8", errors="replace") as h:
      if re.search(r'<scenario\b[^>]*\bjax="' + re.escape(SEEDS) + '"', h.read()):
        pinned.append(os.path.relpath(f, ROOT))
  return pinned


def one(task: dict) -> dict:
  """Fork-server child: the scenario on this JAX, its <expect> checked."""
  from oracle import expect, judge, program, scenario as sc, standins
  s = sc.read_file(task["path"])
  s.jax = None                       # run it on the installed JAX
  try:
    program.check_expressible(s)
  except program.NotExpressible as e:
    return {"state": "skip", "why": str(e)}
  standins.install(s)
  out = program.lower(s)
  if out.kind not in ("module", "error"):
    return {"state": "skip", "why": out.reason}
  # No lowersim side: the committed code names JAX's class when they agree.
  r = judge.expect_check(task["path"], compare_low(), out, "")
  # A seeds' scenario lists no warnings when its facts are elsewhere: JAX
  # 0.11.0's unlisted warnings are not a disagreement (listed ones are).
  changes = [c for c in r.get("changes", []) if not c.startswith("warnings: committed [];")]
  problems = [p for p in r.get("problems", []) if not changes or "no lowersim status code" not in p]
  state = "agrees" if not changes and r["state"] in ("same", "differs") else \
      "differs" if r["state"] in ("same", "differs") else r["state"]
  if r["state"] == "missing":
    state, changes = "no-expect", [f"JAX 0.11.0 gives {'a module' if out.kind == 'module' else out.error_class}"]
  return {"state": state, "changes": changes, "problems": problems,
          "jax": f"{out.error_class}: {out.error_message}" if out.kind == "error" else "a module"}


def compare_low():
  from oracle import compare
  return compare.LowersimOutcome("none")


def main(argv: list[str]) -> int:
  import jax
  from oracle import expect, server
  os.chdir(ROOT)
  paths = scenarios(argv)
  # The committed codes' JAX classes (lowersim's catalogue).
  expect.load_codes(os.path.join(ROOT, "build", "lowersim"))
  # No server.preimport(): at 0.11.0 importing jax.experimental.pallas.triton
  # registers Triton's params (V03), which the oracle's clean parent forbids;
  # each child imports what its scenario needs, as a fresh 0.11.0 process.
  print(f"{len(paths)} scenarios pinned to the seeds' JAX ({SEEDS}), live on JAX {jax.__version__}")
  counts = {}
  for task, r in server.run([{"path": p} for p in paths], one, jobs=2, timeout=120):
    state = r.get("state") or ("timeout" if "timeout" in r else "error")
    counts[state] = counts.get(state, 0) + 1
    detail = "; ".join(r.get("changes", []) + r.get("problems", [])) or r.get("why", "") \
        or (r.get("oracle_error") or r.get("crash") or "").strip().splitlines()[-1:] and \
        (r.get("oracle_error") or r.get("crash")).strip().splitlines()[-1]
    print(f"  {state:<9} {task['path']}" + (f": {detail}" if detail and state != "agrees" else "")
          + (f" [JAX 0.11.0: {r['jax'][:160]}]" if state == "differs" else ""))
  print(", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
