"""Known differences (oracle/known-differences.txt) and the causes behind
difference classes.

known-differences.txt has one line per scenario that differs from JAX:

    PATH | CLASS ;; CLASS ;; ... | CAUSE, CAUSE, ...

PATH is the scenario (relative to the repository) or a back-compat module
(`backcompat:FILE:DATA`); the CLASSes are exactly the difference classes the
oracle finds for it (oracle/compare.py); the CAUSEs name entries of CAUSES
below (what differs and the JAX code behind it).  A scenario whose classes
are not exactly its entry's is a new difference; an entry whose scenario
agrees with JAX is stale.  Both fail the run.  `python -m oracle run
--update-known` rewrites the file from the run's differences.
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Optional

KNOWN_FILE = os.path.join(os.path.dirname(__file__), "known-differences.txt")


@dataclasses.dataclass
class Cause:
  name: str
  pattern: str          # regex on a difference class
  what: str             # what differs, in one sentence
  jax_code: str         # the JAX 0.10.2 code behind it (file: function)
  kind: str = "lowersim"  # lowersim (its behaviour differs) | oracle mapping | context | version (the
                          # scenario names no JAX version and lowersim's newest differs from 0.10.2)


CAUSES = [
    Cause("primitive-shadowing", r"^shadowed built-in primitive: ",
          "a scenario <primitive> named like a built-in (e.g. pallas_call) replaces the "
          "built-in's rules in lowersim's registry; in JAX a new core.Primitive(name) is "
          "another object and lax/pallas primitives keep their own rules",
          "jax/_src/core.py: Primitive; jax/_src/interpreters/mlir.py: register_lowering (keyed "
          "by the primitive object)", kind="context"),
    Cause("triton-registration-lazy", r"(Compiler params for platform gpu cannot be used for tpu lowering\.; JAX|"
          r"JAX AssertionError \(no message\) in jax/_src/pallas/mosaic)",
          "in 0.10.2 Triton's compiler-params class is registered only when "
          "triton/pallas_call_registration.py is first imported (the first gpu lowering); "
          "jax.experimental.pallas.triton does not import it, so on tpu get_lowering_rule "
          "finds nothing and Mosaic TPU's rule asserts on the foreign params",
          "jax/_src/pallas/pallas_call.py: tpu_lowering; "
          "jax/_src/pallas/mosaic/pallas_call_registration.py: pallas_call_tpu_lowering_rule"),
    Cause("trace-before-init", r"warning only lowersim gives: (jax\._src\.xla_bridge: )?Platform '…' is experimental",
          "JAX failed while tracing (a Pallas kernel capturing constants fails at trace time), "
          "before any backend was initialized, so it gave no experimental-plugin warning; "
          "lowersim raises that error when lowering, after the default-device lookup "
          "initialized the backends",
          "jax/_src/pallas/pallas_call.py: _trace_kernel_to_jaxpr (tracing) before "
          "pxla.lower_sharding_computation"),
    Cause("buffer-callback-oneapi", r"`buffer_callback` not supported on oneapi backend",
          "the scenario names no JAX version, so lowersim lowers with its newest profile (the "
          "seeds' JAX, whose buffer_callback has a oneapi target); 0.10.2 knows cpu, cuda and "
          "rocm only (lowersim's 0.10.2 profile agrees: jax=\"0.10.2\" or --jax 0.10.2)",
          "jax/_src/buffer_callback.py: _buffer_callback_lowering", kind="version"),
    Cause("triton-kernel-invalid", r"kernel \(__gpu\$xla\.gpu\.triton\): lowersim's kernel does not parse or verify",
          "lowersim's Triton kernel does not parse or verify in jaxlib's Triton dialect "
          "(e.g. tt.load without operandSegmentSizes)",
          "jax/_src/pallas/triton/lowering.py: lower_jaxpr_to_triton_module"),
    Cause("triton-kernel-old", r"kernel \(__gpu\$xla\.gpu\.triton\): JAX's kernel does not parse",
          "a Triton kernel JAX serialized in 2024 no longer parses in 0.10.2's Triton dialect "
          "(Triton promises no IR compatibility; JAX skips that back-compat test)",
          "tests/pallas/export_back_compat_pallas_test.py: test_triton_add_one (skipped)"),
    Cause("kernel-producer", r"^serialization: bytecode version/producer$",
          "kernel bytecode written by MLIR 19.1.7 (lowersim) vs jaxlib's MLIR (producer "
          "MLIR23.0.0git)",
          "jax/_src/tpu_custom_call.py: _lower_mosaic_module_to_asm (write_bytecode); "
          "jax/_src/pallas/triton/pallas_call_registration.py; jax/experimental/mosaic/gpu/core.py"),
    Cause("mosaic-serde", r"Mosaic's deserializer",
          "lowersim's Mosaic TPU kernel is not in Mosaic's serialized form (the mosaic-serde "
          "pass, versioned stable_mosaic. op names), so the TPU runtime's deserializer rejects it",
          "jax/_src/tpu_custom_call.py: _lower_mosaic_module_to_asm (mosaic-serde{serialize=true})"),
    Cause("mosaic-gpu-serde", r"Mosaic GPU's deserializer",
          "lowersim's Mosaic GPU kernel is not in Mosaic GPU's serialized form "
          "(mosaic_gpu-serde), so the runtime's deserializer rejects it",
          "jax/experimental/mosaic/gpu/core.py: _run_serde_pass (serialize=True)"),
    Cause("mosaic-gpu-hash", r"kernel_hash is the SHA-256",
          "the kernel_hash of mosaic_gpu_v2's config is not the SHA-256 of the module on one side",
          "jax/experimental/mosaic/gpu/core.py: _kernel_to_custom_call (kernel_id = sha256(module_asm))"),
    Cause("mosaic-kernel", r"^kernel \(tpu_custom_call\)",
          "the Mosaic TPU kernel's body differs: JAX broadcasts the scalar 1, stores with "
          "tpu.vector_store after a swap's load, marks tpu.core_type and pipeline_mode, and "
          "writes stable_mosaic.version 15 (lowersim 11)",
          "jax/_src/pallas/mosaic/lowering.py: lower_jaxpr_to_module; "
          "jax/_src/pallas/mosaic/pallas_call_registration.py: pallas_call_tpu_lowering_rule"),
    Cause("mosaic-gpu-kernel", r"^kernel \(mosaic_gpu_v2\)",
          "JAX's Mosaic GPU kernel is the fully lowered launch (gpu.launch, TMA descriptors, "
          "nvvm barriers and bulk copies); lowersim's is a func with vector.load/store",
          "jax/_src/pallas/mosaic_gpu/lowering.py: lower_pipelined_jaxpr_to_module; "
          "jax/experimental/mosaic/gpu/core.py: _lower_as_gpu_kernel"),
    Cause("export-quotes-triton", r"^error values: ValueError: Cannot serialize code with custom calls.*__gpu\$xla\.gpu\.triton",
          "jax.export refuses the unstable Triton call and quotes it, with its ir (the kernel's "
          "bytecode, written by another MLIR: kernel-producer), so the messages differ in the "
          "payload only",
          "jax/_src/export/_export.py: _check_module; "
          "jax/_src/pallas/triton/pallas_call_registration.py"),
    Cause("triton-kernel", r"^kernel \(__gpu\$xla\.gpu\.triton\)",
          "the Triton kernel's body differs",
          "jax/_src/pallas/triton/lowering.py: lower_jaxpr_to_triton_module"),
    Cause("mosaic-gpu-warpgroup", r"Only copies transferring a number of bytes divisible by the warpgroup size",
          "Mosaic GPU cannot copy a block smaller than a warpgroup's 128 bytes (e.g. f32[8]); "
          "lowersim emits a kernel for any size",
          "jax/_src/pallas/mosaic_gpu/primitives.py: _copy_gmem_to_smem_lowering"),
    Cause("mosaic-gpu-deprecated", r"Using ``pl\.pallas_call`` for Mosaic GPU kernels is deprecated",
          "pl.pallas_call lowered with Mosaic GPU warns (DeprecationWarning) in 0.10.2",
          "jax/_src/pallas/pallas_call.py: _pallas_call_lowering (gpu_lowering)"),
    Cause("pallas-tpu-device-kind", r"Unsupported TPU device kind",
          "Mosaic TPU's lowering needs the default device to be a TPU of a known kind "
          "(tpu_info.get_tpu_info); with a cpu default device JAX refuses",
          "jax/_src/pallas/mosaic/tpu_info.py: get_tpu_info; "
          "jax/_src/pallas/mosaic/lowering.py: _check_block_mappings"),
    Cause("pallas-interpret", r"^ops: only JAX has .*stablehlo\.",
          "interpret=True lowers through Pallas's HLO interpreter (a while loop over the grid "
          "with dynamic slices); lowersim lowers the kernel's computation directly",
          "jax/_src/pallas/hlo_interpreter.py: pallas_call_hlo_interpret"),
    Cause("pallas-constants", r"captures constants",
          "a kernel that captures an array fails while tracing (with the kernel's source "
          "location), before lowering's 'Cannot lower a pallas_call with constants.'",
          "jax/_src/pallas/pallas_call.py: _trace_kernel_to_jaxpr"),
    Cause("triton-power-of-2", r"Triton lowering currently requires that all operations have array arguments and results whose size is a power of",
          "Pallas's Triton lowering requires power-of-2 array sizes; lowersim emits a kernel "
          "for any size",
          "jax/_src/pallas/triton/lowering.py: _check_tensor_size"),
    Cause("mosaic-gpu-arch", r"Mosaic GPU does not yet support AMD ROCm devices\. Got compute_capability",
          "Mosaic GPU reads the default device's compute capability: with a ROCm default "
          "device (a stand-in reports gfx942) it refuses, even when lowering for cuda",
          "jax/experimental/mosaic/gpu/core.py: _infer_arch", kind="oracle mapping"),
    Cause("backcompat-wrapper", r"^(ops: only JAX has func\.call,func\.func,func\.return|module: \"…\"\(\) <\{sym_name = \"…\"\}> \(\{)$",
          "a stored back-compat module has another shape than today's lowering of the "
          "program: the 2024 Triton export calls a private @wrapped function, the Mosaic GPU "
          "one is named jit_wrapped (the test's own wrapper)",
          "jax/_src/internal_test_util/export_back_compat_test_util.py: run_one_test"),
]


def causes_of(classes: list[str], context: tuple = ()) -> list[Cause]:
  out = []
  for c in list(context) + list(classes):
    for cause in CAUSES:
      if re.search(cause.pattern, c) and cause not in out:
        out.append(cause)
        break
  return out


def unexplained(classes: list[str], context: tuple = ()) -> list[str]:
  """The classes no cause explains; none when the scenario's context (a
  different default backend, a shadowed built-in) explains everything."""
  if any(re.search(x.pattern, c) for c in context for x in CAUSES if x.kind == "context"):
    return []
  return [c for c in classes if not any(re.search(x.pattern, c) for x in CAUSES)]


@dataclasses.dataclass
class Entry:
  path: str
  classes: list[str]
  causes: list[str]
  line: int


def read(path: str = KNOWN_FILE) -> dict[str, Entry]:
  entries: dict[str, Entry] = {}
  if not os.path.exists(path):
    return entries
  with open(path, encoding="utf-8") as f:
    for n, line in enumerate(f, 1):
      line = line.rstrip("\n")
      if not line.strip() or line.lstrip().startswith("#"):
        continue
      head, _, rest = line.partition(" | ")
      classes, _, causes = rest.rpartition(" | ")
      parts = [head.strip(), classes.strip(), causes.strip()]
      if not rest or not _:
        raise ValueError(f"{path}:{n}: expected 'PATH | CLASSES | CAUSES'")
      entries[parts[0]] = Entry(parts[0], [c for c in parts[1].split(" ;; ") if c],
                                [c for c in parts[2].split(", ") if c], n)
  return entries


HEADER = """\
# Known differences between lowersim and JAX 0.10.2, found by the oracle
# (`./run oracle`).  One line per scenario: PATH | CLASSES | CAUSES.
# The causes are described, with the JAX code behind them, in oracle/known.py
# (CAUSES) and in build/oracle/report.txt.  This list is the work list of the
# issue after the oracle's: a difference not listed here, or listed with other
# classes, fails the run; so does an entry whose scenario now agrees with JAX.
# Regenerate with `build/oracle-venv/bin/python -m oracle run --update-known`
# after reviewing the report.
"""


def write(verdicts, path: str = KNOWN_FILE, keep: Optional[dict[str, Entry]] = None) -> int:
  """Rewrites the file with one entry per differing verdict (entries for
  scenarios outside this run are kept as they were)."""
  lines = []
  covered = set()
  for v in sorted(verdicts, key=lambda v: v.path):
    covered.add(v.path)
    if v.status != "differ":
      continue
    names = [c.name for c in causes_of(v.classes, v.context)]
    if unexplained(v.classes, v.context):
      names.append("unexplained")
    lines.append(f"{v.path} | {' ;; '.join(v.classes)} | {', '.join(names)}")
  for p, e in sorted((keep or {}).items()):
    if p not in covered:
      lines.append(f"{e.path} | {' ;; '.join(e.classes)} | {', '.join(e.causes)}")
  lines.sort()
  with open(path, "w", encoding="utf-8") as f:
    f.write(HEADER)
    for l in lines:
      f.write(l + "\n")
  return len(lines)
