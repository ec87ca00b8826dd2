# The scenario platform-dependent for JAX 0.12.0.1, as lowersim renders it.
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax._src import core
from jax._src.interpreters import mlir
from jax.experimental import io_callback
from jax.experimental.buffer_callback import buffer_callback


jax.config.update('jax_enable_x64', False)


def f(*args):
  v = list(args)
  v += [lax.platform_dependent(v[0], default=lax.neg, **{'tpu': lax.sin, 'cuda': lax.cos, 'rocm': lax.cos})]
  return v[1]


f.__name__ = f.__qualname__ = 'f'


args = [jax.ShapeDtypeStruct((4,), jnp.dtype('float32'))]
jitted = jax.jit(f, donate_argnums=())
lowered = jitted.trace(*args).lower(lowering_platforms=('cpu', 'cuda', 'tpu'))
