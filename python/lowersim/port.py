"""Helpers for ports written in Python, for `lowersim check --impl`.

    # myport.py
    from lowersim import port

    def lower(path: str) -> str:
      ...                 # the module text, or raise JAX's exception
      return text

    if __name__ == "__main__":
      port.main(lower)

`python myport.py FILE` lowers one scenario with `lowersim lower`'s contract
(the module on stdout and exit 0; an exception is one line `ErrorClass:
message` on stderr and exit 1), for

    lowersim check PATH --impl 'python myport.py {scenario}'

and `python myport.py --batch` speaks check's batch protocol, so that the
port (and its imports) start once per job rather than once per scenario:

    lowersim check PATH --batch --jobs 2 --impl 'python myport.py --batch'

The batch protocol: one request per scenario on stdin, its path and a
newline; one answer on stdout, a header line `EXIT OUT_BYTES ERR_BYTES`
(decimal) and then exactly that many bytes of the module (stdout) and of
the error lines and warnings (stderr).  What `lower` prints to sys.stdout or
sys.stderr while it runs (warnings included) goes into the answer.

This module uses nothing but the standard library (importing it loads
lowersim's library through the package, nothing more).
"""

from __future__ import annotations

import contextlib
import io
import sys
import traceback
import warnings
from typing import BinaryIO, Callable, Optional, Tuple

__all__ = ["Answer", "answer", "serve", "main"]

Answer = Tuple[int, str, str]  # (exit status, stdout, stderr)


def _one_line(text: str) -> str:
  return text.replace("\n", "\\n")


def answer(lower: Callable[[str], object], path: str) -> Answer:
  """One scenario through `lower`: its module (a str), or an Answer it
  returns itself, or the exception it raises as `ErrorClass: message`
  (exit 1).  What it prints is captured into the answer."""
  out, err = io.StringIO(), io.StringIO()
  code = 0
  with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
       warnings.catch_warnings():
    warnings.simplefilter("default")
    warnings.showwarning = lambda m, c, *a, **k: print(
        f"warning: {c.__name__}: {_one_line(str(m))}", file=sys.stderr)
    try:
      result = lower(path)
    except Exception as e:  # the port's error: JAX's class and message
      code = 1
      print(f"{type(e).__name__}: {_one_line(str(e))}", file=sys.stderr)
      result = None
    except BaseException:   # SystemExit and KeyboardInterrupt stop the port
      raise
  if isinstance(result, tuple):
    code, stdout, stderr = result
    return int(code), out.getvalue() + stdout, err.getvalue() + stderr
  return code, out.getvalue() + (result or ""), err.getvalue()


def serve(lower: Callable[[str], object], stdin: Optional[BinaryIO] = None,
          stdout: Optional[BinaryIO] = None) -> int:
  """The batch protocol until stdin ends: each request line a path, each
  answer `EXIT OUT_BYTES ERR_BYTES\\n` and the bytes.  Returns 0."""
  stdin = stdin or sys.stdin.buffer
  stdout = stdout or sys.stdout.buffer
  for line in stdin:
    path = line.rstrip(b"\n").decode("utf-8", "surrogateescape")
    try:
      code, o, e = answer(lower, path)
    except Exception:  # a bug in the port's own glue: the traceback, as exit 1
      code, o, e = 1, "", traceback.format_exc()
    ob, eb = o.encode("utf-8", "surrogateescape"), e.encode("utf-8", "surrogateescape")
    stdout.write(b"%d %d %d\n" % (code & 255, len(ob), len(eb)) + ob + eb)
    stdout.flush()
  return 0


def main(lower: Callable[[str], object], argv: Optional[list] = None) -> int:
  """`PROG FILE` (one scenario) or `PROG --batch` (the protocol); exits."""
  argv = sys.argv[1:] if argv is None else argv
  if argv == ["--batch"]:
    sys.exit(serve(lower))
  if len(argv) != 1 or argv[0].startswith("--"):
    print(f"usage: {sys.argv[0]} FILE | --batch", file=sys.stderr)
    sys.exit(2)
  code, o, e = answer(lower, argv[0])
  sys.stdout.write(o)
  sys.stderr.write(e)
  sys.stdout.flush()
  sys.exit(code)
