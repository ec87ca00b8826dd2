# The scenario platform-dependent for JAX 0.12.0.1, as lowersim renders it.
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax._src import core
from jax._src.interpreters import mlir
from jax.experimental import io_callback
from jax.experimental.buffer_callback import buffer_callback


def zeros_callback(results):
  """A host callback returning zeros of its results' shapes."""
  def callback(*args):
    return tuple(np.zeros(shape, dtype) for shape, dtype in results)
  callback.__qualname__ = "callback"
  return callback


def debug_callback(*args):
  pass


def buffer_callback_fn(returns_value):
  """A buffer callback (returning a value when the scenario's does)."""
  def callback(ctx, out, *args):
    return 0 if returns_value else None
  callback.__qualname__ = "callback"
  return callback


def ffi_rule(target, backend_access):
  """jax.ffi.ffi_lowering(target), after the backend access it asks for."""
  from jax import ffi
  lower = ffi.ffi_lowering(target)
  def rule(ctx, *operands, result_avals):
    if backend_access == 'required':
      ctx.module_context.get_backend()
    elif backend_access == 'optional':
      ctx.module_context.get_backend(optional=True)
    return lower(ctx, *operands)
  return rule


exports = {}  # a session's exports so far: lowering K's Exported.call


def results(r):
  """An exported function's results as a list."""
  return list(r) if isinstance(r, (tuple, list)) else [r]


prims = {}  # the program's own primitives, by name


def primitive(name):
  """core.Primitive(name), one per name, returning its result_avals."""
  if name not in prims:
    prims[name] = core.Primitive(name)
    prims[name].multiple_results = True
    prims[name].def_abstract_eval(lambda *avals, result_avals: list(result_avals))
  return prims[name]


jax.config.update('jax_enable_x64', False)


def f(*args):
  v = list(args)
  v += [lax.platform_dependent(v[0], default=lax.neg, **{'tpu': lax.sin, 'cuda': lax.cos, 'rocm': lax.cos})]
  return v[1]


f.__name__ = f.__qualname__ = 'f'


args = [jax.ShapeDtypeStruct((4,), jnp.dtype('float32'))]
jitted = jax.jit(f, donate_argnums=())
lowered = jitted.trace(*args).lower(lowering_platforms=('cpu', 'cuda', 'tpu'))
