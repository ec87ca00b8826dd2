"""python -m oracle: real JAX as the judge of lowersim.

The JAX is the one installed in this Python (build/oracle-venvs/RELEASE,
made by `./run oracle`, which runs every release: oracle/campaign.py).

  python -m oracle lower FILE [--jax RELEASE]
      The scenario on JAX, with `lowersim lower`'s contract: the module on
      stdout (exit 0), or `ErrorClass: message` as the last line of stderr
      (exit 1); invalid input `FILE:LINE: ...` (exit 2); a scenario JAX cannot
      express: one line `not expressible in JAX RELEASE: why` (exit 3).
      JAX's warnings come first on stderr as `warning: ...` lines.  Usable as
      `lowersim check PATH --impl 'build/oracle-venvs/RELEASE/bin/python -m oracle lower {scenario}'`.
      --jax, when given, must name the installed release.

  python -m oracle lower --batch [--jax RELEASE]
      The same for many scenarios, as `lowersim check --batch` speaks to a
      port: a path per line on stdin, per path `EXIT OUT_BYTES ERR_BYTES` and
      the bytes on stdout.  JAX is imported once; each scenario runs in a
      child forked from that process, so what its stand-ins patch is its own.
      `lowersim check PATH --batch -j 2 --impl 'build/oracle-venvs/RELEASE/bin/python -m oracle lower --batch'`.

  python -m oracle jaxpr FILE|--batch [--jax RELEASE]
      The scenario's program as `jax.make_jaxpr(f)(*args)` prints it (the
      first lowering's, in the scenario's stand-in process), on stdout (exit
      0); what JAX raised while tracing as `ErrorClass: message` on stderr
      (exit 1); exits 2 and 3 and --batch as `lower`'s.  `lowersim explain
      --jaxpr` prints lowersim's (tests/jaxpr_test.py compares them).

  python -m oracle run [PATHS...] [--jax RELEASE] [--fuzz N --seed S] [--timings]
                       [--jobs J] [--timeout SECONDS] [--update-known] [--write-expect]
                       [--self-test]
      Every scenario under PATHS (default: testdata/) on lowersim and on the
      installed JAX, compared (a scenario pinned to another JAX is not
      expressible; lowersim lowers the unpinned ones with --jax of its
      profile of this release, oracle/releases.py lowersim_jax); the
      back-compat modules of the installed jax; a differential fuzz campaign
      with --fuzz; JAX-vs-lowersim timings with --timings.  Writes
      build/oracle/RELEASE/{report.txt,junit.xml,verdicts.json,summary.json,
      expect.json}; the last line is `N passed, N failed, N skipped`; exit 1
      on a difference not in oracle/known-differences/RELEASE.txt (or a
      stale entry there), and on a scenario whose committed <expect> is not
      what JAX did (or is missing under testdata/conformance/).
      --write-expect rewrites the <expect>s of scenarios pinned to this
      release from JAX instead (oracle/expect.py; unpinned ones: the campaign).
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _jax_version() -> str:
  from oracle import releases
  return releases.installed()


def _check_version(requested: str | None) -> None:
  """--jax names the release to judge: it must be the installed one (each
  release has its own environment, build/oracle-venvs/RELEASE)."""
  if requested is None:
    return
  installed = _jax_version()
  if requested != installed:
    print(f"oracle: --jax {requested}: this Python's JAX is {installed} ({sys.executable}); "
          f"JAX {requested}'s is build/oracle-venvs/{requested}/bin/python "
          f"(`./run oracle --jax {requested}` makes it)", file=sys.stderr)
    sys.exit(2)


def _file_or_batch(command: str, argv: list[str], one) -> int:
  """`python -m oracle COMMAND FILE | --batch`: `one(path)` on FILE, or on
  each path of lowersim check's batch protocol (stdin/stdout)."""
  ap = argparse.ArgumentParser(prog=f"python -m oracle {command}")
  ap.add_argument("file", nargs="?")
  ap.add_argument("--jax", default=None)
  ap.add_argument("--batch", action="store_true",
                  help="lowersim check's batch protocol on stdin/stdout")
  a = ap.parse_args(argv)
  if a.batch == (a.file is not None):
    ap.error("give FILE or --batch")
  _check_version(a.jax)
  if a.batch:
    return _batch(one)
  return one(a.file)


def cmd_lower(argv: list[str]) -> int:
  return _file_or_batch("lower", argv, _lower_file)


class _InChild:
  """One scenario in a fork-server child: the command's (`lower FILE`'s,
  `jaxpr FILE`'s) exit code, stdout and stderr."""

  def __init__(self, command):
    self.command = command

  def __call__(self, path: str) -> dict:
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
      code = self.command(path)
    return {"code": code, "out": out.getvalue(), "err": err.getvalue()}


def _batch(command) -> int:
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
    for _, r in server.run([path], _InChild(command), jobs=1, timeout=10.0 ** 7):
      if "code" in r:
        code, o, e = r["code"], r["out"], r["err"]
      else:
        code, o = 70, ""
        e = f"oracle: {r.get('oracle_error') or r.get('crash') or r}\n"
    ob, eb = o.encode("utf-8", "surrogateescape"), e.encode("utf-8", "surrogateescape")
    stdout.write(b"%d %d %d\n" % (code & 255, len(ob), len(eb)) + ob + eb)
    stdout.flush()
  return 0


def _lower_file(path: str) -> int:
  from oracle import judge, mlir_text
  # A session: its last lowering's outcome, after the ones before it (as
  # `lowersim lower` prints a session), its warnings the session's.  A file
  # the oracle cannot read is invalid, one JAX cannot express not expressible
  # (judge.jax_outcomes reads and checks it).
  out = judge.jax_outcome(path)
  if out.kind == "invalid":
    print(out.reason, file=sys.stderr)
    return 2
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


def cmd_jaxpr(argv: list[str]) -> int:
  return _file_or_batch("jaxpr", argv, _jaxpr_file)


def _jaxpr_file(path: str) -> int:
  from oracle import judge, program, scenario as sc, standins
  try:
    s = sc.read_file(path)
  except sc.InvalidScenario as e:
    print(e, file=sys.stderr)
    return 2
  try:
    program.check_expressible(s)
    standins.install(s)
    binary = judge.lowersim_binary(judge.ROOT)
    text = program.make_jaxpr_text(path, binary, judge.default_lowersim_jax(binary))
  except program.NotExpressible as e:
    print(f"not expressible in JAX {_jax_version()}: {e}", file=sys.stderr)
    return 3
  except program.Unrenderable as e:  # lowersim reads no program in it
    print(f"lowersim renders no program: {e}", file=sys.stderr)
    return 2
  except Exception as e:  # what JAX raised while tracing
    print(f"{type(e).__name__}: {e}".replace("\n", "\\n"), file=sys.stderr)
    return 1
  sys.stdout.write(text + "\n")
  return 0


def cmd_run(argv: list[str]) -> int:
  ap = argparse.ArgumentParser(prog="python -m oracle run")
  ap.add_argument("paths", nargs="*")
  ap.add_argument("--jax", default=None, metavar="RELEASE",
                  help="the JAX release judged: must be the installed one")
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
  ap.add_argument("--out", default=None,
                  help="where the report goes (default build/oracle/RELEASE)")
  ap.add_argument("--no-corpus", action="store_true", help="only --fuzz / --timings")
  a = ap.parse_args(argv)
  _check_version(a.jax)
  if a.out is None:
    a.out = os.path.join(ROOT, "build", "oracle", _jax_version())
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
  if cmd == "jaxpr":
    return cmd_jaxpr(rest)
  print(f"oracle: unknown command {cmd!r} (lower, run, jaxpr)", file=sys.stderr)
  return 2


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
