"""python -m oracle: real JAX as the judge of lowersim.

  python -m oracle lower FILE [--jax 0.10.2]
      The scenario on JAX, with `lowersim lower`'s contract: the module on
      stdout (exit 0), or `ErrorClass: message` as the last line of stderr
      (exit 1); invalid input `FILE:LINE: ...` (exit 2); a scenario JAX cannot
      express: one line `not expressible in JAX 0.10.2: why` (exit 3).
      JAX's warnings come first on stderr as `warning: ...` lines.  Usable as
      `lowersim check PATH --impl 'build/oracle-venv/bin/python -m oracle lower {scenario}'`.

  python -m oracle run [PATHS...] [--jax 0.10.2] [--fuzz N --seed S] [--timings]
                       [--jobs J] [--timeout SECONDS] [--update-known] [--write-expect]
                       [--self-test]
      Every scenario under PATHS (default: testdata/) on lowersim and on JAX,
      compared; the back-compat modules of the installed jax; a differential
      fuzz campaign with --fuzz; JAX-vs-lowersim timings with --timings.
      Writes build/oracle/{report.txt,junit.xml,verdicts.json}; the last line is
      `N passed, N failed, N skipped`; exit 1 on a difference not in
      oracle/known-differences.txt (or a stale entry there), and on a
      scenario whose committed <expect> is not what JAX did (or is missing
      under testdata/conformance/).  --write-expect rewrites those
      <expect>s from JAX instead (oracle/expect.py).
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _jax_version() -> str:
  from oracle.program import JAX_VERSION
  return JAX_VERSION


def _check_version(requested: str | None) -> None:
  if requested is None:
    return
  import jax
  if requested != jax.__version__ or requested != _jax_version():
    print(f"oracle: --jax {requested}: this oracle is JAX {jax.__version__} "
          f"(oracle/requirements.txt pins {_jax_version()})", file=sys.stderr)
    sys.exit(2)


def cmd_lower(argv: list[str]) -> int:
  ap = argparse.ArgumentParser(prog="python -m oracle lower")
  ap.add_argument("file")
  ap.add_argument("--jax", default=None)
  a = ap.parse_args(argv)
  _check_version(a.jax)
  from oracle import mlir_text, program, scenario as sc, standins
  try:
    s = sc.read_file(a.file)
  except sc.InvalidScenario as e:
    print(e, file=sys.stderr)
    return 2
  if a.jax and s.jax is None:
    s.jax = a.jax
  try:
    program.check_expressible(s)
  except program.NotExpressible as e:
    print(f"not expressible in JAX {_jax_version()}: {e}", file=sys.stderr)
    return 3
  standins.install(s)
  out = program.lower(s)
  for w in out.warnings:
    print("warning: " + w.replace("\n", "\\n"), file=sys.stderr)  # `CATEGORY: text`
  if out.kind == "not_expressible":
    print(f"not expressible in JAX {_jax_version()}: {out.reason}", file=sys.stderr)
    return 3
  if out.kind == "error":
    print(f"{out.error_class}: {out.error_message}".replace("\n", "\\n"), file=sys.stderr)
    return 1
  ctx = mlir_text.context()
  sys.stdout.write(mlir_text.attribute_form(mlir_text.parse(out.module, ctx)))
  return 0


def cmd_run(argv: list[str]) -> int:
  ap = argparse.ArgumentParser(prog="python -m oracle run")
  ap.add_argument("paths", nargs="*")
  ap.add_argument("--jax", default=None, help="the JAX version profile (only 0.10.2 is installed)")
  ap.add_argument("--fuzz", type=int, default=0, metavar="N", help="also N fuzz scenarios")
  ap.add_argument("--seed", type=int, default=1)
  ap.add_argument("--fuzz-kind", default=None, metavar="ELEMENT",
                  help="fuzz only scenarios with this equation element (e.g. pallas_call)")
  ap.add_argument("--minimize", type=int, default=12, metavar="K",
                  help="minimize at most K fuzz findings (default 12)")
  ap.add_argument("--timings", action="store_true")
  ap.add_argument("--jobs", type=int, default=2)
  ap.add_argument("--timeout", type=float, default=60.0)
  ap.add_argument("--update-known", action="store_true")
  ap.add_argument("--write-expect", action="store_true",
                  help="rewrite each expressible scenario's <expect> from what JAX did")
  ap.add_argument("--self-test", action="store_true")
  ap.add_argument("--out", default=os.path.join(ROOT, "build", "oracle"))
  ap.add_argument("--no-corpus", action="store_true", help="only --fuzz / --timings")
  a = ap.parse_args(argv)
  _check_version(a.jax)
  from oracle import runner
  return runner.main(a)


def main(argv: list[str]) -> int:
  if not argv or argv[0] in ("-h", "--help"):
    print(__doc__)
    return 0 if argv else 2
  cmd, rest = argv[0], argv[1:]
  if cmd == "lower":
    return cmd_lower(rest)
  if cmd == "run":
    return cmd_run(rest)
  print(f"oracle: unknown command {cmd!r} (lower, run)", file=sys.stderr)
  return 2


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
