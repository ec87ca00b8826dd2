#!/usr/bin/env python3
"""tests/pretty_check.py: `lowersim lower --pretty` against jaxlib (CTest
pretty.jaxlib).  Every module lowersim makes for testdata/scenarios and
testdata/conformance is printed pretty by lowersim and, from its generic
form, by jaxlib's MLIR (oracle/mlir_text.py: JAX's dialects registered);
the two texts must be the same, byte for byte.  A module lowersim refuses
must name an op in REFUSED (what the printer does not do yet) and leave
no output.  Run with the oracle's python (build/oracle-venv/bin/python);
exit 77 (skipped) when jaxlib is not importable.

Environment: LOWERSIM (the command), SOURCE_DIR.
"""
import glob
import os
import subprocess
import sys
import tempfile

SRC = os.environ["SOURCE_DIR"]
L = os.environ["LOWERSIM"]
sys.path.insert(0, SRC)
try:
    from oracle import mlir_text
except ImportError as e:
    print(f"pretty_check: skipped: no jaxlib ({e}); build/oracle-venv is made by ./run oracle")
    sys.exit(77)

REFUSED = set()  # ops of the corpus whose pretty form lowersim does not print: none


def main():
    files = sorted(glob.glob(os.path.join(SRC, "testdata", "scenarios", "*.xml")) +
                   glob.glob(os.path.join(SRC, "testdata", "conformance", "**", "*.xml"),
                             recursive=True))
    ctx = mlir_text.context(allow_unregistered=True)
    same = refused = 0
    bad = []
    out = os.path.join(tempfile.mkdtemp(), "pretty.mlir")
    for f in files:
        rel = os.path.relpath(f, SRC)
        generic = subprocess.run([L, "lower", f], capture_output=True, text=True)
        if generic.returncode:
            continue
        pretty = subprocess.run([L, "lower", "--pretty", f, "-o", out], capture_output=True,
                                text=True)
        if pretty.returncode:
            last = pretty.stderr.strip().split("\n")[-1]  # after JAX's warnings
            op = last.split("the module has ", 1)[-1].split(",", 1)[0]
            if (pretty.returncode != 2 or op not in REFUSED or os.path.exists(out) or
                    not last.startswith("lowersim lower: the module has ")):
                bad.append(f"{rel}: refused (exit {pretty.returncode}): {pretty.stderr.strip()}")
            refused += 1
            continue
        with open(out, encoding="utf-8") as fh:
            got = fh.read()
        os.unlink(out)
        want = mlir_text.parse(generic.stdout, ctx).operation.get_asm(enable_debug_info=False)
        if got != want:
            first = next(i for i, (a, b) in enumerate(zip(got.split("\n"), want.split("\n")))
                         if a != b) if got.split("\n")[:1] else 0
            bad.append(f"{rel}: differs from jaxlib's at line {first + 1}:\n  lowersim: "
                       f"{got.split(chr(10))[first][:300]}\n  jaxlib:   "
                       f"{want.split(chr(10))[first][:300]}")
            continue
        same += 1
    for b in bad:
        print("FAIL", b)
    print(f"pretty.jaxlib: {same} modules as jaxlib prints them, {refused} refused, "
          f"{len(bad)} failure(s)")
    return 1 if bad or same < 400 else 0


if __name__ == "__main__":
    sys.exit(main())
