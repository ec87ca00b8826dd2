"""What the installed JAX has, found by looking at it, never by its version.

Every JAX API the oracle's programs use that has changed between releases
is detected here, by what the module has (an attribute, a config option, a
function's parameters) or does (what importing a module registers: see
oracle/server.py's preimport).  When a scenario needs a feature the
installed JAX lacks, the scenario is not expressible in that release and
the reason says which feature and how its absence was seen; so a new
release that changes one of these shows as a precise "not expressible",
never as a silent difference.

Seen so far (docs/releases.md, "The oracle"):
  * `jax_pallas_use_mosaic_gpu` (config option): gone in 0.11.2, where a
    GPU pallas_call without compiler params always goes to Triton.
  * compute_on's function form: `compute_on2(f, *, compute_type,
    out_memory_spaces)` up to 0.11.0; from 0.11.1 it is `compute_on`
    itself (the context manager `compute_on(compute_type)` is gone: the
    oracle still calls it as the scenario says, and JAX raises its
    TypeError, which is JAX's outcome, not the oracle's).
  * importing `jax.experimental.pallas.triton` imports Triton's
    pallas_call_registration from 0.11.0 (server.preimport leaves it to
    the children; a scenario without Triton cannot name Triton's params).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional

USE_MOSAIC_GPU = "jax_pallas_use_mosaic_gpu"


def has_config_option(name: str) -> bool:
  """Whether jax.config knows the option `name` (an unknown one is an
  AttributeError from config.update)."""
  from jax._src import config
  holders = getattr(config.config, "_value_holders", None)
  if isinstance(holders, dict):
    return name in holders
  return hasattr(config, name)


def _keyword_only(fn: Callable) -> set[str]:
  try:
    params = inspect.signature(fn).parameters.values()
  except (TypeError, ValueError):
    return set()
  return {p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY}


def compute_on_function() -> tuple[Optional[Callable], str]:
  """compute_on's function form `F(f, *, compute_type, out_memory_spaces)`
  and its name in jax._src.compute_on, or (None, why).  It is
  `compute_on2` where that exists (0.10.2 and 0.11.0), else `compute_on`
  when that takes those keywords (0.11.1 on: checked in each release's environment)."""
  from jax._src import compute_on as module
  want = {"compute_type", "out_memory_spaces"}
  for name in ("compute_on2", "compute_on"):
    fn = getattr(module, name, None)
    if callable(fn) and want <= _keyword_only(fn):
      return fn, name
  return None, ("jax._src.compute_on has no function taking keyword-only compute_type and "
                "out_memory_spaces (compute_on2, or compute_on in its function form)")


def memory_space(host: bool) -> Any:
  """core.MemorySpace.Host / .Device (compute_on's out_memory_spaces)."""
  from jax._src import core
  return core.MemorySpace.Host if host else core.MemorySpace.Device


def missing_for(scenario: Any) -> Optional[str]:
  """Why the installed JAX cannot run the scenario's program (a feature it
  lacks), or None."""
  steps = [scenario] + list(getattr(scenario, "steps", []))
  pallas = scenario.pallas
  if pallas.present and pallas.use_mosaic_gpu is not None and not has_config_option(USE_MOSAIC_GPU):
    return (f"<pallas use_mosaic_gpu=\"{'true' if pallas.use_mosaic_gpu else 'false'}\">: "
            f"jax.config has no {USE_MOSAIC_GPU} option")
  if any(e.kind == "compute_on" for s in steps for e in s.eqns):
    fn, why = compute_on_function()
    if fn is None:
      return f"<compute_on>: {why}"
  return None
