#!/usr/bin/env python3
"""tests/explain_story_check.py: `lowersim explain` tells a lowering as a JAX
user reads it (run by CTest as explain.story):

- the module in JAX's pretty form by default, MLIR's generic with --generic;
- golden: the lowering section of the terminal narration of the scenarios
  in tests/explain/*.txt, whole and exact (each lower_per_platform says whose
  it is; a rule applied once and the case a nested lower_per_platform makes
  are two steps, not a contradiction);
- errors: every error scenario of the corpus (testdata/scenarios and
  testdata/conformance, those with <expect error=...>) narrates each error
  step as `- cause: ...`, then `! CLASS: MESSAGE`, then the JAX function's
  link `@ FUNCTION (FILE[:LINE]) https://github.com/jax-ml/jax/blob/REF/...`,
  the class the one `result` reports.

Environment: LOWERSIM (the command), SOURCE_DIR.
"""
import glob
import json
import os
import re
import subprocess
import sys

L = os.environ["LOWERSIM"]
SRC = os.environ["SOURCE_DIR"]
LINK = re.compile(r"\s+@ [\w.]+ \([\w.]+\.py(:\d+)?\) "
                  r"https://github\.com/jax-ml/jax/blob/jax-v[\d.]+/jax/[\w/]+\.py(#L\d+)?$")
failures = []


def explain(path):
    r = subprocess.run([L, "explain", path], capture_output=True, text=True,
                       env=dict(os.environ, NO_COLOR="1"))
    return r.returncode, r.stdout


def section(out, title):
    """The lines of the section headed `title` (up to the next heading)."""
    lines = out.split("\n")
    start = lines.index(title) + 1
    end = next((i for i in range(start, len(lines)) if lines[i] and not lines[i][0].isspace()),
               len(lines))
    return "\n".join(lines[start:end]).rstrip("\n") + "\n"


def golden():
    for want_path in sorted(glob.glob(os.path.join(SRC, "tests", "explain", "*.txt"))):
        name = os.path.basename(want_path)[:-4]
        code, out = explain(os.path.join(SRC, "testdata", "scenarios", name + ".xml"))
        with open(want_path, encoding="utf-8") as f:
            want = f.read()
        got = section(out, "lowering (lower_jaxpr_to_module)")
        if got != want:
            failures.append(f"golden {name}: the narration differs from tests/explain/{name}.txt "
                            f"(exit {code}):\n{got}")


def module_forms():
    """The module as explain shows it: JAX's pretty form by default, whole
    (tests/explain/platform-dependent.module), MLIR's generic with --generic
    (as `lower` prints it)."""
    path = os.path.join(SRC, "testdata", "scenarios", "platform-dependent.xml")
    _, out = explain(path)
    with open(os.path.join(SRC, "tests", "explain", "platform-dependent.module"),
              encoding="utf-8") as f:
        want = f.read()
    got = out.split("\nmodule (verified)\n", 1)[-1]
    if got != want:
        failures.append(f"explain's module differs from tests/explain/platform-dependent.module:\n"
                        f"{got}")
    r = subprocess.run([L, "explain", "--generic", path], capture_output=True, text=True)
    lower = subprocess.run([L, "lower", path], capture_output=True, text=True).stdout
    got = r.stdout.split("\nmodule (verified)\n", 1)[-1]
    if got != "  (MLIR's generic form, as --generic asks)\n" + lower:
        failures.append(f"explain --generic's module is not lower's:\n{got}")


def json_error_step():
    """--json narrates a trace-time error's step too (no links in --json)."""
    path = os.path.join(SRC, "testdata", "scenarios", "platform-dependent-gpu-key.xml")
    r = subprocess.run([L, "explain", "--json", path], capture_output=True, text=True)
    want = [{"kind": "detail", "depth": 0,
             "text": "cause: the check in platform_dependent fails on platforms = 'cuda' or 'rocm'"},
            {"kind": "error", "depth": 0,
             "text": "ValueError: Use 'cuda' or 'rocm' for lax.platform_dependent."}]
    got = json.loads(r.stdout).get("narration") if r.stdout else None
    if r.returncode != 1 or got != want:
        failures.append(f"explain --json's error step (exit {r.returncode}): {got!r}")


def error_steps():
    corpus = sorted(glob.glob(os.path.join(SRC, "testdata", "scenarios", "*.xml")) +
                    glob.glob(os.path.join(SRC, "testdata", "conformance", "**", "*.xml"),
                              recursive=True))
    count = 0
    for path in corpus:
        with open(path, encoding="utf-8") as f:
            if "<expect error=" not in f.read():
                continue
        count += 1
        rel = os.path.relpath(path, SRC)
        code, out = explain(path)
        if code not in (0, 1):  # 0: a session whose later lowering succeeds
            failures.append(f"{rel}: exit {code}")
            continue
        lines = section(out, "lowering (lower_jaxpr_to_module)").split("\n")
        steps = [i for i, l in enumerate(lines) if re.match(r"\s*! ", l)]
        if not steps:
            failures.append(f"{rel}: no error step")
        for i in steps:
            if i == 0 or not re.match(r"\s*- cause: \S", lines[i - 1]):
                failures.append(f"{rel}: the error step has no cause line before it: "
                                f"{lines[i - 1] if i else ''!r}")
            # The link follows the message (which may have several lines).
            link = next((l for l in lines[i + 1:] if re.match(r"\s+@ ", l)), None)
            nxt = next((j for j in range(i + 1, len(lines)) if re.match(r"\s+(@|- |> |! )", lines[j])
                        or re.match(r"  \S", lines[j])), None)
            if not link or not LINK.match(link) or not re.match(r"\s+@ ", lines[nxt] if nxt else ""):
                failures.append(f"{rel}: the error step has no source link after it: {link!r}")
        if code == 1:
            m = re.match(r"\s*LSIM_E_\w+: (\w+):", section(out, "result"))
            cls = m[1] if m else None
            if not any(re.match(rf"\s*! {cls}:", lines[i]) for i in steps):
                failures.append(f"{rel}: no error step of the result's class {cls!r}")
    if count < 400:
        failures.append(f"only {count} error scenarios found: is SOURCE_DIR right?")
    return count


def main():
    golden()
    module_forms()
    json_error_step()
    count = error_steps()
    for f in failures:
        print("FAIL", f)
    print(f"explain.story: golden narrations and {count} error scenarios, "
          f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
