"""One scenario, judged: lowersim's outcome (its CLI) against JAX's (in this
process, which the fork server made fresh for the scenario)."""

from __future__ import annotations

import os
import subprocess
import time

from oracle import compare
from oracle import program
from oracle import scenario as sc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOWERSIM_TIMEOUT = 60.0
# MLIR 19's mlir-opt (mlir-19-tools, which ./run installs): prints a module as
# lowersim's MLIR 19 does.
MLIR_OPT = os.environ.get("MLIR_OPT") or next(
    (p for p in ("/usr/lib/llvm-19/bin/mlir-opt", "/usr/bin/mlir-opt-19") if os.path.exists(p)),
    "mlir-opt-19")


def lowersim_binary(root: str) -> str:
  return os.environ.get("LOWERSIM", os.path.join(root, "build", "lowersim"))


def run_lowersim(binary: str, path: str, jax: str) -> compare.LowersimOutcome:
  """`lowersim lower --jax JAX PATH`: a scenario that pins no JAX version
  is lowered for lowersim's profile of the release being judged (`jax`,
  releases.lowersim_jax); one that pins one is lowered for its pin."""
  if os.environ.get("LOWERSIM_BINDINGS"):
    return run_lowersim_bindings(binary, path, jax)
  try:
    p = subprocess.run([binary, "lower", "--jax", jax, path],
                       capture_output=True, timeout=LOWERSIM_TIMEOUT)
  except subprocess.TimeoutExpired:
    return compare.LowersimOutcome("crash", stderr=f"lowersim lower took over {LOWERSIM_TIMEOUT} s",
                                   exit_code=-1)
  return compare.parse_lowersim(p.returncode, p.stdout.decode("utf-8", "replace"),
                                p.stderr.decode("utf-8", "replace"))


def run_lowersim_bindings(binary: str, path: str, jax: str) -> compare.LowersimOutcome:
  """lowersim's outcome through its Python bindings (python/lowersim, with the
  libraries of `binary`'s build), in this process, instead of `lowersim
  lower`: LOWERSIM_BINDINGS=1.  The same outcome as the command's."""
  import sys
  import warnings
  os.environ.setdefault("LOWERSIM_LIBRARY_DIR", os.path.dirname(os.path.abspath(binary)))
  python = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python")
  if python not in sys.path:
    sys.path.insert(0, python)
  import logging
  import lowersim
  # What JAX warns and what it logs, in the order given, as `lowersim lower`
  # prints them (`CATEGORY: text`, a logger's name as its category).
  said: list[str] = []
  handler = logging.Handler(logging.WARNING)
  handler.emit = lambda r: said.append(f"{r.name}: {r.getMessage()}")
  jax_logger = logging.getLogger("jax")
  jax_logger.addHandler(handler)
  try:
    with warnings.catch_warnings():
      warnings.simplefilter("always", lowersim.JaxWarning)
      warnings.showwarning = lambda message, category, *a, **k: said.append(
          f"{category.__name__}: {message}")
      try:
        module, error = lowersim.lower_file(path, jax=jax), None
      except lowersim.Error as e:
        module, error = "", e
  finally:
    jax_logger.removeHandler(handler)
  stderr = "".join(f"warning: {w}\n" for w in said)
  if error is None:
    return compare.LowersimOutcome("module", module=module, warnings=said, stderr=stderr)
  if isinstance(error, lowersim.InvalidScenario):
    return compare.LowersimOutcome("invalid", stderr=stderr + f"{error.message}\n", exit_code=2,
                                   warnings=said)
  return compare.LowersimOutcome("error", code=error.code, error_class=error.jax_class,
                                 error_message=error.message, warnings=said,
                                 stderr=stderr + f"{error.line}\n", exit_code=1)


def jax_outcome(path: str, binary: str | None = None, jax: str | None = None) -> program.Outcome:
  """The scenario on the installed JAX (one that pins another is not
  expressible).  Must run in a fresh process (a fork-server child).  A
  session's: its last lowering's."""
  return jax_outcomes(path, binary, jax)[-1]


def default_lowersim_jax(binary: str) -> str:
  """lowersim's --jax for the installed release (releases.lowersim_jax)."""
  from oracle import releases
  return releases.lowersim_jax(releases.installed(), releases.lowersim_profiles(binary))


def jax_outcomes(path: str, binary: str | None = None,
                 jax: str | None = None) -> list[program.Outcome]:
  """Each lowering of the scenario on JAX, in order: the program lowersim
  renders for it (`lowersim explain --python --jax JAX`; JAX defaults to
  lowersim's profile of the installed release), run by the installed JAX in
  this process (and, for a session's earlier lowerings, its children)."""
  try:
    s = sc.read_file(path)
  except sc.InvalidScenario as e:
    return [program.Outcome(kind="invalid", reason=str(e))]
  try:
    program.check_expressible(s)
  except program.NotExpressible as e:
    return [program.Outcome(kind="not_expressible", reason=str(e))]
  binary = binary or lowersim_binary(ROOT)
  return program.lower_session(path, binary, jax or default_lowersim_jax(binary))


def session_prefix(path: str, n: int, directory: str) -> str:
  """A copy of the session at `path` cut before its (n+1)-th <lower> (its
  lines unchanged), in `directory`: what `lowersim lower` of it prints is
  the n-th lowering's outcome, after the ones before it."""
  import xml.parsers.expat
  with open(path, "rb") as f:
    data = f.read()
  starts: list[int] = []
  depth = [0]
  parser = xml.parsers.expat.ParserCreate()

  def start(tag, attrs):
    depth[0] += 1
    if depth[0] == 2 and tag == "lower":
      starts.append(parser.CurrentByteIndex)

  def end(tag):
    depth[0] -= 1

  parser.StartElementHandler, parser.EndElementHandler = start, end
  parser.Parse(data, True)
  out = os.path.join(directory, os.path.basename(path))
  with open(out, "wb") as f:
    f.write(data[:starts[n]] + b"</scenario>\n" if n < len(starts) else data)
  return out


BUILTIN_PRIMITIVES = {"sin", "cos", "neg", "exp", "add", "mul", "sub", "platform_dependent",
                      "platform_index", "cond", "buffer_callback", "pure_callback", "io_callback",
                      "debug_callback", "pallas_call"}


def context_of(s: sc.Scenario, out: program.Outcome) -> list[str]:
  """What in the scenario explains any difference it shows.  (lowersim's
  runtime is JAX's registry, so the default backend is JAX's by
  construction: a different one would show as differences of its own.)"""
  ctx = []
  used = set()
  for e in s.eqns:
    used.add(sc.OP_KINDS[e.op][0] if e.kind == "op" else e.kind)
  for e in s.eqns:
    if e.kind == "primitive" and e.name in BUILTIN_PRIMITIVES and (
        e.name in used or any(x.kind == "platform_dependent" for x in s.eqns)):
      ctx.append(f"shadowed built-in primitive: {e.name}")
      break
  return ctx


# What a scenario's jax= is to the release being judged.
PROFILES = ("pinned", "unpinned", "another release", "no release")


def profile_of(jax_attr: str | None) -> str:
  """pinned: jax= names the installed release; unpinned: no jax= (judged
  on every release, lowersim lowering it with --jax of this release);
  another release: jax= is one of the oracle's other releases; no release:
  a JAX no oracle runs (e.g. the seeds' development commit)."""
  from oracle import releases
  if jax_attr is None:
    return "unpinned"
  if releases.pins(jax_attr):
    return "pinned"
  return "another release" if jax_attr in releases.all_releases() else "no release"


def needs_module_text(path: str) -> bool:
  """Whether the committed <expect> has <contains>/<absent> texts to match
  (printing JAX's module as MLIR 19 does costs seconds on a large one)."""
  from oracle import expect
  try:
    with open(path, encoding="utf-8") as f:
      x = expect.parse_expect(f.read())
  except (OSError, ValueError, SyntaxError):
    return True
  return x is None or any(tag in ("contains", "absent") for tag, _ in x.children)


KERNEL_TARGETS = ("tpu_custom_call", "__gpu$xla.gpu.triton", "mosaic_gpu_v2")


def expect_check(path: str, low: compare.LowersimOutcome, out: program.Outcome, binary: str,
                 agreed: bool = False) -> dict:
  """The committed <expect> against JAX's outcome (oracle/expect.py).
  `agreed`: the comparison found lowersim's module to be JAX's."""
  from oracle import expect, mlir_text
  jax_text = ""
  if out.kind == "module" and needs_module_text(path) and agreed and low.kind == "module" and \
      not any(t in out.module for t in KERNEL_TARGETS):
    # The modules are equal as parsed and printed in one context, and no
    # kernel payload (whose bytes name the MLIR that wrote them) is in
    # them: JAX's module printed by MLIR 19 is lowersim's text.
    jax_text = low.module
  elif out.kind == "module" and needs_module_text(path):
    try:
      generic = mlir_text.attribute_form(mlir_text.parse(out.module, mlir_text.context()))
    except mlir_text.ParseError as e:
      return {"state": "skip", "problems": [f"JAX's module does not re-parse: {e}"]}
    # <contains>/<absent> are texts of the module as lowersim prints it (MLIR
    # 19's printer, stablehlo unregistered): JAX's module printed the same way.
    try:
      p = subprocess.run([MLIR_OPT, "--allow-unregistered-dialect"], input=generic,
                         capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
      return {"state": "skip", "problems": [f"{MLIR_OPT}: {e}"]}
    if p.returncode:
      return {"state": "skip", "problems": [f"{MLIR_OPT} does not read JAX's module: "
                                            + p.stderr.strip()[:500]]}
    jax_text = p.stdout
  return expect.check(path, out.to_json(), low.to_json(), jax_text, expect.load_codes(binary))


def judge(task: dict) -> dict:
  """Fork-server work: {"path", "lowersim", "lowersim_jax", "expect"} -> a
  Verdict as JSON (with "expect": the <expect> check, when asked)."""
  path = task["path"]
  start = time.perf_counter()
  outs = jax_outcomes(path, task["lowersim"], task["lowersim_jax"])
  if len(outs) == 1 and outs[0].kind == "not_expressible" and \
      outs[0].reason.startswith("version: "):
    # Another release's scenario: lowersim is not asked.
    v = compare.verdict(path, compare.LowersimOutcome("none"), outs[0])
    v.profile = profile_of(sc.read_file(path).jax)
    return v.to_json()
  if len(outs) == 1:
    out = outs[0]
    low = run_lowersim(task["lowersim"], path, task["lowersim_jax"])
    v = compare.verdict(path, low, out)
  else:
    # A session: lowering k of lowersim (the session cut after it) against
    # JAX's k-th; the first that differs is the verdict.
    import tempfile
    with tempfile.TemporaryDirectory(prefix="oracle-session-") as tmp:
      for k, out in enumerate(outs):
        low = run_lowersim(task["lowersim"], session_prefix(path, k + 1, tmp), task["lowersim_jax"])
        v = compare.verdict(path, low, out)
        if v.status != "agree":
          v.summary = f"lowering {k + 1} of {len(outs)}: {v.summary}"
          break
  try:
    v.profile = profile_of(sc.read_file(path).jax)
  except (sc.InvalidScenario, OSError):
    pass
  # The <expect> check (the corpus equals JAX's run) covers one-lowering
  # scenarios; a session's lowerings are compared with JAX's one by one above.
  if task.get("expect") and len(outs) == 1:
    v.expect = expect_check(path, low, out, task["lowersim"], agreed=v.status == "agree")
  if v.status == "differ":
    try:
      v.context = context_of(sc.read_file(path), out)
    except sc.InvalidScenario:
      pass
  d = v.to_json()
  d["judge_seconds"] = time.perf_counter() - start
  return d
