#!/usr/bin/env python3
"""bench/scaling.py: how `lowersim lower` scales with the number of equations.

For each equation kind, a scenario of N equations (chained where they have
results) is lowered with `lowersim lower FILE -o /dev/null --max-bytes ...`
at each N (default 1000, 10000, 100000).  Printed per kind and N: the file's
size, wall and CPU seconds, peak RSS (MiB) and CPU microseconds per equation;
with --instructions, callgrind's instruction count per equation too (at the
sizes up to --instructions-max, default 10000: callgrind runs about 50 times
slower).  The last column, `growth`, is the cost per equation at this N over
the cost per equation at the previous N (instructions when counted, else CPU
time): about 1.0 throughout is linear; start-up makes it fall below 1 at the
smallest sizes.  --check fails (exit 1) when a growth is above --limit
(default 1.6 for CPU time, which is noisy on a shared machine; instructions
are held to the same limit).

usage: bench/scaling.py [--lowersim PATH] [--sizes 1000,10000,100000]
                        [--kinds op,primitive,...] [--instructions]
                        [--instructions-max N] [--check] [--limit X]
                        [--stream-eqns N]
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

R = '<result dtype="f32" shape="8"/>'

# kind -> (platforms, runtime, equation(i))
KINDS = {
    'op': (None, '', lambda i: f'<op kind="sine" args="{i}"/>'),
    'primitive': ('cpu', '<runtime><backend platform="cpu"/></runtime>',
                  lambda i: f'<primitive name="p{i}" args="{i}"><default target="t{i}"/>{R}'
                            '</primitive>'),
    'platform_dependent': (
        'cpu,cuda,rocm,tpu', '<runtime><backend platform="cpu"/></runtime>',
        lambda i: f'<platform_dependent args="{i}"><branch platforms="tpu" op="sine"/>'
                  '<branch platforms="cuda" op="cosine"/><branch platforms="rocm" op="cosine"/>'
                  '<default op="negate"/></platform_dependent>'),
    'buffer_callback': ('cpu', '<runtime><backend platform="cpu"/></runtime>',
                        lambda i: f'<buffer_callback args="{i}">{R}</buffer_callback>'),
    'pure_callback': ('cpu', '<runtime><backend platform="cpu"/></runtime>',
                      lambda i: f'<pure_callback args="{i}">{R}</pure_callback>'),
    'io_callback': ('cpu', '<runtime><backend platform="cpu"/></runtime>',
                    lambda i: f'<io_callback args="{i}">{R}</io_callback>'),
    'debug_callback': ('cpu', '<runtime><backend platform="cpu"/></runtime>',
                       lambda i: '<debug_callback args="0"/>'),
    'ffi_call': ('cpu', '<runtime><backend platform="cpu"/></runtime>',
                 lambda i: f'<ffi_call target="t{i}" args="{i}">{R}</ffi_call>'),
    'compute_on': ('cpu', '<runtime><backend platform="cpu"/></runtime>',
                   lambda i: f'<compute_on compute_type="device_host" op="sine" args="{i}"/>'),
    # a session: the first lowering exports e, whose call each equation is
    'call_exported': (None, '<lower function="e" export="true"><arg dtype="f32" shape="8"/>'
                            '<op kind="sine" args="0"/></lower>',
                      lambda i: f'<call_exported lowering="1" args="{i}"/>'),
    'pallas_call': ('tpu',
                    '<runtime><backend platform="cpu"/><backend platform="tpu"/></runtime>',
                    lambda i: f'<pallas_call args="{i}" kernel="add_one" grid="4">{R}'
                              '</pallas_call>'),
}


def write_scenario(path, kind, n):
    platforms, runtime, eqn = KINDS[kind]
    with open(path, 'w') as f:
        f.write(f'<?xml version="1.0"?>\n<scenario name="{kind}-{n}">\n{runtime}\n')
        f.write('<lower function="f"%s>\n<arg dtype="f32" shape="8"/>\n'
                % (f' platforms="{platforms}"' if platforms else ''))
        for i in range(n):
            f.write(eqn(i) + '\n')
        f.write('</lower>\n</scenario>\n')
    return os.path.getsize(path)


def run(cmd):
    """wall s, CPU s, peak RSS MiB, exit code of one run."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    err = p.stderr.read().decode(errors='replace')
    p.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.stderr.write(f'scaling.py: {" ".join(cmd)}: exit {code}: {err.strip()}\n')
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, code


def instructions(cmd, tmp):
    out = os.path.join(tmp, 'cg.out')
    subprocess.run(['valgrind', '--tool=callgrind', f'--callgrind-out-file={out}'] + cmd,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    with open(out) as f:
        for line in f:
            if line.startswith('summary:'):
                return int(line.split()[1])
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--lowersim', default='build-rel/lowersim')
    ap.add_argument('--sizes', default='1000,10000,100000')
    ap.add_argument('--kinds', default=','.join(KINDS))
    ap.add_argument('--instructions', action='store_true')
    ap.add_argument('--instructions-max', type=int, default=10000)
    ap.add_argument('--check', action='store_true')
    ap.add_argument('--limit', type=float, default=1.6)
    ap.add_argument('--stream-eqns', type=int, default=None,
                    help="lower's --stream-eqns (default: lower's own, 1024; 0: the whole "
                         "module held, as before streaming)")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(',')]
    kinds = a.kinds.split(',')
    for k in kinds:
        if k not in KINDS:
            ap.error(f'unknown kind {k!r} (known: {", ".join(KINDS)})')
    failed = []
    print(f'{"kind":<20} {"N":>7} {"file MB":>8} {"wall s":>8} {"CPU s":>8} {"RSS MiB":>8} '
          f'{"CPU us/eqn":>10} {"Ir/eqn":>10} {"growth":>7}')
    with tempfile.TemporaryDirectory() as tmp:
        for kind in kinds:
            prev = None
            for n in sizes:
                path = os.path.join(tmp, f'{kind}-{n}.xml')
                size = write_scenario(path, kind, n)
                cmd = [a.lowersim, 'lower', '--max-bytes', str(max(size, 1)), path,
                       '-o', '/dev/null']
                if a.stream_eqns is not None:
                    cmd[2:2] = ['--stream-eqns', str(a.stream_eqns)]
                wall, cpu, rss, code = run(cmd)
                ir = instructions(cmd, tmp) if a.instructions and n <= a.instructions_max else None
                per = (ir / n) if ir is not None else cpu / n
                growth = None
                if prev is not None and prev[0] == (ir is not None) and prev[1] > 0:
                    growth = per / prev[1]
                prev = (ir is not None, per)
                print(f'{kind:<20} {n:>7} {size / 1e6:>8.2f} {wall:>8.3f} {cpu:>8.3f} {rss:>8.1f} '
                      f'{cpu / n * 1e6:>10.1f} {ir / n if ir is not None else float("nan"):>10.0f} '
                      f'{growth if growth is not None else float("nan"):>7.2f}'
                      f'{"" if code == 0 else "  (failed)"}', flush=True)
                if code != 0 or (growth is not None and growth > a.limit):
                    failed.append(f'{kind} at {n}')
                os.unlink(path)
    if a.check and failed:
        print('not linear (or failed): ' + ', '.join(failed))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
