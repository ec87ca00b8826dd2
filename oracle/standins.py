"""Every change the oracle makes to JAX's process state, in one place.

A scenario describes a machine (its backends, which Pallas backends are
installed, a few flags); JAX has one such machine per process.  The fork
server (oracle/server.py) gives each scenario a fresh child of a process that
has imported jax, and `install(scenario)` turns that child into the machine
the scenario describes.  Each function below says which JAX function or
state it replaces and why.  Everything else is JAX's own code: xla_bridge's
`backends()`, `_init_backend`, `get_backend`, `canonicalize_platform`,
`known_platforms` run unchanged on the registry filled here, so the errors
the scenario provokes are raised, worded and classed by JAX itself.

Written against JAX 0.10.2 (jax/_src/xla_bridge.py,
jax/_src/hardware_utils.py, jax/_src/pallas/pallas_call.py,
jax/_src/pallas/mosaic/tpu_info.py, jax/_src/effects.py) and unchanged in
what it patches up to 0.12.0.1; what differs between releases is detected
in oracle/features.py, not assumed from a version number.
"""

from __future__ import annotations

import sys
from typing import Any

from jax._src import config
from jax._src import hardware_utils
from jax._src import xla_bridge as xb

# How JAX registers each platform's factory when nothing overrides it
# (priority, fail_quietly, experimental):
#   cpu and tpu: xla_bridge.py registers them on import;
#   cuda, rocm, oneapi: the jax_plugins packages call
#     xb.register_plugin(name, priority=500) (jax_plugins/*/__init__.py);
#   any other PJRT plugin: register_plugin's default priority 400.
# register_plugin always passes fail_quietly=False and
# experimental = name not in xb._nonexperimental_plugins.
IMPORT_TIME_REGISTRATIONS = ("cpu", "tpu")
JAX_PLUGIN_PRIORITY = 500
PJRT_PLUGIN_DEFAULT_PRIORITY = 400
JAX_PLUGINS = ("cuda", "rocm", "oneapi")

# The device kind a stand-in TPU reports.  Mosaic TPU's lowering reads the
# default device's kind (tpu_info.get_tpu_info); any kind JAX knows will do,
# this one is a v5e.
STANDIN_TPU_DEVICE_KIND = "TPU v5 lite"

# The compute capability stand-in GPUs report: an H100 (JAX's own fallback
# when no GPU is present is "9.0", triton/pallas_call_registration.py) and an
# MI300 (ROCm devices report a gfx architecture).
STANDIN_COMPUTE_CAPABILITY = {"cuda": "9.0", "rocm": "gfx942"}

# Pallas backends: the module whose import registers each one's
# compiler-params class, which pallas_call.py imports lazily.  An
# uninstalled backend is one whose module cannot be imported.
PALLAS_REGISTRATION_MODULES = {
    "mosaic_tpu": "jax._src.pallas.mosaic.pallas_call_registration",
    "triton": "jax._src.pallas.triton.pallas_call_registration",
    "mosaic_gpu": "jax._src.pallas.mosaic_gpu.pallas_call_registration",
}


def registration_defaults(platform: str) -> tuple[int, bool, bool]:
  """(priority, fail_quietly, experimental) as JAX would register `platform`."""
  if platform in IMPORT_TIME_REGISTRATIONS:
    reg = xb._backend_factories.get(platform)
    if reg is not None and not getattr(reg.factory, "_lowersim_standin", False):
      return reg.priority, reg.fail_quietly, reg.experimental
    return {"cpu": (0, False, False), "tpu": (300, True, False)}[platform]
  priority = JAX_PLUGIN_PRIORITY if platform in JAX_PLUGINS else PJRT_PLUGIN_DEFAULT_PRIORITY
  return priority, False, platform not in xb._nonexperimental_plugins


class StandInDevice:
  """A device of a stand-in client.  Replaces jaxlib's `Device` (C++), which
  only a real PJRT client can make.  It carries what lowering reads from a
  device: platform, kind, id, process index, client, core count and memory
  kinds."""

  def __init__(self, client: "StandInClient", index: int, device_kind: str | None = None,
               compute_capability: str | None = None):
    self.client = client
    self.id = index
    self.local_hardware_id = index
    self.process_index = 0
    self.task_id = 0
    self.host_id = 0
    self.platform = client.platform
    self.device_kind = device_kind or (
        STANDIN_TPU_DEVICE_KIND if client.platform == "tpu" else client.platform)
    self.num_cores = 1
    self.core_on_chip = 0
    cc = compute_capability or STANDIN_COMPUTE_CAPABILITY.get(client.platform)
    if cc is not None:
      # Pallas's Triton and Mosaic GPU lowerings read it
      # (triton/pallas_call_registration.py, mosaic/gpu/core.py _infer_arch).
      self.compute_capability = cc

  def __getattr__(self, name):
    # A jaxlib Device without an attribute raises a bare AttributeError (its
    # __getattr__ asks the PJRT device's attribute map).
    raise AttributeError()

  # Printed as jaxlib prints its CPU and GPU devices (CpuDevice(id=1) and
  # cpu:1; CudaDevice, RocmDevice), which JAX's messages quote (callback.py
  # _callback_op_sharding from 0.12.0).  A real TPU's or plugin's device
  # prints more (a TPU's coordinates): the stand-in gives them the same form,
  # as lowersim does.
  def __repr__(self) -> str:
    return f"{self.platform[:1].upper()}{self.platform[1:]}Device(id={self.id})"

  def __str__(self) -> str:
    return f"{self.platform}:{self.id}"

  def default_memory(self):
    return _StandInMemory(self, "device")

  def addressable_memories(self):
    return [self.default_memory()]

  def memory(self, kind: str):
    if kind != "device":
      raise ValueError(f"Could not find memory addressable by device {self!r} with kind {kind}")
    return self.default_memory()


class _StandInMemory:
  def __init__(self, device: StandInDevice, kind: str):
    self.kind = kind
    self._device = device

  def addressable_by_devices(self):
    return [self._device]


class StandInClient:
  """A backend of the scenario's runtime.  Replaces what a backend factory
  returns (a jaxlib `Client`): it reports the scenario's platform and device
  count.  Host-callback lowering on tpu asks the client to make the callback
  object (`make_python_callback_from_host_send_and_recv`); that is delegated
  to a real CPU client, made on first use."""

  def __init__(self, platform: str, device_count: int, device_kind: str | None = None,
               compute_capability: str | None = None):
    self.platform = platform
    self._raw_platform = platform
    self.platform_version = f"lowersim oracle stand-in for {platform}"
    self.runtime_type = "stand-in"
    # jax.export serializes the module for the default backend with Shardy
    # kept when the client says so (_export.py _module_to_bytecode); jaxlib's
    # clients say True.
    self.serialize_with_sdy = True
    self._devices = [StandInDevice(self, i, device_kind, compute_capability)
                     for i in range(device_count)]
    self._real = None

  def __repr__(self) -> str:
    return f"StandInClient({self.platform!r}, {len(self._devices)} devices)"

  def devices(self):
    return list(self._devices)

  def local_devices(self):
    return list(self._devices)

  def _get_all_devices(self):
    return list(self._devices)

  def device_count(self) -> int:
    return len(self._devices)

  def local_device_count(self) -> int:
    return len(self._devices)

  def process_index(self) -> int:
    return 0

  def host_id(self) -> int:
    return 0

  def task_id(self) -> int:
    return 0

  def make_python_callback_from_host_send_and_recv(self, *args, **kwargs):
    if self._real is None:
      self._real = xb.make_cpu_client()
    return self._real.make_python_callback_from_host_send_and_recv(*args, **kwargs)


def _standin_factory(b):
  """A backend factory for `register_backend_factory`: raises the scenario's
  error, or returns a stand-in client whose devices report the scenario's
  device kind and compute capability."""

  def factory():
    if b.error is not None:
      raise RuntimeError(b.error)
    return StandInClient(b.platform, b.devices, getattr(b, "device_kind", None),
                         getattr(b, "compute_capability", None))

  factory._lowersim_standin = True  # type: ignore[attr-defined]
  return factory


def install_runtime(runtime) -> None:
  """Replaces xla_bridge's backend registry and caches with the scenario's.

  JAX state replaced: `xb._backend_factories` (what `register_backend_factory`
  fills: cpu and tpu on import, plugins later), `xb._backends`,
  `xb._backend_errors`, `xb._default_backend` (via `xb._clear_backends`), the
  `xb.get_backend` cache, `jax_platforms`.  With no <runtime>, one cpu
  backend with one device.  A declared backend is registered with
  `xb.register_backend_factory` itself, with the priority, quietness and
  experimental flag JAX would give it (registration_defaults) unless the
  scenario overrides them.  JAX's own import-time registrations of cpu and
  tpu stay for the platforms the scenario does not declare: in every JAX
  process they are known platforms, first in the registry's order, and their
  factories are the real ones (JAX's real cpu client with one device; the
  tpu factory fails quietly on a machine without libtpu), which lowersim
  models the same way (lsim_runtime_create_jax).
  """
  xb._clear_backends()
  xb.get_backend.cache_clear()
  backends = runtime.backends if runtime.present else [_default_cpu()]
  for b in backends:
    priority, fail_quietly, experimental = registration_defaults(b.platform)
    if b.priority is not None:
      priority = b.priority
    if b.fail_quietly is not None:
      fail_quietly = b.fail_quietly
    xb.register_backend_factory(
        b.platform, _standin_factory(b),
        priority=priority, fail_quietly=fail_quietly, experimental=experimental)
  config.update("jax_platforms", runtime.jax_platforms if runtime.present else None)
  _install_nvidia_gpu_visibility(any(b.platform == "cuda" for b in backends))


class _DefaultBackend:
  platform = "cpu"
  devices = 1
  priority = None
  fail_quietly = None
  error = None


def _default_cpu():
  return _DefaultBackend()


def _install_nvidia_gpu_visibility(visible: bool) -> None:
  """Replaces hardware_utils.has_visible_nvidia_gpu (which looks for
  /dev/nvidia0): `backends()` skips a cuda factory when no NVIDIA GPU is
  visible, and `_suggest_missing_backends` warns when one is but cuda did
  not come up.  The scenario's machine has an NVIDIA GPU exactly when it
  declares a cuda backend (a CUDA plugin installed), as lowersim's runtime
  assumes (a registered cuda factory means a visible GPU)."""
  hardware_utils.has_visible_nvidia_gpu = lambda: visible


class BackendNotInstalled(ModuleNotFoundError):
  """The import of a Pallas backend's pallas_call_registration that the
  scenario (or the fork server's parent) has made absent.  JAX's own lazy
  imports catch it as the ImportError of a backend that is not installed."""

  def __init__(self, name: str, backend: str, why: str):
    super().__init__(f"No module named {name!r} (lowersim oracle: {why})", name=name)
    self.backend = backend


class Unimportable:
  """A meta-path finder that makes the given backends' registration
  modules ({backend: module}) unimportable."""

  def __init__(self, modules: dict[str, str], why: str):
    self.backends = {mod: which for which, mod in modules.items()}
    self.why = why

  def find_spec(self, name, path=None, target=None):
    if name in self.backends:
      raise BackendNotInstalled(name, self.backends[name], self.why)
    return None


def install_pallas(pallas) -> None:
  """Which Pallas backends are installed, and the jax_pallas_use_mosaic_gpu
  flag when the scenario sets it (oracle/features.py: a scenario that sets
  it is not expressible in a JAX without it).  pallas_call.py imports each backend's pallas_call_registration
  lazily inside `try: ... except ImportError`; an uninstalled backend's
  module raises ImportError here (a meta-path finder; the fork server's
  parent never imports these modules, so nothing is cached)."""
  missing = {which: mod for which, mod in PALLAS_REGISTRATION_MODULES.items()
             if not getattr(pallas, which)}
  for mod in missing.values():
    assert mod not in sys.modules, f"{mod} was imported before the scenario's Pallas state was set"
  if missing:
    sys.meta_path.insert(0, Unimportable(missing, "this Pallas backend is not installed in the "
                                                  "scenario"))
  if pallas.use_mosaic_gpu is not None:
    config.update("jax_pallas_use_mosaic_gpu", pallas.use_mosaic_gpu)


def install_effect_order(scenario: Any) -> None:
  """Pins the order of main's effect tokens.  pxla.py takes main's ordered
  effects as `list(effects.ordered_effects.filter_in(closed_jaxpr.effects))`:
  the iteration order of a set of effect objects, which hash by address, so
  the order differs from process to process (with an ordered io_callback and
  an ordered debug callback either token may come first; seen live on
  0.10.2).  lowersim takes the order in which the program first has each
  kind; `effects.ordered_effects.filter_in` (this instance's only) returns
  that order here, so that the comparison is of one of JAX's orders, the
  same every run.  Other effects keep their place, after these."""
  import types
  from jax._src import callback, debugging, effects
  kinds = {"io_callback": callback._OrderedIOEffect,
           "debug_callback": debugging.ordered_debug_effect}
  order: list = []
  for e in scenario.eqns:
    effect = kinds.get(e.kind) if e.ordered else None
    if effect is not None and effect not in order:
      order.append(effect)
  unpinned = type(effects.ordered_effects).filter_in

  def filter_in(self, effs):
    return sorted(unpinned(self, effs),
                  key=lambda x: order.index(x) if x in order else len(order))

  effects.ordered_effects.filter_in = types.MethodType(filter_in, effects.ordered_effects)


def install(scenario: Any) -> None:
  install_runtime(scenario.runtime)
  install_pallas(scenario.pallas)
  install_effect_order(scenario)
