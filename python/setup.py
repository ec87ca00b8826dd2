"""Builds the lowersim wheel: the pure-Python package plus the shared
libraries in lowersim/_lib/, so the installed package needs neither the
repository nor its build tree.  The libraries come from, in order:

  1. $LOWERSIM_BUILD_DIR, a configured and built lowersim tree;
  2. the repository's build/ (what ./run makes), when it has them;
  3. a fresh CMake build of the repository into the wheel's build folder
     (needs what ./run installs: cmake, a C/C++ compiler, MLIR 19, libxml2).

No compiler is needed at install time in cases 1 and 2.  The libraries
keep a run path to Debian's MLIR (/usr/lib/llvm-19/lib).  The repository is
the folder above this one, or $LOWERSIM_SOURCE_DIR (for a copy of python/)."""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = pathlib.Path(__file__).resolve().parent
REPO = pathlib.Path(os.environ.get("LOWERSIM_SOURCE_DIR", HERE.parent))
LIBRARIES = ("liblowersim.so", "liblowersim_scenario.so")


def version() -> str:
  header = (REPO / "include" / "lowersim" / "version.h").read_text()
  return re.search(r'#define LOWERSIM_VERSION_STRING "([^"]+)"', header).group(1)


def has_libraries(folder: pathlib.Path) -> bool:
  return all((folder / name).exists() for name in LIBRARIES)


def library_folder(scratch: pathlib.Path) -> pathlib.Path:
  given = os.environ.get("LOWERSIM_BUILD_DIR")
  if given:
    if not has_libraries(pathlib.Path(given)):
      raise SystemExit(f"lowersim: LOWERSIM_BUILD_DIR={given} has no {' or '.join(LIBRARIES)}")
    return pathlib.Path(given)
  if has_libraries(REPO / "build"):
    return REPO / "build"
  tree = scratch / "lowersim-build"
  subprocess.run(["cmake", "-S", str(REPO), "-B", str(tree), "-DBUILD_TESTING=OFF",
                  "-DCMAKE_BUILD_TYPE=Release"], check=True)
  subprocess.run(["cmake", "--build", str(tree), "-j2", "--target", "lowersim_scenario_shared"],
                 check=True)
  return tree


class BuildWithLibraries(build_py):
  def run(self):
    super().run()
    folder = library_folder(pathlib.Path(self.build_lib).parent)
    target = pathlib.Path(self.build_lib) / "lowersim" / "_lib"
    target.mkdir(parents=True, exist_ok=True)
    for name in LIBRARIES:
      shutil.copy2((folder / name).resolve(), target / name)


class BinaryDistribution(Distribution):
  """The wheel holds shared libraries: it is for this platform only."""

  def has_ext_modules(self):
    return True


commands = {"build_py": BuildWithLibraries}
try:  # the bdist_wheel of setuptools >= 70, else of the wheel package
  from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:
  try:
    from wheel.bdist_wheel import bdist_wheel
  except ImportError:
    bdist_wheel = None
if bdist_wheel:

  class PlatformWheel(bdist_wheel):
    """ctypes bindings: any Python 3, this platform (py3-none-linux_x86_64)."""

    def get_tag(self):
      return ("py3", "none", super().get_tag()[2])

  commands["bdist_wheel"] = PlatformWheel

setup(version=version(), cmdclass=commands, distclass=BinaryDistribution)
