"""MLIR text in jaxlib's own MLIR: contexts with JAX's dialects, parsing with
StableHLO's real verifiers, one canonical printed form, and a plain generic
printer for MLIR 19.

jaxlib 0.10.2 carries its own MLIR (newer than lowersim's MLIR 19) with the
stablehlo, chlo, sdy, mhlo and upstream dialects registered by
`mlir.make_ir_context()`; the oracle adds Mosaic TPU's `tpu`, Triton's `tt`
and Mosaic GPU's `mosaic_gpu` so that kernel modules parse and verify too.
"""

from __future__ import annotations

from typing import Optional

from jax._src.interpreters import mlir
from jax._src.lib.mlir import ir


def context(allow_unregistered: bool = False) -> ir.Context:
  """A context as JAX makes one (mlir.make_ir_context) plus the kernel
  dialects, threading off (the oracle forks)."""
  ctx = mlir.make_ir_context()
  ctx.enable_multithreading(False)
  from jax._src.lib import tpu
  tpu.register_dialect(ctx)
  try:
    from jaxlib.triton import dialect as triton_dialect
    triton_dialect.register_dialect(ctx)
  except ImportError:
    pass
  try:
    from jax._src.lib import mosaic_gpu_dialect
    mosaic_gpu_dialect.register_dialect(ctx)
  except ImportError:
    pass
  ctx.allow_unregistered_dialects = allow_unregistered
  return ctx


class ParseError(Exception):
  """The text does not parse or does not verify; the message is MLIR's."""


def parse(text: str | bytes, ctx: ir.Context) -> ir.Module:
  """Parses text or bytecode; the module is verified (StableHLO's verifiers
  for stablehlo ops)."""
  try:
    with ctx:
      return ir.Module.parse(text)
  except ir.MLIRError as e:
    raise ParseError(_diagnostics(e)) from None
  except ValueError as e:
    raise ParseError(str(e)) from None


def _diagnostics(e) -> str:
  lines = [e.message] if getattr(e, "message", "") else []
  for d in getattr(e, "error_diagnostics", []) or []:
    lines.append(_diagnostic(d))
  return "\n".join(lines) if lines else str(e)


def _diagnostic(d, depth: int = 0) -> str:
  text = "  " * depth + f"{d.location}: {d.message}"
  for n in d.notes:
    text += "\n" + _diagnostic(n, depth + 1)
  return text


def canonical(op) -> str:
  """The canonical form the oracle compares: MLIR's generic op form,
  without locations (debug info)."""
  operation = op.operation if hasattr(op, "operation") else op
  return operation.get_asm(print_generic_op_form=True, enable_debug_info=False,
                           large_elements_limit=None)


def pretty(op) -> str:
  """The custom (pretty) form, without locations."""
  operation = op.operation if hasattr(op, "operation") else op
  return operation.get_asm(enable_debug_info=False, large_elements_limit=None)


def generic(module) -> str:
  """A module's canonical text (for the oracle's own comparison)."""
  return canonical(module)


# --- A generic printer with attributes only, for MLIR 19 ----------------------
#
# jaxlib's MLIR prints the inherent attributes of registered ops as
# properties (`<{...}>`); lowersim builds stablehlo ops unregistered, with
# every attribute in the attribute dictionary.  `lowersim check --impl`
# parses both in lowersim's MLIR 19 context, so `oracle lower` prints every
# op generically with one attribute dictionary: the same module, in the
# spelling lowersim's MLIR reads back identically.

class _Names:
  def __init__(self):
    self.values: dict = {}
    self.blocks: dict = {}

  def value(self, v) -> str:
    key = v
    if key not in self.values:
      self.values[key] = f"%{len(self.values)}"
    return self.values[key]

  def block(self, b) -> str:
    if b not in self.blocks:
      self.blocks[b] = f"^bb{len(self.blocks)}"
    return self.blocks[b]


def _op_text(op, names: _Names, indent: str) -> list[str]:
  op = op.operation
  results = [names.value(r) for r in op.results]
  head = indent + (", ".join(results) + " = " if results else "")
  operands = ", ".join(names.value(o) for o in op.operands)
  text = f'{head}"{op.name}"({operands})'
  succ = list(getattr(op, "successors", []) or [])
  if succ:
    text += "[" + ", ".join(names.block(b) for b in succ) + "]"
  lines = []
  regions = list(op.regions)
  attrs = [f"{name} = {op.attributes[name]}" for name in op.attributes]
  attr_text = " {" + ", ".join(attrs) + "}" if attrs else ""
  in_types = ", ".join(str(o.type) for o in op.operands)
  out_types = ", ".join(str(r.type) for r in op.results)
  sig = f" : ({in_types}) -> ({out_types})"
  if not regions:
    return [text + attr_text + sig]
  lines.append(text + " (")
  for ri, region in enumerate(regions):
    lines.append(indent + "  {")
    for block in region.blocks:
      args = ", ".join(f"{names.value(a)}: {a.type}" for a in block.arguments)
      lines.append(indent + f"  {names.block(block)}({args}):")
      for inner in block.operations:
        lines.extend(_op_text(inner, names, indent + "    "))
    lines.append(indent + "  }" + ("," if ri + 1 < len(regions) else ""))
  lines.append(indent + ")" + attr_text + sig)
  return lines


def attribute_form(module) -> str:
  """The module generically, every attribute in the attribute dictionary,
  no locations: text MLIR 19 with unregistered dialects parses."""
  op = module.operation if hasattr(module, "operation") else module
  return "\n".join(_op_text(op, _Names(), "")) + "\n"


def reparse_canonical(text: str, ctx: Optional[ir.Context] = None) -> str:
  ctx = ctx or context()
  return canonical(parse(text, ctx))
