#!/usr/bin/env python3
"""tests/jaxpr_test.py: `lowersim explain --jaxpr` against real JAX's
`jax.make_jaxpr(f)(*args)` (`python -m oracle jaxpr --batch`) for every
bundled scenario JAX can express: testdata/scenarios and
testdata/conformance, each on the JAX release it pins (its
build/oracle-venvs/RELEASE), an unpinned one on build/oracle-venv's.

Equal text, or, where JAX's tracing raises, lowersim's error the same
`Class: message`.  The scenarios in KNOWN are the equation kinds lowersim
does not print as JAX does yet: each must still differ (a stale entry
fails).  JAX's side is `jax.make_jaxpr(f)(*args)` in lowersim's own
rendering of the scenario (`explain --python`, its lowering replaced:
oracle/program.py `jaxpr_program`).  Skipped (exit 77) without
build/oracle-venv.

Arguments: substrings of the paths to check (default: all).
Environment: LOWERSIM (the command), SOURCE_DIR, BUILD_DIR.
"""

import os
import re
import subprocess
import sys

ROOT = os.environ.get("SOURCE_DIR") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD_DIR") or os.path.join(ROOT, "build")
LOWERSIM = os.environ.get("LOWERSIM") or os.path.join(BUILD, "lowersim")

# Equation kinds whose jaxpr lowersim prints only in part (see
# docs/architecture.md): pallas_call (its kernel's jaxpr, grid mapping and
# compiler params), call_exported (a session's; the oracle prints no
# session's jaxpr).
KNOWN_KINDS = ("<pallas_call", "<call_exported")
# Scenarios with a jaxpr JAX shares between equations: from 0.11.1 JAX
# prints it once, `let jaxpr = { ... } in` before the program (equal
# compute_on calls, one trace); lowersim prints each equation's.
KNOWN_SCENARIOS = ("compute-on/function-shared.xml", "compute-on/function-shared-0.11.2.xml")

PIN = re.compile(r"<scenario\b[^>]*\sjax=\"([^\"]+)\"")


def scenarios(only: list[str]) -> list[str]:
  """The bundled scenarios (those whose path has one of `only` in it, when given)."""
  out = []
  for top in ("testdata/scenarios", "testdata/conformance"):
    for d, _, files in os.walk(os.path.join(ROOT, top)):
      out += [os.path.join(d, f) for f in files
              if f.endswith(".xml") and (not only or any(o in os.path.join(d, f) for o in only))]
  return sorted(out)


def batch(python: str, paths: list[str]) -> dict[str, tuple[int, str, str]]:
  """`python -m oracle jaxpr --batch`: per path (exit, stdout, stderr)."""
  p = subprocess.run([python, "-m", "oracle", "jaxpr", "--batch"], cwd=ROOT,
                     input="".join(x + "\n" for x in paths).encode(), capture_output=True,
                     check=True)
  data, at, out = p.stdout, 0, {}
  for path in paths:
    nl = data.index(b"\n", at)
    code, n_out, n_err = map(int, data[at:nl].split())
    at = nl + 1
    o = data[at:at + n_out].decode()
    e = data[at + n_out:at + n_out + n_err].decode()
    at += n_out + n_err
    out[path] = (code, o, e)
  return out


def last_line(text: str) -> str:
  lines = text.strip().splitlines()
  return lines[-1] if lines else ""


def main() -> int:
  default = os.path.join(BUILD, "oracle-venv")
  if not os.path.isdir(default):
    print("jaxpr_test: skipped: no build/oracle-venv (`./run oracle` makes it)")
    return 77
  default_release = os.path.basename(os.path.realpath(default))
  venvs = os.path.join(BUILD, "oracle-venvs")
  by_release: dict[str, list[str]] = {}
  unjudged = 0
  for path in scenarios(sys.argv[1:]):
    with open(path, encoding="utf-8", errors="replace") as f:
      m = PIN.search(f.read())
    release = m.group(1) if m else default_release
    if not os.path.isfile(os.path.join(venvs, release, "bin", "python")):
      unjudged += 1  # a commit or a release without its environment here
      continue
    by_release.setdefault(release, []).append(path)
  same = known = skipped = 0
  failures = []
  for release, paths in sorted(by_release.items()):
    jax = batch(os.path.join(venvs, release, "bin", "python"), paths)
    for path in paths:
      code, jaxpr, err = jax[path]
      rel = os.path.relpath(path, ROOT)
      if code not in (0, 1):
        skipped += 1  # invalid, or not expressible in JAX
        continue
      low = subprocess.run([LOWERSIM, "explain", "--jaxpr", "--jax", release, path],
                           capture_output=True, text=True)
      with open(path, encoding="utf-8", errors="replace") as f:
        is_known = (any(k in f.read() for k in KNOWN_KINDS) or
                    any(rel.endswith(k) for k in KNOWN_SCENARIOS))
      if code == 0:
        want = jaxpr
        ok = low.returncode == 0 and low.stdout == want
        why = f"exit {low.returncode}\n--- JAX\n{want}--- lowersim\n{low.stdout}{low.stderr}"
      else:
        want = last_line(err)
        got = last_line(low.stderr)
        ok = low.returncode != 0 and got.endswith(": " + want) or got == want
        why = f"JAX raised {want!r}; lowersim (exit {low.returncode}): {got!r}"
      if is_known and code == 0:
        if ok:
          failures.append(f"{rel}: stale: lowersim now prints JAX's jaxpr (drop it from KNOWN_KINDS?)")
        known += 1
      elif ok:
        same += 1
      else:
        failures.append(f"{rel} (JAX {release}): {why}")
  for f in failures:
    print("FAIL " + f)
  print(f"jaxpr_test: {same} as JAX prints them, {known} known to differ "
        f"({', '.join(k[1:] for k in KNOWN_KINDS)}, shared jaxprs), {skipped} not expressible "
        f"or invalid, "
        f"{unjudged} without their JAX here; {len(failures)} failed")
  return 1 if failures else 0


if __name__ == "__main__":
  sys.exit(main())
