"""A pytest plugin that runs lowersim's conformance corpus against a port.

    pytest -p lowersim.pytest_plugin --lowersim-port 'mytool lower {scenario}' testdata/conformance

(installed with pip, the plugin is registered through the `pytest11` entry
point, so `-p` is not needed, and harmless).  Every scenario file (*.xml)
under the paths given is one test: the port's command runs with {scenario}
replaced by the file's path (shell-quoted), and its outcome is compared with
lowersim's as `lowersim check --impl` compares it:

  - lowersim lowers to a module: the port must exit 0 with a module on
    stdout; both are parsed and printed by MLIR (lowersim.reprint) and must
    be equal;
  - lowersim raises JAX's error: the port must exit non-zero with a line of
    stderr ending in `ErrorClass: message` (as `CODE: ErrorClass: message`
    does);
  - a scenario lowersim itself refuses as invalid is skipped.

Without --lowersim-port the plugin does nothing (and does not load the
library).
"""

from __future__ import annotations

import difflib
import pathlib
import shlex
import subprocess
import warnings
import xml.etree.ElementTree as ET

import pytest


def pytest_addoption(parser):
  group = parser.getgroup("lowersim", "lowersim conformance corpus against a port")
  group.addoption("--lowersim-port", metavar="'COMMAND {scenario}'", default=None,
                  help="a shell command lowering one scenario file, {scenario} its path: "
                       "each *.xml under the paths given becomes a test comparing it with lowersim")
  group.addoption("--lowersim-jax", metavar="VERSION", default=None,
                  help="the JAX version lowersim lowers as (lowersim.versions(); default: the newest)")
  group.addoption("--lowersim-timeout", metavar="SECONDS", type=float, default=60.0,
                  help="how long the port may take per scenario (default 60)")


def pytest_collect_file(parent, file_path: pathlib.Path):
  if file_path.suffix == ".xml" and parent.config.getoption("lowersim_port"):
    return ScenarioFile.from_parent(parent, path=file_path)
  return None


class ScenarioFile(pytest.File):
  def collect(self):
    try:
      name = ET.parse(self.path).getroot().get("name")
    except ET.ParseError:
      name = None
    yield ScenarioItem.from_parent(self, name=name or self.path.stem)


class PortDiffers(Exception):
  """What the port does differently from lowersim, for the report."""


class ScenarioItem(pytest.Item):
  def runtest(self):
    import lowersim  # only now: collection without --lowersim-port loads nothing

    config = self.config
    try:
      with warnings.catch_warnings():  # compared as `lowersim check --impl` compares: not warnings
        warnings.simplefilter("ignore", lowersim.JaxWarning)
        ours = lowersim.lower_file(self.path, jax=config.getoption("lowersim_jax"))
      error = None
    except lowersim.InvalidScenario as e:
      pytest.skip(f"lowersim refuses the scenario: {e.message}")
    except lowersim.LoweringError as e:
      ours, error = None, e
    status, out, err = self._run_port(config.getoption("lowersim_port"),
                                      config.getoption("lowersim_timeout"))
    if error is None:
      if status != 0:
        raise PortDiffers(f"lowersim gives a module, the port exits {status}:\n{err}")
      try:
        theirs = lowersim.reprint(out)
      except lowersim.InvalidScenario as e:
        raise PortDiffers(f"the port's output does not parse as MLIR: {e.message}") from None
      ours = lowersim.reprint(ours)
      if ours != theirs:
        diff = difflib.unified_diff(ours.splitlines(), theirs.splitlines(), "lowersim", "port",
                                    lineterm="")
        raise PortDiffers("the modules differ:\n" + "\n".join(diff))
    else:
      want = f"{error.jax_class}: {error.message}"
      if status == 0 or not _has_error_line(err, want):
        raise PortDiffers(f'expected the error "{want}"; the port exits {status}: '
                          + (err if status else "(a module)"))

  def _run_port(self, command: str, timeout: float) -> tuple[int, str, str]:
    line = command.replace("{scenario}", shlex.quote(str(self.path)))
    try:
      p = subprocess.run(line, shell=True, capture_output=True, timeout=timeout,
                         stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
      raise PortDiffers(f"the port took over {timeout:g} s: {line}") from None
    return (p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"))

  def repr_failure(self, excinfo, style=None):
    if isinstance(excinfo.value, PortDiffers):
      return str(excinfo.value)
    return super().repr_failure(excinfo, style)

  def reportinfo(self):
    return self.path, None, f"scenario {self.path}"


def _has_error_line(text: str, want: str) -> bool:
  """A line of `text` ends with `want`, after a space or at its start."""
  for line in text.splitlines():
    if line == want or line.endswith(" " + want):
      return True
  return False
