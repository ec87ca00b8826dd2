"""lowersim against the export back-compat test data of the installed jax
(jax/_src/internal_test_util/export_back_compat_test_data/), read at test
time from the installed package, never copied into the repository.

JAX keeps there modules it serialized with jax.export long ago, to check
that today's XLA still runs them.  Those in lowersim's family (Pallas
kernels through tpu_custom_call, Triton and Mosaic GPU; host callbacks) are
compared with lowersim's lowering of the same program, when lowersim's
kernel library can describe it; the others are listed with the reason.

What such a comparison can show.  A stored module is what JAX of its
serialized date exported, not what the installed JAX lowers: where the two
differ (a kernel's code generation, the custom call's attributes, a nested
jit exported as a call), the stored module differs from 0.10.2's lowering
too, and so from lowersim's, which models 0.10.2 (the conformance scenarios
of the same programs check that against the live JAX).  Those differences
are the data's age (known.py's backcompat-* causes, kind "oracle mapping").
The test's own wrapper is not lowersim's business either: the Mosaic GPU
data's module is named after the test's wrapper (jit_wrapped), so that
scenario names its function `wrapped`; the 2024 Triton data calls it as a
private @wrapped function, which 0.10.2 no longer exports.  Every
class of a back-compat verdict starts with "back-compat: ", so that no cause
written for them explains a difference of an ordinary scenario.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import tempfile

from oracle import compare, features, judge, server

PACKAGE = "jax._src.internal_test_util.export_back_compat_test_data"
FAMILY_TARGETS = ("tpu_custom_call", "__gpu$xla.gpu.triton", "mosaic_gpu_v2",
                  "xla_python_cpu_callback", "xla_python_gpu_callback",
                  "xla_ffi_python_cpu_callback", "xla_ffi_python_gpu_callback",
                  "xla_buffer_python_cpu_callback", "xla_buffer_python_gpu_callback")

# The programs of tests/pallas/export_back_compat_pallas_test.py (jax-v0.10.2)
# as lowersim scenarios, where lowersim's kernel library can say them.
# Exported modules: export="true" (jax.export; the Triton test disables the
# custom-call check for its unstable target, as run_one_test's export does).
SCENARIOS = {
    ("pallas.triton_add_one", "data_2024_05_02"): (
        "test_triton_add_one: add_one on f32[8], blocks of (1,) over grid 8, Triton; lowersim's "
        "kernel takes the whole array as one block",
        """<scenario name="backcompat-triton-add-one">
  <runtime><backend platform="cpu"/><backend platform="cuda" device_kind="NVIDIA H100"/></runtime>
  <pallas use_mosaic_gpu="false"/>
  <lower function="func" platforms="cuda" export="true" disabled_checks="custom_call:__gpu$xla.gpu.triton">
    <arg dtype="f32" shape="8"/>
    <pallas_call args="0" kernel="add_one" grid="8"><result dtype="f32" shape="8"/></pallas_call>
  </lower>
</scenario>
"""),
    ("pallas.mosaic_gpu_add_one", "data_2026_02_18"): (
        "test_mosaic_gpu_add_one: pl.pallas_call(add_one) on f32[256], grid 2, "
        "plgpu.CompilerParams()",
        """<scenario name="backcompat-mosaic-gpu-add-one">
  <runtime><backend platform="cpu"/><backend platform="cuda" device_kind="NVIDIA H100"/></runtime>
  <lower function="wrapped" platforms="cuda" export="true">
    <arg dtype="f32" shape="256"/>
    <pallas_call args="0" kernel="add_one" grid="2" compiler_params="mosaic_gpu"><result dtype="f32" shape="256"/></pallas_call>
  </lower>
</scenario>
"""),
}

NOT_COMPARED = {
    "pallas.mosaic_gpu_add_one:kernel_data_2025_09_07": "plgpu.kernel, not pl.pallas_call",
    "pallas.mosaic_gpu_add_one:kernel_data_2026_06_12": "plgpu.kernel, not pl.pallas_call",
    "pallas.mosaic_matmul": "a matmul kernel: lowersim's kernel library has add_one and copy",
    "pallas.mosaic_boolean_constant": "a bool comparison kernel: outside lowersim's kernel library",
    "pallas.mosaic_semaphore_dma": "a DMA/semaphore kernel: outside lowersim's kernel library",
}


def _data_sets():
  """(module name, data name, dict) of every data set in the package."""
  pkg = importlib.import_module(PACKAGE)
  names = [m.name[len(PACKAGE) + 1:] for m in pkgutil.walk_packages(pkg.__path__, PACKAGE + ".")
           if not m.ispkg]
  for name in sorted(names):
    try:
      mod = importlib.import_module(f"{PACKAGE}.{name}")
    except Exception:  # pragma: no cover - data modules are plain literals
      continue
    for attr in sorted(dir(mod)):
      d = getattr(mod, attr)
      if isinstance(d, dict) and "mlir_module_text" in d and "custom_call_targets" in d:
        yield name, attr, d


def _compare_task(task: dict) -> dict:
  """Fork-server work: lowersim's module for the scenario against the
  stored one."""
  low = judge.run_lowersim(task["lowersim"], task["scenario_file"], task["lowersim_jax"])
  v = compare.Verdict(path=task["path"], status="agree")
  v.lowersim = low.to_json()
  v.lowersim.pop("module", None)
  if low.kind != "module":
    v.status = "differ"
    v.classes = [f"back-compat: outcome: lowersim {low.kind}; JAX module"]
    v.diff = low.stderr
    return v.to_json()
  classes, diff = compare.compare_modules(low.module, task["expected"])
  if classes:
    v.status, v.classes, v.diff = "differ", ["back-compat: " + c for c in classes], diff
    v.summary = classes[0]
  return v.to_json()


def run(a) -> tuple[list[compare.Verdict], str]:
  try:
    sets = list(_data_sets())
  except ImportError:
    return [], (f"the installed jax has no {PACKAGE.replace('.', '/')}/: "
                "no back-compat modules to compare (skipped)")
  lines, tasks = [], []
  tmp = tempfile.mkdtemp(prefix="lowersim-oracle-backcompat-")
  binary = judge.lowersim_binary(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
  family = 0
  for mod, name, d in sets:
    targets = [t for t in d["custom_call_targets"] if t in FAMILY_TARGETS]
    if not targets:
      continue
    family += 1
    key = f"{mod}:{name}"
    where = f"{mod.replace('.', '/')}.py {name} ({d.get('platform')}, {', '.join(targets)}, " \
            f"serialized {d.get('serialized_date')})"
    if (mod, name) not in SCENARIOS:
      why = NOT_COMPARED.get(key) or NOT_COMPARED.get(mod) or "no lowersim scenario describes it"
      lines.append(f"  not compared: {where}: {why}")
      continue
    what, xml = SCENARIOS[(mod, name)]
    if not features.has_config_option(features.USE_MOSAIC_GPU):
      # Without the option (0.11.2 on) Triton is the GPU default: the
      # scenario states what the test's program is without it.
      xml = xml.replace('  <pallas use_mosaic_gpu="false"/>\n', "")
    path = os.path.join(tmp, f"{mod}.{name}.xml")
    with open(path, "w") as f:
      f.write(xml)
    tasks.append({"path": f"backcompat:{key}", "scenario_file": path, "lowersim": binary,
                  "lowersim_jax": a.lowersim_jax,
                  "expected": d["mlir_module_text"], "where": where, "what": what})
  verdicts = []
  for task, result in server.run(tasks, _compare_task, jobs=a.jobs, timeout=a.timeout):
    from oracle.runner import result_to_verdict
    v = result_to_verdict(task["path"], result)
    verdicts.append(v)
    lines.append(f"  {v.status}: {task['where']}: {task['what']}"
                 + (f"\n    classes: {' ;; '.join(v.classes)}" if v.classes else ""))
  head = (f"{len(sets)} data sets in the installed jax, {family} in lowersim's family "
          f"(targets {', '.join(FAMILY_TARGETS[:3])} and the host-callback targets); "
          f"{len(tasks)} compared.  None of the data sets has a host callback "
          "(jax.export refuses to serialize them)." if not any(
              t in FAMILY_TARGETS[3:] for _, _, d in sets for t in d["custom_call_targets"])
          else "")
  return verdicts, head + "\n" + "\n".join(sorted(lines))
