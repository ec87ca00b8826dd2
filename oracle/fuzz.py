"""Differential fuzzing: lowersim's fuzz generator's scenarios
(`lowersim fuzz --emit`) judged by the oracle.

Every difference is classed (oracle/compare.py); a class that no known cause
explains (oracle/known.py CAUSES) is a *finding*.  The first findings of each
new class are minimized with the oracle as the predicate (an XML-level delta
minimizer that keeps the scenario valid: removing an equation, an argument
or a result drops what uses it and renumbers the rest) and saved under
build/oracle/findings/.
"""

from __future__ import annotations

import collections
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.sax.saxutils as saxutils
from typing import Callable, Optional

from oracle import compare, judge, known, report, server
from oracle import scenario as sc

MAX_MINIMIZED_PER_CLASS = 2
MAX_MINIMIZED = 12
MINIMIZE_CHECKS = 120


def emit(binary: str, seed: int, n: int, folder: str, focus: Optional[str] = None,
         jax: Optional[str] = None) -> list[str]:
  """The generator's scenarios, made for lowersim's profile `jax` (None: the
  newest), which makes only what that release accepts."""
  shutil.rmtree(folder, ignore_errors=True)
  os.makedirs(os.path.dirname(folder), exist_ok=True)
  p = subprocess.run([binary, "fuzz", "--seed", str(seed), "--iterations", str(n), "--emit", folder]
                     + (["--focus", focus] if focus else []) + (["--jax", jax] if jax else []),
                     capture_output=True, text=True)
  if p.returncode != 0:
    raise RuntimeError(f"lowersim fuzz --emit failed: {p.stderr.strip()}")
  return sorted((os.path.join(folder, f) for f in os.listdir(folder)),
                key=lambda p: int(p.rsplit("-", 1)[1].split(".")[0]))


def _for_the_oracle(paths: list[str], n: int, kind: Optional[str], version: Optional[str]) -> list[str]:
  """The first `n` scenarios (with a `<kind>` equation, when given), each
  made a scenario of the release judged (`version`, when lowersim has a
  profile of that name; else None and they stay unpinned, lowersim lowering
  them with the campaign's --jax): a generated scenario names no profile, so
  a minimized finding would otherwise be lowered by lowersim with its
  newest.  The others are removed."""
  kept = []
  for path in paths:
    with open(path, encoding="utf-8") as f:
      text = f.read()
    if len(kept) < n and (kind is None or f"<{kind} " in text or f"<{kind}>" in text):
      if version and ' jax="' not in text.split(">", 2)[1]:
        text = text.replace("<scenario name=", f'<scenario jax="{version}" name=', 1)
      with open(path, "w", encoding="utf-8") as f:
        f.write(text)
      kept.append(path)
    else:
      os.remove(path)
  return kept


def findings_of(v: compare.Verdict) -> list[str]:
  """The classes of `v` that make it a finding."""
  if v.status in ("timeout", "oracle_error"):
    return [v.status + ": " + compare.message_template(v.summary)]
  if v.status != "differ":
    return []
  return known.unexplained(v.classes, v.context)


def campaign(a) -> tuple[str, int, int]:
  """Returns the report text, the number of findings and of scenarios."""
  root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
  binary = judge.lowersim_binary(root)
  folder = os.path.join(a.out, "fuzz", "scenarios")
  start = time.monotonic()
  kind = getattr(a, "fuzz_kind", None)
  pin = a.release if a.lowersim_jax == a.release else None
  paths = _for_the_oracle(emit(binary, a.seed, a.fuzz * (2 if kind else 1), folder, kind, pin),
                          a.fuzz, kind, pin)
  tasks = [{"path": p, "lowersim": binary, "lowersim_jax": a.lowersim_jax} for p in paths]
  status = collections.Counter()
  classes = collections.Counter()
  causes = collections.Counter()
  finding_classes = collections.Counter()
  examples: dict[str, list[str]] = collections.defaultdict(list)
  verdicts: dict[str, compare.Verdict] = {}
  for i, (task, result) in enumerate(server.run(tasks, judge.judge, jobs=a.jobs, timeout=a.timeout)):
    from oracle.runner import result_to_verdict
    v = result_to_verdict(task["path"], result)
    verdicts[v.path] = v
    status[v.status] += 1
    for c in v.classes:
      classes[c] += 1
    for c in known.causes_of(v.classes, v.context):
      causes[c.name] += 1
    for f in findings_of(v):
      finding_classes[f] += 1
      examples[f].append(v.path)
    if (i + 1) % 1000 == 0:
      print(f"oracle fuzz: {i + 1}/{len(tasks)}", file=sys.stderr, flush=True)
  judged_seconds = time.monotonic() - start
  lines = [f"{len(paths)} scenarios from `lowersim fuzz --seed {a.seed} --emit`"
           + (f" --focus {kind} with a <{kind}>" if kind else "") + ", judged in "
           f"{judged_seconds:.0f} s ({len(paths) / max(judged_seconds, 1e-9):.1f} scenarios/s, "
           f"{a.jobs} at a time)",
           "outcomes: " + ", ".join(f"{n} {s}" for s, n in status.most_common())]
  lines.append("differences by cause (scenarios):")
  for cause in known.CAUSES:
    if causes[cause.name]:
      lines.append(f"  {causes[cause.name]:>6}  {cause.name}")
  lines.append("difference classes (scenarios):")
  for c, n in classes.most_common(40):
    lines.append(f"  {n:>6}  {c}")
  if len(classes) > 40:
    lines.append(f"  ... {len(classes) - 40} more classes (build/oracle/fuzz/classes.txt)")
  os.makedirs(os.path.join(a.out, "fuzz"), exist_ok=True)
  with open(os.path.join(a.out, "fuzz", "classes.txt"), "w") as f:
    for c, n in classes.most_common():
      f.write(f"{n}\t{c}\n")
  found = sum(finding_classes.values())
  lines.append(f"findings (differences no known cause explains): {found} scenarios, "
               f"{len(finding_classes)} classes")
  written = 0
  findings_dir = os.path.join(a.out, "findings")
  shutil.rmtree(findings_dir, ignore_errors=True)
  for f_class, n in finding_classes.most_common():
    lines.append(f"  {n:>6}  {f_class}  (e.g. {os.path.basename(examples[f_class][0])})")
    for path in examples[f_class][:MAX_MINIMIZED_PER_CLASS]:
      if written >= getattr(a, "minimize", MAX_MINIMIZED):
        break
      out = minimize_finding(path, f_class, binary, a, findings_dir)
      if out:
        written += 1
        lines.append(f"          minimized: {os.path.relpath(out, root)}")
  lines.append(f"fuzz: {len(paths)} scenarios, {found} findings, "
               f"{len(paths) / max(time.monotonic() - start, 1e-9):.1f} scenarios/s")
  return "\n".join(lines), found, len(paths)


# --- The minimizer -------------------------------------------------------------

def _write_node(n: sc.Node, indent: str = "") -> str:
  attrs = "".join(f" {k}={saxutils.quoteattr(v)}" for k, v in n.attrs.items())
  kids = [c for c in n.children]
  text = n.text.strip() if n.tag == "description" else ""
  if not kids and not text:
    return f"{indent}<{n.tag}{attrs}/>\n"
  if not kids:
    return f"{indent}<{n.tag}{attrs}>{saxutils.escape(text)}</{n.tag}>\n"
  body = "".join(_write_node(c, indent + "  ") for c in kids)
  return f"{indent}<{n.tag}{attrs}>\n{body}{indent}</{n.tag}>\n"


def to_xml(root: sc.Node, comment: str = "") -> str:
  head = '<?xml version="1.0" encoding="UTF-8"?>\n'
  if comment:
    head += "<!-- " + comment.replace("--", "- -") + " -->\n"
  return head + _write_node(root)


def _copy(n: sc.Node) -> sc.Node:
  return sc.Node(n.tag, dict(n.attrs), n.line, [_copy(c) for c in n.children], n.text)


def _value_defs(lower: sc.Node, root: Optional[sc.Node] = None) -> list[tuple[int, int]]:
  """(child index, result index or -1 for an arg / implied result) of each
  value; a <call_exported>'s are the called lowering's outputs (-1 each:
  they go with the equation), found in `root`."""
  defs = []
  for i, c in enumerate(lower.children):
    if c.tag == "arg":
      defs.append((i, -1))
    elif c.tag in ("op", "platform_dependent", "compute_on"):
      defs.append((i, -1))
    elif c.tag == "call_exported":
      defs.extend([(i, -1)] * _num_outputs(root, c.attrs.get("lowering", "")))
    elif c.tag in sc.EQUATIONS:
      for r, rc in enumerate(c.children):
        if rc.tag == "result":
          defs.append((i, r))
  return defs


def _num_outputs(root: Optional[sc.Node], lowering: str) -> int:
  """How many outputs the `lowering`-th (1-based) lowering returns: its
  <return>'s values, else its last equation's."""
  lowers = _lowers(root) if root is not None else []
  if not lowering.isdigit() or not 1 <= int(lowering) <= len(lowers):
    return 0
  callee = lowers[int(lowering) - 1]
  for c in callee.children:
    if c.tag == "return":
      return len([x for x in c.attrs.get("values", "").split(",") if x])
  defs = _value_defs(callee, root)
  last = max((i for i, _ in defs if callee.children[i].tag != "arg"), default=-1)
  return sum(1 for i, _ in defs if i == last)


def _lowers(root: sc.Node) -> list[sc.Node]:
  """The scenario's <lower> elements, in order (a session has several)."""
  return [c for c in root.children if c.tag == "lower"]


def _drop_lowering(root: sc.Node, k: int) -> Optional[sc.Node]:
  """A copy of the session without its k-th lowering (0-based) and the
  <execute> and <expect> after it; <call_exported lowering="N"> (1-based)
  renumbered, and None when a later lowering calls this one."""
  root = _copy(root)
  kids, seen, dropping = [], -1, False
  for c in root.children:
    if c.tag == "lower":
      seen += 1
      dropping = seen == k
    elif c.tag not in ("execute", "expect"):
      dropping = False
    if not dropping:
      kids.append(c)
  root.children = kids
  for path, n in _walk(root):
    if n.tag == "call_exported" and "lowering" in n.attrs:
      target = int(n.attrs["lowering"])
      if target == k + 1:
        return None
      if target > k + 1:
        n.attrs["lowering"] = str(target - 1)
  return root


def _drop_values(root: sc.Node, drop: set[int], which: int = 0) -> Optional[sc.Node]:
  """A copy of the scenario without the values in `drop` of its `which`-th
  lowering (and whatever uses them, transitively), references renumbered."""
  root = _copy(root)
  lower = _lowers(root)[which]
  defs = _value_defs(lower, root)
  for c in lower.children:  # an earlier cut left a reference dangling: no candidate
    if any(int(x) >= len(defs) for x in c.attrs.get("args", "").split(",") if x.isdigit()):
      return None
  drop_children: set[int] = set()
  drop_results: dict[int, set[int]] = collections.defaultdict(set)
  dropped = set(drop)
  changed = True
  while changed:
    changed = False
    for v in list(dropped):
      i, r = defs[v]
      if r < 0 and i not in drop_children:
        drop_children.add(i)
        changed = True
      elif r >= 0:
        drop_results[i].add(r)
    for i, c in enumerate(lower.children):
      if i in drop_children or "args" not in c.attrs:
        continue
      args = [int(x) for x in c.attrs["args"].split(",") if x]
      if any(x in dropped for x in args):
        drop_children.add(i)
        changed = True
    for v, (i, r) in enumerate(defs):
      if i in drop_children and v not in dropped:
        dropped.add(v)
        changed = True
  new_index = {}
  k = 0
  for v in range(len(defs)):
    if v not in dropped:
      new_index[v] = k
      k += 1
  kids = []
  for i, c in enumerate(lower.children):
    if i in drop_children:
      continue
    if i in drop_results:
      results = [rc for rc in c.children if rc.tag == "result"]
      keep = [rc for j, rc in enumerate(results) if j not in drop_results[i]]
      c.children = [rc for rc in c.children if rc.tag != "result"] + keep
    if "args" in c.attrs:
      c.attrs["args"] = ",".join(str(new_index[int(x)]) for x in c.attrs["args"].split(",") if x)
    if c.tag == "return":
      c.attrs["values"] = ",".join(str(new_index[int(x)]) for x in c.attrs["values"].split(",")
                                   if x and int(x) in new_index)
    kids.append(c)
  lower.children = kids
  return root


def _candidates(root: sc.Node):
  """Smaller scenarios, biggest cuts first: a session's whole lowerings,
  then each lowering's equations, operands and values."""
  lowers = _lowers(root)
  if len(lowers) > 1:
    for k in range(len(lowers)):
      r = _drop_lowering(root, k)
      if r is not None:
        yield r
  for which, lower in enumerate(lowers):
    yield from _lowering_candidates(root, lower, which)


def _lowering_candidates(root: sc.Node, lower: sc.Node, which: int):
  defs = _value_defs(lower, root)
  # whole equations (all their values)
  for i, c in enumerate(lower.children):
    if c.tag in sc.EQUATIONS:
      vals = {v for v, (j, _) in enumerate(defs) if j == i}
      if vals:
        yield _drop_values(root, vals, which)
      else:
        r = _copy(root)
        _lowers(r)[which].children.pop(i)
        yield r
  # one operand fewer, where the arity is free
  for i, c in enumerate(lower.children):
    if c.tag in ("primitive", "buffer_callback", "pure_callback", "io_callback", "debug_callback"):
      args = [x for x in c.attrs.get("args", "").split(",") if x]
      for k in range(len(args)):
        r = _copy(root)
        _lowers(r)[which].children[i].attrs["args"] = ",".join(args[:k] + args[k + 1:])
        yield r
  for v, (i, r) in enumerate(defs):
    yield _drop_values(root, {v}, which)
  # elements that define no value
  for path in _removable(root):
    r = _copy(root)
    parent = r
    for step in path[:-1]:
      parent = parent.children[step]
    parent.children.pop(path[-1])
    yield r
  # optional attributes
  optional = {"runtime": ["jax_platforms"], "backend": ["priority", "fail_quietly", "error", "devices"],
              "lower": ["platforms", "backend", "function", "export", "disabled_checks",
                        "keep_unused", "enable_x64"], "arg": ["donated"],
              "pallas_call": ["compiler_params", "interpret", "constants", "grid"],
              "buffer_callback": ["side_effect", "command_buffer", "returns_value"],
              "io_callback": ["ordered"], "debug_callback": ["ordered", "partitioned"],
              "primitive": ["backend_access"]}
  for path, node in _walk(root):
    for attr in optional.get(node.tag, []):
      if attr in node.attrs:
        r = _copy(root)
        target = r
        for step in path:
          target = target.children[step]
        del target.attrs[attr]
        yield r


def _walk(n: sc.Node, path=()):
  yield path, n
  for i, c in enumerate(n.children):
    yield from _walk(c, path + (i,))


def _removable(root: sc.Node):
  out = []
  for path, n in _walk(root):
    if n.tag in ("backend", "rule", "branch", "alias", "pallas", "execute", "description", "return",
                 "default") and not (n.tag == "branch" and _branch_count(root, path) <= 1):
      out.append(path)
  return sorted(out, key=len)


def _branch_count(root: sc.Node, path) -> int:
  parent = root
  for step in path[:-1]:
    parent = parent.children[step]
  return sum(c.tag == "branch" for c in parent.children)


def _size(root: sc.Node) -> int:
  """Elements, attributes and operands: what a candidate must lower."""
  return sum(1 + len(n.attrs) + len([x for x in n.attrs.get("args", "").split(",") if x])
             for _, n in _walk(root))


def minimize(text: bytes, predicate: Callable[[bytes], bool], budget: int = MINIMIZE_CHECKS) -> bytes:
  root = sc.parse_xml(text, "<finding>")
  checks = 0
  improved = True
  while improved and checks < budget:
    improved = False
    for cand in _candidates(root):
      if cand is None or _size(cand) >= _size(root):
        continue
      checks += 1
      data = to_xml(cand).encode()
      if predicate(data):
        root = cand
        improved = True
        break
      if checks >= budget:
        break
  return to_xml(root).encode()


def minimize_finding(path: str, f_class: str, binary: str, a, folder: str) -> Optional[str]:
  os.makedirs(folder, exist_ok=True)
  tmp = tempfile.mkdtemp(prefix="lowersim-oracle-min-")

  def predicate(data: bytes) -> bool:
    p = os.path.join(tmp, "candidate.xml")
    with open(p, "wb") as f:
      f.write(data)
    (task, result), = server.run([{"path": p, "lowersim": binary, "lowersim_jax": a.lowersim_jax}],
                                 judge.judge,
                                 jobs=1, timeout=a.timeout)
    from oracle.runner import result_to_verdict
    return f_class in findings_of(result_to_verdict(p, result))

  with open(path, "rb") as f:
    original = f.read()
  if not predicate(original):
    return None
  small = minimize(original, predicate)
  root = sc.parse_xml(small, path)
  name = os.path.basename(path)
  out = os.path.join(folder, name)
  with open(out, "w") as f:
    f.write(to_xml(root, f"oracle finding: {f_class}. Minimized from {name} "
                         f"(lowersim fuzz --seed {a.seed} --emit) with the oracle as the "
                         "predicate; `python -m oracle run` on this file shows the difference."))
  shutil.rmtree(tmp, ignore_errors=True)
  return out
