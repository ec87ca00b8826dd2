"""Known differences (oracle/known-differences/RELEASE.txt, one file per JAX
release) and the causes behind difference classes.

A release's file has one line per scenario that differs from that JAX:

    PATH | CLASS ;; CLASS ;; ... | CAUSE, CAUSE, ...

PATH is the scenario (relative to the repository) or a back-compat module
(`backcompat:FILE:DATA`); the CLASSes are exactly the difference classes the
oracle finds for it (oracle/compare.py); the CAUSEs name entries of CAUSES
below (what differs and the JAX code behind it).  A scenario whose classes
are not exactly its entry's is a new difference; an entry whose scenario
agrees with JAX is stale.  Both fail the run.  `python -m oracle run
--update-known` rewrites the release's file from the run's differences (a
verdict that differs only by JAX's own nondeterminism gets no entry).
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Optional


@dataclasses.dataclass
class Cause:
  name: str
  pattern: str          # regex on a difference class
  what: str             # what differs, in one sentence
  jax_code: str         # the JAX code behind it (file: function), as of the release that showed it
  kind: str = "lowersim"  # lowersim (its behaviour differs) | oracle mapping (the data or the
                          # program, not lowersim) | context (the scenario, or JAX's nondeterminism)
  requires: str = ""    # regex: the cause explains a class only beside a class matching it
  nondeterministic: bool = False  # JAX itself gives either outcome from one process to the
                                  # next: a scenario whose every class it explains agrees

  def explains(self, c: str, classes: list[str]) -> bool:
    return bool(re.search(self.pattern, c)) and (
        not self.requires or any(re.search(self.requires, o) for o in classes if o != c))


CAUSES = [
    Cause("primitive-shadowing", r"^shadowed built-in primitive: ",
          "a scenario <primitive> named like a built-in (e.g. pallas_call) replaces the "
          "built-in's rules in lowersim's registry; in JAX a new core.Primitive(name) is "
          "another object and lax/pallas primitives keep their own rules",
          "jax/_src/core.py: Primitive; jax/_src/interpreters/mlir.py: register_lowering (keyed "
          "by the primitive object)", kind="context"),
    Cause("trace-before-init", r"warning only lowersim gives: (jax\._src\.xla_bridge: )?Platform '…' is experimental",
          "JAX failed while tracing (a Pallas kernel capturing constants fails at trace time), "
          "before any backend was initialized, so it gave no experimental-plugin warning; "
          "lowersim raises that error when lowering, after the default-device lookup "
          "initialized the backends",
          "jax/_src/pallas/pallas_call.py: _trace_kernel_to_jaxpr (tracing) before "
          "pxla.lower_sharding_computation"),
    Cause("triton-kernel-old", r"kernel \(__gpu\$xla\.gpu\.triton\): JAX's kernel does not parse",
          "a Triton kernel JAX serialized in 2024 no longer parses in the Triton dialect of "
          "today's jaxlib (0.10.2 and later) "
          "(Triton promises no IR compatibility; JAX skips that back-compat test)",
          "tests/pallas/export_back_compat_pallas_test.py: test_triton_add_one (skipped)",
          kind="oracle mapping"),
    Cause("export-quotes-triton", r"^error values: ValueError: Cannot serialize code with custom calls( whose targets have no compatibility guar|.*__gpu\$xla\.gpu\.triton)",
          "jax.export refuses the unstable Triton call and quotes it, with its ir (the kernel's "
          "bytecode, written by another MLIR: kernel-producer), so the messages differ in the "
          "payload only",
          "jax/_src/export/_export.py: _check_module; "
          "jax/_src/pallas/triton/pallas_call_registration.py"),
    Cause("backcompat-wrapper", r"^back-compat: (ops: only JAX has func\.call,func\.func,func\.return|module: \"…\"\(\) <\{sym_name = \"…\"\}> \(\{)$",
          "a stored back-compat module has another shape than today's lowering of the "
          "program: the 2024 Triton export calls a private @wrapped function, the Mosaic GPU "
          "one is named jit_wrapped (the test's own wrapper)",
          "jax/_src/internal_test_util/export_back_compat_test_util.py: run_one_test",
          kind="oracle mapping"),
    Cause("backcompat-codegen", r"^back-compat: (kernel \(mosaic_gpu_v2\) |serialization: kernel_hash|"
          r"module: % = \"…\"\(%\) <\{backend_config = )",
          "the Mosaic GPU data is JAX's export of 2026-02-18, not the installed release's "
          "lowering (seen on 0.10.2 to 0.11.1; from 0.11.2 the stored kernel does not even "
          "deserialize): Mosaic GPU "
          "then made 256-byte TMA descriptors and no reinterpret_cast, the custom call had no "
          "backend_config attribute, and the stored kernel_hash is not the SHA-256 of the stored "
          "module; lowersim matches 0.10.2 on the same program "
          "(testdata/conformance/pallas/cuda-mosaic-gpu-backcompat-program.xml)",
          "jax/_src/internal_test_util/export_back_compat_test_data/pallas/mosaic_gpu_add_one.py: "
          "data_2026_02_18", kind="oracle mapping"),
    Cause("backcompat-program-gone", r"^back-compat: outcome: lowersim error; JAX module$",
          "the stored Mosaic GPU module is JAX's export of 2026-02-18; its program, "
          "pl.pallas_call with plgpu.CompilerParams, no longer lowers on the installed release "
          "(gpu_lowering's `assert rule is not None` from 0.11.2), so lowersim, lowering it as "
          "that release does, raises where the data holds a module",
          "jax/_src/internal_test_util/export_back_compat_test_data/pallas/mosaic_gpu_add_one.py: "
          "data_2026_02_18; jax/_src/pallas/pallas_call.py: gpu_lowering", kind="oracle mapping"),
    Cause("token-set-order", r"^token order: ",
          "main's tokens of two or more ordered-effect kinds come in the order a Python set of "
          "the effect objects iterates, by their ids: either order from one JAX process to the "
          "next (the same scenario gives both); lowersim takes the order the program first has "
          "them",
          "jax/_src/interpreters/mlir.py: lower_jaxpr_to_module "
          "(effects.ordered_effects.filter_in(closed_jaxpr.effects))", kind="context",
          nondeterministic=True),
    Cause("dtype-set-order", r"^dtype list order: ",
          "lax's dtype rules name the accepted dtypes in the iteration order of a Python set of "
          "numpy type objects, hashed by address: either order from one JAX process to the next "
          "(seen on Python 3.12); the messages are equal with the list sorted",
          "jax/_src/lax/lax.py: unop_dtype_rule, naryop_dtype_rule (', '.join(t.__name__ for t "
          "in accepted_dtypes))", kind="context", nondeterministic=True),
    Cause("lazy-init-warning-order", r"^warnings in another order$",
          "JAX initializes every backend when the lowering starts, so an experimental plugin's "
          "warning comes before any lowering warning (e.g. Mosaic GPU's DeprecationWarning); "
          "lowersim initializes backends when a lowering first asks for one (the "
          "eager-backend-init cause), which can be after",
          "jax/_src/interpreters/pxla.py: get_default_device -> xla_bridge.backends"),
    Cause("mosaic-gpu-warning-not-reached",
          r"^warning only (JAX|lowersim) gives: Using ``pl\.pallas_call`` for Mosaic GPU kernels is deprecated",
          "one side failed before Mosaic GPU's lowering ran (JAX while tracing, e.g. the "
          "lax-dtype-rules cause, or either side on a check the other makes later: error-order, "
          "dce), so only the other warns that pl.pallas_call for Mosaic GPU is deprecated",
          "jax/_src/pallas/mosaic_gpu/pallas_call_registration.py: pallas_call_lowering "
          "(warnings.warn before lowering)",
          requires=r"^(outcome|error|error values): "),
    Cause("mosaic-version-export", r"^kernel \(tpu_custom_call\) module: \}\) \{stable_mosaic\.version = N",
          "the Mosaic TPU kernel is serialized at the forward-compatible stable_mosaic.version "
          "(11 at 0.10.2) by lowersim, at the serializer's own (15) by JAX: lowersim still lowers "
          "platforms= as jax.export (LoweringParameters.for_export, the export-attribute cause), "
          "and get_ir_version takes the forward-compatible version for an export",
          "jax/_src/tpu_custom_call.py: get_ir_version (ctx.is_forward_compat())"),
]


def nondeterministic(classes: list[str]) -> bool:
  """Every class is one JAX gives or not from one process to the next."""
  return bool(classes) and all(
      any(c.nondeterministic and c.explains(k, classes) for c in CAUSES) for k in classes)


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


def read(path: str) -> dict[str, Entry]:
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
# Known differences between lowersim and JAX {release}, found by the oracle
# (`./run oracle --jax {release}`).  One line per scenario: PATH | CLASSES | CAUSES.
# The causes are described, with the JAX code behind them, in oracle/known.py
# (CAUSES) and in build/oracle/{release}/report.txt.  A difference not listed
# here, or listed with other classes, fails the run; so does an entry whose
# scenario now agrees with JAX.  Regenerate with
# `./run oracle --jax {release} --update-known` after reviewing the report.
"""


def write(verdicts, path: str, release: str, keep: Optional[dict[str, Entry]] = None) -> int:
  """Rewrites the file with one entry per differing verdict (entries for
  scenarios outside this run are kept as they were)."""
  lines = []
  covered = set()
  for v in sorted(verdicts, key=lambda v: v.path):
    covered.add(v.path)
    if v.status != "differ" or nondeterministic(v.classes):
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
    f.write(HEADER.format(release=release))
    for l in lines:
      f.write(l + "\n")
  return len(lines)
