"""`python -m oracle run`: the corpus, the back-compat modules, the fuzz
campaign and the timings, judged and reported."""

from __future__ import annotations

import collections
import glob
import os
import sys
import time

from oracle import compare, judge, known, releases, report, server

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def collect(paths: list[str]) -> list[str]:
  out = []
  for p in paths:
    if os.path.isdir(p):
      out += glob.glob(os.path.join(p, "**", "*.xml"), recursive=True)
    else:
      out.append(p)
  rel = []
  for p in out:
    a = os.path.abspath(p)
    rel.append(os.path.relpath(a, ROOT) if a.startswith(ROOT + os.sep) else a)
  return sorted(set(rel))


def another_release(path: str) -> compare.Verdict | None:
  """The verdict of a scenario pinned to another JAX than the installed
  (not expressible, lowersim not asked), found without a child; None for
  the others (and for input the reader refuses: the child says)."""
  from oracle import program, scenario as sc
  try:
    s = sc.read_file(path)
  except (sc.InvalidScenario, OSError):
    return None
  if releases.pins(s.jax):
    return None
  try:
    program.check_expressible(s)
  except program.NotExpressible as e:
    out = program.Outcome(kind="not_expressible", reason=str(e))
    v = compare.verdict(path, compare.LowersimOutcome("none"), out)
    v.profile = judge.profile_of(s.jax)
    return v
  return None


def judge_paths(paths: list[str], a, label: str = "scenarios") -> list[compare.Verdict]:
  binary = judge.lowersim_binary(ROOT)
  from oracle import expect
  expect.load_codes(binary)  # before the fork server's children are made
  verdicts = []
  tasks = []
  for p in paths:
    v = another_release(p)
    if v is not None:
      verdicts.append(v)
    else:
      tasks.append({"path": p, "lowersim": binary, "lowersim_jax": a.lowersim_jax,
                    "expect": p.startswith("testdata/")})
  start = time.monotonic()
  last = start
  for task, result in server.run(tasks, judge.judge, jobs=a.jobs, timeout=a.timeout):
    verdicts.append(result_to_verdict(task["path"], result))
    now = time.monotonic()
    if now - last > 15:
      print(f"oracle: {len(verdicts)}/{len(paths)} {label}", file=sys.stderr, flush=True)
      last = now
  return verdicts


def result_to_verdict(path: str, result: dict) -> compare.Verdict:
  if "timeout" in result:
    return compare.Verdict(path=path, status="timeout",
                           summary=f"no verdict within {result['timeout']:.0f} s")
  if "oracle_error" in result or "crash" in result:
    text = result.get("oracle_error") or result.get("crash")
    return compare.Verdict(path=path, status="oracle_error", summary=text.splitlines()[0],
                           diff=text)
  result.pop("judge_seconds", None)
  return compare.Verdict.from_json(result)


def main(a) -> int:
  """One release: the installed JAX judges the corpus (and the back-compat
  data, the fuzz campaign, the timings); everything written to a.out."""
  os.chdir(ROOT)
  start = time.monotonic()
  a.release = releases.installed()
  failed_preimports = server.preimport()
  if failed_preimports:
    print("oracle: could not import " + ", ".join(failed_preimports), file=sys.stderr)
  if a.self_test:
    from oracle.tests import run_self_tests
    code = run_self_tests()
    if code or not (a.paths or a.fuzz or a.timings):
      return code
  binary = judge.lowersim_binary(ROOT)
  if not os.path.exists(binary):
    print(f"oracle: {binary} is missing: build lowersim first (./run)", file=sys.stderr)
    return 2
  a.lowersim_jax = releases.lowersim_jax(a.release, releases.lowersim_profiles(binary))
  info = report.RunInfo(a.release, a.lowersim_jax, dict(server.LEFT_TO_CHILDREN))
  for line in info.notes():
    print("oracle: " + line)
  os.makedirs(a.out, exist_ok=True)
  verdicts: list[compare.Verdict] = []
  sections: list[tuple[str, str]] = []
  full_corpus = not a.paths and not a.no_corpus
  if not a.no_corpus:
    paths = collect(a.paths or ["testdata"])
    print(f"== the oracle: {len(paths)} scenarios on lowersim (--jax {a.lowersim_jax}) and on "
          f"JAX {a.release} ({a.jobs} at a time, a fresh process each)", flush=True)
    verdicts += judge_paths(paths, a)
    if full_corpus:
      from oracle import backcompat
      bc, text = backcompat.run(a)
      verdicts += bc
      sections.append((f"back-compat test data of the installed jax ({a.release})", text))
  known_path = releases.known_file(a.release)
  entries = known.read(known_path)
  judged = report.judge_all(verdicts, entries)
  seen = {v.path for v in verdicts}
  stale_missing = [e for p, e in entries.items() if p not in seen] if full_corpus else []
  if a.update_known:
    n = known.write(verdicts, known_path, a.release, keep=entries if not full_corpus else None)
    print(f"oracle: wrote {n} entries to {os.path.relpath(known_path, ROOT)}")
    entries = known.read(known_path)
    judged = report.judge_all(verdicts, entries)
    stale_missing = []
  expect_failed, expect_text = expectations(verdicts, getattr(a, "write_expect", False), a.release)
  write_expect_results(os.path.join(a.out, "expect.json"), verdicts)
  if expect_text:
    sections.append((f"the corpus's <expect> against JAX {a.release}", expect_text))
  fuzz_failed = fuzz_total = 0
  if a.fuzz:
    from oracle import fuzz
    text, fuzz_failed, fuzz_total = fuzz.campaign(a)
    sections.append((f"differential fuzzing ({a.fuzz} scenarios, seed {a.seed})", text))
    print(text, flush=True)
  if a.timings:
    from oracle import timings
    text = timings.run(a, [v for v in verdicts if v.status in ("agree", "differ")])
    sections.append(("timings: JAX against lowersim", text))
    print(text, flush=True)
  seconds = time.monotonic() - start
  report.write_report(os.path.join(a.out, "report.txt"), judged, stale_missing, sections, info)
  report.write_junit(os.path.join(a.out, "junit.xml"), judged, seconds, info)
  report.write_json(os.path.join(a.out, "verdicts.json"), judged, info)
  if verdicts:
    print(report.summary_table(judged))
    print(f"by what the scenario's jax= is to JAX {a.release}:")
    print(report.profile_table(judged, info))
    print("differences by cause (scenarios):")
    print(report.causes_table(judged))
  for j in judged:
    if j.failed:
      what = "stale known-differences entry" if j.stale else j.column
      print(f"  {what}: {j.v.path}: {j.v.classes[0] if j.v.classes else j.v.summary}")
  for e in stale_missing:
    print(f"  stale known-differences entry (no such scenario): {e.path}")
  if expect_text:
    print(expect_text, flush=True)
  failed = sum(j.failed for j in judged) + len(stale_missing) + fuzz_failed + expect_failed
  skipped = sum(j.column in ("not_expressible", "lowersim_invalid") for j in judged)
  passed = len(judged) - sum(j.failed for j in judged) - skipped + fuzz_total - fuzz_failed
  report.write_summary(os.path.join(a.out, "summary.json"), judged, info,
                       passed=passed, failed=failed, skipped=skipped,
                       expect_failed=expect_failed, fuzz_failed=fuzz_failed,
                       stale=len(stale_missing), seconds=seconds)
  print(f"oracle: report in {os.path.relpath(os.path.join(a.out, 'report.txt'), ROOT)}, "
        f"JUnit in {os.path.relpath(os.path.join(a.out, 'junit.xml'), ROOT)} ({seconds:.0f} s)")
  if verdicts:
    print(f"JAX {a.release}: " + report.profile_line(judged, info))
  print(f"{passed} passed, {failed} failed, {skipped} skipped")
  return 1 if failed else 0


def write_expect_results(path: str, verdicts: list[compare.Verdict]) -> None:
  """Each checked <expect>'s state on this release, with the text JAX's
  outcome gives it where that differs: the campaign (oracle/campaign.py)
  rewrites an unpinned scenario's <expect> only when every release gives
  the same text."""
  import json
  out = {}
  for v in verdicts:
    e = v.expect
    if not e or e.get("state") == "skip":
      continue
    out[v.path] = {"profile": v.profile, "state": e.get("state"),
                   "changes": e.get("changes", []), "problems": e.get("problems", []),
                   "new_text": e.get("new_text") if e.get("state") in ("differs", "missing") else None}
  with open(path, "w", encoding="utf-8") as f:
    json.dump(out, f, indent=1, sort_keys=True)


def expectations(verdicts: list[compare.Verdict], write: bool, release: str) -> tuple[int, str]:
  """The committed <expect>s against JAX `release`: (failures, the text for
  the terminal and the report).  With `write`, the files of scenarios pinned
  to this release are rewritten instead (a scenario whose expectation JAX
  cannot give, e.g. a class no status code has, is left alone and counted
  as a failure); an unpinned scenario's <expect> holds on every release, so
  one release does not rewrite it (the campaign does, when every release
  gives the same)."""
  checked = [v for v in verdicts if v.expect]
  states = collections.Counter(v.expect.get("state") for v in checked)
  off = [v for v in checked if v.expect.get("state") in ("differs", "missing")]
  problems = [v for v in checked if v.expect.get("problems")]
  lines = [f"{states['same']} as JAX {release} did, {states['differs']} differ, "
           f"{states['missing']} missing, {states['skip']} not judged (not expressible, refused, "
           f"or no <expect> outside testdata/conformance/)"]
  failed = 0
  written = 0
  left = 0
  for v in off:
    e = v.expect
    unpinned = v.profile == "unpinned"
    if write and not e.get("problems") and not unpinned:
      with open(os.path.join(ROOT, v.path), "w", encoding="utf-8") as f:
        f.write(e["new_text"])
      written += 1
      lines.append(f"  wrote {v.path}: " + "; ".join(e["changes"]))
      continue
    failed += 1
    left += write and unpinned
    lines.append(f"EXPECTATION {'MISSING' if e['state'] == 'missing' else 'DIFFERS FROM JAX'} "
                 f"{release}: {v.path}" + (" (unpinned: judged on every release)" if unpinned else "")
                 + ": " + "; ".join(e["changes"]))
    lines.append(e["diff"])
  for v in problems:
    if v not in off:
      failed += 1
    for p in v.expect["problems"]:
      lines.append(f"EXPECTATION NOT WRITABLE: {v.path}: {p}")
  if write:
    lines.append(f"oracle: rewrote the <expect> of {written} scenarios pinned to JAX {release}")
    if left:
      lines.append(f"oracle: {left} unpinned scenarios left alone: their <expect> holds on every "
                   "release, so `./run oracle --jax all --write-expect` rewrites it when every "
                   "release gives the same (else pin the scenario to the release it describes)")
  elif off:
    lines.append("oracle: `./run oracle --write-expect [PATHS]` rewrites them from JAX "
                 "(review the diff: a changed expectation is a finding)")
  return failed, "\n".join(lines)
