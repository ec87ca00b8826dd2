"""A port that prints JAX's pretty form: real JAX (the oracle's program)
lowers the scenario, and the module is printed as `module.operation.get_asm()`
prints it by default (StableHLO's pretty ops, which lowersim's MLIR 19 cannot
read).  `lowersim check --normalize jax --impl 'PYTHON tests/pretty_port.py
{scenario}'` must pass it; run from the checkout's root with an oracle venv's
python (tests/cli_impl_test.sh)."""

import sys

from oracle import judge, mlir_text

out = judge.jax_outcome(sys.argv[1])
if out.kind == "not_expressible":
  print(f"not expressible: {out.reason}", file=sys.stderr)
  sys.exit(3)
if out.kind != "module":
  print(f"{out.error_class}: {out.error_message}".replace("\n", "\\n"), file=sys.stderr)
  sys.exit(1 if out.kind == "error" else 3)
print(mlir_text.parse(out.module, mlir_text.context(allow_unregistered=True)).operation.get_asm())
