"""The fork server: one parent imports jax and jaxlib once; every scenario
runs in a fresh child forked from it, so that the process state a scenario
sets (xla_bridge's backends, Pallas registrations, flags) is its own.

The parent imports what lowering needs but nothing that changes JAX's state
when imported: no backend is initialized and no Pallas
pallas_call_registration module is imported (their import registers a
compiler-params class, which is exactly what a scenario controls).
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
import traceback
from typing import Any, Callable, Iterable, Iterator

DEFAULT_TIMEOUT = 60.0

# Imported in the parent: everything a lowering may need, minus the modules
# whose import is process state (see standins.PALLAS_REGISTRATION_MODULES).
PREIMPORTS = (
    "jax", "jax.numpy", "jax.export", "jax.ffi", "jax.experimental",
    "jax.experimental.buffer_callback", "jax.experimental.pallas",
    "jax.experimental.pallas.tpu", "jax.experimental.pallas.triton",
    "jax._src.pallas.mosaic.lowering", "jax._src.tpu_custom_call",
    "jax._src.pallas.triton.lowering", "jax._src.pallas.triton.core",
    "jax._src.pallas.mosaic_gpu.core", "jax._src.pallas.mosaic_gpu.lowering",
    "jax.experimental.mosaic.gpu", "ml_dtypes",
    "oracle.scenario", "oracle.standins", "oracle.program", "oracle.mlir_text",
    "oracle.compare",
)


# What preimport() left to the children: {module: the registration module
# its import imports} (e.g. jax.experimental.pallas.triton from JAX 0.11.0).
LEFT_TO_CHILDREN: dict[str, str] = {}


def preimport() -> list[str]:
  """Imports PREIMPORTS; returns the ones that could not be imported.

  While it imports, the Pallas backends' pallas_call_registration modules
  are unimportable (standins.Unimportable): a module whose import imports
  one (so registers a backend's compiler params, which a scenario decides)
  fails here and is left to the children, which import it as the
  scenario's program does (LEFT_TO_CHILDREN says which).  Which modules do
  that is found, not listed: it changes between JAX releases."""
  import importlib
  from oracle import standins
  failed = []
  blocker = standins.Unimportable(standins.PALLAS_REGISTRATION_MODULES,
                                  "the fork server's parent imports no Pallas backend")
  sys.meta_path.insert(0, blocker)
  try:
    for name in PREIMPORTS:
      try:
        importlib.import_module(name)
      except standins.BackendNotInstalled as e:
        LEFT_TO_CHILDREN[name] = e.name
      except ImportError:
        failed.append(name)
  finally:
    sys.meta_path.remove(blocker)
  check_clean_parent()
  return failed


def check_clean_parent() -> None:
  from jax._src import xla_bridge as xb
  from jax._src.pallas import core as pallas_core
  from oracle import standins
  assert not xb._backends, "the fork server's parent initialized a backend"
  assert not pallas_core._backend_lowering_rules, "a Pallas backend registered in the parent"
  for mod in standins.PALLAS_REGISTRATION_MODULES.values():
    assert mod not in sys.modules, f"{mod} imported in the fork server's parent"


def _child(task: Any, work: Callable[[Any], dict], fd: int) -> None:
  try:
    result = work(task)
  except BaseException as e:  # a bug of the oracle's, reported as such
    result = {"oracle_error": f"{type(e).__name__}: {e}\n{traceback.format_exc()}"}
  data = json.dumps(result).encode()
  view = memoryview(data)
  while view:
    n = os.write(fd, view[:1 << 16])
    view = view[n:]
  os.close(fd)


class _Running:
  def __init__(self, task, pid, fd, deadline):
    self.task, self.pid, self.fd, self.deadline = task, pid, fd, deadline
    self.chunks: list[bytes] = []
    self.start = time.monotonic()


def run(tasks: Iterable[Any], work: Callable[[Any], dict], jobs: int = 2,
        timeout: float = DEFAULT_TIMEOUT) -> Iterator[tuple[Any, dict]]:
  """Runs `work(task)` for every task in a forked child, `jobs` at a time;
  yields (task, result) as children finish (in completion order).  A child
  past `timeout` seconds is killed: its result is {"timeout": seconds}; one
  that dies without answering gives {"crash": what}."""
  pending = iter(tasks)
  running: dict[int, _Running] = {}
  exhausted = False
  while True:
    while not exhausted and len(running) < jobs:
      try:
        task = next(pending)
      except StopIteration:
        exhausted = True
        break
      r, w = os.pipe()
      sys.stdout.flush()
      sys.stderr.flush()
      pid = os.fork()
      if pid == 0:
        os.close(r)
        code = 0
        try:
          _child(task, work, w)
        except BaseException:
          code = 70
        os._exit(code)
      os.close(w)
      running[r] = _Running(task, pid, r, time.monotonic() + timeout)
    if not running:
      return
    wait = max(0.0, min(x.deadline for x in running.values()) - time.monotonic())
    ready, _, _ = select.select(list(running), [], [], wait)
    now = time.monotonic()
    for fd in ready:
      x = running[fd]
      chunk = os.read(fd, 1 << 16)
      if chunk:
        x.chunks.append(chunk)
        continue
      os.close(fd)
      del running[fd]
      _, status = os.waitpid(x.pid, 0)
      data = b"".join(x.chunks)
      if data:
        yield x.task, json.loads(data)
      else:
        yield x.task, {"crash": f"the child died ({_status_text(status)}) without answering"}
    for fd, x in list(running.items()):
      if now >= x.deadline:
        os.kill(x.pid, signal.SIGKILL)
        os.waitpid(x.pid, 0)
        os.close(fd)
        del running[fd]
        yield x.task, {"timeout": timeout}


def _status_text(status: int) -> str:
  if os.WIFSIGNALED(status):
    return f"signal {os.WTERMSIG(status)}"
  return f"exit {os.WEXITSTATUS(status)}"
