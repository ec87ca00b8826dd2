"""The corpus's expectations from JAX: a scenario's `<expect>` against what
JAX did, and the file rewritten so that it says so.

What `<expect>` can hold (testdata/schema/scenario.rng, scenario/check.c):
`error` (a lowersim status code) and `message`, or `ok="true"` with
`<contains>` / `<absent>` texts of the module; `<warning>`s (when any is
given, the run's warnings must be exactly these).  From JAX's outcome:

  * JAX raised: `error` is the code whose JAX class is the class JAX raised
    (lowersim's own code when lowersim raised that class with JAX's message,
    else the committed one when its class is JAX's: a code is lowersim's
    name, JAX has none), `message` is JAX's message; contains/absent go.
  * JAX gave a module: `ok="true"`; each `<contains>` JAX's module (as
    `python -m oracle lower` prints it, the form lowersim check matches)
    holds stays, each `<absent>` it does not hold stays; the others go.
  * `<warning>`s: JAX's, in order, when it gave any; none otherwise.

A scenario JAX cannot express (or that either side refuses) keeps its
`<expect>`.  A scenario under testdata/conformance/ without `<expect>` gets
one (it is there to pin something); elsewhere a missing `<expect>` stays
missing.  The rewrite touches the `<expect>` element only, and within it
only what changed: an attribute or child whose value stays keeps its bytes,
so a second run changes nothing.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import subprocess
import xml.etree.ElementTree as ET
from typing import Optional

from oracle.compare import nondeterminism_free, one_line

CONFORMANCE = "testdata/conformance/"


# --- The error catalogue: status code -> JAX class (`lowersim errors`) --------

_CODE_CLASS: dict[str, str] = {}


def load_codes(binary: str) -> dict[str, str]:
  """`lowersim errors`: every status code with its JAX exception class."""
  if not _CODE_CLASS:
    try:
      out = subprocess.run([binary, "errors"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
      out = ""
    for line in out.splitlines():
      m = re.match(r"^(LSIM_E_[A-Z0-9_]+)\s+-?\d+\s+(\S+)", line)
      if m:
        _CODE_CLASS[m.group(1)] = m.group(2)
  return _CODE_CLASS


# --- <expect> as values -----------------------------------------------------------

@dataclasses.dataclass
class Expect:
  error: Optional[str] = None
  message: Optional[str] = None
  ok: Optional[str] = None              # the attribute's text ("true"), when present
  children: list[tuple[str, str]] = dataclasses.field(default_factory=list)  # (tag, text)

  def warnings(self) -> list[str]:
    return [t for tag, t in self.children if tag == "warning"]


def parse_expect(text: str) -> Optional[Expect]:
  root = ET.fromstring(text.encode("utf-8"))
  x = root.find("expect")
  if x is None:
    return None
  return Expect(error=x.get("error"), message=x.get("message"), ok=x.get("ok"),
                children=[(c.tag, c.text or "") for c in x])


def expected_from_jax(old: Optional[Expect], jax: dict, low: dict, jax_text: str,
                      codes: dict[str, str]) -> tuple[Optional[Expect], list[str]]:
  """The `<expect>` JAX's outcome gives (None: no verdict possible) and the
  problems that keep it from being written (e.g. no code for JAX's class)."""
  old = old or Expect()
  problems: list[str] = []
  warnings = [("warning", w) for w in jax.get("warnings", [])]
  if jax["kind"] == "error":
    cls, msg = jax["error_class"], jax["error_message"]
    code = None
    if low.get("kind") == "error" and low.get("error_class") == cls and \
        nondeterminism_free(low.get("error_message", "")) == nondeterminism_free(one_line(msg)):
      code = low.get("code")
    elif old.error and codes.get(old.error) == cls:
      code = old.error
    if code is None:
      problems.append(f"JAX raised {cls}: no lowersim status code of that class to name it "
                      f"(lowersim: {low.get('code') or low.get('kind')}, committed: {old.error})")
      code = old.error or "?"
    if old.message is not None and nondeterminism_free(old.message) == nondeterminism_free(msg):
      msg = old.message                 # the same message up to JAX's nondeterminism (an
                                        # object's address, the order of a dtype list)
    return Expect(error=code, message=msg, children=_children(old, [], warnings)), problems
  if jax["kind"] == "module":
    kept = [(tag, t) for tag, t in old.children
            if (tag == "contains" and t in jax_text) or (tag == "absent" and t not in jax_text)]
    return Expect(ok="true", children=_children(old, kept, warnings)), problems
  return None, problems


def _children(old: Expect, kept: list[tuple[str, str]], warnings: list[tuple[str, str]]):
  """The kept contains/absent and JAX's warnings, in the committed order
  where the committed warnings are JAX's, else JAX's after the rest."""
  if [("warning", w) for w in old.warnings()] == warnings:
    pool = list(kept)
    out = []
    for c in old.children:
      if c[0] == "warning":
        out.append(c)
      elif c in pool:
        pool.remove(c)
        out.append(c)
    return out
  return kept + warnings


def same(a: Expect, b: Expect) -> bool:
  return (a.error, a.message, (a.ok or "false") == "true", a.children) == \
      (b.error, b.message, (b.ok or "false") == "true", b.children)


# --- Writing --------------------------------------------------------------------

def _attr_escape(v: str) -> str:
  return (v.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
          .replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;"))


def _text_escape(v: str) -> str:
  return v.replace("&", "&amp;").replace("<", "&lt;")


_EXPECT = re.compile(r"""<expect\b(?P<attrs>(?:[^>"']|"[^"]*"|'[^']*')*?)(?:/>|>(?P<body>.*?)</expect\s*>)""",
                     re.S)
_ATTR = re.compile(r'(\w+)\s*=\s*("[^"]*"|\'[^\']*\')')
_CHILD = re.compile(r"<(contains|absent|warning)\b[^>]*?(?:/>|>(.*?)</\1\s*>)", re.S)


def _find_expect(text: str) -> Optional[re.Match]:
  """The scenario's <expect> (its last child; a commented-out one is not it)."""
  hits = [m for m in _EXPECT.finditer(text)
          if text.rfind("<!--", 0, m.start()) <= text.rfind("-->", 0, m.start())]
  return hits[-1] if hits else None


_LOWER = re.compile(r"<lower[\s>/]")


def is_session(text: str) -> bool:
  """A process session (several <lower>, each with its own <expect>): its
  lowerings are compared with JAX's one by one, not through this module."""
  return len(_LOWER.findall(text)) > 1


def _unescape(raw: str) -> str:
  return ET.fromstring(f"<x>{raw}</x>").text or ""


def render(text: str, new: Expect) -> str:
  """`text` with its <expect> saying `new`; what stays keeps its bytes."""
  m = _find_expect(text)
  if m is None:
    end = text.rfind("</scenario>")
    line_start = text.rfind("\n", 0, end) + 1
    indent = "  "
    element = _element(new, {}, [], indent)
    prefix = text[:end] if text[line_start:end].strip() else text[:line_start]
    return prefix + indent + element + "\n" + text[end:]
  line_start = text.rfind("\n", 0, m.start()) + 1
  indent = text[line_start:m.start()] if not text[line_start:m.start()].strip() else "  "
  raw_attrs = {k: v[1:-1] for k, v in _ATTR.findall(m.group("attrs"))}
  body = m.group("body") or ""
  raw_children = [(c.group(1), c.group(0)) for c in _CHILD.finditer(body)]
  child_indent = None
  cm = re.search(r"\n([ \t]*)<", body)
  if cm:
    child_indent = cm.group(1)
  element = _element(new, raw_attrs, raw_children, indent, child_indent, m.group("attrs"))
  return text[:m.start()] + element + text[m.end():]


def _element(new: Expect, raw_attrs: dict[str, str], raw_children: list[tuple[str, str]],
             indent: str, child_indent: Optional[str] = None, attrs_src: Optional[str] = None) -> str:
  values = {n: getattr(new, n) for n in ("error", "message", "ok") if getattr(new, n) is not None}

  def raw_of(name: str) -> str:
    raw = raw_attrs.get(name)
    if raw is None or _unescape_attr(raw) != values[name]:
      raw = _attr_escape(values[name])
    return raw

  if attrs_src is not None and set(values) <= set(raw_attrs):
    # The committed attributes in their layout, changed values in place.
    def sub(m: re.Match) -> str:
      if m.group(1) not in values:
        return ""
      q = m.group(2)[0]
      raw = raw_of(m.group(1))
      if q == "'" and _unescape_attr(m.group(2)[1:-1]) == values[m.group(1)]:
        raw = m.group(2)[1:-1]
      return f"{m.group(1)}={q}{raw}{q}" if q == '"' or "'" not in raw else f'{m.group(1)}="{raw}"'
    attrs = _ATTR.sub(sub, attrs_src)
    if attrs.strip() == "":
      attrs = ""
    elif set(values) != set(raw_attrs):
      attrs = re.sub(r"\s+$", "", re.sub(r"[ \t]+(?=\s)", "", attrs))
    head = "<expect" + attrs
  else:
    head = "<expect" + "".join(f' {n}="{raw_of(n)}"' for n in ("error", "message", "ok") if n in values)
  if not new.children:
    return head.rstrip() + "/>"
  child_indent = child_indent if child_indent is not None else indent + "  "
  pool = [(tag, raw, _child_text(raw)) for tag, raw in raw_children]
  lines = []
  for tag, value in new.children:
    hit = next((p for p in pool if p[0] == tag and p[2] == value), None)
    if hit is not None:
      pool.remove(hit)
      lines.append(hit[1])
    else:
      lines.append(f"<{tag}>{_text_escape(value)}</{tag}>")
  return head.rstrip() + ">\n" + "".join(child_indent + l + "\n" for l in lines) + indent + "</expect>"


def _unescape_attr(raw: str) -> str:
  return ET.fromstring(f'<x a="{raw}"/>').get("a") or ""


def _child_text(raw: str) -> str:
  return ET.fromstring(raw).text or ""


# --- One scenario ---------------------------------------------------------------

def check(path: str, jax: dict, low: dict, jax_text: str, codes: dict[str, str],
          must_have: Optional[bool] = None) -> dict:
  """The committed <expect> of `path` against JAX's outcome: {"state":
  "same" | "differs" | "missing" | "skip", "changes": [...], "new_text":
  the file rewritten (when it differs), "diff": unified, "problems": [...]}.
  `must_have`: a missing <expect> is one to write (default: under
  testdata/conformance/)."""
  with open(path, encoding="utf-8") as f:
    text = f.read()
  if (jax.get("kind") not in ("module", "error") or low.get("kind") in ("invalid", "crash")
      or is_session(text)):
    return {"state": "skip"}
  try:
    old = parse_expect(text)
  except ET.ParseError as e:
    return {"state": "skip", "problems": [f"unreadable: {e}"]}
  if must_have is None:
    must_have = path.replace("\\", "/").startswith(CONFORMANCE)
  if old is None and not must_have:
    return {"state": "skip"}
  new, problems = expected_from_jax(old, jax, low, jax_text, codes)
  if new is None:
    return {"state": "skip"}
  if old is not None and same(old, new):
    return {"state": "same", "problems": problems}
  new_text = render(text, new)
  import jax
  diff = "\n".join(difflib.unified_diff(text.splitlines(), new_text.splitlines(),
                                        f"{path} (committed)", f"{path} (JAX {jax.__version__})",
                                        lineterm="", n=1))
  return {"state": "missing" if old is None else "differs", "changes": describe(old, new),
          "new_text": new_text, "diff": diff, "problems": problems}


def describe(old: Optional[Expect], new: Expect) -> list[str]:
  if old is None:
    return ["no <expect>: JAX gives " + (f"{new.error}" if new.error else "a module")]
  out = []
  if (old.error, old.message) != (new.error, new.message) or (old.ok == "true") != (new.ok == "true"):
    said = lambda x: f"error {x.error} ({x.message!r})" if x.error else "a module"
    out.append(f"outcome: committed {said(old)}; JAX {said(new)}")
  for tag in ("contains", "absent"):
    for t in [t for g, t in old.children if g == tag]:
      if (tag, t) not in new.children:
        out.append(f"<{tag}> JAX's module contradicts: {t!r}")
  if old.warnings() != new.warnings():
    out.append(f"warnings: committed {old.warnings()}; JAX {new.warnings()}")
  return out or ["formatting"]
