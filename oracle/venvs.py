"""One Python environment per JAX release: build/oracle-venvs/RELEASE.

Each is made from oracle/requirements/RELEASE.txt with an interpreter of the
Python that file names, only when it is missing or the file changed (its
SHA-256 is kept in the venv, .requirements-sha256).  A `.pth` file puts the
repository on its path, so `VENV/bin/python -m oracle` works from anywhere.
build/oracle-venv, the one environment of the oracle's first release, stays
as a symbolic link to build/oracle-venvs/0.10.2 for the tools that name it
(`lowersim check --normalize jax`, the python tests).

Interpreters are looked for, for Python X.Y, in this order: pyenv's
installed versions (`$PYENV_ROOT/versions/X.Y.*`, else ~/.pyenv's, newest
patch first), `pyenv which pythonX.Y`, `pythonX.Y` on PATH, then `python3`
on PATH; each candidate is run, and kept when it is X.Y and has `venv` and
`ensurepip`.  No JAX here: the campaign driver runs this with any Python 3.
"""

from __future__ import annotations

import dataclasses
import glob
import os
import shutil
import subprocess
import sys
from typing import Callable, Optional

from oracle import releases

VENVS = os.path.join(releases.ROOT, "build", "oracle-venvs")
LEGACY_VENV = os.path.join(releases.ROOT, "build", "oracle-venv")
LEGACY_RELEASE = "0.10.2"
HASH_FILE = ".requirements-sha256"


@dataclasses.dataclass
class Probe:
  """One interpreter tried: where it came from and what it is."""
  path: str
  source: str
  verdict: str          # "ok" or why it was not taken


def _run(argv: list[str], timeout: float = 30) -> Optional[str]:
  try:
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
  except (OSError, subprocess.TimeoutExpired):
    return None
  return p.stdout if p.returncode == 0 else None


_CHECK = ("import sys, venv, ensurepip; "
          "print('%d.%d' % sys.version_info[:2])")


def probe(path: str, want: str, source: str, run: Callable = _run) -> Probe:
  """Whether `path` is Python `want` with venv and ensurepip."""
  out = run([path, "-c", _CHECK])
  if out is None:
    # The version alone, to say why it was refused.
    v = run([path, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"])
    if v is None:
      return Probe(path, source, "does not run")
    if v.strip() != want:
      return Probe(path, source, f"is Python {v.strip()}")
    return Probe(path, source, "has no venv/ensurepip (Debian: apt-get install python3-venv)")
  if out.strip() != want:
    return Probe(path, source, f"is Python {out.strip()}")
  return Probe(path, source, "ok")


def candidates(want: str, env: Optional[dict] = None, which: Callable = shutil.which,
               run: Callable = _run) -> list[tuple[str, str]]:
  """(path, where it came from) for Python `want` ("3.12"), best first."""
  env = os.environ if env is None else env
  found: list[tuple[str, str]] = []
  roots = []
  if env.get("PYENV_ROOT"):
    roots.append(env["PYENV_ROOT"])
  pyenv = which("pyenv")
  if pyenv:
    root = run([pyenv, "root"])
    if root and root.strip():
      roots.append(root.strip())
  if env.get("HOME"):
    roots.append(os.path.join(env["HOME"], ".pyenv"))
  for root in dict.fromkeys(roots):
    versions = glob.glob(os.path.join(root, "versions", want + ".*"))
    versions = [v for v in versions if os.path.basename(v)[len(want) + 1:].isdigit()]
    for v in sorted(versions, key=lambda p: int(os.path.basename(p).split(".")[2]), reverse=True):
      found.append((os.path.join(v, "bin", "python" + want), f"pyenv version {os.path.basename(v)}"))
  if pyenv:
    out = run([pyenv, "which", "python" + want])
    if out and out.strip():
      found.append((out.strip(), "pyenv which python" + want))
  for name in ("python" + want, "python3"):
    path = which(name, path=env.get("PATH"))
    if path:
      found.append((path, f"{name} on PATH"))
  # Each interpreter once, under the first path it was found by.
  seen, out = set(), []
  for path, source in found:
    key = os.path.realpath(path) if os.path.exists(path) else path
    if key not in seen:
      seen.add(key)
      out.append((path, source))
  return out


class NoInterpreter(Exception):
  """No interpreter of the Python a release needs: the message says which
  release, which Python and what was tried."""


def find_interpreter(release: str, want: str, env: Optional[dict] = None,
                     which: Callable = shutil.which, run: Callable = _run) -> str:
  tried = []
  for path, source in candidates(want, env, which, run):
    p = probe(path, want, source, run)
    if p.verdict == "ok":
      return path
    tried.append(p)
  what = "; ".join(f"{p.path} ({p.source}) {p.verdict}" for p in tried) or "nothing found"
  raise NoInterpreter(
      f"JAX {release} needs Python {want} (oracle/requirements/{release}.txt; PyPI has its "
      f"wheels for that Python only) and there is none with venv here: looked in pyenv's "
      f"versions, `pyenv which python{want}`, python{want} and python3 on PATH: {what}. "
      f"Install Python {want} (e.g. `pyenv install {want}`) to judge JAX {release}.")


class VenvError(Exception):
  pass


def venv_dir(release: str) -> str:
  return os.path.join(VENVS, release)


def is_current(release: str) -> bool:
  d = venv_dir(release)
  try:
    with open(os.path.join(d, HASH_FILE), encoding="utf-8") as f:
      current = f.read().strip() == releases.requirements_hash(release)
  except OSError:
    return False
  return current and os.access(os.path.join(d, "bin", "python"), os.X_OK)


def ensure(release: str, log=print) -> str:
  """The venv of `release`, made when missing or stale; returns its python.
  Raises NoInterpreter or VenvError."""
  d = venv_dir(release)
  python = os.path.join(d, "bin", "python")
  if not is_current(release):
    want = releases.python_of(release)
    interpreter = find_interpreter(release, want)
    req = releases.requirements_file(release)
    log(f"oracle: creating {os.path.relpath(d, releases.ROOT)} (Python {want}: {interpreter}) "
        f"from {os.path.relpath(req, releases.ROOT)}")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(VENVS, exist_ok=True)
    for step in ([interpreter, "-m", "venv", d],
                 [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", req]):
      p = subprocess.run(step, capture_output=True, text=True)
      if p.returncode:
        shutil.rmtree(d, ignore_errors=True)
        raise VenvError(f"JAX {release}: `{' '.join(step)}` failed: "
                        + (p.stderr.strip().splitlines() or ["(no output)"])[-1])
    site = subprocess.run([python, "-c", "import site; print(site.getsitepackages()[0])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    with open(os.path.join(site, "lowersim-oracle.pth"), "w", encoding="utf-8") as f:
      f.write(releases.ROOT + "\n")
    with open(os.path.join(d, HASH_FILE), "w", encoding="utf-8") as f:
      f.write(releases.requirements_hash(release) + "\n")
  if release == LEGACY_RELEASE:
    _link_legacy()
  return python


def _link_legacy() -> None:
  """build/oracle-venv -> oracle-venvs/0.10.2 (a venv made there by an
  older ./run is replaced by the link)."""
  target = os.path.join("oracle-venvs", LEGACY_RELEASE)
  if os.path.islink(LEGACY_VENV):
    if os.readlink(LEGACY_VENV) == target:
      return
    os.unlink(LEGACY_VENV)
  elif os.path.isdir(LEGACY_VENV):
    shutil.rmtree(LEGACY_VENV)
  elif os.path.exists(LEGACY_VENV):
    os.unlink(LEGACY_VENV)
  os.symlink(target, LEGACY_VENV)


def main(argv: list[str]) -> int:
  """`python3 -m oracle.venvs RELEASE...`: make the venvs (./run oracle
  does this through the campaign); prints each one's python."""
  code = 0
  for release in argv or releases.all_releases():
    try:
      print(ensure(release, log=lambda m: print(m, file=sys.stderr)))
    except (NoInterpreter, VenvError) as e:
      print(f"oracle: {e}", file=sys.stderr)
      code = 1
  return code


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
