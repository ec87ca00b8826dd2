#!/usr/bin/env python3
"""The cost of hostile inputs, per MB: the bound is printed, not assumed.

The classes are made, not listed: from the scenario grammar
(testdata/schema/scenario.rng, the elements and attributes the kinds'
readers take), each repeatable element repeated (its copies the same, and
again with their free-text attributes and text made distinct: n primitives,
n metadata keys, n flags), each attribute given a long value and each text
element a long text.  Each class starts from the smallest scenario of
testdata/scenarios or testdata/conformance that has the element (or the
attribute) where the grammar puts it and that lowersim reads, and runs under
`lower`, `explain`, `explain --html`, `check` and `check --impl` (lowersim
itself as the port), at three sizes: a probe of `lower` sizes them so that
the largest costs about a target CPU time (a class the reader refuses runs
under `lower` alone: every command reads it the same way).  Next to them,
the shapes the grammar cannot make alone (issues 11 and 26): thousands of
platforms with their backends and rules, aliases with their args and
results, rules not inlined, ordered effects after other equations, junk
attributes, many <contains>/<absent> texts
against a large module, `check --impl`'s diff against a port that differs in
one line or in every line, a big `matrix --merge` CSV and thousands of
shards, and `check` on folders full of files or of symbolic-link loops.

For each class and command it prints the sizes, the CPU time of each (user +
system of the lowersim process and of the ports it waited for) and the exit
status, and the exponent fitted to CPU time against size (log-log least
squares, after taking off the command's start-up time on a one-op
scenario): near 1 is linear work, 2 quadratic.  Then the largest exponents.

    tests/hostile_bench.py [--lowersim build/lowersim] [--quick] [--jobs 2]
                           [--classes TEXT,...] [--commands C,...]
                           [--max-exponent E]

--max-exponent makes the run fail (exit 1) when a class's exponent is above
E twice (a class over E is measured once more, at twice the sizes, each the
best of three runs, and the better fit stands: CPU time on a shared machine
is noisy, and a working set outgrowing a cache bends the curve at one size,
where a superlinear class only gets worse further on; a class whose largest
run does less than 20 ms (--quick: 10 ms) of work past start-up is too cheap
to fit and not failed).  The CTest test bench.hostile runs --quick --max-exponent 1.3.  --quick: a
probe of 32 KB, a target of 20 ms, at most 768 KB; the grammar's classes under
`lower`, `explain --html` and `check --impl` (explain --html narrates as
explain does, check --impl lowers as check does), `check` for the <expect>
classes; the other classes at 96, 192 and 384 KB.  Without it: a probe of
256 KB, a target of 0.4 s, at most 6 MB, every command; the others at 0.5, 1
and 2 MB.  --jobs: runs at once (each run's CPU time is its own).  Run on an
otherwise idle machine for figures to quote: CPU time does not count waiting
for a core, but caches are shared.
"""
import argparse
import concurrent.futures
import copy
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

HEAD = '<?xml version="1.0"?>\n<scenario name="{name}">\n'
RESULT = '<result dtype="f32" shape="8"/>'


def plist(n):
    return ','.join(f'p{i}' for i in range(1, n + 1))


def plugin_runtime(n):
    return ('<runtime><backend platform="cpu"/>'
            + ''.join(f'<backend platform="p{i}"/>' for i in range(1, n + 1)) + '</runtime>\n')


# --- the classes: n -> the text of one input file ----------------------------------

def platforms_pd(n):
    """platform_dependent with a <branch> per platform, lowered for all n."""
    return (HEAD.format(name='platforms-pd')
            + f'<lower function="f" platforms="{plist(n)}">\n<arg dtype="f32" shape="8"/>\n'
            + '<platform_dependent args="0">\n'
            + ''.join(f'<branch platforms="p{i}" op="{"sine" if i % 2 else "cosine"}"/>\n'
                      for i in range(1, n + 1))
            + '</platform_dependent>\n</lower>\n</scenario>\n')


def platforms_rules(n):
    """n plugin backends, a primitive with a <rule> per platform, lowered for all."""
    return (HEAD.format(name='platforms-rules') + plugin_runtime(n)
            + f'<lower function="f" platforms="{plist(n)}">\n<arg dtype="f32" shape="8"/>\n'
            + '<primitive name="my_op" args="0">\n'
            + ''.join(f'<rule platform="p{i}" target="k{i}"/>\n' for i in range(1, n + 1))
            + f'{RESULT}</primitive>\n</lower>\n</scenario>\n')


def platforms_default(n):
    """The same runtime and platforms, a <default> rule only."""
    return (HEAD.format(name='platforms-default') + plugin_runtime(n)
            + f'<lower function="f" platforms="{plist(n)}">\n<arg dtype="f32" shape="8"/>\n'
            + f'<primitive name="my_op" args="0"><default target="k"/>{RESULT}</primitive>\n'
            + '</lower>\n</scenario>\n')


def platforms_equations(n):
    """n lowering platforms and n chained sine ops (default rules only)."""
    return (HEAD.format(name='platforms-equations')
            + f'<lower function="f" platforms="{plist(n)}">\n<arg dtype="f32" shape="8"/>\n'
            + ''.join(f'<op kind="sine" args="{i}"/>\n' for i in range(n))
            + '</lower>\n</scenario>\n')


def jax_platforms(n):
    """JAX_PLATFORMS naming n plugin backends, each declared."""
    rt = plugin_runtime(n).replace('<runtime>', f'<runtime jax_platforms="cpu,{plist(n)}">')
    return (HEAD.format(name='jax-platforms') + rt
            + '<lower function="f">\n<arg dtype="f32" shape="8"/>\n'
            + '<op kind="sine" args="0"/>\n</lower>\n</scenario>\n')


def quiet_failures(n):
    """n plugin backends that fail quietly (explain reports each one's error)."""
    return (HEAD.format(name='quiet-failures') + '<runtime><backend platform="cpu"/>'
            + ''.join(f'<backend platform="p{i}" error="no devices" fail_quietly="true"/>'
                      for i in range(1, n + 1))
            + '</runtime>\n<lower function="f">\n<arg dtype="f32" shape="8"/>\n'
            + '<op kind="sine" args="0"/>\n</lower>\n</scenario>\n')


def rules_distinct(n):
    """One primitive with n <rule>s over n plugin backends, lowered on cpu."""
    return (HEAD.format(name='rules-distinct') + plugin_runtime(n)
            + '<lower function="f">\n<arg dtype="f32" shape="8"/>\n'
            + '<primitive name="my_op" args="0">\n'
            + ''.join(f'<rule platform="p{i}" target="k{i}"/>\n' for i in range(1, n + 1))
            + f'<default target="k"/>{RESULT}</primitive>\n</lower>\n</scenario>\n')


def rules_unmatched(n):
    """n primitives, each with a <rule> for a platform that none of the n lowering
    platforms is (and a default), lowered for all n."""
    rt = ('<runtime><backend platform="cpu"/>'
          + ''.join(f'<backend platform="p{i}"/><backend platform="q{i}"/>'
                    for i in range(1, n + 1)) + '</runtime>\n')
    return (HEAD.format(name='rules-unmatched') + rt
            + f'<lower function="f" platforms="{plist(n)}">\n<arg dtype="f32" shape="8"/>\n'
            + ''.join(f'<primitive name="m{i}" args="{i}"><rule platform="q{i + 1}" target="r{i}"/>'
                      f'<default target="t{i}"/>{RESULT}</primitive>\n' for i in range(n))
            + '</lower>\n</scenario>\n')


def aliases(n):
    """n args, one buffer_callback with n results and n aliases."""
    return (HEAD.format(name='aliases') + '<lower function="f" platforms="cpu">\n'
            + '<arg dtype="f32" shape="8"/>\n' * n
            + '<buffer_callback args="%s">\n' % ','.join(str(i) for i in range(n))
            + (RESULT + '\n') * n
            + ''.join(f'<alias input="{i}" output="{i}"/>\n' for i in range(n))
            + '</buffer_callback>\n</lower>\n</scenario>\n')


def attributes(n):
    """One <op> with n junk attributes (refused before the parser)."""
    return (HEAD.format(name='attributes') + '<lower function="f">\n<arg dtype="f32" shape="8"/>\n'
            + '<op kind="sine" args="0"' + ''.join(f' a{i}=""' for i in range(n))
            + '/>\n</lower>\n</scenario>\n')


# merge-csv's matrix: rules over 16 platforms, tuples of 1 or 2 (344,064 cases);
# the metadata line comes from the lowersim measured (its version and JAX profile).
MERGE_PLATFORMS = [f'p{k}' for k in range(16)]
MERGE_META = None  # set by main()
RULE_SETS = ['default', 'gpu+default', 'cpu+tpu', 'gpu', 'cpu+metal+cuda+default',
             'default/get_backend']
BACKENDS = ['cpu', 'cuda', 'rocm', 'oneapi', 'tpu', 'metal']
OPTIONAL = ['cuda', 'rocm', 'oneapi', 'tpu', 'metal']


def merge_meta(lowersim, work):
    """The metadata line `matrix --csv` writes for merge-csv's matrix, with {n} for the limit."""
    path = os.path.join(work, 'meta.csv')
    subprocess.run([lowersim, 'matrix', '--platforms', ','.join(MERGE_PLATFORMS), '--max-len', '2',
                    '--features', 'rules', '--limit', '1', '--csv', path],
                   stdout=subprocess.DEVNULL, check=True)
    with open(path) as f:
        line = f.readline()
    return line.replace('limit=1 ', 'limit={n} ').replace('cases=0..1 ', 'cases=0..{n} ')


def merge_row(i):
    """Case i of merge-csv's matrix, as its CSV row (index -> tuple, pin, runtime, variant)."""
    n = len(MERGE_PLATFORMS)
    t, rest = i % (n + n * (n - 1)), i // (n + n * (n - 1))
    if t < n:
        tup = MERGE_PLATFORMS[t]
    else:
        first, second = divmod(t - n, n - 1)
        others = [p for k, p in enumerate(MERGE_PLATFORMS) if k != first]
        tup = MERGE_PLATFORMS[first] + '+' + others[second]
    pin, rest = rest % 7 - 1, rest // 7
    runtime, variant = rest % 32, rest // 32
    rt = 'cpu' + ''.join('+' + b for k, b in enumerate(OPTIONAL) if runtime & (1 << k))
    return (f'{i},rules,rules/{RULE_SETS[variant]},{tup},{"-" if pin < 0 else BACKENDS[pin]},'
            f'{rt},OK,{i:016x}\n')


def merge_csv(n):
    """A valid matrix CSV of n rows, the first n cases of a run (matrix --merge)."""
    rows = ''.join(merge_row(i) for i in range(n))
    return (MERGE_META.format(n=n)
            + 'index,feature,variant,platforms,backend,runtime,outcome,module_hash\n' + rows)


SMALL = (HEAD.format(name='small') + '<lower function="f">\n<arg dtype="f32" shape="8"/>\n'
         '<op kind="sine" args="0"/>\n</lower>\n<expect ok="true"/>\n</scenario>\n')


def check_files(n, folder):
    """A folder of n small scenarios in 100 subfolders (lowersim check)."""
    for i in range(n):
        sub = os.path.join(folder, f'd{i % 100}')
        os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, f's{i}.xml'), 'w') as f:
            f.write(SMALL)
    return n * len(SMALL)


def check_loops(n, folder):
    """A folder of n symbolic links back to itself and one scenario."""
    with open(os.path.join(folder, 'x.xml'), 'w') as f:
        f.write(SMALL)
    for i in range(n):
        os.symlink('.', os.path.join(folder, f'loop{i}'))
    return n * 64  # bytes of directory entry, roughly




def pallas_aliases(n):
    """One pallas_call with n <alias>es of distinct inputs (a dict of n keys)."""
    return (HEAD.format(name='pallas-aliases') + '<pallas mosaic_tpu="true"/>\n'
            + '<lower function="f" platforms="tpu">\n<arg dtype="f32" shape="8"/>\n'
            + f'<pallas_call args="0" kernel="add_one">{RESULT}\n'
            + ''.join(f'<alias input="{i}" output="0"/>\n' for i in range(n))
            + '</pallas_call>\n</lower>\n</scenario>\n')


def not_inline(n):
    """n primitives whose one rule is not inlined (n cache misses), each then
    bound again (n hits)."""
    prims = ''.join(f'<primitive name="q{i}" args="{i}"><default target="t{i}" inline="false"/>'
                    f'{RESULT}</primitive>\n' for i in range(n))
    again = ''.join(f'<primitive name="q{i}" args="{n + i}">{RESULT}</primitive>\n'
                    for i in range(n))
    return (HEAD.format(name='not-inline') + '<lower function="f">\n<arg dtype="f32" shape="8"/>\n'
            + prims + again + '</lower>\n</scenario>\n')


def ordered_after_ops(n):
    """n sine ops, then n ordered io_callbacks (the program's ordered effects
    were found comparing each with every equation before it)."""
    return (HEAD.format(name='ordered-after-ops')
            + '<lower function="f" platforms="cpu">\n<arg dtype="f32" shape="8"/>\n'
            + ''.join(f'<op kind="sine" args="{i}"/>\n' for i in range(n))
            + ''.join(f'<io_callback args="{n}" ordered="true">{RESULT}</io_callback>\n'
                      for _ in range(n))
            + '</lower>\n</scenario>\n')


def check_texts(n):
    """n chained sine ops, n <contains> texts the module has (each value's
    definition) and n <absent> texts it has not (check)."""
    return (HEAD.format(name='check-texts') + '<lower function="f">\n<arg dtype="f32" shape="8"/>\n'
            + ''.join(f'<op kind="sine" args="{i}"/>\n' for i in range(n))
            + '</lower>\n<expect ok="true">\n'
            + ''.join(f'<contains>%{i} = </contains>\n' for i in range(n))
            + ''.join(f'<absent>absent {i}</absent>\n' for i in range(n))
            + '</expect>\n</scenario>\n')


def impl_equations(n):
    """n chained sine ops, for check --impl against a port that differs."""
    return (HEAD.format(name='impl-diff') + '<lower function="f">\n<arg dtype="f32" shape="8"/>\n'
            + ''.join(f'<op kind="sine" args="{i}"/>\n' for i in range(n))
            + '</lower>\n</scenario>\n')


# merge-shards: a whole run of the rules over K platforms (tuples of 1: 1,344
# cases per platform, as `matrix --csv` writes it), cut into shards of 4
# cases each (each one's metadata line as `matrix --shard I/N` writes it):
# the shards grow with the input.
SHARD_CASES = 4
WHOLE_RUNS = {}  # K -> (metadata line, header, rows)


def whole_run(lowersim, work, k):
    if k not in WHOLE_RUNS:
        path = os.path.join(work, f'whole-{k}.csv')
        subprocess.run([lowersim, 'matrix', '--platforms', ','.join(f'p{i}' for i in range(k)),
                        '--max-len', '1', '--features', 'rules', '--csv', path],
                       stdout=subprocess.DEVNULL, check=True)
        with open(path) as f:
            lines = f.readlines()
        os.remove(path)
        WHOLE_RUNS[k] = (lines[0], lines[1], lines[2:])
    return WHOLE_RUNS[k]


def merge_shards(size, folder, lowersim, work):
    """About `size` bytes of shards: the whole run of K platforms in shards of
    SHARD_CASES cases (matrix --merge of all of them)."""
    k = max(1, round(size / (1344 * (60 + 240 / SHARD_CASES))))
    meta, header, rows = whole_run(lowersim, work, k)
    total, n = len(rows), -(-len(rows) // SHARD_CASES)
    written = 0
    for s in range(n):
        lo, hi = total * s // n, total * (s + 1) // n
        text = (meta.replace('shard=0/1 ', f'shard={s}/{n} ')
                .replace(f'cases=0..{total} ', f'cases={lo}..{hi} ')
                + header + ''.join(rows[lo:hi]))
        with open(os.path.join(folder, f's{s:06d}.csv'), 'w') as f:
            f.write(text)
        written += len(text)
    return written


# --- the classes the grammar makes ----------------------------------------------------

RNG = '{http://relaxng.org/ns/structure/1.0}'
HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, '..', 'testdata', 'schema', 'scenario.rng')
CORPUS = [os.path.join(HERE, '..', 'testdata', d) for d in ('scenarios', 'conformance')]
WORK = None  # the bench's scratch folder, set by main()
MARK = 'QLSIMIDXQ'      # where a copy's index goes
LONG = 'QLSIMLONGQ'     # where a long value goes


def schema_patterns(path):
    """(parent, element) -> {'attrs': {name: values or None}, 'repeat': bool, 'text': bool}
    for every <element> pattern of the grammar, refs followed."""
    root = ET.parse(path).getroot()
    defines = {d.get('name'): d for d in root.iter(RNG + 'define')}
    pats = {}

    def values(node, seen=()):
        out = []
        for c in node:
            if c.tag == RNG + 'value':
                out.append(c.text or '')
            elif c.tag == RNG + 'ref' and c.get('name') not in seen:
                out += values(defines[c.get('name')], seen + (c.get('name'),)) or []
            elif c.tag == RNG + 'choice':
                out += values(c, seen) or []
        return out or None

    # the key of the element whose content is being walked, by name and parent
    owner_key = [None]

    def walk(node, owner, repeat, seen):
        for c in node:
            tag = c.tag[len(RNG):] if c.tag.startswith(RNG) else c.tag
            if tag == 'element':
                key = (owner, c.get('name'))
                p = pats.setdefault(key, {'attrs': {}, 'repeat': False, 'text': False})
                p['repeat'] = p['repeat'] or repeat
                saved = owner_key[0]
                owner_key[0] = key
                walk(c, c.get('name'), False, seen)
                owner_key[0] = saved
            elif tag == 'attribute' and owner:
                pats[owner_key[0]]['attrs'][c.get('name')] = values(c)
            elif tag in ('zeroOrMore', 'oneOrMore'):
                walk(c, owner, True, seen)
            elif tag == 'ref' and c.get('name') not in seen:
                walk(defines[c.get('name')], owner, repeat, seen | {c.get('name')})
            elif tag == 'text' and owner:
                pats[owner_key[0]]['text'] = True
            elif tag in ('optional', 'choice', 'group', 'interleave'):
                walk(c, owner, repeat, seen)
    walk(root.find(RNG + 'start'), None, False, frozenset())
    return pats


class Corpus:
    """The scenarios of testdata, smallest first, indexed by (parent, element)
    and by (parent, element, attribute); each candidate checked once to be a
    scenario lowersim reads (lower exits 0 or 1, not 2)."""

    def __init__(self, lowersim):
        self.lowersim = lowersim
        self.by_key = {}
        self.valid = {}
        files = []
        for top in CORPUS:
            for d, _, names in os.walk(top):
                files += [os.path.join(d, f) for f in names if f.endswith('.xml')]
        files.sort(key=lambda f: (os.path.getsize(f), f))
        for f in files:
            try:
                root = ET.parse(f).getroot()
            except ET.ParseError:
                continue
            for parent in root.iter():
                for el in parent:
                    keys = [(parent.tag, el.tag)] + [(parent.tag, el.tag, a) for a in el.attrib]
                    for key in keys:
                        found = self.by_key.setdefault(key, [])
                        if len(found) < 4 and f not in found:
                            found.append(f)
            if root.tag == 'scenario':
                for key in [(None, 'scenario')] + [(None, 'scenario', a) for a in root.attrib]:
                    found = self.by_key.setdefault(key, [])
                    if len(found) < 4 and f not in found:
                        found.append(f)

    def template(self, key):
        for f in self.by_key.get(key, []):
            if f not in self.valid:
                code = subprocess.run([self.lowersim, 'lower', f], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL).returncode
                self.valid[f] = code in (0, 1)
            if self.valid[f]:
                return f
        return None


def is_int(v):
    return re.fullmatch(r'-?[0-9]+', v or '') is not None


def find_in(root, parent, name):
    """The first element `name` whose parent is `parent`, and that parent."""
    if parent is None:
        return (None, root) if root.tag == name else (None, None)
    for p in root.iter(parent):
        for el in p:
            if el.tag == name:
                return p, el
    return None, None


def with_expect(root):
    """An <expect ok="true"/> for check when the scenario has none."""
    if root.find('expect') is None:
        ET.SubElement(root, 'expect', {'ok': 'true'}).tail = '\n'


def serialize(root):
    return '<?xml version="1.0"?>\n' + ET.tostring(root, encoding='unicode') + '\n'


class Repeated:
    """Element (parent, name) of `template` repeated to the size asked: each
    copy the same, or (distinct) with its free-text attributes and text
    suffixed by the copy's index."""

    def __init__(self, template, key, distinct, attrs):
        root = ET.parse(template).getroot()
        with_expect(root)
        parent, el = find_in(root, *key)
        one = copy.deepcopy(el)
        one.tail = '\n'
        if distinct:
            for a, v in one.attrib.items():
                if attrs.get(a) is None and v and not is_int(v) and ',' not in v:
                    one.set(a, v + MARK)
            if (one.text or '').strip():
                one.text = one.text + MARK
        self.copy = ET.tostring(one, encoding='unicode').split(MARK)
        marker = ET.Element('QLSIMREPEAT')
        marker.tail = el.tail
        parent[list(parent).index(el)] = marker
        self.head, self.tail = serialize(root).split('<QLSIMREPEAT />')

    def text(self, size):
        one = len(''.join(self.copy)) + 2
        n = max(2, int((size - len(self.head) - len(self.tail)) / one))
        if len(self.copy) == 1:
            body = self.copy[0] * n
        else:
            body = ''.join(str(i).join(self.copy) for i in range(n))
        return self.head + body + self.tail


class Long:
    """Attribute `attr` of element (parent, name) of `template` (or its text,
    attr None) given a value of the size asked, made of its own value: a
    comma list repeated, digits repeated, else the value and x's."""

    def __init__(self, template, key, attr):
        root = ET.parse(template).getroot()
        with_expect(root)
        _, el = find_in(root, *key)
        self.value = (el.get(attr) if attr else (el.text or 'text')) or 'x'
        if attr:
            el.set(attr, LONG)
        else:
            el.text = LONG
        self.head, self.tail = serialize(root).split(LONG)

    def text(self, size):
        v, n = self.value, max(1, int(size - len(self.head) - len(self.tail)))
        if ',' in v:
            long = ','.join([v] * max(1, n // (len(v) + 1)))
        elif is_int(v):
            long = (v.lstrip('-') or '1') * max(1, n // max(1, len(v)))
        else:
            long = v + 'x' * max(0, n - len(v))
        return self.head + escape(long, {'"': '&quot;'}) + self.tail


def schema_classes(lowersim):
    """name -> maker (size -> text), and the grammar's patterns no scenario
    of the corpus has (reported, not fitted)."""
    pats = schema_patterns(SCHEMA)
    corpus = Corpus(lowersim)
    classes, untested = {}, []
    for (parent, name), p in sorted(pats.items(), key=lambda kv: (kv[0][0] or '', kv[0][1])):
        where = f'{parent}/{name}' if parent else name
        t = corpus.template((parent, name))
        if p['repeat']:
            if not t:
                untested.append(f'{where} repeated')
            else:
                classes[f'{where}*n'] = Repeated(t, (parent, name), False, p['attrs'])
                free = [a for a, v in p['attrs'].items() if v is None]
                if free or p['text']:
                    classes[f'{where}*n distinct'] = Repeated(t, (parent, name), True, p['attrs'])
        if p['text']:
            if t:
                classes[f'{where} long text'] = Long(t, (parent, name), None)
            else:
                untested.append(f'{where} long text')
        for a in sorted(p['attrs']):
            ta = corpus.template((parent, name, a))
            if ta:
                classes[f'{where}@{a} long'] = Long(ta, (parent, name), a)
            else:
                untested.append(f'{where}@{a} long')
    return classes, untested


# --- running and fitting ----------------------------------------------------------------

COMMANDS = ['lower', 'explain', 'explain --html', 'check', 'check --impl']


def command_line(lowersim, command, path, out):
    """The command line of `command` on the input `path` (a file, or a folder
    of shards for matrix --merge); `out` for explain --html's page."""
    if command == 'explain --html':
        return [lowersim, 'explain', '--html', out, path]
    if command.startswith('check --impl'):  # `check --impl=PORT`: that port, else lowersim
        port = (os.path.join(WORK, command.split('=', 1)[1]) if '=' in command
                else f'{lowersim} lower')
        return [lowersim, 'check', '--impl', port + ' {scenario}', path]
    if command == 'matrix --merge' and os.path.isdir(path):
        return [lowersim, 'matrix', '--merge'] + sorted(
            os.path.join(path, f) for f in os.listdir(path))
    return [lowersim] + command.split() + [path]


def run_child(cmd, timeout):
    """CPU seconds (user + system, the child's and its waited-for children's),
    peak RSS in MB and exit code of one run of `cmd`, killed after `timeout`
    seconds."""
    pid = os.fork()
    if pid == 0:
        try:
            devnull = os.open(os.devnull, os.O_RDWR)
            os.dup2(devnull, 0)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            os.execv(cmd[0], cmd)
        finally:
            os._exit(127)
    killer = threading.Timer(timeout, os.kill, (pid, signal.SIGKILL))
    killer.start()
    try:
        _, status, ru = os.wait4(pid, 0)
    finally:
        killer.cancel()
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, os.waitstatus_to_exitcode(status)


def fit_exponent(points, base):
    """Least-squares slope of log(cpu - base) on log(size)."""
    xs, ys = [], []
    for size, cpu in points:
        xs.append(math.log(size))
        ys.append(math.log(max(cpu - base, 1e-3)))
    if len(xs) < 2:
        return float('nan')
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else float('nan')


# Below this much CPU past start-up at the largest size, a fit is noise
# (--quick: 10 ms).
CHEAP = 0.02


class Bench:
    def __init__(self, a, lowersim, work):
        self.a, self.lowersim, self.work = a, lowersim, work
        self.lock = threading.Lock()
        self.rows = []
        self.failed = []
        self.base = {}

    def say(self, text):
        with self.lock:
            print(text, flush=True)

    def measure(self, name, command, inputs, runs=1):
        """One class under one command at each size (the least CPU time of
        `runs` runs): its points and exit codes."""
        points, codes, cpus = [], [], []
        out = os.path.join(self.work, f'out-{threading.get_ident()}.html')
        for path, size in inputs:
            cpu, code = math.inf, None
            for _ in range(runs):
                one_cpu, _, code = run_child(command_line(self.lowersim, command, path, out),
                                             self.a.timeout)
                cpu = min(cpu, one_cpu)
            cpus.append(cpu)
            codes.append(code)
            # Past a limit of the format the input is refused, another exit or a
            # run cheaper than half the one before at twice the size: not fitted.
            if code == codes[0] and not (points and cpu < points[-1][1] / 2):
                points.append((size / 2**20, cpu))
        return points, codes, cpus

    def one(self, name, command, inputs, again_inputs):
        """One class under one command: measured, fitted, printed.  Over the
        limit, it is measured once more at twice the sizes (again_inputs()
        makes them), each the best of three runs, and the better fit stands:
        CPU time on a shared machine is noisy, and a working set outgrowing a
        cache bends the curve at one size, where a superlinear class only
        gets worse further on."""
        base = self.base['check --impl' if command.startswith('check --impl') else
                         'lower' if command.startswith('matrix') else command]
        points, codes, cpus = self.measure(name, command, inputs)
        k = fit_exponent(points, base)
        cheap = max(c for _, c in points) - base < CHEAP
        tries, shown = 1, inputs
        if self.a.max_exponent is not None and k > self.a.max_exponent and not cheap:
            larger = again_inputs()
            try:
                again = self.measure(name, command, larger, runs=3)
            finally:
                remove_inputs(larger)
            k2 = fit_exponent(again[0], base)
            tries = 2
            if k2 < k:
                points, codes, cpus, k, shown = again[0], again[1], again[2], k2, larger
                cheap = max(c for _, c in points) - base < CHEAP
        over = self.a.max_exponent is not None and k > self.a.max_exponent and not cheap
        sizes = ' '.join(f'{s / 2**20:6.3f}' for _, s in shown)
        times = ' '.join(f'{c:7.3f}' for c in cpus)
        verdict = 'cheap' if cheap else 'SUPERLINEAR' if k > 1.3 else 'ok'
        self.say(f'{name:<44} {command:<14} MB {sizes}  CPU s {times}  exit '
                 f'{",".join(str(c) for c in sorted(set(codes)))}  exponent {k:5.2f}'
                 f'{" (again, x2)" if tries > 1 else ""} {verdict}')
        with self.lock:
            self.rows.append((name, command, k, verdict))
            if over:
                self.failed.append(f'{name} [{command}]')

    def write(self, name, text, k):
        path = os.path.join(self.work, f'in-{threading.get_ident()}-{k}.'
                            f'{"csv" if name == "merge-csv" else "xml"}')
        with open(path, 'w') as f:
            f.write(text)
        return path, len(text.encode())

    def calibrate(self, name, make, commands):
        """The sizes of a grammar's class and its commands: a probe of `lower`
        at the probe size, then three sizes whose largest should cost about
        the target CPU time (the probe's rate, linear), within [4 probes, the
        largest size]; a class the reader refuses (exit 2) is measured under
        `lower` alone, since every command reads it the same way."""
        probe, target, largest = self.a.probe, self.a.target, self.a.largest
        path, size = self.write(name, make(probe), 'probe')
        try:
            cpu, _, code = run_child(command_line(self.lowersim, 'lower', path, ''), self.a.timeout)
        finally:
            os.remove(path)
        work = max(cpu - self.base['lower'], 5e-4)
        top = min(largest, max(4 * probe, probe * target / work))
        # A limit of the format (1,024 lowerings, 131,072 children) past the
        # probe: the sizes halved until the largest is within it.  The
        # largest input is kept: it is the class's.
        for _ in range(6):
            largest_input = self.write(name, make(top), 'a2')
            top_cpu, _, top_code = run_child(
                command_line(self.lowersim, 'lower', largest_input[0], ''), self.a.timeout)
            if (top_code == code and top_cpu - self.base['lower'] >= 2 * work) or top <= probe:
                break
            os.remove(largest_input[0])
            top /= 2
        return [top / 4, top / 2], (['lower'] if code == 2 else commands), largest_input

    def inputs(self, name, make, sizes, folder, tag):
        made = []
        try:
            for size in sizes:
                if folder:
                    path = tempfile.mkdtemp(dir=self.work)
                    made.append((path, make(size, path)))
                else:
                    made.append(self.write(name, make(size), f'{tag}{len(made)}'))
        except BaseException:
            remove_inputs(made)
            raise
        return made

    def run_class(self, name, make, commands, sizes, folder=False):
        largest = []
        if sizes is None:
            sizes, commands, top = self.calibrate(name, make, commands)
            largest = [top]
            sizes = sizes + [sizes[-1] * 2]
        try:
            inputs = self.inputs(name, make, sizes[:len(sizes) - len(largest)], folder, 'a')
        except BaseException:
            remove_inputs(largest)
            raise
        inputs += largest
        try:
            for command in commands:
                self.one(name, command, inputs,
                         lambda: self.inputs(name, make, [2 * s for s in sizes], folder, 'b'))
        finally:
            remove_inputs(inputs)


def remove_inputs(inputs):
    for path, _ in inputs:
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)


def hand_classes(lowersim, work):
    """name -> (maker of size in bytes, commands[, scale of the sizes]): the
    shapes the grammar cannot make alone."""
    def per_item(gen):
        def make(size):
            probe = len(gen(1000))
            return gen(max(1, int(1000 * size / probe)))
        return make

    def folder_of(gen, per):
        return lambda size, folder: gen(max(1, int(size / per)), folder)

    port_few = os.path.join(work, 'port-one-line.sh')
    port_all = os.path.join(work, 'port-every-line.sh')
    for path, edit in ((port_few, "0,/stablehlo.sine/s//stablehlo.cosine/"),
                       (port_all, "s/stablehlo.sine/stablehlo.cosine/")):
        with open(path, 'w') as f:
            f.write(f'#!/bin/sh\n"{lowersim}" lower "$1" | sed "{edit}"\n')
        os.chmod(path, 0o755)
    return {
        'platforms-pd': (per_item(platforms_pd), ['lower', 'explain']),
        'platforms-rules': (per_item(platforms_rules), ['lower']),
        'platforms-default': (per_item(platforms_default), ['lower']),
        'platforms-equations': (per_item(platforms_equations), ['lower']),
        'jax-platforms': (per_item(jax_platforms), ['lower']),
        'quiet-failures': (per_item(quiet_failures), ['explain']),
        'rules-distinct': (per_item(rules_distinct), ['lower']),
        'rules-unmatched': (per_item(rules_unmatched), ['lower']),
        'aliases': (per_item(aliases), ['lower']),
        'pallas-aliases': (per_item(pallas_aliases), ['lower']),
        'not-inline': (per_item(not_inline), ['lower', 'explain', 'explain --html']),
        'attributes': (per_item(attributes), ['lower']),
        'ordered-after-ops': (per_item(ordered_after_ops), ['lower']),
        'check-texts': (per_item(check_texts), ['check']),
        'impl-diff-one-line': (per_item(impl_equations), ['check --impl=port-one-line.sh']),
        # a diff of up to 4,000 lines each side: where the table of a longest
        # common subsequence (16M cells at most) was quadratic
        'impl-diff-every-line': (per_item(impl_equations), ['check --impl=port-every-line.sh'],
                                 0.2),
        'merge-csv': (per_item(merge_csv), ['matrix --merge']),
        # whole platforms' runs (1,344 cases each): sizes large enough to tell apart
        'merge-shards': (lambda size, folder: merge_shards(size, folder, lowersim, work),
                         ['matrix --merge'], 4),
        'check-files': (folder_of(check_files, len(SMALL) * 10), ['check']),
        'check-loops': (folder_of(check_loops, 64 * 10), ['check']),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--lowersim', default=os.path.join(HERE, '..', 'build', 'lowersim'))
    ap.add_argument('--classes', default='', help='only the classes whose name contains one '
                    'of these comma-separated texts')
    ap.add_argument('--commands', default=','.join(COMMANDS),
                    help="the schema classes' commands, comma-separated")
    ap.add_argument('--max-exponent', type=float, default=None)
    ap.add_argument('--timeout', type=float, default=120.0)
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--quick', action='store_true')
    a = ap.parse_args()
    if a.quick:
        a.timeout = min(a.timeout, 20.0)
        global CHEAP
        CHEAP = 0.01
    kb = 1024
    # The grammar's classes: sized by a probe (Bench.calibrate); the others at fixed sizes.
    a.probe, a.target, a.largest = ((32 * kb, 0.02, 768 * kb) if a.quick else
                                    (256 * kb, 0.4, 6144 * kb))
    hand_sizes = [96 * kb, 192 * kb, 384 * kb] if a.quick else [512 * kb, 1024 * kb, 2048 * kb]
    lowersim = os.path.abspath(a.lowersim)
    work = tempfile.mkdtemp(prefix='lowersim-hostile-')
    wanted = [w for w in a.classes.split(',') if w]
    bench = Bench(a, lowersim, work)
    try:
        global MERGE_META, WORK
        WORK = work
        MERGE_META = merge_meta(lowersim, work)
        minimal = os.path.join(work, 'minimal.xml')
        with open(minimal, 'w') as f:
            f.write(SMALL)
        for command in COMMANDS:
            runs = [run_child(command_line(lowersim, command, minimal,
                                                 os.path.join(work, 'o.html')), a.timeout)
                    for _ in range(3)]
            bench.base[command] = min(r[0] for r in runs)
        print('start-up (one op), CPU ms: ' + ', '.join(f'{c} {t * 1000:.1f}'
                                                       for c, t in bench.base.items()))
        schema, untested = schema_classes(lowersim)
        hand = hand_classes(lowersim, work)
        jobs = []
        for name, maker in schema.items():
            if not wanted or any(w in name for w in wanted):
                commands = a.commands.split(',')
                if a.quick and a.commands == ','.join(COMMANDS):
                    # explain --html narrates as explain does, and check --impl lowers and
                    # judges as check does but for <expect>: check for those alone.
                    commands = [c for c in commands if c not in ('explain', 'check') or
                                (c == 'check' and name.startswith(('expect/', 'scenario/expect')))]
                jobs.append((name, maker.text, commands, None, False))
        for name, (make, commands, *scale) in hand.items():
            if not wanted or any(w in name for w in wanted):
                folder = name in ('merge-shards', 'check-files', 'check-loops')
                sizes = [s * (scale[0] if scale else 1) for s in hand_sizes]
                jobs.append((name, make, commands, sizes, folder))
        print(f'{len(schema)} classes from the grammar, {len(hand)} others; '
              f'{sum(len(j[2]) for j in jobs)} fits')
        for u in untested:
            print(f'no scenario of the corpus has {u}: not measured')
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            for f in [pool.submit(bench.run_class, *j) for j in jobs]:
                f.result()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print('\nfits: per class and command, the exponent of CPU time against size (1: linear)')
    worst = sorted(bench.rows, key=lambda r: -r[2] if r[3] != 'cheap' else 0)
    for name, command, k, verdict in worst[:15]:
        print(f'  {name:<44} {command:<14} {k:5.2f} {verdict}')
    fitted = [r for r in bench.rows if r[3] != 'cheap']
    if fitted:
        print(f'{len(fitted)} fitted, {len(bench.rows) - len(fitted)} too cheap to fit; '
              f'largest exponent {max(r[2] for r in fitted):.2f}')
    if bench.failed:
        print(f'over the exponent {a.max_exponent}: {", ".join(sorted(bench.failed))}')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
