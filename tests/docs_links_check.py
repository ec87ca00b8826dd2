#!/usr/bin/env python3
"""tests/docs_links_check.py SOURCE_DIR LOWERSIM: the repository's documents
stand on their own.

- No tracked file names the team's notes outside the repository (their
  folder or their two documents' names) or a section (the section sign and
  a number) of a document that is not a tracked Markdown file written just
  before it on the line.
- Every relative link of every tracked Markdown file resolves to a tracked
  file or folder, and its #anchor to a heading (GitHub's slug) or an
  `<a id="...">` of the file it names.
- Every error code's `doc` (`lowersim errors --json`, `lsim_status_doc`)
  resolves the same way.

Prints `FAIL ...` per problem and `N passed, N failed`; exits 1 on a failure
(77, skipped, outside a git work tree).
"""
import json
import os
import re
import subprocess
import sys

# Spelled in pieces so that this file does not name them itself.
OUTSIDE = ["sha" + "red/docs", "scenario-" + "and-cli.md", "jax-lowering-" + "reference.md"]
SECTION = "\u00a7"
FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")
ANCHOR_TAG = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def tracked(root):
  """The tracked files; exits 77 (skipped) outside a git work tree."""
  try:
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True, capture_output=True)
  except (OSError, subprocess.CalledProcessError):
    print(f"{root} is not a git work tree: nothing to check")
    sys.exit(77)
  return [p for p in out.stdout.decode().split("\0") if p]


def prose_lines(text):
  """The lines of a Markdown text outside fenced blocks, inline code removed."""
  inside = False
  for number, line in enumerate(text.splitlines(), 1):
    if FENCE.match(line):
      inside = not inside
      continue
    if not inside:
      yield number, re.sub(r"(`+)(?:(?!\1).)+?\1", "", line)


def slug(heading):
  """GitHub's anchor for a heading's text."""
  text = re.sub(r"<[^>]+>", "", heading)
  text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
  text = text.replace("`", "").strip().lower()
  text = "".join(c for c in text if c.isalnum() or c in " -_")
  return text.replace(" ", "-")


def anchors(text):
  found, seen = set(), {}
  inside = False
  for line in text.splitlines():
    if FENCE.match(line):
      inside = not inside
      continue
    if inside:
      continue
    found.update(ANCHOR_TAG.findall(line))
    m = HEADING.match(line)
    if m:
      base = slug(m.group(2))
      n = seen.get(base, 0)
      seen[base] = n + 1
      found.add(base if n == 0 else f"{base}-{n}")
  return found


class Checker:
  def __init__(self, root):
    self.root = root
    self.files = set(tracked(root))
    self.folders = {os.path.dirname(p) for p in self.files}
    for f in list(self.folders):
      while f:
        f = os.path.dirname(f)
        self.folders.add(f)
    self.anchor_cache = {}
    self.passed = self.failed = 0

  def ok(self, good, message):
    if good:
      self.passed += 1
    else:
      self.failed += 1
      print("FAIL " + message)

  def read(self, path):
    with open(os.path.join(self.root, path), encoding="utf-8", errors="replace") as f:
      return f.read()

  def resolve(self, target, base):
    """None when `target` (relative to folder `base`) resolves, else why not."""
    path, _, anchor = target.partition("#")
    path = os.path.normpath(os.path.join(base, path)) if path else None
    if path is not None and (path.startswith("..") or os.path.isabs(path)):
      return "points outside the repository"
    if path is not None and path not in self.files and path.rstrip("/") not in self.folders:
      return "is not a tracked file or folder"
    if anchor:
      if path is None:
        return "has no file"
      if not path.endswith(".md") or path not in self.files:
        return "has an anchor into a file that is not tracked Markdown"
      if path not in self.anchor_cache:
        self.anchor_cache[path] = anchors(self.read(path))
      if anchor not in self.anchor_cache[path]:
        return f"names no anchor of {path}"
    return None

  def outside_references(self):
    for path in sorted(self.files):
      try:
        text = self.read(path)
      except (IsADirectoryError, FileNotFoundError):
        continue
      if "\0" in text:
        continue
      bad = 0
      for number, line in enumerate(text.splitlines(), 1):
        for name in OUTSIDE:
          if name in line:
            print(f"FAIL {path}:{number} names {name}, outside the repository")
            bad += 1
        for m in re.finditer(SECTION, line):
          before = re.findall(r"[\w./-]+\.md", line[:m.start()])
          if not before or os.path.normpath(os.path.join(os.path.dirname(path), before[-1])) not in self.files:
            print(f"FAIL {path}:{number}: a section ({SECTION}) of no tracked document")
            bad += 1
      self.passed += not bad
      self.failed += bad

  def markdown_links(self):
    for path in sorted(p for p in self.files if p.endswith(".md")):
      base = os.path.dirname(path)
      for number, line in prose_lines(self.read(path)):
        for m in LINK.finditer(line):
          target = m.group(1) or m.group(2)
          if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue
          if target.startswith("#"):
            target = os.path.basename(path) + target
          why = self.resolve(target, base)
          self.ok(why is None, f"{path}:{number}: the link {target} {why}")

  def error_docs(self, lowersim):
    out = subprocess.run([lowersim, "errors", "--json"], check=True, capture_output=True, text=True)
    for error in json.loads(out.stdout)["errors"]:
      doc = error.get("doc", "")
      why = self.resolve(doc, "") if "#" in doc else "has no anchor"
      self.ok(why is None, f"{error['code']}'s doc {doc!r} {why}")


def main():
  root, lowersim = sys.argv[1], sys.argv[2]
  c = Checker(root)
  c.outside_references()
  c.markdown_links()
  c.error_docs(lowersim)
  print(f"{c.passed} passed, {c.failed} failed")
  return 1 if c.failed else 0


if __name__ == "__main__":
  sys.exit(main())
