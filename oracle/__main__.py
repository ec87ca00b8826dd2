"""python -m oracle: real JAX as the judge of lowersim.

  python -m oracle lower FILE [--jax 0.10.2]
      The scenario on JAX, with `lowersim lower`'s contract: the module on
      stdout (exit 0), or `ErrorClass: message` as the last line of stderr
      (exit 1); invalid input `FILE:LINE: ...` (exit 2); a scenario JAX cannot
      express: one line `not expressible in JAX 0.10.2: why` (exit 3).
      JAX's warnings come first on stderr as `warning: ...` lines.  Usable as
      `lowersim check PATH --impl 'build/oracle-venv/bin/python -m oracle lower {scenario}'`.

  python -m oracle lower --batch [--jax 0.10.2]
      The same for many scenarios, as `lowersim check --batch` speaks to a
      port: a path per line on stdin, per path `EXIT OUT_BYTES ERR_BYTES` and
      the bytes on stdout.  JAX is imported once; each scenario runs in a
      child forked from that process, so what its stand-ins patch is its own.
      `lowersim check PATH --batch -j 2 --impl 'build/oracle-venv/bin/python -m oracle lower --batch'`.

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
  ap.add_argument("file", nargs="?")
  ap.add_argument("--jax", default=None)
  ap.add_argument("--batch", action="store_true",
                  help="lowersim check's batch protocol on stdin/stdout")
  a = ap.parse_args(argv)
  if a.batch == (a.file is not None):
    ap.error("give FILE or --batch")
  _check_version(a.jax)
  if a.batch:
    return _lower_batch(a.jax)
  return _lower_file(a.file, a.jax)


def _lower_in_child(task: tuple[str, str | None]) -> dict:
  """One scenario in a fork-server child: `lower FILE`'s exit code, stdout
  and stderr."""
  import contextlib
  import io
  path, jax = task
  out, err = io.StringIO(), io.StringIO()
  with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    code = _lower_file(path, jax)
  return {"code": code, "out": out.getvalue(), "err": err.getvalue()}


def _lower_batch(jax: str | None) -> int:
  """`lowersim check --batch`'s protocol: a path per line on stdin; per path
  `EXIT OUT_BYTES ERR_BYTES` and the bytes on stdout.  JAX is imported once,
  in this process; each scenario runs in a child forked from it (the fork
  server's), so that the stand-ins it installs and the backends and Pallas
  registrations it makes are its own, as with one process per scenario."""
  from oracle import server
  server.preimport()
  stdout = sys.stdout.buffer
  for line in sys.stdin.buffer:
    path = line.rstrip(b"\n").decode("utf-8", "surrogateescape")
    # check --timeout kills the whole port; the child has no deadline of its own.
    for _, r in server.run([(path, jax)], _lower_in_child, jobs=1, timeout=10.0 ** 7):
      if "code" in r:
        code, o, e = r["code"], r["out"], r["err"]
      else:
        code, o = 70, ""
        e = f"oracle: {r.get('oracle_error') or r.get('crash') or r}\n"
    ob, eb = o.encode("utf-8", "surrogateescape"), e.encode("utf-8", "surrogateescape")
    stdout.write(b"%d %d %d\n" % (code & 255, len(ob), len(eb)) + ob + eb)
    stdout.flush()
  return 0


def _lower_file(path: str, jax: str | None) -> int:
  from oracle import mlir_text, program, scenario as sc, standins
  try:
    s = sc.read_file(path)
  except sc.InvalidScenario as e:
    print(e, file=sys.stderr)
    return 2
  if jax and s.jax is None:
    for step in [s] + list(s.steps):
      step.jax = jax
  try:
    program.check_expressible(s)
  except program.NotExpressible as e:
    print(f"not expressible in JAX {_jax_version()}: {e}", file=sys.stderr)
    return 3
  standins.install(s)
  # A session: its last lowering's outcome, after the ones before it (as
  # `lowersim lower` prints a session), its warnings the session's.
  out = program.lower_session(s)[-1]
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
