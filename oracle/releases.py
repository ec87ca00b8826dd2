"""The JAX releases the oracle judges, and what each needs.

A release is judgeable when oracle/requirements/RELEASE.txt exists: the
exact pins of every package of its environment and, in a `# python: X.Y`
line, the Python it needs (PyPI has that release's wheels for it).  The
list of releases is the list of those files, oldest first; nothing else in
the oracle names a release.

This module needs no JAX (the campaign driver, oracle/campaign.py, runs it
with any Python 3), except `installed()` and `pins()`, which ask the JAX of
the process they run in.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from typing import Optional

ORACLE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(ORACLE)
REQUIREMENTS = os.path.join(ORACLE, "requirements")
KNOWN_DIR = os.path.join(ORACLE, "known-differences")


def version_key(release: str) -> tuple:
  """0.12.0.1 after 0.12.0, 0.10.2 before 0.11.0 (numeric, part by part)."""
  return tuple(int(p) if p.isdigit() else -1 for p in release.split("."))


def all_releases(directory: Optional[str] = None) -> list[str]:
  """Every release with a requirements file, oldest first."""
  names = [f[:-len(".txt")] for f in os.listdir(directory or REQUIREMENTS)
           if f.endswith(".txt") and re.fullmatch(r"\d+(\.\d+)+", f[:-len(".txt")])]
  return sorted(names, key=version_key)


def requirements_file(release: str, directory: Optional[str] = None) -> str:
  return os.path.join(directory or REQUIREMENTS, release + ".txt")


def python_of(release: str, directory: Optional[str] = None) -> str:
  """The Python (`X.Y`) the release's requirements file names."""
  path = requirements_file(release, directory)
  with open(path, encoding="utf-8") as f:
    for line in f:
      m = re.match(r"#\s*python:\s*(\d+\.\d+)\b", line)
      if m:
        return m.group(1)
  raise ValueError(f"{path}: no '# python: X.Y' line")


def requirements_hash(release: str, directory: Optional[str] = None) -> str:
  with open(requirements_file(release, directory), "rb") as f:
    return hashlib.sha256(f.read()).hexdigest()


class SelectionError(ValueError):
  pass


def select(spec: Optional[str], releases: list[str]) -> list[str]:
  """`--jax` as given: None (every release), `all`, or a comma-separated
  list of releases (each must have a requirements file); oldest first,
  each once."""
  if spec is None or spec.strip() == "all":
    return list(releases)
  chosen = []
  for name in (p.strip() for p in spec.split(",")):
    if not name:
      continue
    if name == "all":
      chosen += releases
    elif name in releases:
      chosen.append(name)
    else:
      raise SelectionError(f"--jax {spec}: no JAX release {name!r} (the oracle judges "
                           f"{', '.join(releases)}: oracle/requirements/RELEASE.txt)")
  if not chosen:
    raise SelectionError(f"--jax {spec!r}: no release named")
  return sorted(set(chosen), key=version_key)


# --- lowersim's side -----------------------------------------------------------

def lowersim_profiles(binary: str) -> list[str]:
  """The JAX versions `lowersim versions` lists, its default (the newest)
  last."""
  try:
    out = subprocess.run([binary, "versions"], capture_output=True, text=True, timeout=30).stdout
  except (OSError, subprocess.TimeoutExpired):
    return []
  names, default = [], None
  for m in re.finditer(r"^  (\S+)\s+[0-9a-f]{7,40}\s(.*)$", out, re.M):
    if "(default)" in m.group(2):
      default = m.group(1)
    else:
      names.append(m.group(1))
  return names + ([default] if default else [])


def lowersim_jax(release: str, profiles: list[str]) -> str:
  """lowersim's `--jax` for scenarios judged on `release` that pin none:
  the profile named like the release, else (until lowersim models the
  release) its newest profile, the default."""
  if release in profiles:
    return release
  return profiles[-1] if profiles else release


# --- Inside a JAX process ----------------------------------------------------------

def installed() -> str:
  """The release of the JAX this process imports (the oracle is that JAX)."""
  import jax
  return jax.__version__


def installed_commit() -> str:
  """The JAX commit the installed release was built from, when the wheel
  says (jax.version._git_hash), else ''."""
  import jax.version
  commit = getattr(jax.version, "_git_hash", None)
  return commit if isinstance(commit, str) and re.fullmatch(r"[0-9a-f]{40}", commit) else ""


def names_release(pin: str, release: str, commit: str) -> bool:
  """Whether a scenario's jax= names `release`: its version string, or a
  prefix of at least 7 hex digits of the commit it was built from (as
  lowersim reads jax=)."""
  return pin == release or (bool(commit) and 7 <= len(pin) <= 40 and
                            re.fullmatch(r"[0-9a-f]+", pin) is not None and commit.startswith(pin))


def pins(pin: Optional[str]) -> bool:
  """Whether a scenario with jax=`pin` (None: unpinned) is judged by the
  installed JAX: unpinned scenarios are judged on every release, a pinned
  one on its release alone."""
  return pin is None or names_release(pin, installed(), installed_commit())


def known_file(release: str) -> str:
  """The release's known differences (oracle/known.py reads them)."""
  return os.path.join(KNOWN_DIR, release + ".txt")
