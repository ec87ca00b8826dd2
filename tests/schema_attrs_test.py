"""tests/schema_attrs_test.py LOWERSIM SOURCE_DIR: a scenario element that
lacks a required attribute gets `PATH:LINE: <ELEMENT> needs the attribute
'NAME'` (or, for a required choice of attributes, `needs one of the
attributes 'A' or 'B'`), never libxml2's "failed to validate attributes".

The cases come from the schema (testdata/schema/scenario.rng): every
<element> pattern with a required attribute, or a required choice of them,
is one case, taken from the first scenario of testdata/ that has the element
(under the same parent element when the schema says which) with the
attribute removed.  An element no scenario of testdata/ has is a failure:
the test reaches every element of the class."""

import glob
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

RNG = "{http://relaxng.org/ns/structure/1.0}"


def local(tag):
    return tag[len(RNG):] if tag.startswith(RNG) else tag


def required_attributes(pattern, defines, depth=0):
    """(names, choices): the attributes `pattern` requires, and the required
    choices of attributes (each a list of names), refs followed, nested
    elements not entered."""
    names, choices = [], []
    for child in pattern:
        kind = local(child.tag)
        if kind == "attribute":
            names.append(child.get("name"))
        elif kind == "choice":
            alternatives = [c.get("name") for c in child if local(c.tag) == "attribute"]
            if alternatives and len(alternatives) == len(list(child)):
                choices.append(alternatives)
        elif kind in ("group", "interleave", "oneOrMore") and depth < 16:
            n, c = required_attributes(child, defines, depth + 1)
            names += n
            choices += c
        elif kind == "ref" and depth < 16:
            n, c = required_attributes(defines[child.get("name")], defines, depth + 1)
            names += n
            choices += c
    return names, choices


def element_patterns(rng):
    """(element, parent element or None, pattern) for every <element> of the grammar."""
    out = []

    def walk(node, parent):
        for child in node:
            if local(child.tag) == "element":
                out.append((child.get("name"), parent, child))
                walk(child, child.get("name"))
            else:
                walk(child, parent)

    walk(rng.getroot(), None)
    return out


TAG = re.compile(r"<!--.*?-->|<\?.*?\?>|<(/?)([A-Za-z_][\w.-]*)((?:\s+[\w:.-]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*(/?)>", re.S)


def instances(text):
    """(element, parent, start, end, attributes span) of every start tag."""
    stack = []
    for m in TAG.finditer(text):
        if not m.group(2):
            continue
        if m.group(1):
            if stack:
                stack.pop()
            continue
        yield m.group(2), stack[-1] if stack else None, m
        if not m.group(4):
            stack.append(m.group(2))


def without(text, m, names):
    """`text` with the attributes `names` removed from the start tag `m`."""
    attrs = m.group(3)
    for name in names:
        attrs = re.sub(r"\s+%s\s*=\s*(\"[^\"]*\"|'[^']*')" % re.escape(name), "", attrs)
    return text[:m.start(3)] + attrs + text[m.end(3):], m.end() - (len(m.group(3)) - len(attrs))


def main():
    lowersim, src = sys.argv[1], sys.argv[2]
    rng = ET.parse(os.path.join(src, "testdata/schema/scenario.rng"))
    defines = {d.get("name"): d for d in rng.getroot() if local(d.tag) == "define"}
    corpus = sorted(glob.glob(os.path.join(src, "testdata/**/*.xml"), recursive=True))
    texts = {}
    for path in corpus:
        try:
            texts[path] = open(path, encoding="utf-8").read()
        except (OSError, UnicodeDecodeError):
            pass
    cases = []
    for element, parent, pattern in element_patterns(rng):
        names, choices = required_attributes(pattern, defines)
        cases += [(element, parent, [n], "<%s> needs the attribute '%s'" % (element, n)) for n in names]
        cases += [(element, parent, c, "<%s> needs one of the attributes %s" %
                   (element, " or ".join("'%s'" % n for n in c))) for c in choices]
    failed = passed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for element, parent, remove, want in cases:
            found = None
            for path, text in texts.items():
                for name, above, m in instances(text):
                    has = all(re.search(r"\s%s\s*=" % re.escape(n), m.group(3)) for n in remove[:1])
                    if name == element and (parent is None or above == parent) and has:
                        found = (path, text, m)
                        break
                if found:
                    break
            label = "<%s> in <%s> without %s" % (element, parent, "/".join(remove))
            if not found:
                print("FAIL %s: no scenario in testdata/ has the element with the attribute" % label)
                failed += 1
                continue
            path, text, m = found
            edited, tag_end = without(text, m, remove)
            line = edited.count("\n", 0, tag_end) + 1  # the line the start tag ends on
            case = os.path.join(tmp, "case.xml")
            open(case, "w", encoding="utf-8").write(edited)
            r = subprocess.run([lowersim, "lower", case], capture_output=True, text=True)
            expected = "%s:%d: %s" % (case, line, want)
            if r.returncode != 2 or r.stderr.strip() != expected:
                print("FAIL %s (from %s): exit %d, stderr %r, want %r" %
                      (label, os.path.relpath(path, src), r.returncode, r.stderr.strip(), expected))
                failed += 1
            else:
                passed += 1
    print("schema_attrs_test: %d passed, %d failed (%d elements)" %
          (passed, failed, len({(e, p) for e, p, _, _ in cases})))
    return 1 if failed or not cases else 0


if __name__ == "__main__":
    sys.exit(main())
