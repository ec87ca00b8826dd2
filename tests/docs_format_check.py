#!/usr/bin/env python3
"""tests/docs_format_check.py SOURCE_DIR LOWERSIM: docs/scenario-format.md
documents the scenario format exactly as testdata/schema/scenario.rng defines
it, and its examples are scenarios lowersim reads.

- Each element of the schema has a section headed "### `<NAME>`"; each of
  its attributes (over every place the element appears) an entry "- `NAME=`"
  in that section; each section says what the element stands for in JAX
  ("**JAX:**"), the releases it applies to ("**Releases:**") and has an
  example (an ```xml block).  A section or an entry the schema lacks fails.
- Every ```xml block of the document (and of README.md) is a whole scenario that `lowersim
  lower` reads: it lowers (exit 0) or gives JAX's error (exit 1), never
  invalid input (exit 2); one with an `<expect>` passes `lowersim check`.

Prints `FAIL ...` per problem and `N passed, N failed`; exits 1 on a failure.
"""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

RNG = "{http://relaxng.org/ns/structure/1.0}"
SECTION = re.compile(r"^### `<([a-z_]+)>`")
ENTRY = re.compile(r"^- `([a-z_0-9]+)=`")


def schema_elements(path):
  """{element: set of attributes}, over every place each element appears."""
  root = ET.parse(path).getroot()
  defines = {d.get("name"): d for d in root.iter(RNG + "define")}
  elements = {}

  def walk(node, owner, seen):
    for child in node:
      tag = child.tag[len(RNG):]
      if tag == "element":
        name = child.get("name")
        elements.setdefault(name, set())
        walk(child, name, seen)
      elif tag == "attribute":
        elements[owner].add(child.get("name"))
      elif tag == "ref":
        name = child.get("name")
        if (owner, name) not in seen:
          walk(defines[name], owner, seen | {(owner, name)})
      else:
        walk(child, owner, seen)

  walk(root.find(RNG + "start"), None, frozenset())
  return elements


def doc_sections(text):
  """{element: (line, [lines of its section])} and the xml blocks [(line, text)]."""
  sections, blocks, current = {}, [], None
  lines = text.splitlines()
  i = 0
  while i < len(lines):
    line = lines[i]
    if line.startswith("```xml"):
      start, body = i + 1, []
      i += 1
      while i < len(lines) and not lines[i].startswith("```"):
        body.append(lines[i])
        i += 1
      blocks.append((start, "\n".join(body) + "\n"))
      if current:
        sections[current][1].append("```xml")
    elif line.startswith("#"):
      m = SECTION.match(line)
      current = m.group(1) if m else None
      if current:
        if current in sections:
          print(f"FAIL line {i + 1}: a second section for <{current}>")
        sections[current] = (i + 1, [])
    elif current:
      sections[current][1].append(line)
    i += 1
  return sections, blocks


def main():
  root, lowersim = sys.argv[1], sys.argv[2]
  elements = schema_elements(os.path.join(root, "testdata", "schema", "scenario.rng"))
  with open(os.path.join(root, "docs", "scenario-format.md"), encoding="utf-8") as f:
    sections, blocks = doc_sections(f.read())
  passed = failed = 0

  def ok(good, message):
    nonlocal passed, failed
    if good:
      passed += 1
    else:
      failed += 1
      print("FAIL " + message)

  for name in sorted(elements):
    ok(name in sections, f"<{name}> has no section (### `<{name}>`)")
  for name, (line, body) in sorted(sections.items()):
    if name not in elements:
      ok(False, f"line {line}: <{name}> is not an element of the schema")
      continue
    entries = {m.group(1) for m in map(ENTRY.match, body) if m}
    for attribute in sorted(elements[name]):
      ok(attribute in entries, f"<{name}>'s attribute {attribute} has no entry (- `{attribute}=`)")
    for attribute in sorted(entries - elements[name]):
      ok(False, f"line {line}: <{name}> has no attribute {attribute} in the schema")
    ok(any(l.startswith("**JAX:**") for l in body), f"line {line}: <{name}> says nothing of JAX (**JAX:**)")
    ok(any(l.startswith("**Releases:**") for l in body), f"line {line}: <{name}> names no releases (**Releases:**)")
    ok("```xml" in body, f"line {line}: <{name}> has no example")

  with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
    blocks += [(f"README.md:{line}", xml) for line, xml in doc_sections(f.read())[1]]
  with tempfile.TemporaryDirectory() as tmp:
    for line, xml in blocks:
      path = os.path.join(tmp, f"example-{str(line).replace(':', '-')}.xml")
      with open(path, "w", encoding="utf-8") as f:
        f.write(xml)
      if "<expect" in xml:
        run = subprocess.run([lowersim, "check", path], capture_output=True, text=True)
        ok(run.returncode == 0, f"the example at line {line} fails its <expect>: {run.stdout.strip()}")
        continue
      run = subprocess.run([lowersim, "lower", path, "-o", os.devnull], capture_output=True, text=True)
      ok(run.returncode in (0, 1),
         f"the example at line {line} exits {run.returncode}: {run.stderr.strip().splitlines()[-1:]}")
  print(f"{passed} passed, {failed} failed")
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main())
