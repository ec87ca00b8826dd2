#!/usr/bin/env python3
"""Generates lowersim's conformance corpus, testdata/conformance/.

Every scenario pins one behaviour of JAX's multi-platform lowering machinery
and says where it lives in JAX (file and function).  The expectations are
derived from JAX itself (jax/_src/xla_bridge.py, interpreters/mlir.py,
buffer_callback.py, callback.py, debugging.py, lax/control_flow/
conditionals.py, pallas/pallas_call.py, pallas/core.py and the Pallas
backends' pallas_call_registration.py), never from lowersim's output: the
messages below are JAX's f-strings, and the few models in this file (Pallas'
backend choice and params registry, lower_per_platform's kept rules,
platform_dependent's branches and the stablehlo.case layouts they give) follow
JAX's code step by step.

lowersim's modelling choices that the corpus respects:
  * every scenario's runtime starts as a JAX process's: the cpu factory (one
    device) and the tpu factory (failing quietly without libtpu) registered on
    import, first in registry order; declared backends replace them or come
    after them; under jit the ModuleContext's backend is the default
    device's (or jit(backend=)'s), so get_backend compares platforms;
  * <pallas> absent: Mosaic TPU, Triton and Mosaic GPU installed and
    jax_pallas_use_mosaic_gpu unset; Triton's params class is registered from
    the start (jax.experimental.pallas.triton imports its registration),
    Mosaic TPU's and Mosaic GPU's when tpu_lowering / gpu_lowering first
    import their registration module;
  * buffer_callback targets include oneapi (the newer JAX of the seeds);
    debug_callback is registered for cpu, gpu (cuda, rocm, oneapi) and tpu.

Run from anywhere with Python 3 (standard library only); the output is
deterministic.  CI does not run this script: the generated files are
committed.

    python3 tools/gen_conformance.py [--out DIR]
"""

import argparse
import os
import re
import string
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(ROOT, "testdata", "conformance")

# Platform vocabulary (xla_bridge.py).
# The JAX version profiles (lowersim versions): the oracle's release and the
# seeds' commit, where buffer_callback gained oneapi.
JAX_0_10_2 = "0.10.2"
JAX_SEED = "0.11.1.dev20260827+1e1c6a8fc0"
CONCRETE = ["cpu", "cuda", "rocm", "oneapi", "tpu"]
GPUS = ["cuda", "rocm", "oneapi"]          # _alias_to_platforms["gpu"]
PLUGIN = "metal"                           # an experimental PJRT plugin
ALL6 = CONCRETE + [PLUGIN]
DONATION = ["cpu", "cuda", "rocm", "tpu", "neuron"]   # mlir._platforms_with_donation
BASE_KNOWN = {"cpu", "cuda", "gpu", "oneapi", "rocm", "tpu"}

# Short dtype names (scenario) -> numpy names (str(ShapedArray) uses dtype.name).
NP_NAME = {"bool": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
           "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
           "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64"}
MLIR_ELT = {"bool": "i1", "i8": "i8", "i16": "i16", "i32": "i32", "i64": "i64",
            "u8": "ui8", "u16": "ui16", "u32": "ui32", "u64": "ui64",
            "f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64"}


# --- JAX's messages (the f-strings of the JAX source) -------------------------

def py(x):
    """Python's repr of a str list / tuple, as JAX's f-strings print them."""
    return repr(x)


def m_mismatch(backend, platform):          # mlir.py ModuleContext.get_backend
    return (f"the platform for the specified backend {backend} is different "
            f"from the lowering platform {platform}")


M_MULTI_BACKEND = ("accessing .backend in multi-lowering setting. This can occur when "
                   "lowering a primitive that has not been adapted to multi-platform "
                   "lowering")
M_TOO_MANY_CHANNELS = ("Host callback lowering created too many channels. PjRt does not"
                       " support more than 65535 channels")


def m_unknown_alias(p, present):           # xla_bridge.py canonicalize_platform
    return (f"Unknown backend: '{p}' requested, but no platforms that are instances "
            f"of {p} are present. Platforms present are: " + ",".join(present))


def m_unknown_backend(p, available):       # xla_bridge.py _get_backend_uncached
    return f"Unknown backend {p}. Available backends are {py(list(available))}"


def m_backend_failed(p, err, available):   # xla_bridge.py _get_backend_uncached
    return (f"Backend '{p}' failed to initialize: {err}. "
            f"Available backends are {py(list(available))}")


def m_init(p, err, jax_platforms_set):      # xla_bridge.py backends
    msg = f"Unable to initialize backend '{p}': {err}"
    if jax_platforms_set:
        return msg + " (set JAX_PLATFORMS='' to automatically choose an available backend)"
    return msg + (" (you may need to uninstall the failing plugin package, or set "
                  "JAX_PLATFORMS=cpu to skip this backend.)")


def m_not_in_factories(p, factories):      # xla_bridge.py _init_backend
    return f"Backend '{p}' is not in the list of known backends: {py(list(factories))}."


def m_no_devices(p):                        # xla_bridge.py _init_backend
    return f"Backend '{p}' provides no devices."


def m_unknown_rule_platform(prim, p, known):  # mlir.py register_lowering
    return (f"Registering an MLIR lowering rule for primitive {prim}"
            f" for an unknown platform {p}. Known platforms are:"
            f" {', '.join(sorted(known))}.")


def m_no_rule(desc, platform):              # mlir.py lower_per_platform (one platform)
    return f"MLIR translation rule for primitive '{desc}' not found for platform {platform}"


def m_no_rules(desc, platforms):            # mlir.py lower_per_platform (several)
    return (f"MLIR translation rule for primitive '{desc}' not found for platforms "
            f"{py(list(platforms))}")


def m_donation(platforms, supporting):      # mlir.py lower_jaxpr_to_module
    return ("In multi-platform lowering either all or no lowering platforms "
            f"should support donation. Lowering for {py(tuple(platforms))} of which "
            f"only {py(list(supporting))} support donation")


M_PD_GPU = "Use 'cuda' or 'rocm' for lax.platform_dependent."
M_BC_MULTI = "multi-platform lowering for buffer_callback"


def m_bc_unsupported(p):                    # buffer_callback.py _buffer_callback_lowering
    return f"`buffer_callback` not supported on {p} backend."


M_BC_RETURNED = "buffer_callback callback must not return any values."


def m_alias_input(i, o, n):                 # buffer_callback.py buffer_callback
    return (f"input_output_aliases contains the mapping '{i}:{o}' "
            f"with input index {i} outside the range [0, {n}).")


def m_alias_output(i, o, m):
    return (f"input_output_aliases contains the mapping '{i}:{o}' "
            f"with output index {o} outside the range [0, {m}).")


def aval_str(dtype, shape):
    """str(core.ShapedArray): str_short_aval with dtype.name, e.g. float32[2,3]."""
    return f"{NP_NAME[dtype]}[{shape}]"


def m_alias_aval(i, o, a_in, a_out):
    return (f"input_output_aliases contains the mapping '{i}:{o}' "
            f"referring to an input with abstract value {aval_str(*a_in)} and an "
            f"output with a different abstract value {aval_str(*a_out)}.")


M_PY_MULTI = "multi-platform lowering for python_callback"
M_UNCACHED_TUPLE = 'can only concatenate list (not "tuple") to list'  # mlir.py lower_per_platform


def m_py_unsupported(p):                    # callback.py emit_python_callback
    return f"`EmitPythonCallback` not supported on {p} backend."


def m_partitioned_platform(p):
    return f"Partitioned callback not implemented on {p} backend."


def m_params_platform(platform, expected):  # pallas/core.py get_lowering_rule
    return (f"Compiler params for platform {platform} cannot be used for"
            f" {expected} lowering.")


M_PALLAS_CPU = "Only interpret mode is supported on CPU backend."


def m_pallas_unsupported(p):                # pallas_call.py _unsupported_lowering_error
    return (f"Cannot lower pallas_call on platform: {p}. To use Pallas on GPU,"
            " install jaxlib GPU. To use Pallas on TPU, install jaxlib TPU and"
            " libtpu. See https://docs.jax.dev/en/latest/installation.html.")


M_PALLAS_ROCM = ("Mosaic GPU does not yet support AMD ROCm devices. "
                 "Use ``compiler_params=pltriton.CompilerParams()`` for ROCm.")
M_PALLAS_CONSTANTS = "Cannot lower a pallas_call with constants."


# --- Scenario documents ------------------------------------------------------

def text(value):
    """XML character data: only & and < need escaping."""
    return str(value).replace("&", "&amp;").replace("<", "&lt;")


def attr(value):
    return '"' + text(value).replace('"', "&quot;") + '"'


def B(platform, devices=None, priority=None, error=None, fail_quietly=None):
    """A <backend> of the simulated runtime."""
    return dict(platform=platform, devices=devices, priority=priority, error=error,
                fail_quietly=fail_quietly)


def rt(*backends, jax_platforms=None):
    return dict(backends=list(backends), jax_platforms=jax_platforms)


def arg(dtype="f32", shape="4", donated=False):
    return (dtype, shape, donated)


def results_xml(results):
    return "".join(f'<result dtype="{d}" shape="{s}"/>' for d, s in results)


def op(kind, args):
    return f'<op kind="{kind}" args="{args}"/>'


def prim(name, args, rules=(), default=None, results=(("f32", "4"),), access=None):
    """A primitive with register_lowering rules, lowered as ffi_lowering(target)."""
    head = f'<primitive name={attr(name)} args="{args}"'
    if access:
        head += f' backend_access="{access}"'
    lines = [head + ">"]
    for platform, target in rules:
        lines.append(f'  <rule platform={attr(platform)} target={attr(target)}/>')
    if default:
        lines.append(f'  <default target={attr(default)}/>')
    for d, s in results:
        lines.append(f'  <result dtype="{d}" shape="{s}"/>')
    lines.append("</primitive>")
    return "\n".join(lines)


def probe(platforms, access=None, args="0", default="k_default", shape="4"):
    """A primitive with one rule per platform (target k_<platform>) and a default:
    its custom call names the platform whose rule was used."""
    return prim("probe", args, [(p, f"k_{p}") for p in platforms], default,
                results=(("f32", shape),), access=access)


def pd(args, branches, default=None):
    """lax.platform_dependent: branches are (platforms, op kind)."""
    lines = [f'<platform_dependent args="{args}">']
    for platforms, kind in branches:
        lines.append(f'  <branch platforms="{platforms}" op="{kind}"/>')
    if default:
        lines.append(f'  <default op="{default}"/>')
    lines.append("</platform_dependent>")
    return "\n".join(lines)


def bc(args, results=(("f32", "4"),), aliases=(), side_effect=None, command_buffer=None,
       returns_value=None):
    head = f'<buffer_callback args="{args}"'
    for name, value in (("side_effect", side_effect), ("command_buffer", command_buffer),
                        ("returns_value", returns_value)):
        if value is not None:
            head += f' {name}="{str(value).lower()}"'
    body = [f'  <result dtype="{d}" shape="{s}"/>' for d, s in results]
    body += [f'  <alias input="{i}" output="{o}"/>' for i, o in aliases]
    if not body:
        return head + "/>"
    return "\n".join([head + ">"] + body + ["</buffer_callback>"])


def pure(args, results=(("f32", "4"),), sharding=None):
    head = f'<pure_callback args="{args}"' + (f' sharding="{sharding}"' if sharding else "")
    if not results:
        return head + "/>"
    return f'{head}>{results_xml(results)}</pure_callback>'


def io(args, results=(("f32", "4"),), ordered=False, sharding=None):
    head = f'<io_callback args="{args}" ordered="{str(ordered).lower()}"'
    if sharding:
        head += f' sharding="{sharding}"'
    if not results:
        return head + "/>"
    return f"{head}>{results_xml(results)}</io_callback>"


def debug(args="", ordered=False, partitioned=False):
    return (f'<debug_callback args="{args}" ordered="{str(ordered).lower()}"'
            f' partitioned="{str(partitioned).lower()}"/>')


def pallas_call(args="0", kernel="add_one", grid=2, interpret=False, params="none",
                constants=False, result=("f32", "8")):
    head = f'<pallas_call args="{args}" kernel="{kernel}" grid="{grid}"'
    if interpret:
        head += ' interpret="true"'
    if params != "none":
        head += f' compiler_params="{params}"'
    if constants:
        head += ' constants="true"'
    return f'{head}><result dtype="{result[0]}" shape="{result[1]}"/></pallas_call>'


def err(code, message):
    return ("error", code, message)


def ok(contains=(), absent=()):
    return ("ok", list(contains), list(absent))


class Corpus:
    def __init__(self):
        self.files = {}

    def add(self, folder, stem, description, *, eqns, expect, runtime=None, pallas=None,
            args=(arg(),), function="f", platforms=None, backend=None, ret=None,
            execute=False, export=False, jax=None, keep_unused=False, devices=None):
        path = f"{folder}/{stem}.xml"
        if path in self.files:
            raise SystemExit(f"duplicate scenario {path}")
        pin = f" jax={attr(jax)}" if jax is not None else ""
        out = ['<?xml version="1.0"?>', f'<scenario name={attr(folder + "-" + stem)}{pin}>']
        wrapped = textwrap.fill(" ".join(description.split()), width=92,
                                initial_indent="", subsequent_indent="  ",
                                break_on_hyphens=False, break_long_words=False)
        out.append(f"  <description>{text(wrapped)}</description>")
        if runtime is not None:
            head = "  <runtime"
            if runtime.get("jax_platforms") is not None:
                head += f' jax_platforms={attr(runtime["jax_platforms"])}'
            if not runtime["backends"]:
                out.append(head + "/>")
            else:
                out.append(head + ">")
                for b in runtime["backends"]:
                    line = f'    <backend platform={attr(b["platform"])}'
                    for key in ("devices", "priority", "error"):
                        if b[key] is not None:
                            line += f" {key}={attr(b[key])}"
                    if b["fail_quietly"] is not None:
                        line += f' fail_quietly="{str(b["fail_quietly"]).lower()}"'
                    out.append(line + "/>")
                out.append("  </runtime>")
        if pallas is not None:
            line = "  <pallas"
            for key in ("mosaic_tpu", "triton", "mosaic_gpu", "use_mosaic_gpu"):
                if key in pallas:
                    line += f' {key}="{str(pallas[key]).lower()}"'
            out.append(line + "/>")
        head = "  <lower"
        if function is not None:
            head += f" function={attr(function)}"
        if platforms is not None:
            head += f" platforms={attr(platforms)}"
        if backend is not None:
            head += f" backend={attr(backend)}"
        if devices is not None:
            head += f' devices="{devices}"'
        if keep_unused:
            head += ' keep_unused="true"'
        if export:
            head += ' export="true"'
        out.append(head + ">")
        for dtype, shape, donated in args:
            line = f'    <arg dtype="{dtype}" shape="{shape}"'
            if donated:
                line += ' donated="true"'
            out.append(line + "/>")
        for e in eqns:
            for line in e.split("\n"):
                out.append("    " + line)
        if ret is not None:
            out.append(f'    <return values="{ret}"/>')
        out.append("  </lower>")
        if execute:
            out.append("  <execute/>")
        if expect[0] == "error":
            out.append(f'  <expect error="{expect[1]}" message={attr(expect[2])}/>')
        else:
            out.append('  <expect ok="true">')
            for t in expect[1]:
                out.append(f"    <contains>{text(t)}</contains>")
            for t in expect[2]:
                out.append(f"    <absent>{text(t)}</absent>")
            out.append("  </expect>")
        out.append("</scenario>")
        self.files[path] = "\n".join(out) + "\n"

    def write(self, out_dir):
        # Only the corpus' own files are replaced: stale scenarios of earlier
        # runs go, nothing else under out_dir is touched.
        for dirpath, _, filenames in os.walk(out_dir):
            for name in filenames:
                if name.endswith(".xml"):
                    rel = os.path.relpath(os.path.join(dirpath, name), out_dir)
                    if rel.replace(os.sep, "/") not in self.files:
                        os.remove(os.path.join(dirpath, name))
        for path in sorted(self.files):
            full = os.path.join(out_dir, *path.split("/"))
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8", newline="\n") as f:
                f.write(self.files[path])


def target(name):
    return f'call_target_name = "{name}"'


def uses(platform):
    return target(f"k_{platform}")


def only(platform, candidates):
    """contains the probe target of `platform`, absent the other candidates'."""
    return ok([uses(platform)], [uses(p) for p in candidates if p != platform])


# --- runtime/: xla_bridge ------------------------------------------------------

XB = "jax/_src/xla_bridge.py"
TPU_ERR = "TPU initialization failed: No ba16c7433 device found."
CUDA_ERR = "FAILED_PRECONDITION: No visible GPU devices."


def gen_runtime(c):
    f = "runtime"
    # canonicalize_platform("gpu") under every subset of cuda, rocm, oneapi.
    for mask in range(8):
        subset = [p for i, p in enumerate(GPUS) if mask & (1 << i)]
        stem = "gpu-canonicalize-" + ("-".join(subset) if subset else "none")
        runtime = rt(B("cpu"), *[B(p, devices=2) for p in subset])
        if subset:
            expect = only(subset[0], GPUS + ["cpu"])
            what = f"gpu with {', '.join(subset)} present -> {subset[0]}"
        else:
            expect = err("LSIM_E_UNKNOWN_ALIAS_PLATFORM", m_unknown_alias("gpu", ["cpu"]))
            what = "gpu with none of cuda, rocm, oneapi present -> RuntimeError"
        c.add(f, stem,
              f"{XB} canonicalize_platform: {what} (the first of _alias_to_platforms['gpu'] = "
              "[cuda, rocm, oneapi] with an initialized backend; lower_jaxpr_to_module "
              "canonicalizes the lowering platforms).",
              runtime=runtime, platforms="gpu", eqns=[probe(GPUS)], expect=expect)
    c.add(f, "gpu-canonicalize-order-not-initialization",
          f"{XB} canonicalize_platform: the answer follows the alias order cuda, rocm, oneapi, "
          "not the order in which the backends were initialized (oneapi, rocm, cuda here): "
          "gpu -> cuda.",
          runtime=rt(B("cpu"), B("oneapi"), B("rocm"), B("cuda")), platforms="gpu",
          eqns=[probe(GPUS)], expect=only("cuda", GPUS))
    c.add(f, "gpu-canonicalize-oneapi-before-rocm-declared",
          f"{XB} canonicalize_platform: oneapi initialized before rocm still loses to rocm: "
          "gpu -> rocm.",
          runtime=rt(B("cpu"), B("oneapi"), B("rocm")), platforms="gpu",
          eqns=[probe(GPUS)], expect=only("rocm", GPUS))
    c.add(f, "gpu-canonicalize-none-present-lists-all",
          f"{XB} canonicalize_platform: with cpu and tpu up and no GPU platform, the "
          "RuntimeError lists the initialized backends joined by ',' without spaces.",
          runtime=rt(B("cpu"), B("tpu")), platforms="gpu", eqns=[probe(GPUS)],
          expect=err("LSIM_E_UNKNOWN_ALIAS_PLATFORM", m_unknown_alias("gpu", ["cpu", "tpu"])))
    c.add(f, "gpu-canonicalize-cuda-failed-quietly",
          f"{XB} canonicalize_platform: a cuda backend that failed quietly is not in "
          "backends(), so gpu -> rocm.",
          runtime=rt(B("cpu"), B("cuda", error=CUDA_ERR, fail_quietly=True), B("rocm")),
          platforms="gpu", eqns=[probe(GPUS)], expect=only("rocm", GPUS))
    c.add(f, "gpu-canonicalize-only-failed-gpu",
          f"{XB} canonicalize_platform: the only GPU backend failed quietly; canonicalize "
          "looks at backends() only (not _backend_errors): Unknown backend: 'gpu' ...",
          runtime=rt(B("cpu"), B("cuda", error=CUDA_ERR, fail_quietly=True)),
          platforms="gpu", eqns=[probe(GPUS)],
          expect=err("LSIM_E_UNKNOWN_ALIAS_PLATFORM", m_unknown_alias("gpu", ["cpu"])))
    c.add(f, "gpu-canonicalize-jax-platforms-rocm",
          f"{XB} backends + canonicalize_platform: JAX_PLATFORMS=rocm,cpu initializes only "
          "rocm and cpu although cuda is installed, so gpu -> rocm.",
          runtime=rt(B("cpu"), B("cuda"), B("rocm"), jax_platforms="rocm,cpu"),
          platforms="gpu", eqns=[probe(GPUS)], expect=only("rocm", GPUS))
    c.add(f, "gpu-canonicalize-zero-device-cuda-quiet",
          f"{XB} _init_backend + canonicalize_platform: cuda with no devices (failing quietly) "
          "is skipped; gpu -> oneapi.",
          runtime=rt(B("cpu"), B("cuda", devices=0, fail_quietly=True), B("oneapi")),
          platforms="gpu", eqns=[probe(GPUS)], expect=only("oneapi", GPUS))

    # JAX_PLATFORMS: exactly those, in order, priorities descending; aliases expanded.
    cands = ["cpu", "cuda", "rocm", "oneapi", "tpu"]
    c.add(f, "jax-platforms-cpu-only",
          f"{XB} backends: JAX_PLATFORMS=cpu initializes cpu only although cuda (priority 500) "
          "is installed; jit lowers for the default backend, cpu.",
          runtime=rt(B("cpu"), B("cuda"), jax_platforms="cpu"), eqns=[probe(cands)],
          expect=only("cpu", cands))
    c.add(f, "jax-platforms-cuda-cpu",
          f"{XB} backends: JAX_PLATFORMS=cuda,cpu gives cuda priority 2 and cpu 1: default cuda.",
          runtime=rt(B("cpu"), B("cuda"), jax_platforms="cuda,cpu"), eqns=[probe(cands)],
          expect=only("cuda", cands))
    c.add(f, "jax-platforms-cpu-cuda",
          f"{XB} backends: JAX_PLATFORMS=cpu,cuda: priorities come from the position (cpu 2, "
          "cuda 1), not from the registrations (cuda 500): default cpu.",
          runtime=rt(B("cpu"), B("cuda"), jax_platforms="cpu,cuda"), eqns=[probe(cands)],
          expect=only("cpu", cands))
    c.add(f, "jax-platforms-tpu-cpu",
          f"{XB} backends: JAX_PLATFORMS=tpu,cpu with cuda installed: default tpu.",
          runtime=rt(B("cpu"), B("tpu"), B("cuda"), jax_platforms="tpu,cpu"),
          eqns=[probe(cands)], expect=only("tpu", cands))
    c.add(f, "jax-platforms-rocm-only",
          f"{XB} backends: JAX_PLATFORMS=rocm with cpu and cuda installed: default rocm.",
          runtime=rt(B("cpu"), B("cuda"), B("rocm"), jax_platforms="rocm"),
          eqns=[probe(cands)], expect=only("rocm", cands))
    c.add(f, "jax-platforms-gpu-expands",
          f"{XB} backends: JAX_PLATFORMS=gpu expands to cuda, rocm, oneapi (expand_platform_alias) "
          "with priorities 3, 2, 1: default cuda.",
          runtime=rt(B("cpu"), B("cuda"), B("rocm"), B("oneapi"), jax_platforms="gpu"),
          eqns=[probe(cands)], expect=only("cuda", cands))
    c.add(f, "jax-platforms-gpu-expands-oneapi-initialized",
          f"{XB} backends + mlir.py ModuleContext.get_backend: JAX_PLATFORMS=gpu initializes "
          "cuda, rocm and oneapi (priorities 3, 2, 1); under jit the ModuleContext's backend is "
          "the default device's (cuda), so a rule lowering for oneapi that asks for it gets the "
          "platform mismatch.",
          runtime=rt(B("cpu"), B("cuda"), B("rocm"), B("oneapi"), jax_platforms="gpu"),
          platforms="oneapi", eqns=[probe(cands, access="required")],
          expect=err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("cuda", "oneapi")))
    c.add(f, "jax-platforms-gpu-missing-rocm",
          f"{XB} backends/_init_backend: JAX_PLATFORMS=gpu expands to cuda, rocm, oneapi; rocm has "
          "no registered factory, which fails loudly with the JAX_PLATFORMS advice.",
          runtime=rt(B("cpu"), B("tpu"), B("cuda"), jax_platforms="gpu"), eqns=[probe(cands)],
          expect=err("LSIM_E_BACKEND_INIT",
                     m_init("rocm", m_not_in_factories("rocm", ["cpu", "tpu", "cuda"]), True)))
    c.add(f, "jax-platforms-cpu-gpu-expands-later",
          f"{XB} backends: JAX_PLATFORMS=cpu,gpu expands to cpu, cuda, rocm, oneapi; all are "
          "registered and come up; cpu has the highest priority (4): default cpu.",
          runtime=rt(B("cpu"), B("cuda"), B("rocm"), B("oneapi"), jax_platforms="cpu,gpu"),
          eqns=[probe(cands)], expect=only("cpu", cands))
    c.add(f, "jax-platforms-cpu-then-gpu-lowering",
          f"{XB} canonicalize_platform: JAX_PLATFORMS=cpu leaves cuda uninitialized, so "
          "lowering for gpu finds no GPU platform present.",
          runtime=rt(B("cpu"), B("cuda"), jax_platforms="cpu"), platforms="gpu",
          eqns=[probe(GPUS)],
          expect=err("LSIM_E_UNKNOWN_ALIAS_PLATFORM", m_unknown_alias("gpu", ["cpu"])))
    c.add(f, "jax-platforms-cpu-get-backend-cuda",
          f"{MLIR} ModuleContext.get_backend: JAX_PLATFORMS=cpu, so the default device is cpu's; "
          "a rule lowering for cuda that asks for the backend gets the platform mismatch.",
          runtime=rt(B("cpu"), B("cuda"), jax_platforms="cpu"), platforms="cuda",
          eqns=[probe(cands, access="required")],
          expect=err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("cpu", "cuda")))
    c.add(f, "jax-platforms-unregistered-plugin",
          f"{XB} _init_backend: JAX_PLATFORMS=metal,cpu names a platform without a registered "
          "factory: 'not in the list of known backends', loud with the JAX_PLATFORMS advice.",
          runtime=rt(B("cpu"), B("tpu", error=TPU_ERR), jax_platforms="metal,cpu"),
          eqns=[probe(["cpu"])],
          expect=err("LSIM_E_BACKEND_INIT",
                     m_init("metal", m_not_in_factories("metal", ["cpu", "tpu"]), True)))
    c.add(f, "jax-platforms-cpu-then-unregistered",
          f"{XB} backends: JAX_PLATFORMS=cpu,neuron: cpu comes up, then neuron (no factory) "
          "fails loudly.",
          runtime=rt(B("cpu"), B("tpu"), jax_platforms="cpu,neuron"), eqns=[probe(["cpu"])],
          expect=err("LSIM_E_BACKEND_INIT",
                     m_init("neuron", m_not_in_factories("neuron", ["cpu", "tpu"]), True)))
    c.add(f, "jax-platforms-tpu-forced-loud",
          f"{XB} backends: tpu normally fails quietly, but with JAX_PLATFORMS set every "
          "failure is loud (fail_quietly_list = [False] * n).",
          runtime=rt(B("cpu"), B("tpu", error=TPU_ERR), jax_platforms="tpu,cpu"),
          eqns=[probe(["cpu", "tpu"])],
          expect=err("LSIM_E_BACKEND_INIT", m_init("tpu", TPU_ERR, True)))
    c.add(f, "jax-platforms-cpu-tpu-later-failure",
          f"{XB} backends: JAX_PLATFORMS=cpu,tpu: cpu initializes, then tpu fails: loud, even "
          "though a backend is already up.",
          runtime=rt(B("cpu"), B("tpu", error=TPU_ERR), jax_platforms="cpu,tpu"),
          eqns=[probe(["cpu", "tpu"])],
          expect=err("LSIM_E_BACKEND_INIT", m_init("tpu", TPU_ERR, True)))
    c.add(f, "jax-platforms-cuda-failing",
          f"{XB} backends: JAX_PLATFORMS=cuda with a failing cuda factory: the advice is "
          "\"set JAX_PLATFORMS=''\".",
          runtime=rt(B("cpu"), B("cuda", error=CUDA_ERR), jax_platforms="cuda"),
          eqns=[probe(cands)], expect=err("LSIM_E_BACKEND_INIT", m_init("cuda", CUDA_ERR, True)))
    c.add(f, "jax-platforms-skips-failing",
          f"{XB} backends: JAX_PLATFORMS=cpu never tries the failing cuda factory: jit lowers "
          "for cpu.",
          runtime=rt(B("cpu"), B("cuda", error=CUDA_ERR), jax_platforms="cpu"),
          eqns=[probe(cands)], expect=only("cpu", cands))
    c.add(f, "jax-platforms-zero-device-tpu",
          f"{XB} _init_backend: JAX_PLATFORMS=tpu and tpu has no devices: 'provides no "
          "devices', loud.",
          runtime=rt(B("cpu"), B("tpu", devices=0), jax_platforms="tpu"),
          eqns=[probe(["cpu", "tpu"])],
          expect=err("LSIM_E_BACKEND_INIT", m_init("tpu", m_no_devices("tpu"), True)))

    # Failing loudly without JAX_PLATFORMS.
    for p, priority_note in (("cuda", "a non-experimental plugin, fail_quietly=False"),
                             ("rocm", "a non-experimental plugin, fail_quietly=False"),
                             ("metal", "a PJRT plugin (register_plugin: fail_quietly=False)"),
                             ("cpu", "cpu is registered with fail_quietly=False")):
        known = ["cpu", "cuda", "rocm"] + (["metal"] if p == "metal" else [])
        backends = [B("cpu", error="could not create the CPU client") if p == "cpu" else B("cpu")]
        if p != "cpu":
            backends.append(B(p, error=f"{p} plugin failed: device busy"))
        why = "could not create the CPU client" if p == "cpu" else f"{p} plugin failed: device busy"
        c.add(f, f"loud-failure-{p}",
              f"{XB} backends: {p} fails to initialize ({priority_note}); without "
              "JAX_PLATFORMS the advice is to uninstall the plugin or set JAX_PLATFORMS=cpu.",
              runtime=rt(*backends), eqns=[probe([k for k in known if k != "metal"])],
              expect=err("LSIM_E_BACKEND_INIT", m_init(p, why, False)))
    c.add(f, "loud-failure-tpu-not-quiet",
          f"{XB} backends: a tpu registration with fail_quietly=False raises instead of "
          "recording its error.",
          runtime=rt(B("cpu"), B("tpu", error=TPU_ERR, fail_quietly=False)),
          eqns=[probe(["cpu", "tpu"])], expect=err("LSIM_E_BACKEND_INIT", m_init("tpu", TPU_ERR, False)))
    c.add(f, "loud-failure-first-in-registration-order",
          f"{XB} backends: factories are tried in registration order; rocm (registered before "
          "cuda here) fails first and its error is the one raised.",
          runtime=rt(B("cpu"), B("tpu"), B("rocm", error="rocm: hipInit failed"),
                     B("cuda", error=CUDA_ERR)),
          eqns=[probe(cands)],
          expect=err("LSIM_E_BACKEND_INIT", m_init("rocm", "rocm: hipInit failed", False)))
    c.add(f, "loud-failure-after-quiet-one",
          f"{XB} backends: the quiet tpu failure is recorded and skipped, the loud cuda failure "
          "after it raises.",
          runtime=rt(B("cpu"), B("tpu", error=TPU_ERR), B("cuda", error=CUDA_ERR)),
          eqns=[probe(cands)], expect=err("LSIM_E_BACKEND_INIT", m_init("cuda", CUDA_ERR, False)))

    # Failing quietly.
    c.add(f, "quiet-failure-tpu-default-cpu",
          f"{XB} backends: tpu is registered with fail_quietly=True; its error is recorded in "
          "_backend_errors and cpu becomes the default backend.",
          runtime=rt(B("cpu"), B("tpu", error=TPU_ERR)), eqns=[probe(["cpu", "tpu"])],
          expect=only("cpu", ["cpu", "tpu"]))
    c.add(f, "quiet-failure-tpu-get-backend",
          f"{MLIR} ModuleContext.get_backend: lowering for tpu, tpu failed quietly and the "
          "default device is cpu's, so a rule asking for the backend gets the platform mismatch "
          "(not the quiet failure).",
          runtime=rt(B("cpu"), B("tpu", error=TPU_ERR)), platforms="tpu",
          eqns=[probe(["cpu", "tpu"], access="required")],
          expect=err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("cpu", "tpu")))
    c.add(f, "quiet-failure-cuda-get-backend",
          f"{MLIR} ModuleContext.get_backend: a cuda factory marked fail_quietly failed, tpu is "
          "the default device; a rule lowering for cuda gets the platform mismatch.",
          runtime=rt(B("cpu"), B("tpu"), B("cuda", error=CUDA_ERR, fail_quietly=True)),
          platforms="cuda", eqns=[probe(cands, access="required")],
          expect=err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("tpu", "cuda")))
    c.add(f, "quiet-failure-pinned-tpu",
          f"{XB} get_backend: jit(f, backend='tpu') resolves the pinned backend; tpu failed "
          "quietly.",
          runtime=rt(B("cpu"), B("tpu", error=TPU_ERR)), backend="tpu",
          eqns=[probe(["cpu", "tpu"])],
          expect=err("LSIM_E_BACKEND_FAILED", m_backend_failed("tpu", TPU_ERR, ["cpu"])))
    c.add(f, "quiet-failure-plugin-get-backend",
          f"{MLIR} ModuleContext.get_backend: the metal plugin failed quietly; a rule lowering "
          "for metal asks for the backend, which is the default device's (cpu): mismatch.",
          runtime=rt(B("cpu"), B("metal", error="Metal device not found", fail_quietly=True)),
          platforms="metal", eqns=[probe(["cpu", "metal"], access="required")],
          expect=err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("cpu", "metal")))
    c.add(f, "quiet-failure-all-no-default",
          f"{XB} backends: the declared tpu fails quietly, but JAX's own cpu factory "
          "(registered on import) comes up and is the default backend.",
          runtime=rt(B("tpu", error=TPU_ERR)), eqns=[probe(["cpu", "tpu"])],
          expect=only("cpu", ["cpu", "tpu"]))

    c.add(f, "quiet-failure-oneapi-get-backend",
          f"{MLIR} ModuleContext.get_backend: a oneapi plugin registered fail-quietly failed; a "
          "rule lowering for oneapi asks for the backend, the default device's (cpu): mismatch.",
          runtime=rt(B("cpu"), B("oneapi", error="Level Zero driver not found", fail_quietly=True)),
          platforms="oneapi", eqns=[probe(cands, access="required")],
          expect=err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("cpu", "oneapi")))
    c.add(f, "quiet-failure-cpu-get-backend",
          f"{MLIR} ModuleContext.get_backend: a cpu registration marked fail-quietly failed, tpu "
          "is the default device; a rule lowering for cpu gets the platform mismatch.",
          runtime=rt(B("cpu", error="could not create the CPU client", fail_quietly=True), B("tpu")),
          platforms="cpu", eqns=[probe(["cpu", "tpu"], access="required")],
          expect=err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("tpu", "cpu")))
    c.add(f, "loud-failure-oneapi",
          f"{XB} backends: the oneapi plugin (fail_quietly=False, as register_plugin registers "
          "every PJRT plugin) fails: loud.",
          runtime=rt(B("cpu"), B("oneapi", error="Level Zero driver not found")),
          eqns=[probe(cands)],
          expect=err("LSIM_E_BACKEND_INIT", m_init("oneapi", "Level Zero driver not found", False)))

    # Zero devices.
    c.add(f, "zero-devices-cuda-loud",
          f"{XB} _init_backend: cuda comes up with no devices: 'Backend 'cuda' provides no "
          "devices.', raised loudly (cuda's fail_quietly=False).",
          runtime=rt(B("cpu"), B("cuda", devices=0)), eqns=[probe(cands)],
          expect=err("LSIM_E_BACKEND_INIT", m_init("cuda", m_no_devices("cuda"), False)))
    c.add(f, "zero-devices-tpu-quiet-default-cpu",
          f"{XB} _init_backend: tpu with no devices fails quietly; cpu is the default.",
          runtime=rt(B("cpu"), B("tpu", devices=0)), eqns=[probe(["cpu", "tpu"])],
          expect=only("cpu", ["cpu", "tpu"]))
    c.add(f, "zero-devices-tpu-get-backend",
          f"{MLIR} ModuleContext.get_backend: tpu had no devices (recorded quietly); lowering "
          "for tpu, the default device is cpu's: mismatch.",
          runtime=rt(B("cpu"), B("tpu", devices=0)), platforms="tpu",
          eqns=[probe(["cpu", "tpu"], access="required")],
          expect=err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("cpu", "tpu")))
    c.add(f, "zero-devices-plugin",
          f"{XB} _init_backend: the metal plugin comes up with no devices: loud.",
          runtime=rt(B("cpu"), B("metal", devices=0)), eqns=[probe(["cpu"])],
          expect=err("LSIM_E_BACKEND_INIT", m_init("metal", m_no_devices("metal"), False)))
    c.add(f, "zero-devices-cpu",
          f"{XB} _init_backend: cpu with no devices: loud (cpu is not fail-quietly).",
          runtime=rt(B("cpu", devices=0), B("tpu")), eqns=[probe(["cpu", "tpu"])],
          expect=err("LSIM_E_BACKEND_INIT", m_init("cpu", m_no_devices("cpu"), False)))

    # The default backend: the initialized one with the highest priority.
    def default_case(stem, what, backends, winner, cands):
        c.add(f, stem, f"{XB} backends: the default backend is the initialized one with the "
              f"highest priority (cpu 0, tpu 300, plugins 400, cuda/rocm 500); {what}.",
              runtime=rt(*backends), eqns=[probe(cands)], expect=only(winner, cands))
    default_case("default-cpu-tpu", "cpu and tpu -> tpu", [B("cpu"), B("tpu")], "tpu",
                 ["cpu", "tpu"])
    default_case("default-cpu-tpu-cuda", "cpu, tpu, cuda -> cuda",
                 [B("cpu"), B("tpu"), B("cuda")], "cuda", cands)
    default_case("default-cpu-rocm", "cpu, rocm -> rocm", [B("cpu"), B("rocm")], "rocm", cands)
    default_case("default-cpu-plugin", "cpu and the metal plugin (400) -> metal",
                 [B("cpu"), B("metal")], "metal", ["cpu", "metal"])
    default_case("default-plugin-over-tpu", "cpu, tpu (300), metal (400) -> metal",
                 [B("cpu"), B("tpu"), B("metal")], "metal", ["cpu", "tpu", "metal"])
    default_case("default-cuda-over-plugin", "cpu, cuda (500), metal (400) -> cuda",
                 [B("cpu"), B("cuda"), B("metal")], "cuda", ["cpu", "cuda", "metal"])
    default_case("default-tie-rocm-first", "rocm and cuda both 500: the first initialized "
                 "keeps it (priority > default_priority is strict) -> rocm",
                 [B("cpu"), B("rocm"), B("cuda")], "rocm", cands)
    default_case("default-tie-cuda-first", "cuda and rocm both 500, cuda first -> cuda",
                 [B("cpu"), B("cuda"), B("rocm")], "cuda", cands)
    default_case("default-plugin-priority-override", "a plugin registered with priority 600 "
                 "beats cuda's 500 -> metal",
                 [B("cpu"), B("cuda"), B("metal", priority=600)], "metal", ["cpu", "cuda", "metal"])
    default_case("default-cpu-priority-override", "cpu registered with priority 1000 -> cpu",
                 [B("cpu", priority=1000), B("tpu"), B("cuda")], "cpu", cands)
    default_case("default-negative-priority", "a tpu registered with priority -5 loses to "
                 "cpu (0) -> cpu", [B("cpu"), B("tpu", priority=-5)], "cpu", ["cpu", "tpu"])
    default_case("default-after-quiet-failure", "tpu failed quietly, metal (priority 200) "
                 "beats cpu -> metal",
                 [B("cpu"), B("tpu", error=TPU_ERR), B("metal", priority=200)], "metal",
                 ["cpu", "tpu", "metal"])
    default_case("default-oneapi-plugin", "cpu and the oneapi plugin (400 by default) -> oneapi",
                 [B("cpu"), B("oneapi")], "oneapi", cands)

    # Unknown backends.
    c.add(f, "unknown-pinned-cuda",
          f"{XB} _get_backend_uncached: jit(f, backend='cuda') with only cpu up: 'Unknown "
          "backend cuda. Available backends are ['cpu']'.",
          backend="cuda", eqns=[probe(["cpu"])],
          expect=err("LSIM_E_UNKNOWN_BACKEND", m_unknown_backend("cuda", ["cpu"])))
    c.add(f, "unknown-pinned-plugin",
          f"{XB} _get_backend_uncached: jit(f, backend='metal') with no metal plugin.",
          runtime=rt(B("cpu"), B("tpu")), backend="metal", eqns=[probe(["cpu"])],
          expect=err("LSIM_E_UNKNOWN_BACKEND", m_unknown_backend("metal", ["cpu", "tpu"])))
    c.add(f, "unknown-pinned-rocm",
          f"{XB} _get_backend_uncached: jit(f, backend='rocm') with cpu and cuda up.",
          runtime=rt(B("cpu"), B("cuda")), backend="rocm", eqns=[probe(cands)],
          expect=err("LSIM_E_UNKNOWN_BACKEND", m_unknown_backend("rocm", ["cpu", "cuda"])))
    c.add(f, "unknown-lowering-platform-oneapi",
          f"{MLIR} ModuleContext.get_backend: lowering for oneapi, which is not present; the "
          "rule gets the default device's backend (cuda): mismatch.",
          runtime=rt(B("cpu"), B("cuda")), platforms="oneapi",
          eqns=[probe(cands, access="required")],
          expect=err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("cuda", "oneapi")))
    c.add(f, "unknown-pinned-gpu",
          f"{XB} _get_backend_uncached: jit(f, backend='gpu') canonicalizes gpu first; none of "
          "cuda, rocm, oneapi is present.",
          backend="gpu", eqns=[probe(["cpu"])],
          expect=err("LSIM_E_UNKNOWN_ALIAS_PLATFORM", m_unknown_alias("gpu", ["cpu"])))

    c.add(f, "unknown-lowering-platform-cpu",
          f"{MLIR} ModuleContext.get_backend: a tpu backend is declared and JAX's cpu is up; tpu "
          "(300) is the default device, so a rule lowering for cpu gets the mismatch.",
          runtime=rt(B("tpu")), platforms="cpu", eqns=[probe(["cpu", "tpu"], access="required")],
          expect=err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("tpu", "cpu")))
    # Experimental plugins.
    c.add(f, "plugin-lowering-with-own-rule",
          f"{XB} register_plugin/known_platforms + mlir.py register_lowering: the metal plugin "
          "registers a factory, so 'metal' is a known platform and a rule for it registers; "
          "jit lowers for metal (400 beats cpu) with that rule.",
          runtime=rt(B("cpu"), B("metal")), eqns=[probe(["cpu", "metal"])],
          expect=only("metal", ["cpu", "metal"]))
    c.add(f, "plugin-neuron-default",
          f"{XB} backends: a neuron plugin (experimental, 400) over cpu and tpu.",
          runtime=rt(B("cpu"), B("tpu"), B("neuron")), eqns=[probe(["cpu", "tpu", "neuron"])],
          expect=only("neuron", ["cpu", "tpu", "neuron"]))
    c.add(f, "plugin-is-not-gpu",
          f"{XB} canonicalize_platform: a plugin is not an instance of gpu; Platforms present "
          "lists it.",
          runtime=rt(B("cpu"), B("metal")), platforms="gpu", eqns=[probe(GPUS)],
          expect=err("LSIM_E_UNKNOWN_ALIAS_PLATFORM", m_unknown_alias("gpu", ["cpu", "metal"])))
    c.add(f, "plugin-failed-still-known",
          f"{XB} known_platforms: a plugin whose factory failed quietly is still a known platform, "
          "so a rule for it registers; jit lowers for cpu.",
          runtime=rt(B("cpu"), B("metal", error="Metal device not found", fail_quietly=True)),
          eqns=[probe(["cpu", "metal"])], expect=only("cpu", ["cpu", "metal"]))


# --- context/: ModuleContext.get_backend ------------------------------------------

MLIR = "jax/_src/interpreters/mlir.py"


def all_up():
    """Every concrete platform and the metal plugin initialized (cpu, tpu first)."""
    return rt(B("cpu"), B("tpu", devices=4), B("cuda", devices=2), B("rocm", devices=2),
              B("oneapi", devices=2), B("metal"))


def gen_context(c):
    f = "context"
    # A pinned backend on platform b, lowering for platform p != b.
    for b in ALL6:
        for p in ALL6:
            if p == b:
                continue
            c.add(f, f"pinned-{b}-lowering-{p}",
                  f"{MLIR} ModuleContext.get_backend: jit(f, backend='{b}') lowered for {p}; a rule "
                  "calls get_backend() (optional=False) and the pinned backend's canonical "
                  f"platform {b} differs from platforms[0] = {p}: ValueError.",
                  runtime=all_up(), platforms=p, backend=b,
                  eqns=[probe(ALL6, access="required")],
                  expect=err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch(b, p)))
    for p in ALL6:
        c.add(f, f"pinned-{p}-match",
              f"{MLIR} ModuleContext.get_backend: jit(f, backend='{p}') lowered for {p}: the "
              "pinned backend's platform is the lowering platform, so it is returned and the "
              f"{p} rule lowers.",
              runtime=all_up(), platforms=p, backend=p, eqns=[probe(ALL6, access="required")],
              expect=only(p, ALL6))
    for b, p in (("cpu", "tpu"), ("cuda", "rocm"), ("metal", "oneapi")):
        c.add(f, f"pinned-{b}-lowering-{p}-optional",
              f"{MLIR} ModuleContext.get_backend(optional=True): the pinned {b} backend differs "
              f"from the lowering platform {p}; optional access returns None instead of "
              "raising, and the rule lowers.",
              runtime=all_up(), platforms=p, backend=b, eqns=[probe(ALL6, access="optional")],
              expect=only(p, ALL6))
    c.add(f, "pinned-implies-lowering-platform",
          f"{MLIR} ModuleContext.get_backend: jit(f, backend='tpu') without explicit platforms "
          "lowers for the pinned backend's platform, even though cuda is the default backend.",
          runtime=all_up(), backend="tpu", eqns=[probe(ALL6, access="required")],
          expect=only("tpu", ALL6))
    # Several lowering platforms.
    for plats in (("cpu", "tpu"), ("cuda", "rocm"), ("oneapi", "metal"),
                  ("cpu", "cuda", "rocm", "oneapi", "tpu")):
        name = "-".join(plats)
        c.add(f, f"multi-{name}-required",
              f"{MLIR} ModuleContext.get_backend: lowering for {py(plats)} (len(platforms) > 1) "
              "and a rule that needs the backend: NotImplementedError 'accessing .backend in "
              "multi-lowering setting'.",
              runtime=all_up(), platforms=",".join(plats),
              eqns=[probe(ALL6, access="required")],
              expect=err("LSIM_E_MULTI_PLATFORM_BACKEND", M_MULTI_BACKEND))
    c.add(f, "multi-cpu-tpu-optional",
          f"{MLIR} ModuleContext.get_backend(optional=True): several platforms -> None; the "
          "rules lower in a platform-index dispatch.",
          runtime=all_up(), platforms="cpu,tpu", eqns=[probe(ALL6, access="optional")],
          expect=ok([uses("cpu"), uses("tpu"), '"stablehlo.case"',
                     'jax.global_constant = "_platform_index"']))
    c.add(f, "multi-pinned-required",
          f"{MLIR} ModuleContext.get_backend: the multi-platform check comes first, before the "
          "pinned backend is compared: NotImplementedError although the pinned cpu is one of "
          "the lowering platforms.",
          runtime=all_up(), platforms="cpu,tpu", backend="cpu",
          eqns=[probe(ALL6, access="required")],
          expect=err("LSIM_E_MULTI_PLATFORM_BACKEND", M_MULTI_BACKEND))
    c.add(f, "multi-pinned-optional",
          f"{MLIR} ModuleContext.get_backend(optional=True): several platforms and a pinned "
          "backend: None, and the module lowers.",
          runtime=all_up(), platforms="cuda,rocm", backend="tpu",
          eqns=[probe(ALL6, access="optional")],
          expect=ok([uses("cuda"), uses("rocm"), '"stablehlo.case"']))
    # A pinned 'gpu' backend: canonicalized by get_backend.
    c.add(f, "pinned-gpu-lowering-cuda",
          f"{XB} get_backend('gpu') -> cuda (first present) and {MLIR} ModuleContext.get_backend: "
          "lowering for cuda matches.",
          runtime=rt(B("cpu"), B("cuda"), B("rocm")), platforms="cuda", backend="gpu",
          eqns=[probe(ALL6[:5], access="required")], expect=only("cuda", ALL6[:5]))
    c.add(f, "pinned-gpu-lowering-rocm",
          f"{XB} get_backend('gpu') -> cuda when cuda and rocm are present; lowering for rocm "
          "then mismatches: 'the platform for the specified backend cuda ...'.",
          runtime=rt(B("cpu"), B("cuda"), B("rocm")), platforms="rocm", backend="gpu",
          eqns=[probe(ALL6[:5], access="required")],
          expect=err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("cuda", "rocm")))
    c.add(f, "pinned-gpu-only-rocm",
          f"{XB} get_backend('gpu') -> rocm when only rocm is present; lowering for rocm matches.",
          runtime=rt(B("cpu"), B("rocm")), platforms="rocm", backend="gpu",
          eqns=[probe(ALL6[:5], access="required")], expect=only("rocm", ALL6[:5]))
    c.add(f, "pinned-gpu-oneapi-default-platform",
          f"{XB} get_backend('gpu') -> oneapi (only oneapi present); without explicit platforms "
          "the module is lowered for oneapi.",
          runtime=rt(B("cpu"), B("oneapi")), backend="gpu",
          eqns=[probe(ALL6[:5], access="required")], expect=only("oneapi", ALL6[:5]))
    c.add(f, "pinned-gpu-lowering-gpu",
          f"{XB} canonicalize_platform for both the pinned backend and the lowering platform: "
          "gpu and gpu are both rocm here, so they match.",
          runtime=rt(B("cpu"), B("rocm"), B("oneapi")), platforms="gpu", backend="gpu",
          eqns=[probe(ALL6[:5], access="required")], expect=only("rocm", ALL6[:5]))
    # Without jit(backend=): the ModuleContext's backend is the default device's
    # (pxla _get_and_check_device_assignment -> get_default_device), never None, so
    # get_backend compares platforms; the stem names the case as before.
    for stem, p, runtime, expect, what in (
            ("no-pin-tpu-backend", "tpu", rt(B("cpu")),
             err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("cpu", "tpu")),
             "tpu is not initialized, the default device is cpu's"),
            ("no-pin-cuda-backend", "cuda", rt(B("cpu"), B("rocm")),
             err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("rocm", "cuda")),
             "cuda is not initialized, the default device is rocm's (500)"),
            ("no-pin-metal-ok", "metal", rt(B("cpu"), B("metal")), only("metal", ["cpu", "metal"]),
             "the metal plugin (400) is the default device"),
            ("no-pin-tpu-failed", "tpu", rt(B("cpu"), B("tpu", error=TPU_ERR)),
             err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("cpu", "tpu")),
             "tpu failed quietly, the default device is cpu's")):
        c.add(f, stem,
              f"{MLIR} ModuleContext.get_backend: under jit without backend= the module "
              f"context's backend is the default device's, so lowering for {p} compares "
              f"platforms: {what}.",
              runtime=runtime, platforms=p,
              eqns=[probe(["cpu", p] if p != "cpu" else ["cpu"], access="required")],
              expect=expect)
    c.add(f, "no-pin-optional-still-raises",
          f"{MLIR} ModuleContext.get_backend(optional=True): the default device's backend "
          "(cpu) differs from the lowering platform tpu, so optional access gets None and the "
          "rule lowers.",
          platforms="tpu", eqns=[probe(["cpu", "tpu"], access="optional")],
          expect=only("tpu", ["cpu", "tpu"]))
    c.add(f, "no-pin-optional-failed-quietly",
          f"{MLIR} ModuleContext.get_backend(optional=True): cuda failed quietly, the default "
          "device's backend is cpu's, so optional access gets None and the rule lowers "
          "(xla_bridge warns that an NVIDIA GPU may be present).",
          runtime=rt(B("cpu"), B("cuda", error=CUDA_ERR, fail_quietly=True)), platforms="cuda",
          eqns=[probe(["cpu", "cuda"], access="optional")], expect=only("cuda", ["cpu", "cuda"]))
    c.add(f, "no-access-absent-backend",
          f"{MLIR} lower_per_platform: a rule that never calls get_backend lowers for tpu "
          "although no tpu backend exists (cross-platform export).",
          platforms="tpu", eqns=[probe(["cpu", "tpu"])], expect=only("tpu", ["cpu", "tpu"]))
    c.add(f, "no-access-pinned-mismatch",
          f"{MLIR} ModuleContext.get_backend is the only place a pinned backend is compared: a "
          "rule that never calls it lowers for cuda under jit(backend='cpu').",
          runtime=rt(B("cpu"), B("cuda")), platforms="cuda", backend="cpu",
          eqns=[probe(["cpu", "cuda"])], expect=only("cuda", ["cpu", "cuda"]))
    c.add(f, "second-rule-mismatch",
          f"{MLIR} ModuleContext.get_backend: the first primitive does not ask for the backend, "
          "the second does and fails: the error comes from the second equation.",
          runtime=rt(B("cpu"), B("tpu")), platforms="tpu", backend="cpu",
          eqns=[prim("first", "0", [("tpu", "k_first")]),
                prim("second", "1", [("tpu", "k_second")], access="required")],
          expect=err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("cpu", "tpu")))


# --- printed-module fragments (MLIR's generic form of the ops JAX emits) ------------

def dims(shape):
    return [d for d in shape.split(",") if d != ""]


def ttype(dtype, shape):
    d = dims(shape)
    return f"tensor<{'x'.join(d + [MLIR_ELT[dtype]])}>"


def layout(shape):
    """mlir.py custom_call layouts: minor-to-major, row-major arrays."""
    r = len(dims(shape))
    if r == 0:
        return "dense<> : tensor<0xindex>"
    if r == 1:
        return "dense<0> : tensor<1xindex>"
    return f"dense<[{', '.join(str(i) for i in reversed(range(r)))}]> : tensor<{r}xindex>"


def ffi_line(value, operands, target_name, avals_in, aval_out):
    """ffi.ffi_lowering(target)(ctx, *args) for a rule without parameters: a dict
    backend config (so backend_config = "", api_version = 1 and an empty
    mhlo.backend_config), row-major layouts, no output_operand_aliases."""
    ins = ", ".join(ttype(*a) for a in avals_in)
    return (f'{value} = "stablehlo.custom_call"({", ".join(operands)}) {{api_version = 1 : i32, '
            f'backend_config = "", call_target_name = "{target_name}", called_computations = [], '
            f'has_side_effect = false, mhlo.backend_config = {{}}, operand_layouts = '
            f'[{", ".join(layout(a[1]) for a in avals_in)}], result_layouts = '
            f'[{layout(aval_out[1])}]}} : ({ins}) -> {ttype(*aval_out)}')


def const_body(k, value):
    return [f'%{k} = "stablehlo.constant"() {{value = dense<{value}> : tensor<i32>}} : () -> tensor<i32>',
            f'"stablehlo.return"(%{k}) : (tensor<i32>) -> ()']


def case_op(result, index, bodies, result_type="tensor<i32>", indent=4):
    """A stablehlo.case with one region per body (lists of lines)."""
    pad, inner = " " * indent, " " * (indent + 2)
    lines = [f'{result} = "stablehlo.case"({index}) ({{']
    for i, body in enumerate(bodies):
        if i:
            lines.append(pad + "}, {")
        lines += [inner + line for line in body]
    lines.append(pad + f"}}) : (tensor<i32>) -> {result_type}")
    return "\n".join(lines)


def index_case(result, index, values, k):
    """The first case of lower_per_platform (or the kept-index case of cond):
    branch i returns the constant values[i]."""
    return case_op(result, index, [const_body(k, v) for v in values])


def rule_case(result, index, k, targets, operand, aval):
    """The second case of lower_per_platform: one branch per kept rule."""
    bodies = [[ffi_line(f"%{k}", [operand], t, [aval], aval),
               f'"stablehlo.return"(%{k}) : ({ttype(*aval)}) -> ()'] for t in targets]
    return case_op(result, index, bodies, ttype(*aval))


def lower_per_platform_model(platforms, platform_rules, has_default):
    """mlir.py lower_per_platform: (kept rule names, per-platform kept index) or
    ('single-missing', p) / ('missing', [ps]).  platform_rules: ordered
    (platform, rule) pairs as the dict handed in."""
    rules = dict(platform_rules)
    if len(platforms) == 1 and platforms[0] not in rules and not has_default:
        return ("single-missing", platforms[0])
    kept, idx = [], {}
    for p, r in rules.items():
        if p in platforms:
            idx[p] = len(kept)
            kept.append(r)
    without = [p for p in platforms if p not in idx]
    if without:
        if not has_default:
            return ("missing", without)
        for p in without:
            idx[p] = len(kept)
        kept.append("<default>")
    return ("ok", kept, [idx[p] for p in platforms])


def registered_order(platforms, registered):
    """_get_lowering_rules: platform_rules in the order of the lowering platforms."""
    return [(p, registered[p]) for p in platforms if p in registered]


# --- lowering/: register_lowering, lower_per_platform, donation, platform_dependent --

CF = "jax/_src/lax/control_flow/conditionals.py"


def mlir_symbol(name):
    """How MLIR prints a symbol name: bare when it is an identifier, else a
    quoted string with non-printable bytes as \\XX."""
    ok_rest = set(string.ascii_letters + string.digits + "_$.")
    if name and (name[0].isascii() and (name[0].isalpha() or name[0] == "_")) and \
            all(ch in ok_rest for ch in name[1:]):
        return "@" + name
    out = []
    for byte in name.encode("utf-8"):
        ch = chr(byte)
        if 0x20 <= byte < 0x7F and ch not in '\\"':
            out.append(ch)
        else:
            out.append("\\%02X" % byte)
    return '@"' + "".join(out) + '"'


def jax_module_name(function):
    """mlir.py: sanitize_name("jit(f)").rstrip("_") with Python's Unicode \\w."""
    return re.sub(r"[^\w.-]", "_", f"jit({function})").rstrip("_")


def gen_lowering(c):
    f = "lowering"
    a4 = ("f32", "4")
    # register_lowering with an unknown platform.
    for p, runtime, known, what in (
            ("neuron", None, BASE_KNOWN, "neuron without its plugin"),
            ("metal", None, BASE_KNOWN, "metal without its plugin"),
            ("GPU", None, BASE_KNOWN, "platform names are case-sensitive"),
            ("xpu", None, BASE_KNOWN, "xpu is not an alias of anything"),
            ("cuda12", None, BASE_KNOWN, "cuda12 is not a platform"),
            ("neuron", rt(B("cpu"), B("metal")), BASE_KNOWN | {"metal"},
             "a declared metal plugin joins the known list"),
            ("vulkan", rt(B("cpu"), B("neuron"), B("metal")), BASE_KNOWN | {"metal", "neuron"},
             "two plugins, sorted into the list")):
        c.add(f, f"register-unknown-{p.lower()}" + ("-with-plugins" if runtime else ""),
              f"{MLIR} register_lowering: registering a rule for {p} ({what}) raises "
              "NotImplementedError listing sorted(xb.known_platforms()) joined by ', '.",
              runtime=runtime, eqns=[prim("my_op", "0", [("cpu", "k_cpu"), (p, "k_x")])],
              expect=err("LSIM_E_UNKNOWN_RULE_PLATFORM", m_unknown_rule_platform("my_op", p, known)))
    c.add(f, "register-unknown-before-backends",
          f"{MLIR} register_lowering runs when the rule is registered, before any backend is "
          "initialized: the unknown-platform error wins over a failing cuda backend.",
          runtime=rt(B("cpu"), B("cuda", error=CUDA_ERR)),
          eqns=[prim("my_op", "0", [("sycl", "k_sycl")], "k_default")],
          expect=err("LSIM_E_UNKNOWN_RULE_PLATFORM",
                     m_unknown_rule_platform("my_op", "sycl", BASE_KNOWN)))
    c.add(f, "register-first-unknown-wins",
          f"{MLIR} register_lowering: rules register in program order; the first unknown "
          "platform (neuron) raises.",
          eqns=[prim("my_op", "0", [("cpu", "k_cpu"), ("neuron", "k_n"), ("metal", "k_m")])],
          expect=err("LSIM_E_UNKNOWN_RULE_PLATFORM",
                     m_unknown_rule_platform("my_op", "neuron", BASE_KNOWN)))
    c.add(f, "register-tpu-without-backend",
          f"{MLIR} register_lowering: tpu is known (its factory is registered at import) even "
          "with no tpu backend, so the rule registers; jit lowers for cpu with the default.",
          eqns=[prim("my_op", "0", [("tpu", "k_tpu")], "k_default")],
          expect=ok([target("k_default")], [target("k_tpu")]))
    c.add(f, "register-failed-plugin-known",
          f"{MLIR} register_lowering: a plugin whose initialization failed quietly is still known.",
          runtime=rt(B("cpu"), B("metal", error="no Metal device", fail_quietly=True)),
          eqns=[prim("my_op", "0", [("metal", "k_metal")], "k_default")],
          expect=ok([target("k_default")], [target("k_metal")]))

    # A rule registered for gpu is stored for cuda, rocm and oneapi.
    for p in GPUS:
        c.add(f, f"gpu-rule-on-{p}",
              f"{MLIR} register_lowering(prim, rule, platform='gpu') stores the rule for every "
              f"platform of expand_platform_alias('gpu'); lowering for {p} uses it over the default.",
              platforms=p, eqns=[prim("my_op", "0", [("gpu", "k_gpu")], "k_default")],
              expect=ok([target("k_gpu")], [target("k_default")]))
    c.add(f, "gpu-then-cuda-rule-cuda",
          f"{MLIR} register_lowering: a cuda rule registered after the gpu rule overwrites the "
          "cuda entry only: lowering for cuda uses it.",
          platforms="cuda", eqns=[prim("my_op", "0", [("gpu", "k_gpu"), ("cuda", "k_cuda")])],
          expect=ok([target("k_cuda")], [target("k_gpu")]))
    c.add(f, "gpu-then-cuda-rule-rocm",
          f"{MLIR} register_lowering: the later cuda rule leaves rocm with the gpu rule.",
          platforms="rocm", eqns=[prim("my_op", "0", [("gpu", "k_gpu"), ("cuda", "k_cuda")])],
          expect=ok([target("k_gpu")], [target("k_cuda")]))
    c.add(f, "cuda-then-gpu-rule-cuda",
          f"{MLIR} register_lowering: a gpu rule registered after a cuda rule overwrites the cuda "
          "entry (last registration wins).",
          platforms="cuda", eqns=[prim("my_op", "0", [("cuda", "k_cuda"), ("gpu", "k_gpu")])],
          expect=ok([target("k_gpu")], [target("k_cuda")]))
    c.add(f, "gpu-rule-not-for-tpu",
          f"{MLIR} register_lowering: the gpu rule is not stored for tpu; tpu uses the default.",
          platforms="tpu", eqns=[prim("my_op", "0", [("gpu", "k_gpu")], "k_default")],
          expect=ok([target("k_default")], [target("k_gpu")]))
    c.add(f, "gpu-rule-only-on-cpu",
          f"{MLIR} lower_per_platform: only a gpu rule, no default, lowered for cpu.",
          eqns=[prim("my_op", "0", [("gpu", "k_gpu")])],
          expect=err("LSIM_E_NO_LOWERING_RULE", m_no_rule("my_op", "cpu")))
    c.add(f, "same-platform-twice-last-wins",
          f"{MLIR} register_lowering: _platform_specific_lowerings[p][prim] is overwritten by a "
          "second registration for the same platform.",
          eqns=[prim("my_op", "0", [("cpu", "k_first"), ("cpu", "k_second")])],
          expect=ok([target("k_second")], [target("k_first")]))
    c.add(f, "platform-rule-over-default",
          f"{MLIR} lower_per_platform: platform_rules.get(platform, default_rule): the cpu rule "
          "takes precedence over the default rule.",
          eqns=[prim("my_op", "0", [("cpu", "k_cpu")], "k_default")],
          expect=ok([target("k_cpu")], [target("k_default"), '"stablehlo.case"']))

    # lower_per_platform: the single-platform not-found error.
    for p in ALL6:
        other = "tpu" if p != "tpu" else "cpu"
        c.add(f, f"no-rule-single-{p}",
              f"{MLIR} lower_per_platform: lowering for {p} alone, my_op has only a {other} rule "
              f"and no default: \"MLIR translation rule for primitive 'my_op' not found for "
              f"platform {p}\".",
              runtime=rt(B("cpu"), B("metal")) if p == "metal" else None, platforms=p,
              eqns=[prim("my_op", "0", [(other, "k_x")])],
              expect=err("LSIM_E_NO_LOWERING_RULE", m_no_rule("my_op", p)))
    c.add(f, "no-rule-single-unregistered-primitive",
          f"{MLIR} lower_per_platform: a primitive with no lowering at all (no rule, no "
          "default) on cpu.",
          eqns=[prim("orphan_op", "0")],
          expect=err("LSIM_E_NO_LOWERING_RULE", m_no_rule("orphan_op", "cpu")))
    # ... and the plural one, listing the platforms without a rule in lowering order.
    for plats, rules, stem in (
            (["cpu", "tpu", "rocm"], [("cpu", "k_cpu")], "cpu-rule"),
            (["cuda", "rocm", "oneapi"], [("cuda", "k_cuda")], "cuda-rule"),
            (["tpu", "cpu"], [], "no-rules"),
            (["cpu", "cuda"], [("gpu", "k_gpu")], "gpu-rule"),
            (["oneapi", "metal", "cpu"], [("cpu", "k_cpu")], "plugin"),
            (["cpu", "cuda", "rocm", "oneapi", "tpu"], [("tpu", "k_tpu")], "five")):
        missing = [p for p in plats if p not in
                   {q for r, _ in rules for q in (GPUS if r == "gpu" else [r])}]
        c.add(f, f"no-rule-plural-{stem}",
              f"{MLIR} lower_per_platform: lowering for {py(tuple(plats))} without a default "
              f"rule; the platforms without a specific rule, {py(missing)}, are listed as a "
              "Python list in lowering order.",
              runtime=rt(B("cpu"), B("metal")) if "metal" in plats else None,
              platforms=",".join(plats), eqns=[prim("my_op", "0", rules)],
              expect=err("LSIM_E_NO_LOWERING_RULE", m_no_rules("my_op", missing)))

    # lower_per_platform's two stablehlo.case ops.
    def dispatch_case(stem, what, plats, rules, default, aval=a4, runtime=None):
        expanded = {}
        for p, t in rules:
            for q in (GPUS if p == "gpu" else [p]):
                expanded[q] = t
        model = lower_per_platform_model(plats, registered_order(plats, expanded), bool(default))
        assert model[0] == "ok"
        kept = [default if t == "<default>" else t for t in model[1]]
        # lowering_platforms=: jit(f).trace(x).lower(...) has no jax.uses_shape_polymorphism.
        contains = ['jax.global_constant = "_platform_index"']
        absent = ["jax.uses_shape_polymorphism"]
        if len(kept) == 1:
            contains.append(target(kept[0]))
            absent.append('"stablehlo.case"')
        else:
            contains.append(index_case("%0", "%arg0", model[2], 2))
            contains.append(rule_case("%1", "%0", 2, kept, "%arg1", aval))
        for t in sorted({t for _, t in rules} | ({default} if default else set())):
            if t not in kept:
                absent.append(target(t))
        c.add(f, stem, f"{MLIR} lower_per_platform: {what}", runtime=runtime,
              platforms=",".join(plats), args=[arg(*aval)],
              eqns=[prim("my_op", "0", rules, default, results=(aval,))],
              expect=ok(contains, absent))
    dispatch_case("case-shared-default",
                  "(cpu, cuda, rocm, tpu) with a gpu rule and a default: cuda and rocm keep "
                  "separate branches for the same rule, then the default once for cpu and tpu; "
                  "the first case maps (cpu, cuda, rocm, tpu) to (2, 0, 1, 2).",
                  ["cpu", "cuda", "rocm", "tpu"], [("gpu", "k_gpu")], "k_default",
                  aval=("f32", "2,3"))
    dispatch_case("case-default-only",
                  "(cpu, tpu) with only a default rule: one kept rule, applied directly with no "
                  "stablehlo.case (main still takes the platform index).",
                  ["cpu", "tpu"], [], "k_default")
    dispatch_case("case-order-follows-lowering-platforms",
                  "(tpu, cpu) with a cpu rule and a default: the specific rules come first (cpu "
                  "-> 0), the default last (tpu -> 1).",
                  ["tpu", "cpu"], [("cpu", "k_cpu")], "k_default")
    dispatch_case("case-gpu-rule-two-branches",
                  "(cuda, rocm) with only a gpu rule: one kept rule per platform, no dedup by "
                  "rule identity: two identical branches.",
                  ["cuda", "rocm"], [("gpu", "k_gpu")], None)
    dispatch_case("case-five-platforms",
                  "five platforms, each with its own rule, registered in another order: the "
                  "kept rules follow the lowering platforms (_get_lowering_rules iterates "
                  "ctx.platforms).",
                  ["oneapi", "tpu", "cpu", "rocm", "cuda"],
                  [("cpu", "k_cpu"), ("cuda", "k_cuda"), ("rocm", "k_rocm"), ("oneapi", "k_oneapi"),
                   ("tpu", "k_tpu")], None)
    dispatch_case("case-default-shared-by-two",
                  "(cpu, cuda, tpu) with a tpu rule and a default: cpu and cuda share the "
                  "default branch (index 1).",
                  ["cpu", "cuda", "tpu"], [("tpu", "k_tpu")], "k_default")
    dispatch_case("case-default-unused",
                  "(cpu, tpu) with cpu and tpu rules: every platform has a specific rule, the "
                  "default is not kept.",
                  ["cpu", "tpu"], [("tpu", "k_tpu"), ("cpu", "k_cpu")], "k_default")
    dispatch_case("case-scalar-operand",
                  "(rocm, cpu) with a rocm rule and a default on an i32[] operand: rank-0 "
                  "layouts dense<> : tensor<0xindex>.",
                  ["rocm", "cpu"], [("rocm", "k_rocm")], "k_default", aval=("i32", ""))

    gen_donation(c)
    gen_platform_dependent(c)
    gen_module_names(c)


def gen_donation(c):
    f = "lowering"
    flat = lambda args="0": prim("flatten", args, default="k_flatten", results=(("f32", "4"),))
    for p in ("cpu", "cuda", "tpu"):
        c.add(f, f"donation-alias-{p}",
              f"{MLIR} lower_jaxpr_to_module/_set_up_aliases: jit(f, donate_argnums=0) on {p} (a "
              "platform with donation); the donated f32[4] meets an output of the same aval, so "
              "it is aliased (input_output_aliases -> tf.aliasing_output), not a buffer donor.",
              platforms=p, args=[arg("f32", "4", True)], eqns=[op("negate", "0")],
              expect=ok(["%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}"],
                        ["jax.buffer_donor"]))
    for p in ("cpu", "cuda", "rocm", "tpu"):
        c.add(f, f"donation-donor-{p}",
              f"{MLIR} _set_up_aliases: on {p}, the donated f32[2,2] has no output of the same aval "
              "but one of the same size (f32[4]): it is donated to XLA, jax.buffer_donor = true.",
              platforms=p, args=[arg("f32", "2,2", True)], eqns=[flat()],
              expect=ok(["%arg0: tensor<2x2xf32> {jax.buffer_donor = true}"],
                        ["tf.aliasing_output"]))
    c.add(f, "donation-donor-multi-all-support",
          f"{MLIR} lower_jaxpr_to_module: (cpu, tpu) both support donation; the size-matched "
          "donation is a buffer donor on the argument after the platform index.",
          platforms="cpu,tpu", args=[arg("f32", "2,2", True)], eqns=[flat()],
          expect=ok(['%arg0: tensor<i32> {jax.global_constant = "_platform_index"}, '
                     '%arg1: tensor<2x2xf32> {jax.buffer_donor = true}']))
    c.add(f, "donation-alias-multi-all-support",
          f"{MLIR} lower_jaxpr_to_module: (cuda, rocm, tpu) all support donation; the same-aval "
          "donation is aliased to output 0 on the argument after the platform index.",
          platforms="cuda,rocm,tpu", args=[arg("f32", "4", True)], eqns=[op("sine", "0")],
          expect=ok(["%arg1: tensor<4xf32> {tf.aliasing_output = 0 : i32}"], ["jax.buffer_donor"]))
    c.add(f, "donation-oneapi-not-supported",
          f"{MLIR} lower_jaxpr_to_module: oneapi is not in _platforms_with_donation; the donation "
          "is only warned about ('Donation is not implemented for ('oneapi',)'), no attribute.",
          platforms="oneapi", args=[arg("f32", "2,2", True)], eqns=[flat()],
          expect=ok(["%arg0: tensor<2x2xf32>) ->"], ["jax.buffer_donor", "tf.aliasing_output"]))
    c.add(f, "donation-none-support-multi",
          f"{MLIR} lower_jaxpr_to_module: (oneapi, metal): no lowering platform supports "
          "donation, so there is no all-or-none error and no donation attribute.",
          runtime=rt(B("cpu"), B("metal")), platforms="oneapi,metal",
          args=[arg("f32", "4", True)], eqns=[op("negate", "0")],
          expect=ok(['"_platform_index"}, %arg1: tensor<4xf32>) ->'],
                    ["jax.buffer_donor", "tf.aliasing_output"]))
    for plats, runtime in ((["cpu", "oneapi"], None), (["oneapi", "cpu"], None),
                           (["cuda", "rocm", "oneapi"], None),
                           (["tpu", "metal"], rt(B("cpu"), B("metal"))),
                           (["cpu", "cuda", "rocm", "oneapi", "tpu"], None),
                           (["neuron", "oneapi"], rt(B("cpu"), B("neuron"))),
                           (["metal", "neuron"], rt(B("cpu"), B("metal"), B("neuron")))):
        supporting = [p for p in plats if p in DONATION]
        c.add(f, "donation-mixed-" + "-".join(plats),
              f"{MLIR} lower_jaxpr_to_module: lowering for {py(tuple(plats))} with a donated "
              f"argument; only {py(supporting)} support donation: NotImplementedError with the "
              "platforms as a tuple and the supporting ones as a list.",
              runtime=runtime, platforms=",".join(plats), args=[arg("f32", "4", True)],
              eqns=[op("negate", "0")],
              expect=err("LSIM_E_DONATION_MIXED", m_donation(plats, supporting)))
    c.add(f, "donation-mixed-nothing-donated",
          f"{MLIR} lower_jaxpr_to_module: (cpu, oneapi) without a donated argument: the all-or-"
          "none rule only applies when something is donated.",
          platforms="cpu,oneapi", args=[arg("f32", "4")], eqns=[op("negate", "0")],
          expect=ok(['jax.global_constant = "_platform_index"'], ["jax.buffer_donor"]))
    c.add(f, "donation-unusable",
          f"{MLIR} _set_up_aliases: a donated f32[4] with only an f32[3] output (neither the same "
          "aval nor the same size): not usable, a warning and no attribute.",
          args=[arg("f32", "4", True)],
          eqns=[prim("shrink", "0", default="k_shrink", results=(("f32", "3"),))],
          expect=ok(["%arg0: tensor<4xf32>) ->"], ["jax.buffer_donor", "tf.aliasing_output"]))
    c.add(f, "donation-fifo-alias",
          f"{MLIR} _set_up_aliases: two donated f32[4] and one f32[4] output: the first donated "
          "input (FIFO per aval) is aliased; the second finds no unaliased output of its size.",
          args=[arg("f32", "4", True), arg("f32", "4", True)], eqns=[op("multiply", "0,1")],
          expect=ok(["%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<4xf32>) ->"],
                    ["jax.buffer_donor"]))
    c.add(f, "donation-alias-before-size",
          f"{MLIR} _set_up_aliases: the same-aval pass runs first: the donated f32[4] (second "
          "argument) is aliased to the f32[4] output, and the donated f32[2,2] finds no output "
          "left of size 4 (jit(keep_unused=True) keeps the unused f32[2,2]).",
          args=[arg("f32", "2,2", True), arg("f32", "4", True)], eqns=[op("negate", "1")],
          keep_unused=True,
          expect=ok(["%arg0: tensor<2x2xf32>, %arg1: tensor<4xf32> {tf.aliasing_output = 0 : i32}"],
                    ["jax.buffer_donor"]))
    c.add(f, "donation-donor-fifo",
          f"{MLIR} _set_up_aliases: two donated f32[2,2] and one f32[4] output: the first "
          "becomes the buffer donor, the second is unusable (jit(keep_unused=True) keeps the "
          "unused second one).",
          args=[arg("f32", "2,2", True), arg("f32", "2,2", True)], eqns=[flat()],
          keep_unused=True,
          expect=ok(["%arg0: tensor<2x2xf32> {jax.buffer_donor = true}, %arg1: tensor<2x2xf32>) ->"]))


OP_HLO = {"sine": "stablehlo.sine", "cosine": "stablehlo.cosine", "negate": "stablehlo.negate",
          "exponential": "stablehlo.exponential"}


def pd_model(platforms, branches, default):
    """lax.platform_dependent under jit, lowered for `platforms`
    (conditionals.py platform_dependent, _platform_index_lowering, _cond_lowering).
    branches: (platform list, op) as the keyword arguments, in order."""
    kwargs = [(p, o) for ps, o in branches for p in ps]
    if any(p == "gpu" for p, _ in kwargs):
        return dict(error=("LSIM_E_PLATFORM_DEPENDENT_GPU", M_PD_GPU))
    joined = []
    for p, o in kwargs:
        for entry in joined:
            if entry[1] == o:
                entry[0].append(p)
                break
        else:
            joined.append([[p], o])
    bp = tuple(tuple(ps) for ps, _ in joined)
    ops = [o for _, o in joined]
    if default:
        bp += (None,)
        ops.append(default)
    desc = f"platform_index(platforms={bp!r})"
    rules, has_default = {}, False
    for i, ps in enumerate(bp):
        if ps is None:
            has_default = True
        else:
            for p in ps:
                rules[p] = i
    model = lower_per_platform_model(platforms, list(rules.items()), has_default)
    if model[0] == "single-missing":
        return dict(error=("LSIM_E_NO_LOWERING_RULE", m_no_rule(desc, model[1])), desc=desc)
    if model[0] == "missing":
        return dict(error=("LSIM_E_NO_LOWERING_RULE", m_no_rules(desc, model[1])), desc=desc)
    default_index = len(bp) - 1
    kept_values = [default_index if r == "<default>" else r for r in model[1]]
    kept_branches, index_to_kept = [], {}
    for p in platforms:
        for b, ps in enumerate(bp):
            if ps is None or p in ps:
                if b not in index_to_kept:
                    index_to_kept[b] = len(kept_branches)
                    kept_branches.append(b)
                break
    return dict(desc=desc, kept_values=kept_values, per_platform=model[2],
                case_a=[index_to_kept.get(b, 0) for b in range(len(bp))],
                kept_ops=[ops[b] for b in kept_branches], all_ops=ops)


def pd_fragments(model, multi, aval=("f32", "4")):
    """The printed pieces of a platform_dependent lowering in a main whose only
    equation it is: platform_index, the kept-index case, the branch case."""
    operand = "%arg1" if multi else "%arg0"
    index = "%arg0"
    out = []
    if len(model["kept_values"]) == 1:
        top = 3
        out.append(f'%0 = "stablehlo.constant"() {{value = dense<{model["kept_values"][0]}> : '
                   "tensor<i32>} : () -> tensor<i32>")
        pi = "%0"
    else:
        top = 4
        out.append(index_case("%0", index, model["per_platform"], top))
        out.append(index_case("%1", "%0", model["kept_values"], top))
        pi = "%1"
    a, b = (f"%{top - 2}", f"%{top - 1}")
    out.append(index_case(a, pi, model["case_a"], top))
    t = ttype(*aval)
    bodies = [[f'%{top} = "{OP_HLO[o]}"({operand}) : ({t}) -> {t}',
               f'"stablehlo.return"(%{top}) : ({t}) -> ()'] for o in model["kept_ops"]]
    out.append(case_op(b, a, bodies, t))
    return out


def gen_platform_dependent(c):
    f = "lowering"
    PD = f"{CF} platform_dependent"

    def scenario(stem, what, plats, branches, default, runtime=None):
        model = pd_model(plats, branches, default)
        xml_branches = [(",".join(ps), o) for ps, o in branches]
        if "error" in model:
            expect = err(*model["error"])
        else:
            contains = pd_fragments(model, len(plats) > 1)
            absent = [f'"{OP_HLO[o]}"' for o in sorted(set(model["all_ops"]) - set(model["kept_ops"]))]
            expect = ok(contains, absent)
        c.add(f, stem, what, runtime=runtime, platforms=",".join(plats),
              eqns=[pd("0", xml_branches, default)], expect=expect)

    scenario("pd-gpu-key", f"{PD}: a 'gpu' keyword raises ValueError while tracing, before any "
             "lowering.", ["cpu"], [(["gpu"], "sine")], "negate")
    scenario("pd-gpu-key-after-others", f"{PD}: the gpu key is refused even after valid tpu and "
             "cuda keys.", ["tpu"], [(["tpu"], "sine"), (["cuda"], "cosine"), (["gpu"], "negate")],
             None)
    scenario("pd-gpu-key-multi", f"{PD}: the gpu key error does not depend on the lowering "
             "platforms (multi-platform export).", ["cpu", "cuda", "tpu"],
             [(["cpu"], "sine"), (["gpu"], "cosine")], "negate")
    scenario("pd-gpu-key-no-default", f"{PD}: gpu=... alone, no default.", ["cuda"],
             [(["gpu"], "cosine")], None)
    scenario("pd-missing-default-single",
             f"{CF} _platform_index_lowering -> {MLIR} lower_per_platform: platform_dependent(x, "
             "tpu=sin) lowered for cpu: no rule for cpu and no default; the description renders "
             "the branches' platforms tuple.", ["cpu"], [(["tpu"], "sine")], None)
    scenario("pd-missing-default-joined",
             f"{CF} platform_dependent joins cuda=cos and rocm=cos into ('cuda', 'rocm'); lowered "
             "for tpu without a default.", ["tpu"], [(["cuda", "rocm"], "cosine")], None)
    scenario("pd-missing-default-three-branches",
             f"{CF} _platform_index_lowering: three branches (('tpu',), ('cuda', 'rocm'), "
             "('cpu',)), lowered for oneapi (not mentioned, no default).", ["oneapi"],
             [(["tpu"], "sine"), (["cuda"], "cosine"), (["rocm"], "cosine"), (["cpu"], "negate")],
             None)
    scenario("pd-missing-default-plural",
             f"{MLIR} lower_per_platform for platform_index: (cpu, oneapi, tpu) with only a tpu "
             "branch: the plural error lists ['cpu', 'oneapi'].", ["cpu", "oneapi", "tpu"],
             [(["tpu"], "sine")], None)
    scenario("pd-single-cpu-default",
             f"{CF} _cond_lowering: lowered for cpu alone, platform_index is the constant 2 "
             "(the default branch); the kept-index case maps every branch and only the "
             "default branch's code is emitted.", ["cpu"],
             [(["tpu"], "sine"), (["cuda"], "cosine")], "negate")
    scenario("pd-single-tpu", f"{CF} _cond_lowering: lowered for tpu alone, only tpu's branch "
             "(sine) is emitted.", ["tpu"], [(["tpu"], "sine"), (["cuda"], "cosine")], "negate")
    scenario("pd-single-rocm-joined", f"{CF} _cond_lowering: lowered for rocm, which shares the "
             "joined ('cuda', 'rocm') branch.", ["rocm"],
             [(["tpu"], "sine"), (["cuda", "rocm"], "cosine")], "negate")
    scenario("pd-single-oneapi-default", f"{CF} _cond_lowering: oneapi is not mentioned, the "
             "default branch is used.", ["oneapi"],
             [(["tpu"], "sine"), (["cuda", "rocm"], "cosine")], "negate")
    scenario("pd-multi-cpu-cuda-tpu",
             f"{CF} platform_dependent(x, tpu=sin, cuda=cos, rocm=cos, default=neg) exported for "
             "(cpu, cuda, tpu): platform_index's rules follow the branches (tpu, cuda, rocm) "
             "with the default last; the cond keeps the branches in the order the lowering "
             "platforms first select them.", ["cpu", "cuda", "tpu"],
             [(["tpu"], "sine"), (["cuda"], "cosine"), (["rocm"], "cosine")], "negate")
    scenario("pd-multi-tpu-cpu", f"{CF}: (tpu, cpu) with tpu=sin and a default.", ["tpu", "cpu"],
             [(["tpu"], "sine")], "negate")
    scenario("pd-multi-same-branch",
             f"{CF}: (cuda, rocm) both select the joined cos branch: platform_index still has one "
             "kept rule per platform (two case branches returning 0), the cond keeps one branch "
             "and the default branch maps to 0 unkept.", ["cuda", "rocm"],
             [(["cuda", "rocm"], "cosine")], "negate")
    scenario("pd-multi-default-only-selected",
             f"{CF}: (cpu, oneapi) with a tpu branch and a default: both platforms use the "
             "default rule of platform_index, which is applied directly (a constant 1).",
             ["cpu", "oneapi"], [(["tpu"], "sine")], "exponential")
    scenario("pd-multi-four-branches",
             f"{CF}: (rocm, tpu, cpu) with cpu=exp, tpu=sin, cuda=cos, rocm=cos and a default.",
             ["rocm", "tpu", "cpu"],
             [(["cpu"], "exponential"), (["tpu"], "sine"), (["cuda", "rocm"], "cosine")], "negate")


def gen_module_names(c):
    f = "lowering"
    for stem, function in (("plain", "f"), ("hyphen", "my-fn"), ("dot", "f.g"),
                           ("trailing-underscore", "f_"), ("lambda", "<lambda>"),
                           ("space", "a b"), ("parens", "f(x)"), ("dollar", "f$g"),
                           ("digit", "9lives"), ("greek", "\u03bb"), ("arrow", "f\u2192g"),
                           ("currency", "f\u20ac"), ("accented", "caf\u00e9")):
        name = jax_module_name(function)
        c.add(f, f"module-name-{stem}",
              f"{MLIR} lower_jaxpr_to_module: sym_name = sanitize_name('jit({function})')."
              f"rstrip('_') = {name!r} (re [^\\w.-] with Python's Unicode \\w, each other "
              "character -> '_').",
              function=function, eqns=[op("sine", "0")],
              expect=ok([f"module {mlir_symbol(name)} attributes"]))
    c.add(f, "module-attributes-jit",
          f"{MLIR} lower_jaxpr_to_module: a jit module has mhlo.num_replicas = 1 and "
          "mhlo.num_partitions = 1 (one device), a public @main with jax.result_info; "
          "jax.uses_shape_polymorphism is set only by jax.export, not by jit.",
          eqns=[op("sine", "0")],
          expect=ok(["mhlo.num_partitions = 1 : i32", "mhlo.num_replicas = 1 : i32",
                     "func.func public @main(%arg0: tensor<4xf32>) -> "
                     '(tensor<4xf32> {jax.result_info = "result"})'],
                    ["jax.uses_shape_polymorphism"]))
    c.add(f, "module-attributes-export-multi",
          f"jax/_src/export/_export.py: a multi-platform export has the _platform_index "
          "dimension variable, so jax.uses_shape_polymorphism = true; main's first argument "
          "is the platform index.",
          platforms="cpu,tpu", export=True, eqns=[op("sine", "0")],
          expect=ok(["jax.uses_shape_polymorphism = true",
                     'func.func public @main(%arg0: tensor<i32> {jax.global_constant = '
                     '"_platform_index"}, %arg1: tensor<4xf32>)']))
    c.add(f, "module-result-info-tuple",
          f"{MLIR} lower_jaxpr_to_fun: several results are named result[0], result[1] "
          "(DebugInfo result paths).",
          eqns=[op("sine", "0"), op("cosine", "0")], ret="1,2",
          expect=ok(['jax.result_info = "result[0]"', 'jax.result_info = "result[1]"']))


# --- callbacks/: buffer_callback, pure/io/debug callbacks ------------------------------

BCPY = "jax/_src/buffer_callback.py"
CBPY = "jax/_src/callback.py"
DBG = "jax/_src/debugging.py"
TOKEN = "!stablehlo.token"


def sig(in_types, out_types):
    if len(out_types) == 1:
        out = out_types[0]
    else:
        out = "(" + ", ".join(out_types) + ")"
    return f": ({', '.join(in_types)}) -> {out}"


def alias_attr(aliases, num_results):
    entries = []
    for i, o in aliases:
        tuple_index = f"[{o}]" if num_results > 1 else "[]"
        entries.append(f"#stablehlo.output_operand_alias<output_tuple_indices = {tuple_index}, "
                       f"operand_index = {i}, operand_tuple_indices = []>")
    return "[" + ", ".join(entries) + "]"


def buffer_call(operands, target_name, side_effect, index, avals_in, avals_out, aliases=()):
    """_buffer_callback_lowering: ffi_lowering(target, has_side_effect,
    operand_output_aliases=dict(aliases))(ctx, *args, index=np.uint64(i))."""
    return (f'"stablehlo.custom_call"({", ".join(operands)}) {{api_version = 1 : i32, '
            f'backend_config = "", call_target_name = "{target_name}", called_computations = [], '
            f'has_side_effect = {str(side_effect).lower()}, mhlo.backend_config = '
            f'{{index = {index} : ui64}}, operand_layouts = [{", ".join(layout(s) for _, s in avals_in)}], '
            f'output_operand_aliases = {alias_attr(aliases, len(avals_out))}, result_layouts = '
            f'[{", ".join(layout(s) for _, s in avals_out)}]}} '
            + sig([ttype(*a) for a in avals_in], [ttype(*a) for a in avals_out]))


def py_call_config(target_name, side_effect, index):
    """emit_python_callback on cpu/cuda/rocm: the attributes of the FFI call that do
    not depend on a sharding annotation."""
    return (f'backend_config = "", call_target_name = "{target_name}", called_computations = [], '
            f'has_side_effect = {str(side_effect).lower()}, mhlo.backend_config = '
            f'{{index = {index} : ui64}}')


def py_call_layouts(avals_in, avals_out, token=False):
    tok = ["dense<> : tensor<0xindex>"] if token else []
    return (f'operand_layouts = [{", ".join(tok + [layout(s) for _, s in avals_in])}]',
            f'result_layouts = [{", ".join(tok + [layout(s) for _, s in avals_out])}]')


def py_call_sig(avals_in, avals_out, token=False):
    tok = [TOKEN] if token else []
    outs = tok + [ttype(*a) for a in avals_out]
    if not outs:
        return f"}} : ({', '.join(tok + [ttype(*a) for a in avals_in])}) -> ()"
    return "} " + sig(tok + [ttype(*a) for a in avals_in], outs)


def host_transfer(channel, kind):
    """send_to_host (type 2) / receive_from_host (type 3) attributes."""
    t = 2 if kind == "send" else 3
    return (f"channel_handle = #stablehlo.channel_handle<handle = {channel}, type = {t}>, "
            "is_host_transfer = true, mhlo.frontend_attributes = {_xla_host_transfer_handler_name"
            f' = "pjrt_rendezvous", _xla_host_transfer_rendezvous = "{channel}"}}')


def send_sig(aval):
    return f": ({ttype(*aval)}, {TOKEN}) -> {TOKEN}"


def recv_sig(aval):
    return f": ({TOKEN}) -> ({ttype(*aval)}, {TOKEN})"


BC_TARGET = {"cpu": "xla_buffer_python_cpu_callback", "cuda": "xla_buffer_python_gpu_callback",
             "rocm": "xla_buffer_python_gpu_callback", "oneapi": "xla_buffer_python_gpu_callback"}


def gen_callbacks(c):
    f = "callbacks"
    a4 = ("f32", "4")
    # buffer_callback: targets, _cmd_buffer, the index and the aliases attribute.
    for p in ("cpu", "cuda", "rocm", "oneapi"):
        for cmd in (False, True):
            se = not cmd
            t = BC_TARGET[p] + ("_cmd_buffer" if cmd and p != "cpu" else "")
            what = ("command_buffer_compatible=True appends _cmd_buffer on the GPU platforms"
                    if cmd and p != "cpu" else
                    "command_buffer_compatible is ignored on cpu" if cmd else
                    "the plain target")
            c.add(f, f"buffer-target-{p}" + ("-cmd-buffer" if cmd else ""),
                  f"{BCPY} _buffer_callback_lowering on {p}: target {t} ({what}); has_side_effect "
                  f"= {str(se).lower()}, index = 0 : ui64 in mhlo.backend_config, "
                  "output_operand_aliases always present (here [])"
                  + (f"; oneapi has a target from the seeds' JAX {JAX_SEED} on (not at "
                     f"{JAX_0_10_2})." if p == "oneapi" else f", at JAX {JAX_0_10_2}."),
                  runtime=rt(B("cpu"), B(p)) if p != "cpu" else None, platforms=p,
                  eqns=[bc("0", side_effect=se, command_buffer=cmd)],
                  expect=ok(["%0 = " + buffer_call(["%arg0"], t, se, 0, [a4], [a4])]),
                  jax=JAX_SEED if p == "oneapi" else JAX_0_10_2)
    for cmd in (False, True):
        c.add(f, "buffer-unsupported-oneapi-0.10.2" + ("-cmd-buffer" if cmd else ""),
              f"{BCPY} _buffer_callback_lowering at JAX {JAX_0_10_2} (also 0.11.0 and the source "
              "of 2026-08-08) knows cpu, cuda and rocm only: oneapi is refused with ValueError, "
              "command buffer or not.",
              runtime=rt(B("cpu"), B("oneapi")), platforms="oneapi",
              eqns=[bc("0", command_buffer=cmd)],
              expect=err("LSIM_E_BUFFER_CALLBACK_UNSUPPORTED", m_bc_unsupported("oneapi")),
              jax=JAX_0_10_2)
    for p, runtime in (("tpu", rt(B("cpu"), B("tpu"))), ("metal", rt(B("cpu"), B("metal"))),
                       ("neuron", rt(B("cpu"), B("neuron")))):
        c.add(f, f"buffer-unsupported-{p}",
              f"{BCPY} _buffer_callback_lowering: {p} has no buffer_callback FFI target: ValueError.",
              runtime=runtime, platforms=p, eqns=[bc("0")],
              expect=err("LSIM_E_BUFFER_CALLBACK_UNSUPPORTED", m_bc_unsupported(p)))
    for plats in (("cpu", "cuda"), ("cpu", "tpu"), ("tpu", "metal"), ("cuda", "rocm", "oneapi")):
        c.add(f, "buffer-multi-" + "-".join(plats),
              f"{BCPY} _buffer_callback_lowering: lowering for {py(plats)}: the multi-platform "
              "check comes first, whatever the platforms.",
              runtime=rt(B("cpu"), B("metal")) if "metal" in plats else None,
              platforms=",".join(plats), eqns=[bc("0")],
              expect=err("LSIM_E_BUFFER_CALLBACK_MULTI_PLATFORM", M_BC_MULTI))
    for p in ("cpu", "cuda", "rocm", "oneapi"):
        c.add(f, f"buffer-returns-value-{p}",
              f"{BCPY} wrapped_callback: on {p} the module lowers; when the runtime invokes the "
              "callback and it returns a value: ValueError"
              + (f" (oneapi lowers from the seeds' JAX {JAX_SEED} on)." if p == "oneapi" else "."),
              platforms=p, eqns=[bc("0", returns_value=True)], execute=True,
              expect=err("LSIM_E_CALLBACK_RETURNED_VALUES", M_BC_RETURNED),
              jax=JAX_SEED if p == "oneapi" else None)
    c.add(f, "buffer-returns-value-not-executed",
          f"{BCPY} wrapped_callback runs only when the callback is invoked: lowering alone "
          "succeeds.",
          eqns=[bc("0", returns_value=True)],
          expect=ok([target("xla_buffer_python_cpu_callback")]))
    c.add(f, "buffer-returns-value-second",
          f"{BCPY} wrapped_callback: the first of two callbacks returns nothing, the second "
          "returns a value; invoking them in index order fails on the second.",
          platforms="cuda", eqns=[bc("0"), bc("1", returns_value=True)], execute=True,
          expect=err("LSIM_E_CALLBACK_RETURNED_VALUES", M_BC_RETURNED))
    c.add(f, "buffer-returns-value-tpu",
          f"{BCPY}: on tpu the lowering refuses buffer_callback before anything could run.",
          platforms="tpu", eqns=[bc("0", returns_value=True)], execute=True,
          expect=err("LSIM_E_BUFFER_CALLBACK_UNSUPPORTED", m_bc_unsupported("tpu")))
    c.add(f, "buffer-index-three",
          f"{BCPY} _buffer_callback_lowering: each callback is appended to the module's host "
          "callbacks; index = len(host_callbacks) - 1 = 0, 1, 2.",
          args=[arg("f32", "4"), arg("i32", ""), arg("bf16", "2,3")],
          eqns=[bc("0"), bc("1", results=[("i32", "")]), bc("2", results=[("bf16", "2,3")])],
          ret="3,4,5",
          expect=ok(["%0 = " + buffer_call(["%arg0"], BC_TARGET["cpu"], False, 0, [a4], [a4]),
                     "%1 = " + buffer_call(["%arg1"], BC_TARGET["cpu"], False, 1, [("i32", "")],
                                           [("i32", "")]),
                     "%2 = " + buffer_call(["%arg2"], BC_TARGET["cpu"], False, 2,
                                           [("bf16", "2,3")], [("bf16", "2,3")])]))
    c.add(f, "buffer-index-shared-with-python-callbacks",
          f"{BCPY} and {CBPY} emit_python_callback share ModuleContext.host_callbacks: on cuda a "
          "buffer_callback, a pure_callback, an io_callback, a debug callback and another "
          "buffer_callback get indices 0 to 4.",
          runtime=rt(B("cpu"), B("cuda")), platforms="cuda",
          eqns=[bc("0"), pure("0"), io("0"), debug("0"), bc("0")], ret="1,2,3,4",
          expect=ok(["%0 = " + buffer_call(["%arg0"], BC_TARGET["cuda"], False, 0, [a4], [a4]),
                     py_call_config("xla_ffi_python_gpu_callback", False, 1),
                     py_call_config("xla_ffi_python_gpu_callback", True, 2),
                     py_call_config("xla_ffi_python_gpu_callback", True, 3),
                     "%3 = " + buffer_call(["%arg0"], BC_TARGET["cuda"], False, 4, [a4], [a4])]))
    c.add(f, "buffer-alias-single-result",
          f"{BCPY}/mlir.py custom_call: an alias 0:0 with one result: output_tuple_indices = [].",
          platforms="rocm", eqns=[bc("0", aliases=[(0, 0)], command_buffer=True)],
          expect=ok(["%0 = " + buffer_call(["%arg0"], BC_TARGET["rocm"] + "_cmd_buffer", False, 0,
                                           [a4], [a4], [(0, 0)])]))
    c.add(f, "buffer-alias-two-results",
          f"{BCPY}/mlir.py custom_call: alias 0:1 with two results: output_tuple_indices = [1].",
          args=[arg("bf16", "2,3"), arg("f32", "8")],
          eqns=[bc("0,1", results=[("f32", "8"), ("bf16", "2,3")], aliases=[(0, 1)])],
          ret="2,3",
          expect=ok(["%0:2 = " + buffer_call(["%arg0", "%arg1"], BC_TARGET["cpu"], False, 0,
                                             [("bf16", "2,3"), ("f32", "8")],
                                             [("f32", "8"), ("bf16", "2,3")], [(0, 1)])]))
    c.add(f, "buffer-alias-sorted-by-input",
          f"{BCPY} buffer_callback binds input_output_aliases in sorted(...items()) order, so "
          "dict(input_output_aliases) lists 0:1 before 1:0 although the user wrote {1: 0, 0: 1}.",
          platforms="cuda", args=[arg("f32", "4"), arg("i32", "4")],
          eqns=[bc("0,1", results=[("i32", "4"), ("f32", "4")], aliases=[(1, 0), (0, 1)])],
          ret="2,3",
          expect=ok(["%0:2 = " + buffer_call(["%arg0", "%arg1"], BC_TARGET["cuda"], False, 0,
                                             [a4, ("i32", "4")], [("i32", "4"), a4],
                                             [(0, 1), (1, 0)])]), jax=JAX_0_10_2)
    # Alias validation (trace time, before any lowering).
    def alias_case(stem, what, args, results, aliases, expect, platforms="cpu", runtime=None):
        c.add(f, stem, f"{BCPY} buffer_callback (wrapped_callback, before bind): {what}",
              runtime=runtime, platforms=platforms, args=[arg(*a) for a in args],
              eqns=[bc(",".join(str(i) for i in range(len(args))), results=results,
                       aliases=aliases)], expect=expect)
    alias_case("alias-input-range-cpu", "mapping 1:0 with one argument: input index outside "
               "[0, 1).", [a4], [a4], [(1, 0)],
               err("LSIM_E_ALIAS_INPUT_RANGE", m_alias_input(1, 0, 1)))
    alias_case("alias-input-range-tpu", "checked while tracing, so on tpu the alias error comes "
               "before the unsupported-platform error of the lowering.", [a4, a4], [a4], [(2, 0)],
               err("LSIM_E_ALIAS_INPUT_RANGE", m_alias_input(2, 0, 2)), platforms="tpu")
    alias_case("alias-input-range-multi", "checked while tracing, before the multi-platform "
               "error of the lowering.", [a4], [a4], [(3, 0)],
               err("LSIM_E_ALIAS_INPUT_RANGE", m_alias_input(3, 0, 1)), platforms="cpu,cuda")
    alias_case("alias-input-before-output", "mapping 3:9 is out of range on both sides: the "
               "input check comes first.", [a4], [a4], [(3, 9)],
               err("LSIM_E_ALIAS_INPUT_RANGE", m_alias_input(3, 9, 1)), platforms="rocm")
    alias_case("alias-output-range-cuda", "mapping 0:2 with one result: output index outside "
               "[0, 1).", [a4], [a4], [(0, 2)],
               err("LSIM_E_ALIAS_OUTPUT_RANGE", m_alias_output(0, 2, 1)), platforms="cuda")
    alias_case("alias-output-range-two-results", "mapping 1:2 with two results.",
               [a4, a4], [a4, a4], [(1, 2)],
               err("LSIM_E_ALIAS_OUTPUT_RANGE", m_alias_output(1, 2, 2)), platforms="oneapi")
    alias_case("alias-output-range-metal", "checked while tracing: on metal the alias error "
               "comes before the unsupported-platform error.", [a4], [a4], [(0, 1)],
               err("LSIM_E_ALIAS_OUTPUT_RANGE", m_alias_output(0, 1, 1)), platforms="metal",
               runtime=rt(B("cpu"), B("metal")))
    for stem, a_in, a_out, platforms in (
            ("alias-aval-dtype", ("f32", "4"), ("i32", "4"), "cpu"),
            ("alias-aval-scalar", ("i32", ""), ("f32", ""), "cuda"),
            ("alias-aval-bf16-shape", ("bf16", "2,3"), ("bf16", "3,2"), "rocm"),
            ("alias-aval-bool-u8", ("bool", "3"), ("u8", "3"), "oneapi"),
            ("alias-aval-f16-rank", ("f16", ""), ("f16", "1"), "tpu"),
            ("alias-aval-unsigned", ("u32", "2,2"), ("i32", "2,2"), "cpu,tpu")):
        alias_case(stem, f"mapping 0:0 between {aval_str(*a_in)} and {aval_str(*a_out)} (str of a "
                   "ShapedArray prints dtype.name and the shape) on " + platforms + ".",
                   [a_in], [a_out], [(0, 0)],
                   err("LSIM_E_ALIAS_AVAL_MISMATCH", m_alias_aval(0, 0, a_in, a_out)),
                   platforms=platforms)
    alias_case("alias-sorted-check-order", "mappings {1: 5, 0: 0} are checked in sorted order: "
               "0:0 (an aval mismatch) is reported before 1:5 (out of range).",
               [("f32", "4"), ("f32", "4")], [("i32", "4")], [(1, 5), (0, 0)],
               err("LSIM_E_ALIAS_AVAL_MISMATCH", m_alias_aval(0, 0, ("f32", "4"), ("i32", "4"))))
    alias_case("alias-second-mapping-fails", "the first mapping 0:0 is valid, the second 1:1 "
               "refers to a different aval.", [("f32", "4"), ("f32", "2")],
               [("f32", "4"), ("f32", "3")], [(0, 0), (1, 1)],
               err("LSIM_E_ALIAS_AVAL_MISMATCH", m_alias_aval(1, 1, ("f32", "2"), ("f32", "3"))),
               platforms="cuda")

    # emit_python_callback on cpu, cuda, rocm: FFI custom calls.
    for p in ("cpu", "cuda", "rocm"):
        dev = "cpu" if p == "cpu" else "gpu"
        tgt = f"xla_ffi_python_{dev}_callback"
        c.add(f, f"pure-{p}",
              f"{CBPY} emit_python_callback for pure_callback on {p}: FFI call {tgt}, "
              "has_side_effect = false, index in mhlo.backend_config, no token.",
              runtime=rt(B("cpu"), B(p)) if p != "cpu" else None, platforms=p,
              eqns=[pure("0")],
              expect=ok([py_call_config(tgt, False, 0), *py_call_layouts([a4], [a4]),
                         py_call_sig([a4], [a4])], [TOKEN]))
        c.add(f, f"io-unordered-{p}",
              f"{CBPY} emit_python_callback for an unordered io_callback on {p}: has_side_effect "
              "= true, no token threaded.",
              runtime=rt(B("cpu"), B(p)) if p != "cpu" else None, platforms=p,
              eqns=[io("0", ordered=False)],
              expect=ok([py_call_config(tgt, True, 0), py_call_sig([a4], [a4])], [TOKEN]))
        c.add(f, f"io-ordered-{p}",
              f"{CBPY} io_callback(ordered=True) on {p}: the OrderedIO token is operand 0 and "
              "result 0 of the FFI call; main takes and returns a !stablehlo.token.",
              runtime=rt(B("cpu"), B(p)) if p != "cpu" else None, platforms=p,
              eqns=[io("0", ordered=True)],
              expect=ok([py_call_config(tgt, True, 0),
                         *py_call_layouts([a4], [a4], token=True),
                         py_call_sig([a4], [a4], token=True),
                         "@main(%arg0: !stablehlo.token {jax.token = true}, %arg1: tensor<4xf32>) "
                         "-> (!stablehlo.token {jax.token = true}, tensor<4xf32>"]))
        c.add(f, f"debug-{p}",
              f"{DBG} debug_callback lowering -> {CBPY} emit_python_callback on {p}: side effect, "
              "no results (returns ()), no token when unordered.",
              runtime=rt(B("cpu"), B(p)) if p != "cpu" else None, platforms=p,
              eqns=[op("sine", "0"), debug("1")], ret="1",
              expect=ok([py_call_config(tgt, True, 0), py_call_sig([a4], [])], [TOKEN]))
        c.add(f, f"debug-partitioned-{p}",
              f"{CBPY} emit_python_callback: a partitioned debug callback on {p} uses "
              f"xla_ffi_partitioned_python_{dev}_callback.",
              runtime=rt(B("cpu"), B(p)) if p != "cpu" else None, platforms=p,
              eqns=[op("sine", "0"), debug("1", partitioned=True)], ret="1",
              expect=ok([py_call_config(f"xla_ffi_partitioned_python_{dev}_callback", True, 0)]))
    c.add(f, "debug-ordered-cuda",
          f"{DBG} debug_callback with ordered=True (OrderedDebug effect) on cuda: the token is "
          "the only operand before the value and the only result.",
          runtime=rt(B("cpu"), B("cuda")), platforms="cuda",
          eqns=[op("sine", "0"), debug("1", ordered=True)], ret="1",
          expect=ok([py_call_config("xla_ffi_python_gpu_callback", True, 0),
                     *py_call_layouts([a4], [], token=True), py_call_sig([a4], [], token=True)]))
    c.add(f, "debug-no-operands-cpu",
          f"{DBG} jax.debug.callback without arguments on cpu: an FFI call with no operands and "
          "no results.",
          eqns=[op("sine", "0"), debug("")], ret="1",
          expect=ok([py_call_config("xla_ffi_python_cpu_callback", True, 0),
                     "operand_layouts = [], result_layouts = [], sdy.sharding = "
                     "#sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : () -> ()"]))
    c.add(f, "pure-two-results-rocm",
          f"{CBPY} emit_python_callback on rocm: two results, layouts per aval.",
          runtime=rt(B("cpu"), B("rocm")), platforms="rocm", args=[arg("i32", "2,3")],
          eqns=[pure("0", results=[("f32", ""), ("i32", "2,3")])], ret="1,2",
          expect=ok([py_call_config("xla_ffi_python_gpu_callback", False, 0),
                     *py_call_layouts([("i32", "2,3")], [("f32", ""), ("i32", "2,3")]),
                     py_call_sig([("i32", "2,3")], [("f32", ""), ("i32", "2,3")])]))
    c.add(f, "python-callback-indices-cpu",
          f"{CBPY} emit_python_callback: pure, ordered io and debug callbacks on cpu get "
          "consecutive host-callback indices 0, 1, 2.",
          eqns=[pure("0"), io("1", ordered=True), debug("2")], ret="2",
          expect=ok([py_call_config("xla_ffi_python_cpu_callback", False, 0),
                     py_call_config("xla_ffi_python_cpu_callback", True, 1),
                     py_call_config("xla_ffi_python_cpu_callback", True, 2)]))
    # Where emit_python_callback refuses.
    for kind, e in (("pure", pure("0")), ("io", io("0")), ("debug", debug("0"))):
        c.add(f, f"{kind}-unsupported-oneapi",
              f"{CBPY} emit_python_callback: oneapi is not in (cpu, cuda, rocm, tpu): ValueError"
              + (f" (debug_callback's gpu rule of {DBG} is stored for oneapi, so it reaches "
                 "emit_python_callback)." if kind == "debug" else "."),
              runtime=rt(B("cpu"), B("oneapi")), platforms="oneapi", eqns=[e],
              expect=err("LSIM_E_PYTHON_CALLBACK_UNSUPPORTED", m_py_unsupported("oneapi")))
    for kind, e in (("pure", pure("0")), ("io", io("0", ordered=True))):
        c.add(f, f"{kind}-unsupported-metal",
              f"{CBPY} emit_python_callback: the metal plugin platform is not supported: ValueError.",
              runtime=rt(B("cpu"), B("metal")), platforms="metal", eqns=[e],
              expect=err("LSIM_E_PYTHON_CALLBACK_UNSUPPORTED", m_py_unsupported("metal")))
    c.add(f, "debug-no-rule-metal",
          f"{DBG} registers debug_callback's lowering for cpu, gpu and tpu only: on metal "
          f"{MLIR} lower_per_platform finds no rule.",
          runtime=rt(B("cpu"), B("metal")), platforms="metal", eqns=[debug("0")],
          expect=err("LSIM_E_NO_LOWERING_RULE", m_no_rule("debug_callback", "metal")))
    c.add(f, "debug-no-rule-metal-multi",
          f"{MLIR} lower_per_platform: (cpu, metal) - metal has no debug_callback rule and there "
          "is no default: the plural error, before any rule runs.",
          runtime=rt(B("cpu"), B("metal")), platforms="cpu,metal", eqns=[debug("0")],
          expect=err("LSIM_E_NO_LOWERING_RULE", m_no_rules("debug_callback", ["metal"])))
    c.add(f, "debug-partitioned-tpu",
          f"{CBPY} emit_python_callback: partitioned callbacks exist only on cpu, cuda, rocm: "
          "NotImplementedError on tpu.",
          runtime=rt(B("cpu"), B("tpu")), platforms="tpu", eqns=[debug("0", partitioned=True)],
          expect=err("LSIM_E_PARTITIONED_CALLBACK_PLATFORM", m_partitioned_platform("tpu")))
    c.add(f, "debug-partitioned-oneapi",
          f"{CBPY} emit_python_callback: the platform check comes before the partitioned check: "
          "oneapi is unsupported.",
          runtime=rt(B("cpu"), B("oneapi")), platforms="oneapi",
          eqns=[debug("0", partitioned=True)],
          expect=err("LSIM_E_PYTHON_CALLBACK_UNSUPPORTED", m_py_unsupported("oneapi")))
    for stem, plats, e in (("pure-multi-cpu-tpu", ("cpu", "tpu"), pure("0")),
                           ("io-multi-cuda-rocm", ("cuda", "rocm"), io("0")),
                           ("io-ordered-multi-cpu-cuda", ("cpu", "cuda"), io("0", ordered=True)),
                           ("pure-multi-oneapi-metal", ("oneapi", "metal"), pure("0"))):
        c.add(f, stem,
              f"{CBPY} emit_python_callback: lowering for {py(plats)} - the multi-platform check "
              "is the first one (debug_callback's per-platform rules are kept separately, but "
              "each still sees the module's several platforms).",
              runtime=rt(B("cpu"), B("metal")) if "metal" in plats else None,
              platforms=",".join(plats), eqns=[e],
              expect=err("LSIM_E_PYTHON_CALLBACK_MULTI_PLATFORM", M_PY_MULTI))

    # debug_callback is not cacheable (its tpu rule says cacheable=False), so
    # _uncached_lowering hands lower_per_platform a tuple avals_out, and with
    # two kept rules `[token] * n + ctx.avals_out` fails before any rule runs.
    for stem, plats in (("debug-multi-cpu-tpu", ("cpu", "tpu")),
                        ("debug-multi-cuda-oneapi", ("cuda", "oneapi")),
                        ("debug-multi-cuda-rocm", ("cuda", "rocm")),
                        ("debug-multi-cpu-cuda-ordered", ("cpu", "cuda"))):
        c.add(f, stem,
              f"{MLIR} lower_per_platform at JAX {JAX_0_10_2} (and 0.11.0, and the source of "
              f"2026-08-08): debug_callback lowered for {py(plats)} keeps two rules, and since "
              "it is not cacheable its rule context's avals_out is a tuple, so `[token] * "
              "len(ordered_effects) + ctx.avals_out` raises TypeError before emit_python_callback "
              "can refuse several platforms (a JAX bug since 38581b7f80).",
              platforms=",".join(plats), eqns=[debug("0", ordered=stem.endswith("ordered"))],
              expect=err("LSIM_E_UNCACHED_MULTI_PLATFORM", M_UNCACHED_TUPLE), jax=JAX_0_10_2)

    # tpu: host transfers with channels.
    tpu_rt = rt(B("cpu"), B("tpu"))
    T = f"{CBPY} _emit_tpu_python_callback"
    c.add(f, "tpu-pure-one-operand",
          f"{T}: pure_callback on tpu: a fresh token (stablehlo.create_token), one send on "
          "channel 2 (type 2 = device to host), one recv on channel 3 (type 3), "
          "is_host_transfer and the pjrt_rendezvous frontend attributes; no custom call.",
          runtime=tpu_rt, platforms="tpu", eqns=[pure("0")],
          expect=ok(['"stablehlo.create_token"() : () -> !stablehlo.token',
                     host_transfer(2, "send"), send_sig(a4), host_transfer(3, "recv"), recv_sig(a4)],
                    ["stablehlo.custom_call", "handle = 4,"]))
    c.add(f, "tpu-pure-two-operands-two-results",
          f"{T}: all sends take channels before the receives: sends on 2 and 3, recvs on 4 and 5.",
          runtime=tpu_rt, platforms="tpu", args=[arg("f32", "4"), arg("i32", "2,3")],
          eqns=[pure("0,1", results=[("i32", "2,3"), ("f32", "")])], ret="2,3",
          expect=ok([host_transfer(2, "send"), send_sig(a4), host_transfer(3, "send"),
                     send_sig(("i32", "2,3")), host_transfer(4, "recv"), recv_sig(("i32", "2,3")),
                     host_transfer(5, "recv"), recv_sig(("f32", ""))], ["handle = 6,"]))
    c.add(f, "tpu-pure-no-operands",
          f"{T}: no operands: a dummy f32[1] zero constant is sent on channel 2, the result "
          "received on 3.",
          runtime=tpu_rt, platforms="tpu", args=[], eqns=[pure("")],
          expect=ok(['{value = dense<0.000000e+00> : tensor<1xf32>}', host_transfer(2, "send"),
                     send_sig(("f32", "1")), host_transfer(3, "recv"), recv_sig(a4)]))
    c.add(f, "tpu-pure-no-results",
          "jax/_src/interpreters/pxla.py _dce_jaxpr: a pure_callback has no effects, and one "
          "without results has nothing anyone can use, so jit drops it before lowering: no "
          "send, no receive.",
          runtime=tpu_rt, platforms="tpu", eqns=[pure("0", results=[]), op("sine", "0")],
          expect=ok(['"stablehlo.sine"'], ['"stablehlo.send"', '"stablehlo.recv"']))
    c.add(f, "tpu-io-unordered-no-results",
          f"{T}: an unordered io_callback does not want a token back: no dummy receive.",
          runtime=tpu_rt, platforms="tpu", eqns=[io("0", results=[]), op("sine", "0")],
          expect=ok([host_transfer(2, "send")], ['"stablehlo.recv"']))
    c.add(f, "tpu-io-ordered-no-results",
          f"{T}: an ordered io_callback without results wants the token back: a dummy f32[] "
          "receive on channel 3; the send starts from main's token argument.",
          runtime=tpu_rt, platforms="tpu", eqns=[io("0", results=[], ordered=True), op("sine", "0")],
          expect=ok([host_transfer(2, "send"), '"stablehlo.send"(%arg1, %arg0)',
                     host_transfer(3, "recv"), recv_sig(("f32", ""))],
                    ['"stablehlo.create_token"']))
    c.add(f, "tpu-debug",
          f"{DBG} -> {T}: jax.debug.callback on tpu (returns_token=True): send on 2, dummy f32[] "
          "receive on 3 for the completion token.",
          runtime=tpu_rt, platforms="tpu", eqns=[op("sine", "0"), debug("1")], ret="1",
          expect=ok([host_transfer(2, "send"), host_transfer(3, "recv"), recv_sig(("f32", ""))]))
    c.add(f, "tpu-debug-no-operands",
          f"{T}: a debug callback with no operands: dummy f32[1] send on 2 and dummy f32[] "
          "receive on 3.",
          runtime=tpu_rt, platforms="tpu", eqns=[op("sine", "0"), debug("")], ret="1",
          expect=ok([host_transfer(2, "send"), send_sig(("f32", "1")), host_transfer(3, "recv"),
                     recv_sig(("f32", ""))]))
    c.add(f, "tpu-empty-result",
          f"{CBPY} emit_python_callback on tpu: results with an empty shape are not received; "
          "they are materialized as zero constants (np.zeros of the 0-sized shape).",
          runtime=tpu_rt, platforms="tpu", eqns=[pure("0", results=[("f32", "0"), a4])],
          ret="1,2",
          expect=ok([host_transfer(3, "recv"), recv_sig(a4),
                     '{value = dense<> : tensor<0xf32>} : () -> tensor<0xf32>'],
                    ["handle = 4,"]))
    c.add(f, "tpu-only-empty-result-pure",
          f"{CBPY} emit_python_callback on tpu: a pure_callback whose only result is empty "
          "receives nothing (returns_token=False).",
          runtime=tpu_rt, platforms="tpu", eqns=[pure("0", results=[("f32", "0")])],
          expect=ok([host_transfer(2, "send"), '{value = dense<> : tensor<0xf32>}'],
                    ['"stablehlo.recv"']))
    c.add(f, "tpu-only-empty-result-ordered-io",
          f"{CBPY} emit_python_callback on tpu: an ordered io_callback whose only result is "
          "empty: after filtering there are no results and a token is wanted, so a dummy f32[] "
          "receive on channel 3.",
          runtime=tpu_rt, platforms="tpu", eqns=[io("0", results=[("f32", "0")], ordered=True)],
          expect=ok([host_transfer(3, "recv"), recv_sig(("f32", "")),
                     '{value = dense<> : tensor<0xf32>}']))
    c.add(f, "tpu-channels-across-callbacks",
          f"{MLIR} ModuleContext.new_channel: one channel counter per module: a pure_callback "
          "(two sends 2, 3 and a recv 4), a debug callback (send 5, dummy recv 6) and an "
          "ordered io_callback (send 7, recv 8).",
          runtime=tpu_rt, platforms="tpu", args=[arg("f32", "4"), arg("f32", "4")],
          eqns=[pure("0,1"), debug("2"), io("2", ordered=True)], ret="3",
          expect=ok([host_transfer(n, k) for n, k in ((2, "send"), (3, "send"), (4, "recv"),
                                                       (5, "send"), (6, "recv"), (7, "send"),
                                                       (8, "recv"))], ["handle = 9,"]))
    many = 65533
    c.add(f, "tpu-channel-65535-last",
          f"{MLIR} ModuleContext.new_channel: ids 2..65535 are valid: a pure_callback with {many} "
          "operands (channels 2..65534) receives its result on channel 65535.",
          runtime=tpu_rt, platforms="tpu",
          eqns=[pure(",".join(["0"] * many))],
          expect=ok([host_transfer(65534, "send"), host_transfer(65535, "recv")]))
    c.add(f, "tpu-too-many-channels",
          f"{MLIR} ModuleContext.new_channel: a pure_callback with {many + 1} operands uses "
          "channels 2..65535 for its sends; the receive would need 65536 (>= 1 << 16): "
          "RuntimeError.",
          runtime=tpu_rt, platforms="tpu",
          eqns=[pure(",".join(["0"] * (many + 1)))],
          expect=err("LSIM_E_TOO_MANY_CHANNELS", M_TOO_MANY_CHANNELS))
    c.add(f, "tpu-too-many-channels-second-callback",
          f"{MLIR} ModuleContext.new_channel: the counter is shared: a first callback uses "
          f"channels 2..{2 + many}, the second callback's first send would be 65536.",
          runtime=tpu_rt, platforms="tpu",
          eqns=[io(",".join(["0"] * (many + 1)), results=[]), debug("0")],
          expect=err("LSIM_E_TOO_MANY_CHANNELS", M_TOO_MANY_CHANNELS))


# --- pallas/: pallas_call ---------------------------------------------------------

PC = "jax/_src/pallas/pallas_call.py"
PCORE = "jax/_src/pallas/core.py"
PARAMS_CLASS = {"mosaic_tpu": "pltpu.CompilerParams", "triton": "pltriton.CompilerParams",
                "mosaic_gpu": "plgpu.CompilerParams"}
BACKEND_NAME = {"mosaic_tpu": "Mosaic TPU", "triton": "Triton", "mosaic_gpu": "Mosaic GPU"}


class PallasError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


class PallasModel:
    """pallas_call.py _pallas_call_lowering and pallas/core.py's params registry, as
    JAX executes them in one process (registrations happen on first import)."""

    def __init__(self, installed, flag):
        self.installed = dict(installed)
        self.flag = flag
        self.registered = {}
        self.trace = []
        if installed["triton"]:
            # jax.experimental.pallas.triton imports its pallas_call_registration.
            self.registered["triton"] = "gpu"

    def get_lowering_rule(self, params, expected):
        if params not in self.registered:
            self.trace.append(f"get_lowering_rule({PARAMS_CLASS[params]}, '{expected}') -> None "
                              "(not registered)")
            return None
        platform = self.registered[params]
        if platform != expected:
            self.trace.append(f"get_lowering_rule({PARAMS_CLASS[params]}, '{expected}'): "
                              f"registered for {platform} -> ValueError")
            raise PallasError("LSIM_E_PALLAS_PARAMS_PLATFORM", m_params_platform(platform, expected))
        self.trace.append(f"get_lowering_rule({PARAMS_CLASS[params]}, '{expected}') -> the "
                          f"{BACKEND_NAME[params]} rule")
        return params

    def tpu_lowering(self, params):
        if params != "none":
            rule = self.get_lowering_rule(params, "tpu")
            if rule:
                return rule
        if not self.installed["mosaic_tpu"]:
            self.trace.append("the Mosaic TPU registration cannot be imported")
            raise PallasError("LSIM_E_PALLAS_UNSUPPORTED_PLATFORM", m_pallas_unsupported("tpu"))
        if "mosaic_tpu" not in self.registered:
            self.trace.append("importing the Mosaic TPU registration registers its params")
        self.registered["mosaic_tpu"] = "tpu"
        if params not in ("none", "mosaic_tpu"):
            self.trace.append("pallas_call_tpu_lowering_rule asserts isinstance(compiler_params, "
                              "tpu_core.CompilerParams) -> AssertionError")
            raise PallasError("LSIM_E_PALLAS_FOREIGN_PARAMS", "")
        return "mosaic_tpu"

    def gpu_lowering(self, params, rocm):
        if params != "none":
            rule = self.get_lowering_rule(params, "gpu")
            if rule:
                return rule
        backend = None
        if self.installed["mosaic_gpu"]:
            if "mosaic_gpu" not in self.registered:
                self.trace.append("importing the Mosaic GPU registration registers its params")
            self.registered["mosaic_gpu"] = "gpu"
            if params == "mosaic_gpu" or (params == "none" and self.flag):
                backend = "mosaic_gpu"
                if rocm:
                    self.trace.append("Mosaic GPU picked on rocm -> ValueError")
                    raise PallasError("LSIM_E_PALLAS_MOSAIC_GPU_ROCM", M_PALLAS_ROCM)
        if self.installed["triton"]:
            self.registered["triton"] = "gpu"
            if params == "triton" or (params == "none" and not self.flag):
                backend = "triton"
        if backend is None:
            self.trace.append("no GPU backend picked")
            raise PallasError("LSIM_E_PALLAS_UNSUPPORTED_PLATFORM", m_pallas_unsupported("gpu"))
        self.trace.append(f"{BACKEND_NAME[backend]} picked")
        return backend

    def lower(self, platforms, params="none", interpret=False, constants=False):
        """One pallas_call equation; returns [(platform, backend)] or raises."""
        if constants:
            raise PallasError("LSIM_E_PALLAS_CONSTANTS", M_PALLAS_CONSTANTS)
        if interpret:
            return [(None, "interpret")]
        order = ["cpu", "tpu", "cuda", "rocm"]
        if len(platforms) == 1 and platforms[0] not in order:
            raise PallasError("LSIM_E_NO_LOWERING_RULE", m_no_rule("pallas_call", platforms[0]))
        missing = [p for p in platforms if p not in order]
        if missing:
            raise PallasError("LSIM_E_NO_LOWERING_RULE", m_no_rules("pallas_call", missing))
        out = []
        for p in [q for q in order if q in platforms]:
            if p == "cpu":
                raise PallasError("LSIM_E_PALLAS_CPU_NOT_INTERPRET", M_PALLAS_CPU)
            if len(platforms) > 1:
                self.trace.append(f"{p} branch")
            if p == "tpu":
                out.append((p, self.tpu_lowering(params)))
            else:
                out.append((p, self.gpu_lowering(params, p == "rocm")))
        return out


PALLAS_TARGET = {"mosaic_tpu": "tpu_custom_call", "triton": "__gpu$xla.gpu.triton",
                 "mosaic_gpu": "mosaic_gpu_v2"}


def pallas_expectations(used, kernel="add_one", grid=2, multi=False):
    contains, absent = [], []
    backends = {b for _, b in used}
    if "interpret" in backends:
        return ['"stablehlo.add"'], ["stablehlo.custom_call", '"stablehlo.case"']
    for b in ("mosaic_tpu", "triton", "mosaic_gpu"):
        (contains if b in backends else absent).append(target(PALLAS_TARGET[b]))
    if "mosaic_tpu" in backends:
        contains += ['backend_config = "{\\22custom_call_config\\22: {\\22body\\22: \\22',
                     '\\22, \\22serialization_format\\22: 1, \\22needs_layout_passes\\22: true}}"',
                     f'kernel_name = "{kernel}"',
                     'mhlo.frontend_attributes = {kernel_metadata = "{}"}']
    for p, b in used:
        if b == "triton":
            contains.append(f"num_stages = {1 if p == 'rocm' else 3} : i32, num_warps = 4 : i32")
            contains.append(f"grid_x = {grid} : i32, grid_y = 1 : i32, grid_z = 1 : i32")
            contains.append(f'name = "{kernel}"')
    if "mosaic_gpu" in backends:
        contains.append("use_custom_barrier = false")
    if multi:
        contains.append('"stablehlo.case"')
    else:
        absent.append('"stablehlo.case"')
    return contains, absent


def inst_code(installed):
    names = [n for n, k in (("mt", "mosaic_tpu"), ("tr", "triton"), ("mg", "mosaic_gpu"))
             if installed[k]]
    return "inst-" + ("-".join(names) if names else "none")


def inst_text(installed):
    names = [BACKEND_NAME[k] for k in ("mosaic_tpu", "triton", "mosaic_gpu") if installed[k]]
    return ("installed: " + ", ".join(names)) if names else "no Pallas backend installed"


def pallas_scenario(c, folder, stem, what, plats, eqs, installed, flag, runtime=None,
                    explicit=True):
    """eqs: dicts with params / interpret / constants / kernel / grid, lowered in order."""
    model = PallasModel(installed, flag)
    used, error = [], None
    try:
        for e in eqs:
            used += model.lower(plats, e.get("params", "none"), e.get("interpret", False),
                                e.get("constants", False))
    except PallasError as x:
        error = x
    if error:
        expect = err(error.code, error.message)
    else:
        contains, absent = pallas_expectations(used, eqs[-1].get("kernel", "add_one"),
                                               eqs[-1].get("grid", 2), len(plats) > 1)
        expect = ok(contains, absent)
    steps = "; ".join(model.trace)
    desc = f"{what} [{inst_text(installed)}; jax_pallas_use_mosaic_gpu={flag}]"
    if steps:
        desc += f" JAX's steps: {steps}."
    pallas = dict(mosaic_tpu=installed["mosaic_tpu"], triton=installed["triton"],
                  mosaic_gpu=installed["mosaic_gpu"], use_mosaic_gpu=flag) if explicit else None
    xml = []
    for i, e in enumerate(eqs):
        xml.append(pallas_call(str(i), e.get("kernel", "add_one"), e.get("grid", 2),
                               e.get("interpret", False), e.get("params", "none"),
                               e.get("constants", False)))
    c.add(folder, stem, desc, runtime=runtime, pallas=pallas, platforms=",".join(plats),
          args=[arg("f32", "8")], eqns=xml, expect=expect)


ALL_INSTALLED = dict(mosaic_tpu=True, triton=True, mosaic_gpu=True)


def installed_subsets():
    for mask in range(7, -1, -1):
        yield dict(mosaic_tpu=bool(mask & 4), triton=bool(mask & 2), mosaic_gpu=bool(mask & 1))


def gen_pallas(c):
    f = "pallas"
    L = f"{PC} _pallas_call_lowering"
    # tpu: tpu_lowering.
    for params in ("none", "mosaic_tpu", "triton", "mosaic_gpu"):
        for mt in (True, False):
            for tr in (True, False):
                inst = dict(mosaic_tpu=mt, triton=tr, mosaic_gpu=True)
                pallas_scenario(c, f, f"tpu-{params}-{inst_code(inst)}",
                                f"{L} tpu_lowering: pallas_call(add_one, grid=(2,), compiler_params="
                                f"{PARAMS_CLASS.get(params, 'None')}) lowered for tpu.",
                                ["tpu"], [dict(params=params)], inst, False)
    # cuda and rocm: gpu_lowering.
    for p in ("cuda", "rocm"):
        for inst in installed_subsets():
            for flag in (False, True):
                pallas_scenario(c, f, f"{p}-none-{inst_code(inst)}-flag-{str(flag).lower()}",
                                f"{L} gpu_lowering(is_rocm={p == 'rocm'}): pallas_call without "
                                f"compiler params lowered for {p}; the flag decides between "
                                "Mosaic GPU and Triton.",
                                [p], [dict()], inst, flag)
            for params in ("mosaic_tpu", "triton", "mosaic_gpu"):
                pallas_scenario(c, f, f"{p}-{params}-{inst_code(inst)}",
                                f"{L} gpu_lowering(is_rocm={p == 'rocm'}): compiler_params="
                                f"{PARAMS_CLASS[params]} lowered for {p} in a fresh process.",
                                [p], [dict(params=params)], inst, False)
    # cpu and the platforms pallas_call has no rule for.
    for params in ("none", "triton", "mosaic_tpu"):
        pallas_scenario(c, f, f"cpu-{params}",
                        f"{L} cpu_lowering: without interpret=True cpu always refuses, whatever "
                        f"the compiler params ({PARAMS_CLASS.get(params, 'None')}).",
                        ["cpu"], [dict(params=params)], ALL_INSTALLED, False)
    for p, params in (("oneapi", "none"), ("oneapi", "triton"), ("metal", "none")):
        pallas_scenario(c, f, f"{p}-{params}-no-rule",
                        f"{L}: lower_per_platform with rules for cpu, tpu, cuda, rocm and no "
                        f"default: {p} gets the translation-rule-not-found error.",
                        [p], [dict(params=params)], ALL_INSTALLED, False,
                        runtime=rt(B("cpu"), B("metal")) if p == "metal" else None)
    # interpret=True: before any platform dispatch.
    for p in ALL6:
        pallas_scenario(c, f, f"interpret-{p}",
                        f"{L}: interpret=True lowers the kernel with the HLO interpreter "
                        f"(mlir.lower_fun) before lower_per_platform, so it works on {p}.",
                        [p], [dict(interpret=True)], ALL_INSTALLED, False,
                        runtime=rt(B("cpu"), B("metal")) if p == "metal" else None)
    pallas_scenario(c, f, "interpret-ignores-params",
                    f"{L}: interpret=True ignores Triton compiler params on tpu.",
                    ["tpu"], [dict(interpret=True, params="triton")], ALL_INSTALLED, False)
    pallas_scenario(c, f, "interpret-nothing-installed",
                    f"{L}: interpret=True needs no Pallas backend.",
                    ["cuda"], [dict(interpret=True)],
                    dict(mosaic_tpu=False, triton=False, mosaic_gpu=False), True)
    pallas_scenario(c, f, "interpret-multi-platform",
                    f"{L}: interpret=True for (cpu, tpu, oneapi): one HLO lowering, no platform "
                    "dispatch for the pallas_call.",
                    ["cpu", "tpu", "oneapi"], [dict(interpret=True)], ALL_INSTALLED, False)
    # A kernel with captured constants.
    for p in ALL6:
        pallas_scenario(c, f, f"constants-{p}",
                        f"{L}: a kernel jaxpr with constvars is refused first, on {p} as anywhere.",
                        [p], [dict(constants=True)], ALL_INSTALLED, False,
                        runtime=rt(B("cpu"), B("metal")) if p == "metal" else None)
    pallas_scenario(c, f, "constants-interpret",
                    f"{L}: the constants check comes before the interpret branch.",
                    ["cpu"], [dict(constants=True, interpret=True)], ALL_INSTALLED, False)
    pallas_scenario(c, f, "constants-multi",
                    f"{L}: _pallas_call_lowering is pallas_call's only (default) rule, applied "
                    "directly for (tpu, cuda); it refuses the constants before lower_per_platform.",
                    ["tpu", "cuda"], [dict(constants=True)], ALL_INSTALLED, False)
    pallas_scenario(c, f, "constants-second-call",
                    f"{L}: the first pallas_call lowers (Mosaic TPU), the second has constants.",
                    ["tpu"], [dict(), dict(constants=True)], ALL_INSTALLED, False)
    # Registration order: the registry lookup precedes the import that registers.
    R = f"{PC} gpu_lowering/tpu_lowering + {PCORE} get_lowering_rule"
    pallas_scenario(c, f, "order-rocm-triton-then-mosaic-gpu",
                    f"{R}: on rocm a first pallas_call without params (flag unset: Triton) "
                    "imports the Mosaic GPU registration; the second call's plgpu params then hit "
                    "the registry and lower with Mosaic GPU, skipping the ROCm refusal.",
                    ["rocm"], [dict(), dict(params="mosaic_gpu")], ALL_INSTALLED, False)
    pallas_scenario(c, f, "order-rocm-mosaic-gpu-first",
                    f"{R}: the same two calls in the other order: plgpu params first are not "
                    "registered yet, gpu_lowering imports, picks Mosaic GPU and refuses ROCm.",
                    ["rocm"], [dict(params="mosaic_gpu"), dict()], ALL_INSTALLED, False)
    pallas_scenario(c, f, "order-rocm-triton-params-then-mosaic-gpu",
                    f"{R}: a first call with pltriton params hits the registry directly (no "
                    "Mosaic GPU import), so the second call's plgpu params still meet the ROCm "
                    "refusal.",
                    ["rocm"], [dict(params="triton"), dict(params="mosaic_gpu")], ALL_INSTALLED,
                    False)
    pallas_scenario(c, f, "order-rocm-cuda-mosaic-gpu",
                    f"{R}: exported for (rocm, cuda): the kept rules follow pallas_call's dict "
                    "(cpu, tpu, cuda, rocm), so cuda's branch imports the Mosaic GPU registration "
                    "and rocm's branch finds the registered rule: no error.",
                    ["rocm", "cuda"], [dict(params="mosaic_gpu")], ALL_INSTALLED, False)
    pallas_scenario(c, f, "order-cuda-rocm-flag-no-params",
                    f"{R}: without params the registry is never consulted: with the flag set, "
                    "cuda picks Mosaic GPU and rocm's branch refuses.",
                    ["cuda", "rocm"], [dict()], ALL_INSTALLED, True)
    pallas_scenario(c, f, "order-tpu-cuda-mosaic-tpu-params",
                    f"{R}: exported for (tpu, cuda) with pltpu params: tpu's branch (first) "
                    "imports the Mosaic TPU registration; cuda's branch then finds it registered "
                    "for tpu: ValueError.",
                    ["tpu", "cuda"], [dict(params="mosaic_tpu")], ALL_INSTALLED, False)
    pallas_scenario(c, f, "order-rocm-tpu-mosaic-tpu-params",
                    f"{R}: exported for (rocm, tpu) with pltpu params: tpu's branch comes first in "
                    "pallas_call's dict and registers Mosaic TPU; rocm's branch then finds the "
                    "class registered for tpu: ValueError.",
                    ["rocm", "tpu"], [dict(params="mosaic_tpu")], ALL_INSTALLED, False)
    pallas_scenario(c, f, "order-cuda-mosaic-tpu-params-fresh",
                    f"{R}: pltpu params lowered for cuda alone in a fresh process: not registered, "
                    "so gpu_lowering picks nothing: the unsupported-platform error for gpu.",
                    ["cuda"], [dict(params="mosaic_tpu")], ALL_INSTALLED, False)
    pallas_scenario(c, f, "order-cuda-after-tpu-call",
                    f"{R}: exported for (tpu, cuda): a first call without params registers Mosaic "
                    "TPU (tpu branch) and Mosaic GPU (cuda branch, flag set); a second call with "
                    "plgpu params fails on its tpu branch: registered for gpu.",
                    ["tpu", "cuda"], [dict(), dict(params="mosaic_gpu")], ALL_INSTALLED, True)
    pallas_scenario(c, f, "order-tpu-mosaic-gpu-params-fresh",
                    f"{R}: plgpu params on (tpu, cuda) in a fresh process: tpu's branch comes "
                    "first, the class is not registered yet, so pallas_call_tpu_lowering_rule "
                    "gets foreign params and its assert fails.",
                    ["tpu", "cuda"], [dict(params="mosaic_gpu")], ALL_INSTALLED, False)
    pallas_scenario(c, f, "order-tpu-triton-params",
                    f"{R}: pltriton params are registered from the start (for gpu), so on tpu "
                    "the registry raises before any import.",
                    ["tpu", "cuda"], [dict(params="triton")], ALL_INSTALLED, False)
    pallas_scenario(c, f, "absent-pallas-element-defaults",
                    f"{L}: with no <pallas> element all three backends are installed and the flag "
                    "is unset: cuda without params uses Triton.",
                    ["cuda"], [dict()], ALL_INSTALLED, False, explicit=False)
    pallas_scenario(c, f, "triton-grid-and-kernel",
                    "jax/_src/pallas/triton/pallas_call_registration.py pallas_call_lowering: "
                    "the grid is padded to three dimensions and the name is the kernel "
                    "function's.",
                    ["cuda"], [dict(params="triton", kernel="copy", grid=8)], ALL_INSTALLED, False)
    pallas_scenario(c, f, "tpu-copy-kernel",
                    "jax/_src/pallas/mosaic/pallas_call_registration.py: the copy kernel on tpu: "
                    "kernel_name is the kernel function's name.",
                    ["tpu"], [dict(kernel="copy", grid=4)], ALL_INSTALLED, False)


# --- interactions/ ------------------------------------------------------------------

def gen_interactions(c):
    f = "interactions"
    a4 = ("f32", "4")
    G = f"{MLIR} ModuleContext.get_backend"
    # Pinned backends and callbacks (emit_python_callback calls get_backend()).
    for stem, b, p, e, expect, what in (
            ("pinned-cpu-pure-tpu", "cpu", "tpu", pure("0"),
             err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("cpu", "tpu")),
             "pure_callback lowered for tpu"),
            ("pinned-tpu-io-cuda", "tpu", "cuda", io("0", ordered=True),
             err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("tpu", "cuda")),
             "an ordered io_callback lowered for cuda"),
            ("pinned-cuda-debug-rocm", "cuda", "rocm", debug("0"),
             err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("cuda", "rocm")),
             "jax.debug.callback lowered for rocm"),
            ("pinned-tpu-partitioned-debug-cpu", "tpu", "cpu", debug("0", partitioned=True),
             err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("tpu", "cpu")),
             "a partitioned debug callback on cpu passes the platform checks, then get_backend() "
             "fails"),
            ("pinned-cpu-partitioned-debug-tpu", "cpu", "tpu", debug("0", partitioned=True),
             err("LSIM_E_PARTITIONED_CALLBACK_PLATFORM", m_partitioned_platform("tpu")),
             "on tpu the partitioned check (step 3) comes before get_backend() (step 4)"),
            ("pinned-cpu-pure-oneapi", "cpu", "oneapi", pure("0"),
             err("LSIM_E_PYTHON_CALLBACK_UNSUPPORTED", m_py_unsupported("oneapi")),
             "on oneapi the platform check comes before get_backend()"),
            ("pinned-cpu-buffer-cuda", "cpu", "cuda", bc("0"),
             ok([target("xla_buffer_python_gpu_callback")]),
             "buffer_callback never calls get_backend(), so the pinned cpu backend does not matter"),
            ("pinned-tpu-pure-tpu", "tpu", "tpu", pure("0"),
             ok([host_transfer(2, "send"), host_transfer(3, "recv")]),
             "the pinned tpu backend matches the lowering platform"),
            ("pinned-metal-pure-cpu", "metal", "cpu", pure("0"),
             err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("metal", "cpu")),
             "jit(backend='metal') lowered for cpu with a pure_callback")):
        c.add(f, stem, f"{CBPY} emit_python_callback + {G}: jit(f, backend='{b}'), {what}.",
              runtime=all_up(), platforms=p, backend=b, eqns=[e], expect=expect)
    c.add(f, "pinned-gpu-pure-cuda",
          f"{XB} get_backend('gpu') -> cuda, then {CBPY} emit_python_callback on cuda: match.",
          runtime=rt(B("cpu"), B("cuda"), B("rocm")), platforms="cuda", backend="gpu",
          eqns=[pure("0")], expect=ok([py_call_config("xla_ffi_python_gpu_callback", False, 0)]))
    c.add(f, "pinned-gpu-pure-rocm",
          f"{XB} get_backend('gpu') -> cuda, then {CBPY} emit_python_callback on rocm: mismatch.",
          runtime=rt(B("cpu"), B("cuda"), B("rocm")), platforms="rocm", backend="gpu",
          eqns=[pure("0")], expect=err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("cuda", "rocm")))
    # Callbacks need the lowering platform's backend (no pinned backend).
    c.add(f, "pure-tpu-without-backend",
          f"{CBPY} emit_python_callback -> {G}: lowering a pure_callback for tpu on a machine "
          "whose default device is a cpu: the ModuleContext's backend is cpu's, mismatch.",
          platforms="tpu", eqns=[pure("0")],
          expect=err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("cpu", "tpu")))
    c.add(f, "debug-tpu-failed-quietly",
          f"{CBPY} emit_python_callback -> {G}: tpu failed quietly, the default device is "
          "cpu's: mismatch.",
          runtime=rt(B("cpu"), B("tpu", error=TPU_ERR)), platforms="tpu", eqns=[debug("0")],
          expect=err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("cpu", "tpu")))
    c.add(f, "io-rocm-zero-devices",
          f"{CBPY} emit_python_callback -> {G}: rocm had no devices and was registered "
          "fail-quietly; the default device is cpu's: mismatch.",
          runtime=rt(B("cpu"), B("rocm", devices=0, fail_quietly=True)), platforms="rocm",
          eqns=[io("0")],
          expect=err("LSIM_E_BACKEND_PLATFORM_MISMATCH", m_mismatch("cpu", "rocm")))
    c.add(f, "buffer-cuda-without-backend",
          f"{BCPY} _buffer_callback_lowering does not need a backend: exporting for cuda with "
          "only cpu present works.",
          platforms="cuda", eqns=[bc("0", command_buffer=True)],
          expect=ok([target("xla_buffer_python_gpu_callback_cmd_buffer")]))
    # gpu canonicalization under each runtime, with callbacks and Pallas.
    for mask in range(1, 8):
        subset = [p for i, p in enumerate(GPUS) if mask & (1 << i)]
        first = subset[0]
        expect = (err("LSIM_E_PYTHON_CALLBACK_UNSUPPORTED", m_py_unsupported("oneapi"))
                  if first == "oneapi" else
                  ok([py_call_config("xla_ffi_python_gpu_callback", False, 0)]))
        c.add(f, "gpu-pure-" + "-".join(subset),
              f"{XB} canonicalize_platform: gpu with {', '.join(subset)} present -> {first}; then "
              f"{CBPY} emit_python_callback on {first}.",
              runtime=rt(B("cpu"), *[B(p) for p in subset]), platforms="gpu", eqns=[pure("0")],
              expect=expect)
    for p in GPUS:
        c.add(f, f"gpu-buffer-{p}",
              f"{XB} canonicalize_platform: gpu -> {p}; {BCPY} _buffer_callback_lowering appends "
              "_cmd_buffer on every GPU platform"
              + (f" (oneapi's from the seeds' JAX {JAX_SEED} on)." if p == "oneapi" else "."),
              runtime=rt(B("cpu"), B(p)), platforms="gpu", eqns=[bc("0", command_buffer=True)],
              expect=ok([target("xla_buffer_python_gpu_callback_cmd_buffer")]),
              jax=JAX_SEED if p == "oneapi" else None)
    for p, expect in (("cuda", ok([target(PALLAS_TARGET["triton"]),
                                   "num_stages = 3 : i32, num_warps = 4 : i32"])),
                      ("rocm", ok([target(PALLAS_TARGET["triton"]),
                                   "num_stages = 1 : i32, num_warps = 4 : i32"])),
                      ("oneapi", err("LSIM_E_NO_LOWERING_RULE", m_no_rule("pallas_call", "oneapi")))):
        c.add(f, f"gpu-pallas-{p}",
              f"{XB} canonicalize_platform: gpu -> {p}; then {PC} _pallas_call_lowering without "
              "params (flag unset): Triton on cuda (3 stages) and rocm (1 stage), no rule for "
              "oneapi.",
              runtime=rt(B("cpu"), B(p)), platforms="gpu", args=[arg("f32", "8")],
              eqns=[pallas_call()], expect=expect)
    # Multi-platform export with Pallas.
    M = f"{PC} _pallas_call_lowering -> {MLIR} lower_per_platform"
    pallas_scenario(c, f, "multi-pallas-tpu-cuda",
                    f"{M}: (tpu, cuda) without params: a Mosaic TPU branch and a Triton branch.",
                    ["tpu", "cuda"], [dict()], ALL_INSTALLED, False)
    pallas_scenario(c, f, "multi-pallas-tpu-cuda-rocm",
                    f"{M}: (tpu, cuda, rocm): Triton on cuda (3 stages) and on rocm (1 stage).",
                    ["tpu", "cuda", "rocm"], [dict()], ALL_INSTALLED, False)
    pallas_scenario(c, f, "multi-pallas-cpu-tpu",
                    f"{M}: (cpu, tpu): the kept rules are lowered in dict order, cpu first: "
                    "cpu_lowering refuses.", ["cpu", "tpu"], [dict()], ALL_INSTALLED, False)
    pallas_scenario(c, f, "multi-pallas-tpu-oneapi",
                    f"{M}: (tpu, oneapi): oneapi has no rule and there is no default: the plural "
                    "error before any branch lowers.", ["tpu", "oneapi"], [dict()], ALL_INSTALLED,
                    False)
    pallas_scenario(c, f, "multi-pallas-rocm-tpu-triton-params",
                    f"{M}: (rocm, tpu) with pltriton params: tpu's branch comes first in the dict "
                    "and get_lowering_rule(pltriton.CompilerParams, 'tpu') raises.",
                    ["rocm", "tpu"], [dict(params="triton")], ALL_INSTALLED, False)
    pallas_scenario(c, f, "multi-pallas-cuda-rocm-flag",
                    f"{M}: (cuda, rocm) with jax_pallas_use_mosaic_gpu set and no params: cuda "
                    "lowers with Mosaic GPU, rocm refuses.", ["cuda", "rocm"], [dict()],
                    ALL_INSTALLED, True)
    c.add(f, "multi-pallas-case-order",
          f"{M}: exported for (cuda, tpu): the kept rules follow pallas_call's dict (tpu before "
          "cuda), so the first case maps (cuda, tpu) to (1, 0).",
          platforms="cuda,tpu", args=[arg("f32", "8")], eqns=[pallas_call()],
          expect=ok([index_case("%0", "%arg0", [1, 0], 2), target("tpu_custom_call"),
                     target(PALLAS_TARGET["triton"])]))
    c.add(f, "multi-pallas-and-primitive",
          f"{M} for pallas_call and for a primitive with a tpu rule and a default: each equation "
          "gets its own pair of stablehlo.case ops.",
          platforms="tpu,cuda", args=[arg("f32", "8")],
          eqns=[pallas_call(), probe(["tpu"], args="1", shape="8")],
          expect=ok(['%2 = "stablehlo.case"(%arg0)', '%3 = "stablehlo.case"(%2)',
                     '"stablehlo.custom_call"(%1) {api_version = 1 : i32, backend_config = "", '
                     'call_target_name = "k_tpu"', target("k_tpu"),
                     target("k_default"), target("tpu_custom_call")]))
    c.add(f, "multi-pallas-interpret-and-callback",
          f"{PC} interpret=True lowers without dispatch, but the pure_callback after it refuses "
          f"the multi-platform lowering ({CBPY}).",
          platforms="cpu,tpu", args=[arg("f32", "8")],
          eqns=[pallas_call(interpret=True), pure("1", results=[("f32", "8")])],
          expect=err("LSIM_E_PYTHON_CALLBACK_MULTI_PLATFORM", M_PY_MULTI))
    # Channels across callbacks and other equations on tpu.
    c.add(f, "tpu-channels-with-pallas",
          f"{MLIR} new_channel: a pallas_call (Mosaic TPU) uses no channel; the pure_callback "
          "after it starts at 2.",
          runtime=rt(B("cpu"), B("tpu")), platforms="tpu", args=[arg("f32", "8")],
          eqns=[pallas_call(), pure("1", results=[("f32", "8")])],
          expect=ok([target("tpu_custom_call"), host_transfer(2, "send"),
                     host_transfer(3, "recv")], ["handle = 4,"]))
    c.add(f, "tpu-channels-ordered-chain",
          f"{MLIR} new_channel and {CBPY} io_callback(ordered=True): two ordered io_callbacks "
          "chain the token; channels 2, 3 then 4, 5.",
          runtime=rt(B("cpu"), B("tpu")), platforms="tpu",
          eqns=[io("0", ordered=True), io("1", ordered=True)],
          expect=ok(['"stablehlo.send"(%arg1, %arg0)', host_transfer(2, "send"),
                     host_transfer(3, "recv"), host_transfer(4, "send"), host_transfer(5, "recv"),
                     "-> (!stablehlo.token {jax.token = true}, tensor<4xf32>"],
                    ['"stablehlo.create_token"']))
    c.add(f, "tpu-channels-mixed-kinds",
          f"{MLIR} new_channel: debug (send 2, recv 3), pure without operands (dummy send 4, "
          "recv 5), unordered io without results (send 6 only), pure with two operands (sends "
          "7, 8, recv 9).",
          runtime=rt(B("cpu"), B("tpu")), platforms="tpu",
          eqns=[debug("0"), pure(""), io("0", results=[]), pure("0,1")], ret="1,2",
          expect=ok([host_transfer(n, k) for n, k in ((2, "send"), (3, "recv"), (4, "send"),
                                                       (5, "recv"), (6, "send"), (7, "send"),
                                                       (8, "send"), (9, "recv"))],
                    ["handle = 10,", '_xla_host_transfer_rendezvous = "6"}} : (!stablehlo.token)']))
    # Donation and ordered effects.
    c.add(f, "donation-with-token",
          f"{MLIR} lower_jaxpr_to_fun: with an ordered effect main takes the token first; "
          "input_output_aliases are shifted by the number of tokens, so the donated f32[4] "
          "aliases output 1 (output 0 is the token).",
          args=[arg("f32", "4", True)], eqns=[io("0", ordered=True)],
          expect=ok(["%arg0: !stablehlo.token {jax.token = true}, "
                     "%arg1: tensor<4xf32> {tf.aliasing_output = 1 : i32}"]))
    c.add(f, "donor-with-token",
          f"{MLIR} lower_jaxpr_to_fun: a size-matched donation with an ordered effect is a buffer "
          "donor on the argument after the token.",
          args=[arg("f32", "2,2", True)], eqns=[io("0", ordered=True)],
          expect=ok(["%arg0: !stablehlo.token {jax.token = true}, "
                     "%arg1: tensor<2x2xf32> {jax.buffer_donor = true}"]))
    c.add(f, "donation-mixed-before-callbacks",
          f"{MLIR} lower_jaxpr_to_module checks donation before lowering any equation: (cpu, "
          "oneapi) with a donated argument fails with the donation error, not the callback's.",
          platforms="cpu,oneapi", args=[arg("f32", "4", True)], eqns=[pure("0")],
          expect=err("LSIM_E_DONATION_MIXED", m_donation(["cpu", "oneapi"], ["cpu"])))
    c.add(f, "platform-dependent-before-backend-init",
          f"{CF} platform_dependent raises while tracing, before lowering touches the failing "
          "cuda backend.",
          runtime=rt(B("cpu"), B("cuda", error=CUDA_ERR)),
          eqns=[pd("0", [("gpu", "sine")], "negate")],
          expect=err("LSIM_E_PLATFORM_DEPENDENT_GPU", M_PD_GPU))
    c.add(f, "alias-error-before-backend-init",
          f"{BCPY} buffer_callback validates its aliases while tracing, before the failing cuda "
          "backend is initialized by jit's lowering.",
          runtime=rt(B("cpu"), B("cuda", error=CUDA_ERR)),
          eqns=[bc("0", aliases=[(0, 1)])],
          expect=err("LSIM_E_ALIAS_OUTPUT_RANGE", m_alias_output(0, 1, 1)))
    c.add(f, "platform-dependent-and-probe-multi",
          f"{CF} platform_dependent then a primitive with a gpu rule, exported for (cpu, rocm): "
          "the cond keeps the default and the rocm branch; the primitive dispatches between its "
          "default (cpu) and gpu (rocm) rules.",
          platforms="cpu,rocm",
          eqns=[pd("0", [("rocm", "cosine")], "negate"),
                prim("my_op", "1", [("gpu", "k_gpu")], "k_default")],
          expect=ok(['"stablehlo.cosine"', '"stablehlo.negate"', target("k_gpu"),
                     target("k_default")]))
    c.add(f, "cuda-pallas-and-callbacks",
          f"{PC} (Triton) and {CBPY}/{BCPY} on cuda: the pallas_call adds no host callback, so "
          "the pure_callback and the buffer_callback get indices 0 and 1.",
          runtime=rt(B("cpu"), B("cuda")), platforms="cuda", args=[arg("f32", "8")],
          eqns=[pallas_call(), pure("1", results=[("f32", "8")]),
                bc("2", results=[("f32", "8")])],
          expect=ok([target(PALLAS_TARGET["triton"]),
                     py_call_config("xla_ffi_python_gpu_callback", False, 0),
                     "mhlo.backend_config = {index = 1 : ui64}"]))


# --- sharding: Shardy annotations, sharding=, devices, effect tokens ------------------

CB_SHARDING = "jax/_src/callback.py _callback_op_sharding"
PXLA = "jax/_src/interpreters/pxla.py"


def maximal(n, device=0):
    entries = ", ".join([f"<@maximal_mesh_{device}, []>"] * n)
    return f"sdy.sharding = #sdy.sharding_per_value<[{entries}]>"


def mesh_op(kind, n=0):
    if kind == "empty":
        return ('"sdy.mesh"() {mesh = #sdy.mesh<[]>, stablehlo.mesh = {axes = []}, '
                'sym_name = "empty_mesh"} : () -> ()')
    if kind == "maximal":
        return (f'"sdy.mesh"() {{mesh = #sdy.mesh<[], device_ids=[{n}]>, stablehlo.mesh = '
                f'{{axes = [], device_ids = dense<{n}> : tensor<1xi64>}}, sym_name = '
                f'"maximal_mesh_{n}"}} : () -> ()')
    return (f'"sdy.mesh"() {{mesh = #sdy.mesh<["x"={n}]>, stablehlo.mesh = {{axes = '
            f'[{{name = "x", size = {n} : i64}}]}}, sym_name = "mesh"}} : () -> ()')


def gen_sharding(c):
    f = "sharding"
    v = JAX_0_10_2
    cpu2 = rt(B("cpu", devices=2))
    # Shardy's annotations under jit (the ShardingContext): maximal on device 0.
    c.add(f, "shardy-pure-cpu",
          f"{CB_SHARDING} and {CBPY} emit_python_callback at JAX {v} (Shardy on, "
          "jax_use_shardy_partitioner's default): jit's axis context is a ShardingContext, so "
          "pure_callback's FFI call is maximal on device 0, one entry per result; "
          "sdy-lift-inlined-meshes declares @maximal_mesh_0 first in the module.",
          eqns=[pure("0", results=[("f32", "4"), ("i32", "2,3")])], ret="1,2", jax=v,
          expect=ok(["module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas "
                     "= 1 : i32} {\n  " + mesh_op("maximal") + "\n  func.func public @main",
                     maximal(2) + "} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<2x3xi32>)"]))
    c.add(f, "shardy-io-ordered-token-entry",
          f"{CBPY} emit_python_callback at JAX {v}: an ordered io_callback with results gets "
          "an entry for the token in front of its results' (three for two results).",
          eqns=[io("0", results=[("f32", "4"), ("f32", "2")], ordered=True)], ret="1,2", jax=v,
          expect=ok([maximal(3) + "} : (!stablehlo.token, tensor<4xf32>) -> (!stablehlo.token, "
                     "tensor<4xf32>, tensor<2xf32>)"]))
    c.add(f, "shardy-io-ordered-no-results",
          f"{CBPY} emit_python_callback at JAX {v}: an ordered io_callback without results: "
          "the one entry every op needs stands for the token.",
          eqns=[io("0", results=[], ordered=True)], ret="", jax=v,
          expect=ok([maximal(1) + "} : (!stablehlo.token, tensor<4xf32>) -> !stablehlo.token"]))
    c.add(f, "shardy-debug-unordered",
          f"jax/_src/debugging.py debug_callback_lowering at JAX {v}: an unordered debug "
          "callback makes its own maximal sharding on device 0 (one entry, no results).",
          eqns=[debug("0")], ret="", jax=v,
          expect=ok([maximal(1) + "} : (tensor<4xf32>) -> ()", mesh_op("maximal")]))
    c.add(f, "shardy-debug-ordered-none",
          f"jax/_src/debugging.py debug_callback_lowering at JAX {v}: the ordered branch passes "
          "no sharding, so the call has no sdy.sharding and the module no sdy.mesh.",
          eqns=[debug("0", ordered=True)], ret="", jax=v,
          expect=ok(["-> !stablehlo.token"], ["sdy."]))
    c.add(f, "shardy-tpu-send-recv",
          f"{CBPY} send_to_host / receive_from_host at JAX {v}: on tpu each send gets one "
          "entry (its token), each receive two (value and token).",
          runtime=rt(B("cpu"), B("tpu")), platforms="tpu", eqns=[pure("0")], jax=v,
          expect=ok([maximal(1) + "} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token",
                     maximal(2) + "} : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)"]))
    c.add(f, "shardy-backend-empty-mesh",
          f"jax/_src/pjit.py _create_sharding_with_device_backend and jax/_src/interpreters/"
          f"mlir.py lower_jaxpr_to_fun at JAX {v}: jit(backend='cpu') gives every argument and "
          "result a SingleDeviceSharding, replicated over the empty mesh (one {} per dimension); "
          "@empty_mesh is named first, before the callbacks' @maximal_mesh_0.",
          args=[arg("f32", "4"), arg("f32", ""), arg("i32", "2,3")], backend="cpu",
          eqns=[pure("0,1,2", results=[("f32", "4"), ("f32", "")])], ret="3,4", jax=v,
          expect=ok(["{\n  " + mesh_op("empty") + "\n  " + mesh_op("maximal") + "\n  func.func",
                     "%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>}",
                     "%arg1: tensor<f32> {sdy.sharding = #sdy.sharding<@empty_mesh, []>}",
                     "%arg2: tensor<2x3xi32> {sdy.sharding = #sdy.sharding<@empty_mesh, [{}, {}]>}",
                     'tensor<f32> {jax.result_info = "result[1]", sdy.sharding = '
                     "#sdy.sharding<@empty_mesh, []>}"]))
    # sharding= of pure_callback / io_callback.
    c.add(f, "sharding-device-0",
          f"{CB_SHARDING} at JAX {v}: sharding=SingleDeviceSharding(jax.devices()[0]) is the "
          "device assignment's device 0: the same maximal sharding as sharding=None.",
          runtime=cpu2, eqns=[pure("0", sharding="device:0")], jax=v,
          expect=ok([maximal(1) + "} : (tensor<4xf32>) -> tensor<4xf32>"]))
    for kind in ("pure", "io"):
        e = pure("0", sharding="device:1") if kind == "pure" else io("0", sharding="device:1")
        c.add(f, f"sharding-{kind}-device-1-outside",
              f"{CB_SHARDING} at JAX {v}: jit without shardings runs on the default device "
              "alone, so device 1 is not in the device assignment: device_assignment.index "
              "raises ValueError (its `except IndexError` does not catch it).",
              runtime=cpu2, eqns=[e], jax=v,
              expect=err("LSIM_E_CALLBACK_SHARDING_DEVICE", "tuple.index(x): x not in tuple"))
    for sharding in ("device:1", "scalar_mesh:1"):
        c.add(f, "sharding-" + sharding.replace(":", "-").replace("_", "-") + "-two-devices",
              f"{CB_SHARDING} at JAX {v}: with jit's in_shardings over jax.devices()[:2], "
              f"sharding={sharding} is index 1 of the assignment: @maximal_mesh_1 (a NamedSharding "
              "over a scalar mesh counts as its one device); the meshes in the order named.",
              runtime=cpu2, devices=2, eqns=[pure("0"), io("1", sharding=sharding)], ret="2",
              jax=v,
              expect=ok(["{\n  " + mesh_op("axis", 2) + "\n  " + mesh_op("maximal") + "\n  " +
                         mesh_op("maximal", 1) + "\n  func.func",
                         maximal(1, 1) + "} : (tensor<4xf32>) -> tensor<4xf32>"]))
    for kind in ("pure", "io"):
        e = pure("0", sharding="mesh:1") if kind == "pure" else io("0", sharding="mesh:1")
        c.add(f, f"sharding-{kind}-named-refused",
              f"{CB_SHARDING} at JAX {v}: a NamedSharding over a mesh with an axis is refused "
              "with NotImplementedError, worded for pure_callback even from io_callback.",
              runtime=cpu2, eqns=[e], jax=v,
              expect=err("LSIM_E_CALLBACK_SHARDING_TYPE",
                         "pure_callback only supports SingleDeviceSharding, but got "
                         "<class 'jax.sharding.NamedSharding'>"))
    c.add(f, "sharding-device-index-out-of-range",
          f"the program's jax.devices()[2] on a backend with two devices, made before jit: "
          f"Python's IndexError (JAX {v} never sees the callback).",
          runtime=cpu2, eqns=[pure("0", sharding="device:2")], jax=v,
          expect=err("LSIM_E_DEVICE_INDEX", "list index out of range"))
    # Devices: jit's in_shardings over a mesh.
    c.add(f, "devices-two",
          f"{PXLA} lower_sharding_computation at JAX {v}: in_shardings over two devices make the "
          "device assignment: mhlo.num_partitions = 2, the arg replicated over @mesh, the result "
          "unspecified (no sharding).",
          runtime=cpu2, devices=2, eqns=[op("sine", "0")], jax=v,
          expect=ok(["mhlo.num_partitions = 2 : i32", mesh_op("axis", 2),
                     "%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> "
                     '(tensor<4xf32> {jax.result_info = "result"})']))
    c.add(f, "devices-more-than-the-backend-has",
          f"jax.devices()[:3] of a backend with two devices is two devices (JAX {v}).",
          runtime=cpu2, devices=3, eqns=[op("sine", "0")], jax=v,
          expect=ok(["mhlo.num_partitions = 2 : i32", mesh_op("axis", 2)]))
    c.add(f, "devices-one",
          f"{PXLA} at JAX {v}: in_shardings over one device: a mesh x=1, one partition, and "
          "an ordered debug callback is allowed.",
          devices=1, eqns=[debug("0", ordered=True)], ret="", jax=v,
          expect=ok(["mhlo.num_partitions = 1 : i32", mesh_op("axis", 1)]))
    c.add(f, "devices-no-args",
          f"{PXLA} _get_and_check_device_assignment at JAX {v}: without args the in_shardings "
          "shard nothing, so the default device alone is the assignment: one partition, no mesh.",
          runtime=cpu2, devices=2, args=[], eqns=[pure("", results=[("f32", "2")])], jax=v,
          expect=ok(["mhlo.num_partitions = 1 : i32"], ['sym_name = "mesh"']))
    c.add(f, "devices-donation-buffer-donors",
          f"jax/_src/interpreters/mlir.py lower_jaxpr_to_module at JAX {v}: with more than one "
          "partition and no out_shardings, every donated arg is donated to XLA "
          "(jax.buffer_donor), none aliased, none unusable.",
          runtime=cpu2, devices=2, args=[arg(donated=True), arg("f32", "3", donated=True)],
          eqns=[op("sine", "0")], ret="2,1", jax=v,
          expect=ok(["{jax.buffer_donor = true, sdy.sharding = #sdy.sharding<@mesh, [{}]>}"],
                    ["tf.aliasing_output"]))
    c.add(f, "devices-ordered-debug-refused",
          f"{PXLA} lower_sharding_computation at JAX {v}: OrderedDebug is not a shardable "
          "ordered effect, so on two devices ValueError lists it (Python's default repr, whose "
          "address no port can match).",
          runtime=cpu2, devices=2, eqns=[io("0", ordered=True), debug("1", ordered=True)],
          ret="1", jax=v,
          expect=err("LSIM_E_ORDERED_EFFECTS_DEVICES",
                     "The following ordered effects are not supported for more than 1 device: "
                     "[<jax._src.debugging.OrderedDebugEffect object at 0x7f0000000000>]"))
    c.add(f, "devices-ordered-io-allowed",
          f"{PXLA} at JAX {v}: OrderedIO is in shardable_ordered_effects: an ordered io_callback "
          "lowers on two devices, maximal on device 0.",
          runtime=cpu2, devices=2, eqns=[io("0", ordered=True)], jax=v,
          expect=ok(["mhlo.num_partitions = 2 : i32", maximal(2)]))
    c.add(f, "devices-with-backend-refused",
          f"jax/_src/pjit.py _parse_jit_arguments at JAX {v}: jit(backend=...) with in_shardings: "
          "ValueError (after the deprecation warning).",
          runtime=cpu2, devices=2, backend="cpu", eqns=[op("sine", "0")], jax=v,
          expect=err("LSIM_E_JIT_BACKEND_IN_SHARDINGS",
                     "If backend or device is specified on jit, then in_shardings should not be "
                     "specified."))
    # One token per kind of ordered effect.
    for first, second in (("debug", "io"), ("io", "debug")):
        eqns = [debug("0", ordered=True) if k == "debug" else io("0", ordered=True)
                for k in (first, second)]
        io_first = first == "io"
        c.add(f, f"tokens-{first}-then-{second}",
              f"{PXLA} / jax/_src/interpreters/mlir.py lower_jaxpr_to_fun at JAX {v}: an ordered "
              "io_callback (OrderedIO) and an ordered debug callback (OrderedDebug) give main two "
              "tokens, each callback threading its own; JAX orders them as a set of effects "
              "iterates (it differs between processes, the oracle pins it), lowersim in the "
              f"order the program first has them ({first} first). The donated arg aliases output 2.",
              args=[arg(donated=True)], eqns=eqns, ret="1", jax=v,
              expect=ok(["%arg0: !stablehlo.token {jax.token = true}, %arg1: !stablehlo.token "
                         "{jax.token = true}, %arg2: tensor<4xf32> {tf.aliasing_output = 2 : i32}",
                         ('%0:2 = "stablehlo.custom_call"(%arg0, %arg2)' if io_first else
                          '%0 = "stablehlo.custom_call"(%arg0, %arg2)'),
                         ('%1 = "stablehlo.custom_call"(%arg1, %arg2)' if io_first else
                          '%1:2 = "stablehlo.custom_call"(%arg1, %arg2)')]))
    c.add(f, "tokens-two-kinds-tpu",
          f"{CBPY} _emit_tpu_python_callback at JAX {v}: on tpu each ordered callback's host "
          "transfers thread its own kind's token.",
          runtime=rt(B("cpu"), B("tpu")), platforms="tpu",
          eqns=[io("0", ordered=True), debug("0", ordered=True)], ret="1", jax=v,
          expect=ok(['"stablehlo.send"(%arg2, %arg0)', '"stablehlo.send"(%arg2, %arg1)']))


# --- main ----------------------------------------------------------------------------

GENERATORS = [gen_runtime, gen_context, gen_lowering, gen_callbacks, gen_pallas, gen_interactions,
              gen_sharding]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=DEFAULT_OUT, help="output directory")
    options = parser.parse_args(argv)
    corpus = Corpus()
    for gen in GENERATORS:
        gen(corpus)
    corpus.write(options.out)
    counts = {}
    for path in corpus.files:
        folder = path.split("/")[0]
        counts[folder] = counts.get(folder, 0) + 1
    for folder in sorted(counts):
        print(f"{folder}/: {counts[folder]} scenarios")
    print(f"total: {len(corpus.files)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
