"""`./run oracle`: the oracle on every JAX release (or those --jax names).

    python3 -m oracle.campaign [PATHS...] [--jax all|RELEASE[,RELEASE...]]
                               [--self-test] [--fuzz N --seed S] [--timings]
                               [--update-known] [--write-expect] [--jobs J]
                               [--timeout S] [--out DIR] [--no-corpus]

For each release chosen (default: every release this machine can run;
`--jax all` or a list: those, and a release that cannot run is then a
failure), the release's environment build/oracle-venvs/RELEASE is made when
missing or stale (oracle/venvs.py), and `VENV/bin/python -m oracle run
--jax RELEASE ...` judges the corpus into DIR/RELEASE/ (report.txt,
junit.xml, verdicts.json, summary.json).  The fuzz campaign and the
timings run on the newest release chosen.  Then: an unpinned scenario's
<expect> must hold on every release, so with --write-expect it is
rewritten here, only when every release gives the same text; DIR/junit.xml
holds every release's suite, DIR/summary.txt and the terminal the table
release x outcome, DIR/classes.txt the difference classes per release; the
last line is `N passed, N failed, N skipped` over every release run.

This module needs no JAX: it runs with any Python 3.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from typing import Optional

from oracle import releases, venvs

ROOT = releases.ROOT


def parse(argv: list[str]) -> argparse.Namespace:
  ap = argparse.ArgumentParser(prog="./run oracle")
  ap.add_argument("paths", nargs="*")
  ap.add_argument("--jax", default=None, metavar="all|RELEASE[,RELEASE...]",
                  help="the releases to judge (default: every release an interpreter here can run)")
  ap.add_argument("--self-test", action="store_true")
  ap.add_argument("--fuzz", type=int, default=0, metavar="N")
  ap.add_argument("--seed", type=int, default=None)
  ap.add_argument("--fuzz-kind", default=None, metavar="ELEMENT")
  ap.add_argument("--minimize", type=int, default=None, metavar="K")
  ap.add_argument("--timings", action="store_true")
  ap.add_argument("--jobs", type=int, default=2)
  ap.add_argument("--timeout", type=float, default=None)
  ap.add_argument("--update-known", action="store_true")
  ap.add_argument("--write-expect", action="store_true")
  ap.add_argument("--no-corpus", action="store_true")
  ap.add_argument("--out", default=os.path.join(ROOT, "build", "oracle"))
  return ap.parse_args(argv)


def release_argv(a: argparse.Namespace, release: str, newest: bool, self_test_only: bool) -> list[str]:
  """`python -m oracle run`'s arguments for one release."""
  out = ["run", "--jax", release, "--out", os.path.join(a.out, release), "--jobs", str(a.jobs)]
  if self_test_only:
    return out + ["--self-test"]
  if a.timeout is not None:
    out += ["--timeout", str(a.timeout)]
  for flag in ("update_known", "write_expect", "no_corpus"):
    if getattr(a, flag):
      out.append("--" + flag.replace("_", "-"))
  if newest and a.fuzz:
    out += ["--fuzz", str(a.fuzz)]
    for name in ("seed", "fuzz_kind", "minimize"):
      if getattr(a, name) is not None:
        out += ["--" + name.replace("_", "-"), str(getattr(a, name))]
  if newest and a.timings:
    out.append("--timings")
  return out + list(a.paths)


def environments(chosen: list[str], log=print) -> tuple[dict[str, str], dict[str, str]]:
  """({release: its python}, {release: why it cannot be judged here})."""
  pythons, cannot = {}, {}
  for r in chosen:
    try:
      pythons[r] = venvs.ensure(r, log=log)
    except (venvs.NoInterpreter, venvs.VenvError) as e:
      cannot[r] = str(e)
  return pythons, cannot


def run_release(python: str, argv: list[str]) -> int:
  sys.stdout.flush()
  return subprocess.call([python, "-m", "oracle"] + argv, cwd=ROOT)


def read_json(path: str) -> Optional[dict]:
  try:
    with open(path, encoding="utf-8") as f:
      return json.load(f)
  except (OSError, ValueError):
    return None


# --- The <expect>s of unpinned scenarios, across releases ----------------------------

def unpinned_expectations(results: dict[str, dict], every_release: list[str],
                          write: bool) -> tuple[list[str], dict[str, list[str]]]:
  """`results`: {release: its expect.json}.  An unpinned scenario's <expect>
  holds on every release.  Returns the report lines and, per release, the
  paths whose failure this resolved (written here).  A file is written only
  when every release (of `every_release`) was judged and gives it the same
  new text."""
  lines: list[str] = []
  resolved: dict[str, list[str]] = {r: [] for r in results}
  paths = sorted({p for r in results.values() for p, e in r.items() if e.get("profile") == "unpinned"})
  for path in paths:
    per = {r: results[r].get(path) for r in results}
    off = {r: e for r, e in per.items() if e and e["state"] in ("differs", "missing")}
    if not off:
      continue
    same = [r for r, e in per.items() if e and e["state"] == "same"]
    texts = {e["new_text"] for e in off.values()}
    problems = [p for e in off.values() for p in e.get("problems", [])]
    names = ", ".join(sorted(off, key=releases.version_key))
    head = f"UNPINNED SCENARIO'S <expect> IS NOT WHAT JAX {names} DID: {path}"
    if same:
      head += f" (it is what JAX {', '.join(sorted(same, key=releases.version_key))} did)"
    if not write:
      lines.append(head + ": pin the scenario to the release it describes, or rewrite it "
                   "(`./run oracle --jax all --write-expect`) where every release agrees")
      continue
    missing = [r for r in every_release if r not in results]
    if missing:
      why = f"JAX {', '.join(missing)} not judged in this run"
    elif same:
      why = "the releases differ: pin the scenario to the release it describes"
    elif len(texts) > 1:
      why = "the releases give different <expect>s: pin the scenario to the release it describes"
    elif problems:
      why = "; ".join(dict.fromkeys(problems))
    else:
      with open(os.path.join(ROOT, path), "w", encoding="utf-8") as f:
        f.write(texts.pop())
      for r in off:
        resolved[r].append(path)
      lines.append(f"  wrote {path}: every release ({', '.join(every_release)}) gives it")
      continue
    lines.append(head + f": not rewritten: {why}")
  return lines, resolved


# --- The summary --------------------------------------------------------------------

COLUMNS = (("agree", "agree"), ("differ", "differ"), ("known", "known"),
           ("not_expressible", "not expr."), ("lowersim_invalid", "refused"),
           ("timeout", "timeout"), ("oracle_error", "oracle err"))


def release_table(summaries: dict[str, dict], cannot: dict[str, str]) -> str:
  """release x outcome (the corpus's scenarios; back-compat data apart)."""
  head = f"  {'JAX':<10}" + "".join(f"{t:>11}" for _, t in COLUMNS) + \
      f"{'<expect>≠':>11}{'passed':>8}{'failed':>8}{'skipped':>8}  lowersim --jax"
  lines = [head]
  for r in sorted(set(summaries) | set(cannot), key=releases.version_key):
    s = summaries.get(r)
    if s is None:
      lines.append(f"  {r:<10}  not judged: " + (cannot.get(r) or "its run wrote no summary")[:200])
      continue
    cols = s.get("columns", {})
    lines.append(f"  {r:<10}" + "".join(f"{cols.get(c, 0):>11}" for c, _ in COLUMNS)
                 + f"{s.get('expect_failed', 0):>11}{s['passed']:>8}{s['failed']:>8}{s['skipped']:>8}"
                 + f"  {s.get('lowersim_jax', '?')}")
  return "\n".join(lines)


def classes_text(summaries: dict[str, dict]) -> str:
  """Per release, every difference class with its count and two examples."""
  out = []
  for r in sorted(summaries, key=releases.version_key):
    s = summaries[r]
    cols = s.get("columns", {})
    out.append(f"JAX {r} (lowersim --jax {s.get('lowersim_jax')}): {cols.get('agree', 0)} agree "
               f"({s.get('nondeterministic', 0)} of them up to JAX's nondeterminism), "
               f"{cols.get('differ', 0) + cols.get('known', 0)} differ ({cols.get('known', 0)} known), "
               f"{cols.get('not_expressible', 0)} not expressible, {cols.get('lowersim_invalid', 0)} "
               f"refused by lowersim, {cols.get('oracle_error', 0)} oracle errors, "
               f"{cols.get('timeout', 0)} timeouts; back-compat data: "
               + (", ".join(f"{n} {c}" for c, n in sorted(s.get("backcompat", {}).items())) or "none"))
    for note in s.get("notes", []):
      out.append(f"  note: {note}")
    for c in s.get("classes", []):
      out.append(f"  {c['scenarios']:>5}  {c['class']}")
      out.append(f"         e.g. {', '.join(c['examples'])}")
    out.append("")
  return "\n".join(out)


def merge_junit(paths: list[str], out: str) -> None:
  """One JUnit file with every release's <testsuite>."""
  suites = []
  for p in paths:
    try:
      with open(p, encoding="utf-8") as f:
        text = f.read()
    except OSError:
      continue
    m = re.search(r"<testsuites>\n(.*)</testsuites>", text, re.S)
    if m:
      suites.append(m.group(1))
  with open(out, "w", encoding="utf-8") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n' + "".join(suites)
            + "</testsuites>\n")


def main(argv: list[str]) -> int:
  a = parse(argv)
  os.chdir(ROOT)
  start = time.monotonic()
  every = releases.all_releases()
  try:
    chosen = releases.select(a.jax, every)
  except releases.SelectionError as e:
    print(f"oracle: {e}", file=sys.stderr)
    return 2
  pythons, cannot = environments(chosen)
  for r, why in cannot.items():
    print(f"oracle: CANNOT JUDGE JAX {r}: {why}", flush=True)
  if not pythons:
    print("oracle: no release can be judged here", file=sys.stderr)
    print(f"0 passed, {len(cannot)} failed, 0 skipped")
    return 1
  if a.jax is None and cannot:
    print(f"oracle: judging {', '.join(pythons)} (no --jax: the releases that can run here)")
  os.makedirs(a.out, exist_ok=True)
  newest = max(pythons, key=releases.version_key)
  only_self_test = a.self_test and not (a.paths or a.fuzz or a.timings)
  passed = failed = skipped = 0
  if a.self_test:
    for r, python in pythons.items():
      print(f"===== the oracle's self-tests on JAX {r} ({os.path.relpath(python, ROOT)})", flush=True)
      out = subprocess.run([python, "-m", "oracle"] + release_argv(a, r, False, True), cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
      sys.stdout.write(out.stdout)
      m = re.search(r"^oracle self-test: (\d+) passed, (\d+) failed", out.stdout, re.M)
      if m:
        passed, failed = passed + int(m.group(1)), failed + int(m.group(2))
      if out.returncode and not (m and int(m.group(2))):
        failed += 1
        print(f"oracle: the self-tests on JAX {r} exited {out.returncode}")
    if only_self_test:
      failed += len(cannot) if a.jax is not None else 0
      print(f"oracle self-tests on {', '.join(pythons)} ({time.monotonic() - start:.0f} s)")
      print(f"{passed} passed, {failed} failed, {skipped} skipped")
      return 1 if failed else 0
  summaries: dict[str, dict] = {}
  expects: dict[str, dict] = {}
  codes: dict[str, int] = {}
  for r, python in pythons.items():
    for stale in ("summary.json", "expect.json"):
      try:
        os.unlink(os.path.join(a.out, r, stale))
      except OSError:
        pass
    print(f"===== JAX {r} ({os.path.relpath(python, ROOT)})", flush=True)
    t = time.monotonic()
    codes[r] = run_release(python, release_argv(a, r, r == newest, False))
    s = read_json(os.path.join(a.out, r, "summary.json"))
    if s is None:
      print(f"oracle: JAX {r}: the run exited {codes[r]} without a summary")
      failed += 1
      continue
    s["seconds"] = time.monotonic() - t
    summaries[r] = s
    expects[r] = read_json(os.path.join(a.out, r, "expect.json")) or {}
    passed, failed, skipped = passed + s["passed"], failed + s["failed"], skipped + s["skipped"]
  lines, resolved = unpinned_expectations(expects, every, a.write_expect)
  failed -= sum(len(v) for v in resolved.values())
  if a.jax is not None:
    failed += len(cannot)
  merge_junit([os.path.join(a.out, r, "junit.xml") for r in summaries], os.path.join(a.out, "junit.xml"))
  with open(os.path.join(a.out, "classes.txt"), "w", encoding="utf-8") as f:
    f.write(classes_text(summaries))
  table = release_table(summaries, cannot)
  seconds = time.monotonic() - start
  text = [f"===== the oracle on {len(summaries)} JAX release(s) ({seconds:.0f} s)"]
  if lines:
    text += ["the <expect>s of unpinned scenarios (judged on every release):"] + lines
  for r in summaries:
    text.append(f"JAX {r}: {summaries[r]['seconds']:.0f} s, report in "
                f"{os.path.relpath(os.path.join(a.out, r, 'report.txt'), ROOT)}")
  for r, why in cannot.items():
    text.append(f"JAX {r}: NOT JUDGED: {why}")
  text += [f"difference classes per release: {os.path.relpath(os.path.join(a.out, 'classes.txt'), ROOT)}; "
           f"JUnit of every release: {os.path.relpath(os.path.join(a.out, 'junit.xml'), ROOT)}",
           "the corpus by release (scenarios; agree includes agreement up to JAX's nondeterminism):",
           table]
  with open(os.path.join(a.out, "summary.txt"), "w", encoding="utf-8") as f:
    f.write("\n".join(text) + "\n")
  print("\n".join(text))
  print(f"{passed} passed, {failed} failed, {skipped} skipped")
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
