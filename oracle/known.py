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
  kind: str = "lowersim"  # lowersim (its behaviour differs) | oracle (how the oracle maps a scenario)
  requires: str = ""    # regex: the cause explains a class only beside a class matching it

  def explains(self, c: str, classes: list[str]) -> bool:
    return bool(re.search(self.pattern, c)) and (
        not self.requires or any(re.search(self.requires, o) for o in classes if o != c))


CAUSES = [
    Cause("oneapi-priority", r"^default backend: JAX ",
          "the default backend differs, so does everything after it: JAX's oneapi plugin "
          "registers with priority 500 (lowersim: 400, as for other plugins), and xla_bridge "
          "tries cpu and tpu first (registered on import), so ties go another way",
          "jax_plugins/oneapi/__init__.py: xb.register_plugin('oneapi', priority=500); "
          "jax/_src/xla_bridge.py: backends", kind="context"),
    Cause("primitive-shadowing", r"^shadowed built-in primitive: ",
          "a scenario <primitive> named like a built-in (e.g. pallas_call) replaces the "
          "built-in's rules in lowersim's registry; in JAX a new core.Primitive(name) is "
          "another object and lax/pallas primitives keep their own rules",
          "jax/_src/core.py: Primitive; jax/_src/interpreters/mlir.py: register_lowering (keyed "
          "by the primitive object)", kind="context"),
    Cause("export-attribute", r"^uses_shape_polymorphism$",
          "lowersim adds jax.uses_shape_polymorphism for platforms=; jit(f).trace(*args)"
          ".lower(lowering_platforms=...) does not (only jax.export sets it)",
          "jax/_src/interpreters/mlir.py: lower_jaxpr_to_module (no such attribute); "
          "jax/_src/export/_export.py: _export_lowered sets it"),
    Cause("shardy", r"^shardy$",
          "JAX 0.10.2 lowers with the Shardy partitioner: an sdy.mesh and sdy.sharding "
          "attributes on host callbacks (maximal sharding on device 0) and on main's "
          "arguments and results under jit(backend=)",
          "jax/_src/callback.py: emit_python_callback / _callback_op_sharding; "
          "jax/_src/interpreters/mlir.py: lower_jaxpr_to_fun (sdy.sharding arg/result attrs); "
          "config jax_use_shardy_partitioner=True"),
    Cause("jit-backend-deprecated", r"^warning only JAX gives: backend and device argument on jit is deprecated",
          "jax.jit(f, backend=...) warns DeprecationWarning in 0.10.2; lowersim prints no warning",
          "jax/_src/pjit.py: _parse_jit_arguments"),
    Cause("lax-dtype-rules", r"; JAX TypeError: \w+ does not accept dtype",
          "lax.sin, cos, exp and neg refuse integer and bool operands (and add, mul, sub "
          "bool) while tracing; lowersim lowers them (and stablehlo.sine on integers does "
          "not verify)",
          "jax/_src/lax/lax.py: naryop_dtype_rule (sin_p, cos_p, exp_p: _float | _complex)"),
    Cause("undeclared-tpu", r"libtpu",
          "a scenario that declares no tpu backend runs with JAX's own tpu factory "
          "(registered on import, fail_quietly), which fails on a machine without libtpu; "
          "lowersim treats an undeclared tpu as never registered ('Unknown backend tpu', "
          "'not in the list of known backends')",
          "jax/_src/xla_bridge.py: register_backend_factory('tpu', ...), _get_backend_uncached",
          kind="oracle mapping"),
    Cause("cuda-without-gpu", r"JAX AssertionError \(no message\) in jax/_src/xla_bridge\.py:backends",
          "JAX_PLATFORMS naming cuda on a machine without a visible NVIDIA GPU: backends() "
          "skips cuda silently and, with nothing else, fails `assert _default_backend is not "
          "None`; lowersim reports cuda as not a known backend",
          "jax/_src/xla_bridge.py: backends (has_visible_nvidia_gpu)"),
    Cause("default-device-backend", r"(specified backend \S+ is different from the lowering platform|"
          r"outcome: lowersim RuntimeError: (Unknown backend|Backend '…' failed)[^;]*; JAX module|"
          r"outcome: lowersim module; JAX ValueError: the platform for the specified backend)",
          "under jit the ModuleContext's backend is the default device's (or jit(backend=)'s), "
          "so get_backend() compares platforms (ValueError) instead of looking the lowering "
          "platform up (RuntimeError); lowersim models get_backend without it",
          "jax/_src/interpreters/pxla.py: _get_and_check_device_assignment -> get_default_device; "
          "jax/_src/interpreters/mlir.py: ModuleContext.get_backend"),
    Cause("eager-backend-init", r"(; JAX RuntimeError: (Unable to initialize backend|Backend '…' provides no devices)|"
          r"warning only JAX gives: Platform '…' is experimental)",
          "jit initializes every backend (backends(), for the default device) before it lowers "
          "anything, so an initialization failure or an experimental-plugin warning comes "
          "first; lowersim initializes backends only when a lowering asks for one",
          "jax/_src/interpreters/pxla.py: get_default_device -> xla_bridge.backends"),
    Cause("lazy-init-warning-order", r"^warnings in another order$",
          "JAX initializes every backend when the lowering starts, so an experimental plugin's "
          "warning comes before any lowering warning (e.g. Mosaic GPU's DeprecationWarning); "
          "lowersim initializes backends when a lowering first asks for one (the "
          "eager-backend-init cause), which can be after",
          "jax/_src/interpreters/pxla.py: get_default_device -> xla_bridge.backends"),
    Cause("trace-before-init", r"warning only lowersim gives: Platform '…' is experimental",
          "JAX failed while tracing, before any backend was initialized, so it gave no "
          "experimental-plugin warning; lowersim initialized backends first",
          "jax/_src/pjit.py: _infer_params (tracing) before pxla.lower_sharding_computation"),
    Cause("mosaic-gpu-warning-not-reached",
          r"^warning only (JAX|lowersim) gives: Using ``pl\.pallas_call`` for Mosaic GPU kernels is deprecated",
          "one side failed before Mosaic GPU's lowering ran (JAX while tracing, e.g. the "
          "lax-dtype-rules cause, or either side on a check the other makes later: error-order, "
          "dce), so only the other warns that pl.pallas_call for Mosaic GPU is deprecated",
          "jax/_src/pallas/mosaic_gpu/pallas_call_registration.py: pallas_call_lowering "
          "(warnings.warn before lowering)",
          requires=r"^(outcome|error|error values): "),
    Cause("factory-order", r"^error values: .*(Platforms present are|Available backends are|not in the list of known backends)",
          "xla_bridge's registry is a dict in which cpu and tpu come first (registered on "
          "import, and kept when the scenario does not declare them), so backends "
          "initialize, and are listed, in that order; lowersim uses the declaration order "
          "and lists only declared factories",
          "jax/_src/xla_bridge.py: _backend_factories, backends"),
    Cause("buffer-callback-oneapi", r"`buffer_callback` not supported on oneapi backend",
          "lowersim gives buffer_callback a oneapi target (seed 004, newer JAX); 0.10.2 knows "
          "cpu, cuda and rocm only",
          "jax/_src/buffer_callback.py: _buffer_callback_lowering"),
    Cause("triton-kernel-old", r"^back-compat: kernel \(__gpu\$xla\.gpu\.triton\): JAX's kernel does not parse",
          "a Triton kernel JAX serialized in 2024 no longer parses in 0.10.2's Triton dialect "
          "(Triton promises no IR compatibility; JAX skips that back-compat test)",
          "tests/pallas/export_back_compat_pallas_test.py: test_triton_add_one (skipped)"),
    Cause("mosaic-version-export", r"^kernel \(tpu_custom_call\) module: \}\) \{stable_mosaic\.version = N",
          "the Mosaic TPU kernel is serialized at the forward-compatible stable_mosaic.version "
          "(11 at 0.10.2) by lowersim, at the serializer's own (15) by JAX: lowersim still lowers "
          "platforms= as jax.export (LoweringParameters.for_export, the export-attribute cause), "
          "and get_ir_version takes the forward-compatible version for an export",
          "jax/_src/tpu_custom_call.py: get_ir_version (ctx.is_forward_compat())"),
    Cause("multi-platform-tuple-bug", r"can only concatenate list",
          "JAX 0.10.2 fails with a TypeError in lower_per_platform's case branch when the "
          "rule's avals_out is a tuple (debug_callback lowered for several platforms): a JAX "
          "bug that lowersim does not reproduce",
          "jax/_src/interpreters/mlir.py: lower_per_platform (rule_out_avals = [...] + ctx.avals_out)"),
    Cause("nvidia-gpu-warning", r"An NVIDIA GPU may be present",
          "with an NVIDIA GPU visible (the scenario declares cuda) and no cuda backend up, "
          "JAX warns that a CUDA-enabled jaxlib is missing",
          "jax/_src/xla_bridge.py: _suggest_missing_backends", kind="oracle mapping"),
    Cause("donation-warning", r"Some donated buffers were not usable",
          "JAX warns (warnings.warn) about donations it cannot use; lowersim only narrates it "
          "in `explain`",
          "jax/_src/interpreters/mlir.py: lower_jaxpr_to_module"),
    Cause("dce", r"(^ops: only lowersim has|^main's signature|^outcome: lowersim [A-Za-z]+Error: .*; JAX module$|"
          r"^error values: NotImplementedError: MLIR translation rule)",
          "jit drops equations whose results are unused and have no effects, and unused "
          "arguments (keep_unused=False); lowersim lowers every equation and keeps every "
          "argument (so it also raises errors of equations JAX never lowers)",
          "jax/_src/interpreters/pxla.py: _dce_jaxpr / prune_unused_inputs"),
    Cause("backcompat-wrapper", r"^back-compat: ops: only JAX has func\.call,func\.func,func\.return$",
          "the 2024 Triton export calls the test's wrapper as a private @wrapped function "
          "(nested jit was exported as a call then; 0.10.2 inlines it): the test's code, not "
          "lowersim's",
          "jax/_src/internal_test_util/export_back_compat_test_util.py: run_one_test",
          kind="oracle mapping"),
    Cause("backcompat-codegen", r"^back-compat: (kernel \(mosaic_gpu_v2\) |serialization: kernel_hash|"
          r"module: % = \"…\"\(%\) <\{backend_config = )",
          "the Mosaic GPU data is JAX's export of 2026-02-18, not 0.10.2's lowering: Mosaic GPU "
          "then made 256-byte TMA descriptors and no reinterpret_cast, the custom call had no "
          "backend_config attribute, and the stored kernel_hash is not the SHA-256 of the stored "
          "module; lowersim matches 0.10.2 on the same program "
          "(testdata/conformance/pallas/cuda-mosaic-gpu-backcompat-program.xml)",
          "jax/_src/internal_test_util/export_back_compat_test_data/pallas/mosaic_gpu_add_one.py: "
          "data_2026_02_18", kind="oracle mapping"),
    Cause("error-order", r"^error: ",
          "both fail, with different errors: the checks run in another order (JAX resolves "
          "jit(backend=) before tracing, runs every trace-time rule of the function, "
          "initializes every backend, then lowers the equations DCE kept, in order); "
          "lowersim checks as it lowers",
          "jax/_src/pjit.py: _infer_params; jax/_src/interpreters/pxla.py: "
          "lower_sharding_computation; jax/_src/interpreters/mlir.py: jaxpr_subcomp"),
]


def causes_of(classes: list[str], context: tuple = ()) -> list[Cause]:
  out = []
  for c in list(context) + list(classes):
    for cause in CAUSES:
      if cause.explains(c, list(classes)) and cause not in out:
        out.append(cause)
        break
  return out


def unexplained(classes: list[str], context: tuple = ()) -> list[str]:
  """The classes no cause explains; none when the scenario's context (a
  different default backend, a shadowed built-in) explains everything."""
  if any(re.search(x.pattern, c) for c in context for x in CAUSES if x.kind == "context"):
    return []
  return [c for c in classes if not any(x.explains(c, classes) for x in CAUSES)]


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
