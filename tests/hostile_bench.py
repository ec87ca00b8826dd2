#!/usr/bin/env python3
"""The cost of hostile inputs, per MB: the bound is printed, not assumed.

Generates each class of hostile input at a few sizes, runs lowersim on it and
prints, per size, the CPU time (user + system, of the lowersim process alone),
the peak resident memory, and both per MB of input; then, per class, the
exponent fitted to CPU time against size (log-log least squares, after taking
off the start-up time of a one-op scenario).  An exponent near 1 is linear
work; 2 is quadratic.  The classes are the shapes of issue 11 (thousands of
platforms, rules, rules for none of the platforms, branches, aliases, primitives, attributes, children, a long
text, a big merge CSV, folders full of files or of symbolic-link loops).

    tests/hostile_bench.py [--lowersim build/lowersim] [--sizes 0.5,1,2,4]
                           [--classes a,b,...] [--max-exponent E] [--quick]

--max-exponent makes the run fail (exit 1) when a class's fitted exponent is
above E twice (a class over E is measured once more, since CPU time on a
shared machine is noisy; the CTest test bench.hostile uses --quick
--max-exponent 1.5);
--quick uses the sizes 0.125, 0.25, 0.5 and 1 MB (and 20 s at most per run).  Run on an otherwise idle
machine for figures to quote: CPU time does not count waiting for a core, but
caches are shared.
"""
import argparse
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

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


def primitives(n):
    """n distinct <primitive>s, chained."""
    return (HEAD.format(name='primitives') + '<lower function="f">\n<arg dtype="f32" shape="8"/>\n'
            + ''.join(f'<primitive name="p{i}" args="{i}"><default target="t{i}"/>{RESULT}'
                      '</primitive>\n' for i in range(n))
            + '</lower>\n</scenario>\n')


def branches(n):
    """One platform_dependent with n <branch platforms="cpu"> of one op."""
    return (HEAD.format(name='branches')
            + '<lower function="f" platforms="cpu,tpu">\n<arg dtype="f32" shape="8"/>\n'
            + '<platform_dependent args="0">\n' + '<branch platforms="cpu" op="sine"/>\n' * n
            + '<default op="negate"/></platform_dependent>\n</lower>\n</scenario>\n')


def aliases(n):
    """n args, one buffer_callback with n results and n aliases."""
    return (HEAD.format(name='aliases') + '<lower function="f" platforms="cpu">\n'
            + '<arg dtype="f32" shape="8"/>\n' * n
            + '<buffer_callback args="%s">\n' % ','.join(str(i) for i in range(n))
            + (RESULT + '\n') * n
            + ''.join(f'<alias input="{i}" output="{i}"/>\n' for i in range(n))
            + '</buffer_callback>\n</lower>\n</scenario>\n')


def equations(n):
    """n chained sine ops."""
    return (HEAD.format(name='equations') + '<lower function="f">\n<arg dtype="f32" shape="8"/>\n'
            + ''.join(f'<op kind="sine" args="{i}"/>\n' for i in range(n))
            + '</lower>\n</scenario>\n')


def attributes(n):
    """One <op> with n junk attributes (refused before the parser)."""
    return (HEAD.format(name='attributes') + '<lower function="f">\n<arg dtype="f32" shape="8"/>\n'
            + '<op kind="sine" args="0"' + ''.join(f' a{i}=""' for i in range(n))
            + '/>\n</lower>\n</scenario>\n')


def children(n):
    """n <arg> children of <lower>, up to the limit of 131072 children."""
    return (HEAD.format(name='children') + '<lower function="f">\n'
            + '<arg dtype="f32" shape="8"/>\n' * min(n, 131071)
            + '<op kind="sine" args="0"/>\n</lower>\n</scenario>\n')


def long_text(n):
    """A <description> of n characters with entities."""
    return (HEAD.format(name='long-text') + '<description>'
            + 'a &lt; b &amp; c ' * (n // 17 + 1) + '</description>\n'
            + '<lower function="f">\n<arg dtype="f32" shape="8"/>\n'
            + '<op kind="sine" args="0"/>\n</lower>\n</scenario>\n')


def long_name(n):
    """A function name of n characters (the module's name is made from it)."""
    return (HEAD.format(name='long-name') + f'<lower function="{"f-" * (n // 2)}">\n'
            + '<arg dtype="f32" shape="8"/>\n<op kind="sine" args="0"/>\n</lower>\n</scenario>\n')


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


# name -> (generator, the subcommand the input is given to)
CLASSES = {
    'platforms-pd': (platforms_pd, ['lower']),
    'platforms-rules': (platforms_rules, ['lower']),
    'platforms-default': (platforms_default, ['lower']),
    'platforms-equations': (platforms_equations, ['lower']),
    'jax-platforms': (jax_platforms, ['lower']),
    'quiet-failures': (quiet_failures, ['explain']),
    'rules-distinct': (rules_distinct, ['lower']),
    'rules-unmatched': (rules_unmatched, ['lower']),
    'primitives': (primitives, ['lower']),
    'branches': (branches, ['lower']),
    'aliases': (aliases, ['lower']),
    'equations': (equations, ['lower']),
    'explain-platforms': (platforms_pd, ['explain']),
    'attributes': (attributes, ['lower']),
    'children': (children, ['lower']),
    'long-text': (long_text, ['lower']),
    'long-name': (long_name, ['lower']),
    'merge-csv': (merge_csv, ['matrix', '--merge']),
    'check-files': (check_files, ['check']),
    'check-loops': (check_loops, ['check']),
}
FOLDER_CLASSES = {'check-files', 'check-loops'}
# Folder classes are smaller: every file is a whole lowering.
FOLDER_SCALE = 0.1


def run_child(cmd, timeout):
    """CPU seconds (user + system), peak RSS in MB and exit code of one run of
    `cmd`, reaped here so that the rusage is the child's alone."""
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            os.execv(cmd[0], cmd)
        finally:
            os._exit(127)
    deadline = time.monotonic() + timeout
    while True:
        done, status, ru = os.wait4(pid, os.WNOHANG)
        if done:
            return ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)


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


def make_input(name, gen, target_bytes, work):
    """The input of about target_bytes: its path and exact size in bytes."""
    if name in FOLDER_CLASSES:
        folder = tempfile.mkdtemp(dir=work)
        per_item = len(SMALL) if name == 'check-files' else 64
        size = gen(max(1, int(target_bytes / per_item)), folder)
        return folder, size
    probe = len(gen(1000))
    n = max(1, int(1000 * target_bytes / probe))
    text = gen(n)
    path = os.path.join(work, f'{name}-{n}.{"csv" if name == "merge-csv" else "xml"}')
    with open(path, 'w') as f:
        f.write(text)
    return path, len(text.encode())


def best_of(cmd, runs, timeout):
    results = [run_child(cmd, timeout) for _ in range(runs)]
    cpu = min(r[0] for r in results)
    rss = max(r[1] for r in results)
    return cpu, rss, results[0][2]


def measure(name, sizes, lowersim, base_cpu, base_rss, a, work):
    """One class at each size, a line each: its fitted points, CPU and RSS per
    MB, and the sizes refused."""
    gen, command = CLASSES[name]
    points, per_mb, rss_per_mb, refused = [], [], [], []
    first_code = None
    for mb in sizes:
        scale = FOLDER_SCALE if name in FOLDER_CLASSES else 1.0
        path, size = make_input(name, gen, mb * scale * 1024 * 1024, work)
        cpu, rss, code = best_of([lowersim] + command + [path], a.runs, a.timeout)
        size_mb = size / (1024 * 1024)
        first_code = code if first_code is None else first_code
        if code == first_code:
            points.append((size_mb, cpu))
            per_mb.append((cpu - base_cpu) / size_mb)
            rss_per_mb.append(max(rss - base_rss, 0) / size_mb)
        else:  # past a limit of the format: refused, and not fitted
            refused.append(size_mb)
        print(f'{name:<19} {size_mb:6.2f} {cpu:8.3f} {per_mb[-1]:8.3f} {rss:8.1f} '
              f'{rss_per_mb[-1]:8.1f} {code:4d}', flush=True)
        if os.path.isdir(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
    return points, per_mb, rss_per_mb, refused


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--lowersim', default=os.path.join(os.path.dirname(__file__), '..', 'build',
                                                       'lowersim'))
    ap.add_argument('--sizes', default='0.5,1,2,4', help='MB, comma-separated')
    ap.add_argument('--classes', default=','.join(CLASSES))
    ap.add_argument('--max-exponent', type=float, default=None)
    ap.add_argument('--runs', type=int, default=1, help='best CPU time of this many runs')
    ap.add_argument('--timeout', type=float, default=120.0)
    ap.add_argument('--quick', action='store_true')
    a = ap.parse_args()
    if a.quick:
        a.timeout = min(a.timeout, 20.0)
    sizes = [0.125, 0.25, 0.5, 1] if a.quick else [float(s) for s in a.sizes.split(',')]
    lowersim = os.path.abspath(a.lowersim)
    work = tempfile.mkdtemp(prefix='lowersim-hostile-')
    failed = []
    try:
        global MERGE_META
        MERGE_META = merge_meta(lowersim, work)
        minimal = os.path.join(work, 'minimal.xml')
        with open(minimal, 'w') as f:
            f.write(SMALL)
        base_cpu, base_rss, _ = best_of([lowersim, 'lower', minimal], 5, a.timeout)
        print(f'start-up (one op): {base_cpu * 1000:.1f} ms CPU, {base_rss:.1f} MB peak RSS')
        print(f'{"class":<19} {"MB":>6} {"CPU s":>8} {"s/MB":>8} {"RSS MB":>8} '
              f'{"RSS/MB":>8} {"exit":>4}')
        summary = []
        for name in a.classes.split(','):
            points, per_mb, rss_per_mb, refused = measure(name, sizes, lowersim, base_cpu,
                                                          base_rss, a, work)
            k = fit_exponent(points, base_cpu)
            if a.max_exponent is not None and k > a.max_exponent:
                # CPU time on a shared machine: a class over the limit is measured once
                # more, and the better fit stands (a superlinear class stays over it).
                print(f'{name}: exponent {k:.2f} over {a.max_exponent}: measured again',
                      flush=True)
                again = measure(name, sizes, lowersim, base_cpu, base_rss, a, work)
                k2 = fit_exponent(again[0], base_cpu)
                if k2 < k:
                    points, per_mb, rss_per_mb, refused = again
                    k = k2
            summary.append((name, max(per_mb), max(rss_per_mb), k, refused))
            if a.max_exponent is not None and k > a.max_exponent:
                failed.append(name)
        print('\nbounds: per class, the worst CPU seconds and peak-RSS MB per MB of input, '
              'and the fitted exponent (1: linear)')
        for name, spm, rpm, k, refused in summary:
            verdict = 'n log n or better' if k <= 1.3 else 'SUPERLINEAR'
            note = (f' (refused from {refused[0]:.1f} MB: a limit of the format)'
                    if refused else '')
            print(f'  {name:<19} {spm:7.3f} s/MB {rpm:8.1f} MB/MB  exponent {k:5.2f}  '
                  f'{verdict}{note}')
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failed:
        print(f'over the exponent {a.max_exponent}: {", ".join(failed)}')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
