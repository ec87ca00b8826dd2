"""A pytest plugin that runs lowersim's conformance corpus against a port.

    pytest -p lowersim.pytest_plugin --lowersim-port 'mytool lower {scenario}' testdata/conformance
    pytest -p lowersim.pytest_plugin --lowersim-batch --lowersim-port 'python myport.py --batch' ...

(installed with pip, the plugin is registered through the `pytest11` entry
point, so `-p` is not needed, and harmless).  Every scenario file (*.xml)
under the paths given is one test: the port's answer is judged against
lowersim's outcome by the library's one judge (lowersim.judge, the function
`lowersim check --impl` calls): modules parsed and printed by MLIR, Pallas
kernels decoded and compared as modules, JAX's error class and message on
the last error line of stderr.  A difference fails the test with one line
naming where the two first differ, then the unified diff.

  - without --lowersim-batch the command runs once per scenario, with
    {scenario} replaced by the file's path (shell-quoted);
  - with --lowersim-batch the command (no {scenario}) starts once per
    session (once per pytest-xdist worker) and speaks check's batch
    protocol (python/lowersim/port.py serves it): a path per line on its
    stdin, `EXIT OUT_BYTES ERR_BYTES` and the bytes on its stdout;
  - --lowersim-normalize jax reads both modules with jaxlib's MLIR first
    (python -m oracle.normalize, run by $LOWERSIM_JAX_PYTHON or
    build/oracle-venvs/RELEASE/bin/python or build/oracle-venv/bin/python),
    so a port may print StableHLO's pretty form;
  - a scenario lowersim refuses as invalid is skipped, and so is one the
    port answers with exit 3 and `not expressible ...` (the oracle's answer).

Without --lowersim-port the plugin does nothing (and does not load the
library).
"""

from __future__ import annotations

import os
import pathlib
import shlex
import subprocess
import tempfile
import threading
import xml.etree.ElementTree as ET

import pytest


def pytest_addoption(parser):
  group = parser.getgroup("lowersim", "lowersim conformance corpus against a port")
  group.addoption("--lowersim-port", metavar="'COMMAND {scenario}'", default=None,
                  help="a shell command lowering one scenario file, {scenario} its path (with "
                       "--lowersim-batch: a command speaking check's batch protocol): each *.xml "
                       "under the paths given becomes a test comparing it with lowersim")
  group.addoption("--lowersim-batch", action="store_true", default=False,
                  help="start the port once per session (per xdist worker) and speak the batch "
                       "protocol to it (python/lowersim/port.py serves it)")
  group.addoption("--lowersim-normalize", metavar="jax", default=None, choices=["jax"],
                  help="read both modules with jaxlib's MLIR first (python -m oracle.normalize), "
                       "so the port may print StableHLO's pretty form")
  group.addoption("--lowersim-jax", metavar="VERSION", default=None,
                  help="the JAX version lowersim lowers as (lowersim.versions(); default: the newest)")
  group.addoption("--lowersim-timeout", metavar="SECONDS", type=float, default=60.0,
                  help="how long the port may take per scenario (default 60)")


def pytest_configure(config):
  if config.getoption("lowersim_batch") and config.getoption("lowersim_port") and \
      "{scenario}" in config.getoption("lowersim_port"):
    raise pytest.UsageError("--lowersim-batch: the port is started once and reads the paths on "
                            "its stdin, so its command takes no {scenario}")


def pytest_unconfigure(config):
  for key in ("_lowersim_port", "_lowersim_normalizer"):
    batch = getattr(config, key, None)
    if batch is not None:
      batch.close()


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


# The most bytes of one batch answer, as check --impl's --max-output default.
MAX_OUTPUT = 64 << 20


def _killpg(proc) -> None:
  """SIGKILL to the process group of `proc` (its own session), if any is left."""
  try:
    os.killpg(proc.pid, 9)
  except OSError:
    pass


class BatchPort:
  """A process speaking check's batch protocol, started on first use and
  again after it dies; each answer within `timeout` seconds or it is killed."""

  def __init__(self, command: str, timeout: float, cwd: str | None = None):
    self.command, self.timeout, self.cwd, self.proc = command, timeout, cwd, None

  def ask(self, path: str) -> tuple[int, str, str]:
    if self.proc is None or self.proc.poll() is not None:
      self.proc = subprocess.Popen(self.command, shell=True, stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   cwd=self.cwd, start_new_session=True)
    fired = threading.Event()
    timer = threading.Timer(self.timeout, lambda: (fired.set(), self._kill()))
    timer.start()
    try:
      return self._answer(path)
    except PortDiffers:
      self.close()
      if fired.is_set():
        raise PortDiffers(f"the implementation did not finish within {self.timeout:g} s and "
                          "was killed") from None
      raise
    finally:
      timer.cancel()

  def _answer(self, path: str) -> tuple[int, str, str]:
    try:
      self.proc.stdin.write(path.encode("utf-8", "surrogateescape") + b"\n")
      self.proc.stdin.flush()
      header = self.proc.stdout.readline(64)  # check --impl's longest header
    except OSError:
      header = b""
    fields = header.split()
    if len(fields) != 3 or not all(f.isdigit() for f in fields):
      raise PortDiffers("the implementation broke the batch protocol (an answer is `EXIT "
                        f"OUT_BYTES ERR_BYTES` and the bytes): it wrote {header[:60]!r}"
                        if header else "the implementation stopped before answering")
    code, n_out, n_err = map(int, fields)
    if n_out + n_err > MAX_OUTPUT:
      raise PortDiffers(f"the implementation's output exceeds {MAX_OUTPUT} bytes and it was "
                        "killed")
    out, err = self.proc.stdout.read(n_out), self.proc.stdout.read(n_err)
    if len(out) != n_out or len(err) != n_err:
      raise PortDiffers("the implementation stopped in the middle of an answer")
    return code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")

  def _kill(self):
    if self.proc is not None:
      try:
        os.killpg(self.proc.pid, 9)
      except OSError:
        pass

  def close(self):
    if self.proc is not None:
      self._kill()
      self.proc.wait()
      for f in (self.proc.stdin, self.proc.stdout):
        try:
          f.close()
        except OSError:
          pass
      self.proc = None


_ROOT = pathlib.Path(__file__).resolve().parent.parent.parent  # the checkout, from python/lowersim


def _jax_python(jax: str | None) -> str | None:
  """The python whose jaxlib normalizes, as `lowersim check --normalize jax`
  finds it."""
  env = os.environ.get("LOWERSIM_JAX_PYTHON")
  if env:
    return env if os.access(env, os.X_OK) else None
  for base in (pathlib.Path("build"), _ROOT / "build"):
    for venv in ([f"oracle-venvs/{jax}"] if jax else []) + ["oracle-venv"]:
      p = base / venv / "bin" / "python"
      if os.access(p, os.X_OK):
        return str(p)
  return None


class ScenarioItem(pytest.Item):
  def runtest(self):
    import warnings

    import lowersim  # only now: collection without --lowersim-port loads nothing

    config = self.config
    jax = config.getoption("lowersim_jax")
    with warnings.catch_warnings():  # judged as `lowersim check --impl` judges: not warnings
      warnings.simplefilter("ignore")
      try:
        module, error = lowersim.lower_file(self.path, jax=jax), None
      except lowersim.InvalidScenario as e:
        pytest.skip(f"lowersim refuses the scenario: {e.message}")
      except lowersim.LoweringError as e:
        module, error = None, e
    code, out, err = self._answer(config)
    if code == 3 and err.startswith("not expressible"):
      pytest.skip(err.splitlines()[0])
    normalizing, note = bool(config.getoption("lowersim_normalize")), None
    if normalizing and code == 0 and module is not None:
      # Both sides through jaxlib's MLIR, as check --normalize jax does.
      out, note = self._normalized(config, out)
      module = self._normalized(config, module)[0]
    verdict = lowersim.judge((code, out, err), module, error, normalizing=normalizing,
                             normalize_note=note)
    if not verdict.passed:
      raise PortDiffers(verdict.difference)

  def _answer(self, config) -> tuple[int, str, str]:
    command, timeout = config.getoption("lowersim_port"), config.getoption("lowersim_timeout")
    if config.getoption("lowersim_batch"):
      if getattr(config, "_lowersim_port", None) is None:
        config._lowersim_port = BatchPort(command, timeout)
      return config._lowersim_port.ask(str(self.path))
    # The path in $LOWERSIM_SCENARIO, {scenario} a quoted reference to it (as
    # check --impl runs a port): one argument, nothing in it run.
    import lowersim
    line = lowersim.port_command(command)
    env = dict(os.environ, LOWERSIM_SCENARIO=str(self.path))
    # In a session of its own, so that a time-out ends its children too.
    p = subprocess.Popen(line, shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, env=env, start_new_session=True)
    try:
      out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
      _killpg(p)
      p.communicate()
      raise PortDiffers(f"the implementation did not finish within {timeout:g} s and was "
                        "killed") from None
    finally:
      _killpg(p)  # what it left running
    if p.returncode < 0:
      raise PortDiffers(f"the implementation was killed by signal {-p.returncode}")
    return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")

  def _normalized(self, config, module: str) -> tuple[str, str | None]:
    """`module` through jaxlib's MLIR (oracle/normalize.py), or as it was
    with what jaxlib said."""
    normalizer = getattr(config, "_lowersim_normalizer", None)
    if normalizer is None:
      python = _jax_python(config.getoption("lowersim_jax"))
      if python is None:
        return module, ("--normalize jax: no build/oracle-venv/bin/python (./run oracle makes it; "
                        "or set LOWERSIM_JAX_PYTHON)")
      normalizer = config._lowersim_normalizer = BatchPort(
          shlex.quote(python) + " -m oracle.normalize", 300.0, cwd=str(_ROOT))
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", encoding="utf-8") as f:
      f.write(module)
      f.flush()
      code, out, err = normalizer.ask(f.name)
    return (out, None) if code == 0 else (module, err)

  def repr_failure(self, excinfo, style=None):
    if isinstance(excinfo.value, PortDiffers):
      return str(excinfo.value)
    return super().repr_failure(excinfo, style)

  def reportinfo(self):
    return self.path, None, f"scenario {self.path}"
