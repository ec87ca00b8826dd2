"""Scenario files (docs/scenario-format.md, testdata/schema/scenario.rng),
read into plain Python objects.

The reader checks what the oracle needs to build a JAX program (value
indices, dtypes, shapes, op arities) and reports a problem as
`PATH:LINE: what is wrong`, as `lowersim lower` does; lowersim's reader
stays the authority on validity (the oracle compares only scenarios that
lowersim reads).  It also reads what lowersim's schema does not have yet:
`<lower export="true" disabled_checks="...">` (jax.export instead of jit).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Optional
import xml.parsers.expat

DTYPES = ("bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
          "f16", "bf16", "f32", "f64")
OP_KINDS = {  # scenario spelling -> (lax function name, arity)
    "sine": ("sin", 1), "cosine": ("cos", 1), "negate": ("neg", 1),
    "exponential": ("exp", 1), "add": ("add", 2), "multiply": ("mul", 2),
    "subtract": ("sub", 2),
}
EQUATIONS = ("op", "primitive", "platform_dependent", "buffer_callback", "call_exported",
             "pure_callback", "io_callback", "debug_callback", "pallas_call", "ffi_call",
             "compute_on")
COMPILER_PARAMS = ("none", "mosaic_tpu", "triton", "mosaic_gpu")
BACKEND_ACCESS = ("none", "required", "optional")
MAX_RANK = 16


class InvalidScenario(Exception):
  """The file is not a scenario the reader accepts (exit code 2)."""


@dataclass(frozen=True)
class Aval:
  dtype: str
  shape: tuple[int, ...]

  def size(self) -> int:
    n = 1
    for d in self.shape:
      n *= d
    return n


@dataclass
class Backend:
  platform: str
  devices: int = 1
  priority: Optional[int] = None
  error: Optional[str] = None
  fail_quietly: Optional[bool] = None
  device_kind: Optional[str] = None         # None: the stand-in's (oracle/standins.py)
  compute_capability: Optional[str] = None  # None: the stand-in's
  line: int = 0


@dataclass
class AbstractDevice:
  platform: str
  device_kind: str
  num_cores: Optional[int] = None


@dataclass
class Runtime:
  present: bool = False
  jax_platforms: Optional[str] = None
  backends: list[Backend] = field(default_factory=list)


@dataclass
class Pallas:
  present: bool = False
  mosaic_tpu: bool = True
  triton: bool = True
  mosaic_gpu: bool = True
  # jax_pallas_use_mosaic_gpu as the scenario sets it; None: it does not
  # (the option keeps JAX's default, where the release has the option)
  use_mosaic_gpu: Optional[bool] = None


@dataclass
class Rule:
  platform: Optional[str]  # None: the <default>
  target: Optional[str]    # None: a lower_fun rule
  inline: bool = True      # inline="false": register_lowering(..., inline=False)
  lower_fun: Optional[str] = None  # lower_fun="OP": mlir.lower_fun of the lax op


@dataclass
class Branch:
  platforms: Optional[list[str]]  # None: the <default>
  op: str


@dataclass
class Eqn:
  kind: str
  args: list[int]
  results: list[Aval]
  line: int = 0
  op: str = ""
  name: str = ""
  backend_access: str = "none"
  rules: list[Rule] = field(default_factory=list)
  branches: list[Branch] = field(default_factory=list)
  side_effect: bool = False
  command_buffer: bool = False
  returns_value: bool = False
  aliases: list[tuple[int, int]] = field(default_factory=list)
  ordered: bool = False
  partitioned: bool = False
  target: str = ""
  kernel: str = ""
  grid: int = 1
  interpret: bool = False
  compiler_params: str = "none"
  constants: bool = False
  # pallas_call's name=, metadata=, cost_estimate= and the CompilerParams
  # fields given ({} / None when absent), as the rendering's `pallas` helper takes them.
  pallas_name: Optional[str] = None
  block: Optional[tuple] = None  # the tiled kernels' BlockSpec shape
  metadata: Optional[dict] = None
  cost_estimate: Optional[dict] = None
  params_fields: dict = field(default_factory=dict)
  sharding: Optional[tuple[str, int]] = None  # ("device" | "scalar_mesh" | "mesh", K or N)
  lowering: int = 0  # <call_exported lowering="K">
  compute_on: Optional[str] = None  # compute_on="...": traced inside compute_on(compute_type)
  compute_type: str = ""  # <compute_on compute_type op>: compute_on2(op, compute_type=...)
  out_memory_space: str = "device"  # <compute_on out_memory_space>: MemorySpace.Device or Host
  api_version: int = 4  # <ffi_call api_version>: custom_call_api_version
  legacy_backend_config: Optional[str] = None
  vmap_method: Optional[str] = None


@dataclass
class Arg:
  aval: Aval
  donated: bool = False


@dataclass
class Scenario:
  path: str
  name: str
  jax: Optional[str] = None
  description: str = ""
  runtime: Runtime = field(default_factory=Runtime)
  pallas: Pallas = field(default_factory=Pallas)
  function: str = "f"
  platforms: Optional[list[str]] = None
  backend: Optional[str] = None
  devices: Optional[int] = None  # <lower devices="N">: in_shardings over jax.devices()[:N]
  keep_unused: bool = False
  enable_x64: Optional[bool] = None
  export: bool = False
  disabled_checks: list[str] = field(default_factory=list)
  abstract_device: Optional[AbstractDevice] = None
  args: list[Arg] = field(default_factory=list)
  eqns: list[Eqn] = field(default_factory=list)
  returns: Optional[list[int]] = None
  execute: bool = False
  # A process session: the lowerings after this one, in order, each a
  # Scenario of its own <lower> (and <execute/>), with this one's name,
  # jax=, runtime and Pallas flags; all run in one JAX process.
  steps: list["Scenario"] = field(default_factory=list)
  line: int = 0  # the <lower> element's line
  step: int = 0  # its place in the session (1 for the first), once lowered

  def values(self) -> list[Aval]:
    """The avals of every value: args, then every equation's results."""
    out = [a.aval for a in self.args]
    for e in self.eqns:
      out.extend(e.results)
    return out

  def outputs(self) -> list[int]:
    if self.returns is not None:
      return list(self.returns)
    if not self.eqns:
      return []
    n = len(self.values())
    return list(range(n - len(self.eqns[-1].results), n))


# --- A tiny element tree with line numbers (expat) ---------------------------

@dataclass
class Node:
  tag: str
  attrs: dict[str, str]
  line: int
  children: list["Node"] = field(default_factory=list)
  text: str = ""

  def child(self, tag: str) -> Optional["Node"]:
    for c in self.children:
      if c.tag == tag:
        return c
    return None


def parse_xml(data: bytes, path: str) -> Node:
  root: list[Node] = []
  stack: list[Node] = []
  parser = xml.parsers.expat.ParserCreate()

  def start(tag, attrs):
    node = Node(tag, dict(attrs), parser.CurrentLineNumber)
    if stack:
      stack[-1].children.append(node)
    else:
      root.append(node)
    stack.append(node)

  def end(tag):
    stack.pop()

  def chars(text):
    if stack:
      stack[-1].text += text

  parser.StartElementHandler = start
  parser.EndElementHandler = end
  parser.CharacterDataHandler = chars
  try:
    parser.Parse(data, True)
  except xml.parsers.expat.ExpatError as e:
    raise InvalidScenario(f"{path}:{e.lineno}: {xml.parsers.expat.ErrorString(e.code)}") from None
  return root[0]


# --- The reader --------------------------------------------------------------

class _Reader:
  def __init__(self, path: str):
    self.path = path
    self.values: list[Aval] = []
    self.lowerings: list["Scenario"] = []  # a session's, read so far

  def pallas_call_args(self, node: Node, e: Eqn) -> None:
    """name=, the aliases, metadata, cost_estimate and the params' fields."""
    big = 2**63
    e.pallas_name = node.attrs.get("name")
    if "block" in node.attrs:
      e.block = tuple(int(v) for v in node.attrs["block"].split(","))
    f = e.params_fields
    for a in ("num_warps", "num_stages"):
      if a in node.attrs:
        f[a] = self.integer(node, a, 1, 2**31 - 1, 1)
    for a in ("vmem_limit_bytes", "internal_scratch_in_bytes"):
      if a in node.attrs:
        f[a] = self.integer(node, a, 0, big - 1, 0)
    if "allow_input_fusion" in node.attrs:
      text = node.attrs["allow_input_fusion"]
      f["allow_input_fusion"] = [v == "true" for v in text.split(",")] if text else []
    if "has_side_effects" in node.attrs:
      f["has_side_effects"] = node.attrs["has_side_effects"]
    for a, default in (("disable_bounds_checks", False), ("disable_semaphore_checks", False),
                       ("skip_device_barrier", False), ("shape_invariant_numerics", True),
                       ("needs_layout_passes", True)):
      if a in node.attrs:
        f[a] = self.boolean(node, a, default)
    flags = {}
    for c in node.children:
      if c.tag == "alias":
        e.aliases.append((self.integer(c, "input", -big, big - 1, 0),
                          self.integer(c, "output", -big, big - 1, 0)))
      elif c.tag == "flag":
        t, v = c.attrs["type"], c.attrs["value"]
        flags[c.attrs["name"]] = (v == "true" if t == "bool" else int(v) if t == "int"
                                  else float(v))
      elif c.tag == "cost_estimate":
        e.cost_estimate = {k: self.integer(c, k, -big, big - 1, 0)
                           for k in ("flops", "transcendentals", "bytes_accessed",
                                     "remote_bytes_transferred") if k in c.attrs}
      elif c.tag == "metadata":
        e.metadata = e.metadata or {}
        e.metadata[c.attrs["key"]] = c.attrs["value"]
    if flags:
      f["flags"] = flags
    if self.boolean(node, "metadata", False) and e.metadata is None:
      e.metadata = {}

  def fail(self, node: Node, message: str):
    raise InvalidScenario(f"{self.path}:{node.line}: {message}")

  def rule(self, node, platform: Optional[str]) -> "Rule":
    """A <rule>/<default>: ffi_lowering(target), or lower_fun="OP"."""
    inline = self.boolean(node, "inline", True)
    if "lower_fun" in node.attrs:
      op = node.attrs["lower_fun"]
      if op not in OP_KINDS:
        self.fail(node, f"<{node.tag}> lower_fun=\"{op}\" is not an op kind")
      return Rule(platform, None, inline, op)
    return Rule(platform, self.required(node, "target"), inline)

  def required(self, node: Node, name: str) -> str:
    v = node.attrs.get(name)
    if v is None:
      self.fail(node, f"<{node.tag}> needs the attribute '{name}'")
    if v == "":
      self.fail(node, f"<{node.tag}> {name}=\"\" must not be empty")
    return v

  def boolean(self, node: Node, name: str, default: Optional[bool]) -> Optional[bool]:
    v = node.attrs.get(name)
    if v is None:
      return default
    if v not in ("true", "false"):
      self.fail(node, f"<{node.tag}> {name}=\"{v}\" is not true or false")
    return v == "true"

  def aliases(self, node: Node, e: "Eqn") -> None:
    """The <alias input output> children, as written."""
    for c in node.children:
      if c.tag == "alias":
        big = 2**63
        e.aliases.append((self.integer(c, "input", -big, big - 1, 0),
                          self.integer(c, "output", -big, big - 1, 0)))

  def integer(self, node: Node, name: str, lo: int, hi: int, default: Optional[int]):
    v = node.attrs.get(name)
    if v is None:
      return default
    digits = v[1:] if v.startswith("-") else v
    if not digits.isdigit() or not digits.isascii() or not lo <= int(v) <= hi:
      self.fail(node, f"<{node.tag}> {name}=\"{v}\" is not an integer from {lo} to {hi}")
    return int(v)

  def platform_list(self, node: Node, name: str, text: str) -> list[str]:
    items = text.split(",")
    for p in items:
      if not p or not all(c.isascii() and (c.isalnum() or c in "_.-") for c in p):
        self.fail(node, f"<{node.tag}> {name}=\"{text}\": platform name '{p}' is not well-formed")
    return items

  def aval(self, node: Node) -> Aval:
    dtype = node.attrs.get("dtype")
    if dtype not in DTYPES:
      self.fail(node, f"<{node.tag}> dtype=\"{dtype or ''}\" is not a dtype JAX knows")
    shape = node.attrs.get("shape")
    if shape is None:
      self.fail(node, f"<{node.tag}> needs the attribute 'shape'")
    dims: tuple[int, ...] = ()
    if shape != "":
      parts = shape.split(",")
      if not all(p.isascii() and p.isdigit() for p in parts) or len(parts) > MAX_RANK:
        self.fail(node, f"<{node.tag}> shape=\"{shape}\" is not a shape")
      dims = tuple(int(p) for p in parts)
    return Aval(dtype, dims)

  def indices(self, node: Node, name: str, text: str) -> list[int]:
    if text == "":
      return []
    out = []
    for p in text.split(","):
      if not p.isascii() or not p.isdigit():
        self.fail(node, f"<{node.tag}> {name}=\"{text}\" is not a comma-separated list of value indices")
      v = int(p)
      if v >= len(self.values):
        self.fail(node, f"<{node.tag}> {name}=\"{text}\": value {v} is outside the range "
                  f"[0, {len(self.values)}) of values defined before it")
      out.append(v)
    return out

  def results(self, node: Node) -> list[Aval]:
    return [self.aval(c) for c in node.children if c.tag == "result"]

  def check_operands(self, node: Node, op: str, args: list[int]):
    arity = OP_KINDS[op][1]
    if len(args) != arity:
      self.fail(node, f"<{node.tag}> {op} takes {arity} operand(s), not {len(args)}")
    if arity == 2 and self.values[args[0]] != self.values[args[1]]:
      self.fail(node, f"<{node.tag}> {op}: operands have different avals")

  def sharding(self, node: Node) -> Optional[tuple[str, int]]:
    """sharding="device:K", "scalar_mesh:K" or "mesh:N"."""
    v = node.attrs.get("sharding")
    if v is None:
      return None
    kind, _, n = v.partition(":")
    lo = 1 if kind == "mesh" else 0
    if kind not in ("device", "scalar_mesh", "mesh") or not (n.isascii() and n.isdigit()) or \
        not lo <= int(n) <= 1 << 20:
      self.fail(node, f"<{node.tag}> sharding=\"{v}\" is not device:K, scalar_mesh:K or mesh:N")
    return kind, int(n)

  def op_kind(self, node: Node, name: str) -> str:
    v = self.required(node, name)
    if v not in OP_KINDS:
      self.fail(node, f"<{node.tag}> {name}=\"{v}\" is not an op kind")
    return v

  def eqn(self, node: Node) -> Eqn:
    args_text = node.attrs.get("args")
    if args_text is None:
      self.fail(node, f"<{node.tag}> needs the attribute 'args'")
    e = Eqn(kind=node.tag, args=self.indices(node, "args", args_text), results=[], line=node.line,
            compute_on=node.attrs.get("compute_on"))
    if e.kind == "op":
      e.op = self.op_kind(node, "kind")
      self.check_operands(node, e.op, e.args)
      e.results = [self.values[e.args[0]]]
    elif e.kind == "compute_on":
      e.compute_type = self.required(node, "compute_type")
      e.out_memory_space = node.attrs.get("out_memory_space", "device")
      if e.out_memory_space not in ("device", "host"):
        self.fail(node, f"<compute_on> out_memory_space=\"{e.out_memory_space}\" is not device or host")
      e.op = self.op_kind(node, "op")
      self.check_operands(node, e.op, e.args)
      e.results = [self.values[e.args[0]]]
    elif e.kind == "primitive":
      e.name = self.required(node, "name")
      e.backend_access = node.attrs.get("backend_access", "none")
      if e.backend_access not in BACKEND_ACCESS:
        self.fail(node, f"<primitive> backend_access=\"{e.backend_access}\" is not none, required or optional")
      for c in node.children:
        if c.tag == "rule":
          p = self.required(c, "platform")
          self.platform_list(c, "platform", p)
          e.rules.append(self.rule(c, p))
        elif c.tag == "default":
          e.rules.append(self.rule(c, None))
      e.results = self.results(node)
    elif e.kind == "platform_dependent":
      for c in node.children:
        if c.tag in ("branch", "default"):
          plats = None
          if c.tag == "branch":
            plats = self.platform_list(c, "platforms", self.required(c, "platforms"))
          op = self.op_kind(c, "op")
          self.check_operands(c, op, e.args)
          e.branches.append(Branch(plats, op))
      if not e.branches:
        self.fail(node, "<platform_dependent> needs a <branch> element")
      e.results = [self.values[e.args[0]]]
    elif e.kind == "buffer_callback":
      e.side_effect = self.boolean(node, "side_effect", False)
      e.command_buffer = self.boolean(node, "command_buffer", False)
      e.returns_value = self.boolean(node, "returns_value", False)
      e.results = self.results(node)
      self.aliases(node, e)
    elif e.kind == "pure_callback":
      e.sharding = self.sharding(node)
      e.results = self.results(node)
    elif e.kind == "io_callback":
      e.ordered = self.boolean(node, "ordered", False)
      e.sharding = self.sharding(node)
      e.results = self.results(node)
    elif e.kind == "debug_callback":
      e.ordered = self.boolean(node, "ordered", False)
      e.partitioned = self.boolean(node, "partitioned", False)
    elif e.kind == "pallas_call":
      e.kernel = self.required(node, "kernel")
      e.grid = self.integer(node, "grid", 1, 2**31 - 1, 1)
      e.interpret = self.boolean(node, "interpret", False)
      e.constants = self.boolean(node, "constants", False)
      e.compiler_params = node.attrs.get("compiler_params", "none")
      if e.compiler_params not in COMPILER_PARAMS:
        self.fail(node, f"<pallas_call> compiler_params=\"{e.compiler_params}\" is not a known kind")
      e.results = self.results(node)
      self.pallas_call_args(node, e)
    elif e.kind == "call_exported":
      e.lowering = self.integer(node, "lowering", 1, 1024, 0)
      if not (1 <= e.lowering < len(self.lowerings)):
        self.fail(node, f"<call_exported> lowering=\"{e.lowering}\" must name an earlier "
                  "<lower> of the session (1 for the first)")
      callee = self.lowerings[e.lowering - 1]
      if not callee.export:
        self.fail(node, f"<call_exported> lowering=\"{e.lowering}\": that <lower> is not an "
                  "export (export=\"true\")")
      values = callee.values()
      e.results = [values[i] for i in callee.outputs()]
    elif e.kind == "ffi_call":
      e.target = self.required(node, "target")
      e.side_effect = self.boolean(node, "has_side_effect", False)
      e.api_version = self.integer(node, "api_version", 1, 4, 4)
      e.legacy_backend_config = node.attrs.get("legacy_backend_config")
      e.vmap_method = node.attrs.get("vmap_method")
      e.results = self.results(node)
      self.aliases(node, e)
    self.values.extend(e.results)
    return e

  def scenario(self, root: Node) -> Scenario:
    if root.tag != "scenario":
      self.fail(root, f"the root element is <{root.tag}>, not <scenario>")
    s = Scenario(path=self.path, name=self.required(root, "name"), jax=root.attrs.get("jax"))
    lower = root.child("lower")
    if lower is None:
      self.fail(root, "<scenario> needs a <lower> element")
    for c in root.children:
      if c.tag == "description":
        s.description = c.text
      elif c.tag == "runtime":
        s.runtime.present = True
        s.runtime.jax_platforms = c.attrs.get("jax_platforms")
        for b in c.children:
          if b.tag != "backend":
            continue
          p = self.required(b, "platform")
          self.platform_list(b, "platform", p)
          if p == "gpu":
            self.fail(b, f"<backend> platform=\"{p}\" is an alias, not a platform a backend can have")
          s.runtime.backends.append(Backend(
              platform=p, devices=self.integer(b, "devices", 0, 1 << 20, 1),
              priority=self.integer(b, "priority", -1000000, 1000000, None),
              error=b.attrs.get("error"), fail_quietly=self.boolean(b, "fail_quietly", None),
              device_kind=b.attrs.get("device_kind"),
              compute_capability=b.attrs.get("compute_capability"), line=b.line))
      elif c.tag == "pallas":
        s.pallas = Pallas(True, self.boolean(c, "mosaic_tpu", True), self.boolean(c, "triton", True),
                          self.boolean(c, "mosaic_gpu", True),
                          self.boolean(c, "use_mosaic_gpu", None))
    current = None
    for c in root.children:
      if c.tag == "lower":
        if current is None:
          current = s
        else:
          current = dataclasses.replace(s, args=[], eqns=[], steps=[], execute=False,
                                        platforms=None, backend=None, devices=None,
                                        keep_unused=False, enable_x64=None, export=False,
                                        disabled_checks=[], abstract_device=None, returns=None)
          s.steps.append(current)
          self.values = []
        self.lowerings.append(current)
        self.lower(current, c)
      elif c.tag == "execute" and current is not None:
        current.execute = True
    return s

  def lower(self, s: Scenario, lower: Node) -> None:
    s.line = lower.line
    fn = lower.attrs.get("function")
    if fn == "":
      self.fail(lower, "<lower> function=\"\" must not be empty")
    s.function = fn or "f"
    if "platforms" in lower.attrs:
      s.platforms = self.platform_list(lower, "platforms", lower.attrs["platforms"])
    if "backend" in lower.attrs:
      s.backend = self.platform_list(lower, "backend", lower.attrs["backend"])[0]
    s.devices = self.integer(lower, "devices", 1, 1 << 20, None)
    s.keep_unused = bool(self.boolean(lower, "keep_unused", False))
    s.enable_x64 = self.boolean(lower, "enable_x64", None)
    s.export = bool(self.boolean(lower, "export", False))
    dc = lower.attrs.get("disabled_checks")
    if dc is not None and not s.export:
      self.fail(lower, "<lower> disabled_checks= goes with export=\"true\"")
    s.disabled_checks = [x for x in (dc or "").split(",") if x]
    for c in s.disabled_checks:
      if c != "platform" and not (c.startswith("custom_call:") and len(c) > len("custom_call:")):
        self.fail(lower, f"<lower> disabled_checks=\"{dc}\": '{c}' is not a disabled safety "
                  "check (DisabledSafetyCheck.platform() is 'platform', "
                  "DisabledSafetyCheck.custom_call(TARGET) is 'custom_call:TARGET')")
    for c in lower.children:
      if c.tag == "arg":
        s.args.append(Arg(self.aval(c), bool(self.boolean(c, "donated", False))))
        self.values.append(s.args[-1].aval)
      elif c.tag in EQUATIONS:
        s.eqns.append(self.eqn(c))
      elif c.tag == "abstract_device":
        s.abstract_device = AbstractDevice(
            self.required(c, "platform"), self.required(c, "device_kind"),
            self.integer(c, "num_cores", 1, 1 << 20, None))
      elif c.tag == "return":
        v = c.attrs.get("values")
        if v is None:
          self.fail(c, "<return> needs the attribute 'values'")
        s.returns = self.indices(c, "values", v)
    if s.enable_x64 is False and any(a.dtype in ("i64", "u64", "f64") for a in s.values()):
      self.fail(lower, "<lower enable_x64=\"false\"> has a 64-bit value: JAX without "
                "jax_enable_x64 has no 64-bit arrays")


def read_bytes(data: bytes, path: str) -> Scenario:
  return _Reader(path).scenario(parse_xml(data, path))


def read_file(path: str) -> Scenario:
  try:
    with open(path, "rb") as f:
      data = f.read()
  except OSError as e:
    raise InvalidScenario(f"{path}: cannot read: {e.strerror}") from None
  return read_bytes(data, path)


def replace(s: Scenario, **changes) -> Scenario:
  return dataclasses.replace(s, **changes)
