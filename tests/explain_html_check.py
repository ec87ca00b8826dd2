#!/usr/bin/env python3
"""Checks a page of `lowersim explain --html` (as written, or as a browser's
DOM after loading it: chromium --dump-dom), without screenshots:

- every op of the module is a link to a narration step, and that step lists
  the op back (data-ops and its "op K" links); every link of the page
  resolves to an element of the page;
- nothing is loaded from the network (no src=, no <link>, no @import);
- every source link names the profile's ref and a line: .../blob/REF/FILE#LN;
- the expectations given: the outcome, the number of dispatch diagrams
  (and of platforms and kept rules in the first), links that must be there.

    explain_html_check.py PAGE --outcome ok|error [--ops N] [--dispatches N]
        [--platforms N --rules N] [--ref REF] [--link FUNCTION#LLINE]... [--browser]
        [--section ID]... [--text ID=TEXT]... [--width W]

- every link is labelled: an op's link and the diagrams' name what they
  link (aria-label), never a bare "op K";
- --section ID: an element ID is on the page (request, runtime, ...);
  --text ID=TEXT: the text of element ID contains TEXT (a table row's cells
  joined by one space).

--browser: the page is chromium's DOM after loading, and the page's script
must have run there and found every in-page link's target (body
data-links, data-unresolved).  --width W: the DOM was dumped in a window W
pixels wide with tests/explain_html_test.sh's measuring script, which
found no element wider than its box (scrollWidth > clientWidth) and every
diagram inside its column (body data-overflow, data-svg-overflow empty).
"""
import argparse
import html.parser
import re
import sys


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = {}           # id -> (tag, attrs)
        self.links = []         # (class, href, id of the element it is in)
        self.srcs = []
        self.stack = []         # open elements: (tag, attrs)
        self.svgs = []          # per svg.case-diagram: {'platform': n, 'kept': n, 'edge': n}
        self.outcome = None
        self.text_of = None
        self.scripts = 0
        self.styles = ""
        self.in_style = False
        self.body = {}
        self.texts = {}         # id -> its text
        self.labels = []        # (class, aria-label or None) of each link

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("link", "iframe", "img", "embed", "object"):
            self.srcs.append(f"<{tag}>")
        if "src" in a:
            self.srcs.append(a["src"])
        if tag == "script":
            self.scripts += 1
        if tag == "style":
            self.in_style = True
        if "id" in a:
            self.ids[a["id"]] = (tag, a)
        owner = next((x[1].get("id") for x in reversed(self.stack) if x[1].get("id")), None)
        if tag == "a" and "href" in a:
            self.links.append((a.get("class", ""), a["href"], a.get("id") or owner))
            self.labels.append((a.get("class", ""), a["href"], a.get("aria-label")))
        if tag in ("th", "td") and any(x[1].get("id") for x in self.stack):
            self.handle_data(" ")
        if tag == "svg" and "case-diagram" in a.get("class", ""):
            self.svgs.append({"platform": 0, "rule": 0, "kept": 0, "edge": 0})
        cls = a.get("class", "")
        if self.svgs and cls in self.svgs[-1] and any(t == "svg" for t, _ in self.stack):
            self.svgs[-1][cls] += 1
        if tag == "body":
            self.body = a
        if a.get("id") == "outcome":
            self.outcome = a.get("class", "")
        if tag not in ("br", "meta", "rect", "line", "path", "img", "link", "input"):
            self.stack.append((tag, a))

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        if self.in_style:
            self.styles += data
        for _, a in self.stack:
            if a.get("id"):
                self.texts[a["id"]] = self.texts.get(a["id"], "") + data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--outcome", choices=("ok", "error"), required=True)
    ap.add_argument("--ops", type=int)
    ap.add_argument("--dispatches", type=int)
    ap.add_argument("--platforms", type=int)
    ap.add_argument("--rules", type=int)
    ap.add_argument("--ref")
    ap.add_argument("--link", action="append", default=[])
    ap.add_argument("--browser", action="store_true",
                    help="the page is a browser's DOM: its script must have run")
    ap.add_argument("--section", action="append", default=[])
    ap.add_argument("--text", action="append", default=[])
    ap.add_argument("--width", type=int)
    args = ap.parse_args()
    p = Page()
    with open(args.page, encoding="utf-8") as f:
        p.feed(f.read())
    bad = []

    if p.srcs:
        bad.append(f"loads from elsewhere: {p.srcs}")
    if "@import" in p.styles or "url(" in p.styles:
        bad.append("the style sheet loads from elsewhere")
    want_scripts = 2 if args.width else 1  # the page's, and the measuring one
    if p.scripts != want_scripts:
        bad.append(f"{p.scripts} scripts, expected {want_scripts} inline")
    for section in args.section:
        if section not in p.ids:
            bad.append(f"no section #{section}")
    for text in args.text:
        where, want_text = text.split("=", 1)
        got = re.sub(r"\s+", " ", p.texts.get(where, ""))
        if re.sub(r"\s+", " ", want_text) not in got:
            bad.append(f"#{where} does not say {want_text!r}: {got[:300]!r}")
    # Links to ops and the diagrams' links to steps say what they link.
    for cls, href, label in p.labels:
        if (cls in ("to-op", "op") or (cls == "" and href.startswith("#n-"))) and (
                not label or re.fullmatch(r"op \d+", label)):
            bad.append(f"the link {href} ({cls!r}) has no accessible name: {label!r}")

    ops = {i: a for i, (t, a) in p.ids.items() if i.startswith("op-")}
    steps = {i: a for i, (t, a) in p.ids.items() if i.startswith("n-")}
    for cls, href, owner in p.links:
        if href.startswith("#") and href[1:] not in p.ids:
            bad.append(f"link {href} ({cls}) resolves to nothing")
        elif not href.startswith("#") and not href.startswith("https://github.com/jax-ml/jax/"):
            bad.append(f"link {href} leaves the JAX repository")
    back = {(h, o) for c, h, o in p.links if c == "to-op"}
    for op, a in ops.items():
        href = a.get("href", "")
        if "unlinked" in a.get("class", "") or not href.startswith("#n-"):
            bad.append(f"{op} is not linked to a step")
            continue
        step = steps.get(href[1:])
        if step is None or "step" not in step.get("class", "").split():
            bad.append(f"{op} links {href}, which is not a step")
        elif op not in step.get("data-ops", "").split():
            bad.append(f"{op} links {href}, whose data-ops does not list it back")
        elif ("#" + op, href[1:]) not in back:
            bad.append(f"{href} has no link back to {op}")
    for step, a in steps.items():
        for op in a.get("data-ops", "").split():
            if ops.get(op, {}).get("href") != "#" + step:
                bad.append(f"{step} lists {op}, which does not link it")
    if args.ops is not None and len(ops) != args.ops:
        bad.append(f"{len(ops)} ops, expected {args.ops}")

    src = [h for c, h, _ in p.links if c == "src"]
    want = re.compile(r"https://github\.com/jax-ml/jax/blob/([^/]+)/jax/[\w/]+\.py#L(\d+)$")
    for h in src:
        m = want.match(h)
        if not m:
            bad.append(f"source link {h} names no line")
        elif args.ref and m.group(1) != args.ref:
            bad.append(f"source link {h} is not at {args.ref}")
    for link in args.link:
        function, line = link.split("#")
        if not any(h.endswith("#" + line) for h in src):
            bad.append(f"no source link to {function} at {line}")
    if not any(href.startswith("#n-") for c, href, _ in p.links if c == "op") and ops:
        bad.append("no op links")

    if args.browser:
        internal = sum(1 for _, h, _ in p.links if h.startswith("#"))
        if p.body.get("data-links") != str(internal) or p.body.get("data-unresolved") != "0":
            bad.append(f"in the browser: data-links={p.body.get('data-links')!r} (the page has "
                       f"{internal}), data-unresolved={p.body.get('data-unresolved')!r}")

    if args.width:
        if p.body.get("data-measured") != str(args.width):
            bad.append(f"measured in a window {p.body.get('data-measured')!r} wide, "
                       f"expected {args.width}")
        if p.body.get("data-overflow", "?"):
            bad.append(f"at {args.width} px these overflow their box: {p.body.get('data-overflow')}")
        if p.body.get("data-svg-overflow", "?"):
            bad.append(f"at {args.width} px these diagrams overflow their column: "
                       f"{p.body.get('data-svg-overflow')}")

    want_outcome = "outcome " + args.outcome
    if p.outcome != want_outcome:
        bad.append(f"outcome {p.outcome!r}, expected {want_outcome!r}")
    if args.dispatches is not None and len(p.svgs) != args.dispatches:
        bad.append(f"{len(p.svgs)} dispatch diagrams, expected {args.dispatches}")
    if p.svgs and args.platforms is not None and p.svgs[0]["platform"] != args.platforms:
        bad.append(f"the first diagram has {p.svgs[0]['platform']} platforms, "
                   f"expected {args.platforms}")
    if p.svgs and args.rules is not None and (p.svgs[0]["rule"], p.svgs[0]["kept"]) != (
            args.rules, args.rules):
        bad.append(f"the first diagram has {p.svgs[0]['rule']} rule indices and "
                   f"{p.svgs[0]['kept']} kept rules, expected {args.rules}")
    if p.svgs and p.svgs[0]["edge"] < (args.platforms or 0):
        bad.append("the first diagram has fewer edges than platforms")

    for b in bad:
        print(f"{args.page}: {b}")
    print(f"{args.page}: {len(ops)} ops, {len(steps)} narrated lines, {len(src)} source links, "
          f"{len(p.svgs)} diagrams: {'ok' if not bad else 'FAILED'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
