"""The oracle's report: a terminal summary by folder, build/oracle/report.txt
(every difference with its diff and the JAX code behind it), JUnit XML, and
the verdicts as JSON."""

from __future__ import annotations

import collections
import dataclasses
import json
import os
import xml.sax.saxutils as saxutils
from typing import Iterable, Optional

from oracle import known
from oracle.compare import Verdict

# What a verdict counts as, once the known-differences list is applied.
COLUMNS = ("agree", "known", "differ", "not_expressible", "lowersim_invalid", "timeout", "oracle_error")
TITLES = {"agree": "agree", "known": "known diff", "differ": "NEW DIFF", "not_expressible": "not expr.",
          "lowersim_invalid": "refused", "timeout": "timeout", "oracle_error": "oracle err"}


def folder_of(path: str) -> str:
  if path.startswith("backcompat:"):
    return "backcompat"
  if path.startswith("fuzz:"):
    return "fuzz"
  d = os.path.dirname(path)
  return d[len("testdata/"):] if d.startswith("testdata/") else d or "."


@dataclasses.dataclass
class RunInfo:
  """What one release's run is: the JAX release judged, lowersim's --jax
  for the scenarios that pin none, and the modules the fork server's
  parent left to the children (server.LEFT_TO_CHILDREN)."""
  release: str
  lowersim_jax: str
  left_to_children: dict = dataclasses.field(default_factory=dict)

  def notes(self) -> list[str]:
    out = []
    if self.lowersim_jax != self.release:
      out.append(f"lowersim has no profile named {self.release}: scenarios that pin no JAX are "
                 f"lowered by lowersim with --jax {self.lowersim_jax} (releases.lowersim_jax)")
    for mod, reg in sorted(self.left_to_children.items()):
      out.append(f"{mod} is imported by each child, not the fork server's parent: in JAX "
                 f"{self.release} its import imports {reg}")
    return out


class Judged:
  """A verdict with the known-differences list applied.  A difference
  whose every class is one JAX itself gives or not from one process to the
  next (known.nondeterministic: the token-set order, a dtype list's order)
  agrees with one of JAX's outcomes: column "agree", `nondeterministic`."""

  def __init__(self, v: Verdict, entry: Optional[known.Entry]):
    self.v = v
    self.entry = entry
    self.nondeterministic = v.status == "differ" and known.nondeterministic(v.classes)
    if self.nondeterministic:
      self.column = "agree"
    elif v.status == "differ":
      self.column = "known" if entry is not None and sorted(entry.classes) == sorted(v.classes) \
          else "differ"
    else:
      self.column = v.status
    self.stale = entry is not None and self.column not in ("known", "differ")
    self.changed = entry is not None and self.column == "differ"

  @property
  def failed(self) -> bool:
    return self.column in ("differ", "timeout", "oracle_error") or self.stale


def judge_all(verdicts: Iterable[Verdict], entries: dict[str, known.Entry]) -> list[Judged]:
  return [Judged(v, entries.get(v.path)) for v in verdicts]


def summary_table(judged: list[Judged]) -> str:
  by = collections.defaultdict(collections.Counter)
  for j in judged:
    by[folder_of(j.v.path)][j.column] += 1
  cols = [c for c in COLUMNS if any(by[f][c] for f in by)]
  w = max([24] + [len(f) for f in by])
  head = f"  {'folder':<{w}}" + "".join(f"{TITLES[c]:>11}" for c in cols) + f"{'total':>8}"
  lines = [head]
  total = collections.Counter()
  for f in sorted(by):
    total.update(by[f])
    lines.append(f"  {f:<{w}}" + "".join(f"{by[f][c]:>11}" for c in cols) + f"{sum(by[f].values()):>8}")
  lines.append(f"  {'all':<{w}}" + "".join(f"{total[c]:>11}" for c in cols) + f"{sum(total.values()):>8}")
  return "\n".join(lines)


def _profile_counts(judged: list[Judged]) -> dict[str, collections.Counter]:
  by = collections.defaultdict(collections.Counter)
  for j in judged:
    if not j.v.profile:             # not a scenario (the back-compat data)
      continue
    col = j.column if j.column in ("agree", "not_expressible") else \
        "differ" if j.column in ("differ", "known") else "other"
    by[j.v.profile][col] += 1
  return by


def profile_labels(info: RunInfo) -> dict[str, str]:
  return {"pinned": f"jax={info.release}", "unpinned": f"unpinned (--jax {info.lowersim_jax})",
          "another release": "another release's", "no release": "no release's"}


def _profiles_in_order(by) -> list[str]:
  from oracle.judge import PROFILES
  return [p for p in PROFILES if p in by] + sorted(set(by) - set(PROFILES))


def profile_line(judged: list[Judged], info: RunInfo) -> str:
  """The closing figures per profile, on one line."""
  by = _profile_counts(judged)
  labels = profile_labels(info)
  return "; ".join(f"{labels.get(p, p)} {by[p]['agree']} agree, {by[p]['differ']} differ, "
                   f"{by[p]['not_expressible']} not expressible"
                   + (f", {by[p]['other']} other" if by[p]["other"] else "")
                   for p in _profiles_in_order(by))


def profile_table(judged: list[Judged], info: RunInfo) -> str:
  """agree / differ (known or not) / not expressible by what the scenario's
  jax= is to the release; other: refused by lowersim, timeouts, oracle
  errors."""
  by = _profile_counts(judged)
  labels = profile_labels(info)
  cols = ["agree", "differ", "not_expressible"] + (["other"] if any(b["other"] for b in by.values()) else [])
  names = {"agree": "agree", "differ": "differ", "not_expressible": "not expr.", "other": "other"}
  w = max([24] + [len(labels.get(p, p)) for p in by])
  lines = [f"  {'profile':<{w}}" + "".join(f"{names[c]:>11}" for c in cols) + f"{'total':>8}"]
  for p in _profiles_in_order(by):
    lines.append(f"  {labels.get(p, p):<{w}}" + "".join(f"{by[p][c]:>11}" for c in cols)
                 + f"{sum(by[p].values()):>8}")
  return "\n".join(lines)


def causes_table(judged: list[Judged]) -> str:
  counts = collections.Counter()
  unexplained = collections.Counter()
  for j in judged:
    if j.v.status != "differ":
      continue
    for c in known.causes_of(j.v.classes, j.v.context):
      counts[c.name] += 1
    for c in known.unexplained(j.v.classes, j.v.context):
      unexplained[c] += 1
  lines = []
  for cause in known.CAUSES:
    if counts[cause.name]:
      lines.append(f"  {counts[cause.name]:>5}  {cause.name}: {cause.what}")
  for c, n in unexplained.most_common():
    lines.append(f"  {n:>5}  (no cause yet) {c}")
  return "\n".join(lines)


def class_counts(judged: list[Judged]) -> list[tuple[str, int, list[str]]]:
  """(class, scenarios, up to two example paths) of every difference class
  of the differing verdicts (known or new; not JAX's nondeterminism), most
  frequent first."""
  counts: collections.Counter = collections.Counter()
  examples: dict[str, list[str]] = collections.defaultdict(list)
  for j in sorted(judged, key=lambda j: j.v.path):
    if j.column not in ("differ", "known"):
      continue
    for c in dict.fromkeys(j.v.classes):
      counts[c] += 1
      if len(examples[c]) < 2:
        examples[c].append(j.v.path)
  return [(c, n, examples[c]) for c, n in sorted(counts.items(), key=lambda x: (-x[1], x[0]))]


def classes_table(judged: list[Judged]) -> str:
  lines = []
  for c, n, ex in class_counts(judged):
    lines.append(f"  {n:>5}  {c}\n         e.g. {', '.join(ex)}")
  return "\n".join(lines) or "  (none)"


def nondeterminism_line(judged: list[Judged]) -> str:
  n = collections.Counter()
  for j in judged:
    if j.nondeterministic:
      for c in known.causes_of(j.v.classes, j.v.context):
        n[c.name] += 1
  if not n:
    return ""
  return (f"{sum(j.nondeterministic for j in judged)} agree up to JAX's own nondeterminism ("
          + ", ".join(f"{k}: {v}" for k, v in sorted(n.items())) + ")")


def write_report(path: str, judged: list[Judged], stale_missing: list[known.Entry],
                 extra_sections: list[tuple[str, str]], info: RunInfo) -> None:
  os.makedirs(os.path.dirname(path), exist_ok=True)
  with open(path, "w", encoding="utf-8") as f:
    f.write(f"lowersim against JAX {info.release} (the oracle); scenarios that pin no JAX are "
            f"lowered by lowersim with --jax {info.lowersim_jax}\n")
    for note in info.notes():
      f.write(f"note: {note}\n")
    f.write("\n" + summary_table(judged) + "\n\n")
    nondet = nondeterminism_line(judged)
    if nondet:
      f.write(nondet + "\n\n")
    f.write(f"By what the scenario's jax= is to JAX {info.release}:\n"
            + profile_table(judged, info) + "\n\n")
    f.write("Differences by cause (scenarios):\n" + causes_table(judged) + "\n\n")
    f.write("Differences by class (scenarios, two examples each):\n" + classes_table(judged)
            + "\n\n")
    f.write("Causes and the JAX code behind them:\n")
    for cause in known.CAUSES:
      f.write(f"  {cause.name}: {cause.what}\n    JAX: {cause.jax_code}\n")
    f.write("\n")
    for title, text in extra_sections:
      f.write(f"== {title}\n{text}\n\n")
    for entry in stale_missing:
      f.write(f"STALE known-differences entry (scenario not found): {entry.path}\n")
    order = {"differ": 0, "timeout": 1, "oracle_error": 2, "known": 3}
    for j in sorted(judged, key=lambda j: (order.get(j.column, 9), j.v.path)):
      v = j.v
      if j.column not in order and not j.stale:
        continue
      tag = {"differ": "NEW DIFFERENCE" + (" (the known-differences entry lists other classes)"
                                           if j.changed else ""),
             "known": "known difference", "timeout": "TIMEOUT",
             "oracle_error": "ORACLE ERROR"}.get(j.column, "")
      if j.stale:
        tag = f"STALE known-differences entry: the scenario now {v.status}s" if v.status == "agree" \
            else f"STALE known-differences entry: {v.status}"
      f.write("=" * 100 + "\n")
      f.write(f"{v.path}: {tag}\n")
      for c in v.classes:
        f.write(f"  class: {c}\n")
      for c in v.context:
        f.write(f"  context: {c}\n")
      for c in known.causes_of(v.classes, v.context):
        f.write(f"  cause: {c.name}: {c.what}\n         JAX: {c.jax_code}\n")
      if v.jax_code:
        f.write(f"  JAX raised in: {v.jax_code}\n")
      if j.changed and j.entry:
        f.write("  listed classes: " + " ;; ".join(j.entry.classes) + "\n")
      if v.summary and v.status != "differ":
        f.write(f"  {v.summary}\n")
      if v.diff:
        f.write("\n" + v.diff + "\n")
      f.write("\n")


def expect_failed(v: Verdict) -> bool:
  """The committed <expect> is not what JAX did, is missing, or cannot be
  written (oracle/expect.py; runner.expectations counts the same)."""
  return v.expect.get("state") in ("differs", "missing") or bool(v.expect.get("problems"))


def write_junit(path: str, judged: list[Judged], seconds: float, info: RunInfo) -> None:
  failures = sum(j.failed or expect_failed(j.v) for j in judged)
  skipped = sum(j.column in ("not_expressible", "lowersim_invalid") for j in judged)
  q = saxutils.quoteattr
  with open(path, "w", encoding="utf-8") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n')
    f.write(f' <testsuite name={q(f"lowersim oracle (JAX {info.release})")} tests="{len(judged)}" '
            f'failures="{failures}" skipped="{skipped}" time="{seconds:.3f}">\n'
            f'  <properties><property name="jax" value={q(info.release)}/>'
            f'<property name="lowersim_jax" value={q(info.lowersim_jax)}/></properties>\n')
    for j in judged:
      v = j.v
      f.write(f'  <testcase classname={q(f"{info.release}.{folder_of(v.path)}")} name={q(v.path)} '
              f'time="{v.jax_seconds:.6f}">\n')
      if j.failed:
        msg = (v.classes[0] if v.classes else v.summary or j.column)
        if j.stale:
          msg = "stale known-differences entry: the scenario " + v.status + "s"
        f.write(f'   <failure message={q(msg)}>{saxutils.escape(v.diff or v.summary)}</failure>\n')
      elif expect_failed(v):
        e = v.expect
        msg = "<expect> is not what JAX did: " + "; ".join(e.get("changes") or e.get("problems") or [])
        f.write(f'   <failure message={q(msg)}>{saxutils.escape(e.get("diff", ""))}</failure>\n')
      elif j.column in ("not_expressible", "lowersim_invalid"):
        f.write(f'   <skipped message={q(v.summary)}/>\n')
      elif j.column == "known":
        f.write(f'   <system-out>{saxutils.escape("known difference: " + " ;; ".join(v.classes))}</system-out>\n')
      elif j.nondeterministic:
        f.write(f'   <system-out>{saxutils.escape("agrees up to JAX nondeterminism: " + " ;; ".join(v.classes))}</system-out>\n')
      f.write("  </testcase>\n")
    f.write(" </testsuite>\n</testsuites>\n")


def write_json(path: str, judged: list[Judged], info: RunInfo) -> None:
  """Every verdict, with the JAX release it was judged on ("jax_version")
  and lowersim's --jax for unpinned scenarios ("lowersim_jax")."""
  with open(path, "w", encoding="utf-8") as f:
    json.dump([dict({k: v for k, v in j.v.to_json().items() if k != "expect"},
                    expect={k: v for k, v in j.v.expect.items() if k != "new_text"},
                    column=j.column, stale=j.stale, nondeterministic=j.nondeterministic,
                    jax_version=info.release, lowersim_jax=info.lowersim_jax)
               for j in judged], f, indent=1)


def write_summary(path: str, judged: list[Judged], info: RunInfo, **figures) -> None:
  """The run's figures, for the campaign over releases (oracle/campaign.py):
  per column, per class, and the passed/failed/skipped of the last line."""
  columns = collections.Counter(j.column for j in judged if not j.v.path.startswith("backcompat:"))
  backcompat = collections.Counter(j.column for j in judged if j.v.path.startswith("backcompat:"))
  out = {"release": info.release, "lowersim_jax": info.lowersim_jax, "notes": info.notes(),
         "columns": dict(columns), "backcompat": dict(backcompat),
         "nondeterministic": sum(j.nondeterministic for j in judged),
         "classes": [{"class": c, "scenarios": n, "examples": ex} for c, n, ex in class_counts(judged)],
         "stale": sum(j.stale for j in judged)}
  out.update(figures)
  with open(path, "w", encoding="utf-8") as f:
    json.dump(out, f, indent=1)
