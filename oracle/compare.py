"""lowersim's outcome against JAX's: verdicts, diffs and difference classes.

Modules are compared in jaxlib's MLIR (oracle/mlir_text.py): both texts are
parsed in one context with JAX's dialects registered (so lowersim's module
meets StableHLO's real verifiers), kernel payloads are decoded on both sides
and compared as modules of their own, and each side is printed in one
canonical form (generic ops, no locations).  Errors compare by exception
class and exact message; JAX's warnings against lowersim's `warning:` lines.

A difference gets *classes*: short names of the kinds of difference it
shows (e.g. `uses_shape_polymorphism`, `shardy`), found by the detectors
below; the fuzzer counts findings per class, and known-differences.txt
names the classes it expects per scenario.
"""

from __future__ import annotations

import base64
import dataclasses
import difflib
import hashlib
import json
import re
from typing import Callable, Optional

from jax._src.lib.mlir import ir

from oracle import mlir_text
from oracle.program import Outcome

PLACEHOLDER = "<kernel {}: compared as a module>"


@dataclasses.dataclass
class LowersimOutcome:
  kind: str            # "module" | "error" | "invalid" | "crash"
  module: str = ""
  code: str = ""
  error_class: str = ""
  error_message: str = ""
  warnings: list[str] = dataclasses.field(default_factory=list)
  stderr: str = ""
  exit_code: int = 0

  def to_json(self) -> dict:
    return dataclasses.asdict(self)


_ERROR_LINE = re.compile(r"^(LSIM_E_[A-Z0-9_]+): ([A-Za-z_][A-Za-z0-9_.]*): ", re.M)


def one_line(text: str) -> str:
  """A message as the lowersim CLI (and `python -m oracle lower`) writes it
  on one line: each newline as \\n."""
  return text.replace("\n", "\\n")


def parse_lowersim(exit_code: int, stdout: str, stderr: str) -> LowersimOutcome:
  """`lowersim lower`'s contract: 0 and a module on stdout; 1 and
  `CODE: ErrorClass: message` on stderr; 2 invalid input.  Lines of stderr
  starting `warning: ` are warnings (`CATEGORY: text`).  Messages and
  warnings are one line each (a newline written \\n): they are compared
  with JAX's written the same way (one_line)."""
  warnings = [l[len("warning: "):] for l in stderr.splitlines() if l.startswith("warning: ")]
  if exit_code == 0:
    return LowersimOutcome("module", module=stdout, warnings=warnings, stderr=stderr)
  if exit_code == 2:
    return LowersimOutcome("invalid", stderr=stderr, exit_code=2, warnings=warnings)
  m = None
  for m in _ERROR_LINE.finditer(stderr):
    pass
  if exit_code == 1 and m:
    message = stderr[m.end():]
    if message.endswith("\n"):
      message = message[:-1]
    return LowersimOutcome("error", code=m.group(1), error_class=m.group(2),
                           error_message=message, warnings=warnings, stderr=stderr, exit_code=1)
  return LowersimOutcome("crash", stderr=stderr, exit_code=exit_code, warnings=warnings)


# --- Kernel payloads ----------------------------------------------------------

@dataclasses.dataclass
class Kernel:
  """A kernel module carried inside a custom call."""
  where: str                # e.g. "tpu_custom_call backend_config.custom_call_config.body"
  target: str
  payload: bytes            # the serialized module
  text: str = ""            # canonical text of the decoded module
  error: str = ""           # when it does not parse
  producer: str = ""        # bytecode producer string
  version: int = -1         # bytecode version
  extra: dict = dataclasses.field(default_factory=dict)  # serialization-level facts, compared
  extra_detail: str = ""


def bytecode_header(data: bytes) -> tuple[int, str]:
  """(version, producer) of MLIR bytecode: magic "ML\\xefR", a varint version,
  then the producer string up to NUL."""
  if not data.startswith(b"ML\xefR") or len(data) < 6:
    return -1, ""
  pos, version, shift = 4, 0, 0
  # MLIR's varint: the low bits of the first byte say how many bytes follow.
  first = data[pos]
  if first & 1:
    version = first >> 1
    pos += 1
  else:
    n = (first & -first).bit_length()  # trailing zeros + 1 = byte count
    raw = int.from_bytes(data[pos:pos + n], "little")
    version = raw >> n
    pos += n
  del shift
  end = data.find(b"\0", pos)
  return version, data[pos:end].decode("utf-8", "replace") if end >= 0 else ""


# The deserializers the runtimes run on a kernel before compiling it: the
# kernels are written with the mosaic-serde / mosaic_gpu-serde passes
# (versioned `stable_mosaic.` / `stable_mosaic_gpu.` op names).
DESERIALIZERS = {
    "tpu_custom_call": ("Mosaic's deserializer (mosaic-serde)",
                        "builtin.module(mosaic-serde{serialize=false})"),
    "mosaic_gpu_v2": ("Mosaic GPU's deserializer (mosaic_gpu-serde)",
                      "builtin.module(mosaic_gpu-serde{serialize=false})"),
}


def _decode_kernel(k: Kernel, ctx: ir.Context) -> None:
  """Parses the payload; a Mosaic TPU or Mosaic GPU kernel is first
  deserialized, as the runtime does (jax/_src/tpu_custom_call.py and
  jax/experimental/mosaic/gpu/core.py serialize them).  A kernel that
  cannot be deserialized is compared as it is, and the failure reported."""
  from jax._src.lib.mlir import passmanager
  k.version, k.producer = bytecode_header(k.payload)
  try:
    module = mlir_text.parse(k.payload, ctx)
  except mlir_text.ParseError as e:
    k.error = str(e)
    return
  if k.target in DESERIALIZERS:
    label, pipeline = DESERIALIZERS[k.target]
    attempt = mlir_text.parse(k.payload, ctx)
    try:
      with ctx:
        passmanager.PassManager.parse(pipeline).run(attempt.operation)
      module = attempt
      k.extra[label + " reads it"] = True
    except Exception as e:  # MLIRError: the pass failed
      first = str(e).strip().splitlines()
      k.extra[label + " reads it"] = False
      k.extra_detail = " ".join(l.strip() for l in first[:3])
  k.text = mlir_text.canonical(module)


def _walk(op, fn) -> None:
  fn(op)
  for region in op.regions:
    for block in region.blocks:
      for inner in block.operations:
        _walk(inner.operation, fn)


def extract_kernels(module: ir.Module, ctx: ir.Context, kernel_ctx: ir.Context) -> list[Kernel]:
  """Decodes the kernels embedded in `module`'s custom calls and replaces
  each payload with a numbered placeholder (in place)."""
  kernels: list[Kernel] = []

  def visit(op):
    if op.name != "stablehlo.custom_call":
      return
    target = ir.StringAttr(op.attributes["call_target_name"]).value
    if target == "tpu_custom_call":
      config = ir.StringAttr(op.attributes["backend_config"]).value
      try:
        data = json.loads(config)
        body = data["custom_call_config"]["body"]
        payload = base64.b64decode(body)
      except (ValueError, KeyError, TypeError):
        return
      k = Kernel("backend_config custom_call_config.body (base64)", target, payload)
      data["custom_call_config"]["body"] = PLACEHOLDER.format(len(kernels))
      kernels.append(k)
      # The kernel's locations, taken out of its module (JAX 0.12.0 on:
      # tpu_custom_call.py _lower_mosaic_module_to_asm, unzip_debug_locations):
      # bytecode of an empty module whose `tpu.locs` lists them, compared as
      # a module too (a module of no dialect: nothing to deserialize).
      locations = data["custom_call_config"].get("debug_locations")
      if isinstance(locations, str):
        try:
          payload = base64.b64decode(locations)
        except ValueError:
          payload = None
        if payload is not None:
          data["custom_call_config"]["debug_locations"] = PLACEHOLDER.format(len(kernels))
          kernels.append(Kernel("backend_config custom_call_config.debug_locations (base64)",
                                target + " debug_locations", payload))
      with ctx:
        op.attributes["backend_config"] = ir.StringAttr.get(json.dumps(data))
    elif target in ("__gpu$xla.gpu.triton", "mosaic_gpu_v2"):
      if "mhlo.backend_config" not in op.attributes:
        return
      cfg = ir.DictAttr(op.attributes["mhlo.backend_config"])
      key = "ir" if target == "__gpu$xla.gpu.triton" else "module"
      if key not in cfg:
        return
      payload = ir.StringAttr(cfg[key]).value_bytes
      k = Kernel(f"mhlo.backend_config.{key}", target, payload)
      entries = {cfg[i].name: cfg[i].attr for i in range(len(cfg))}
      with ctx:
        entries[key] = ir.StringAttr.get(PLACEHOLDER.format(len(kernels)))
        if "kernel_hash" in entries:
          digest = ir.StringAttr(entries["kernel_hash"]).value_bytes
          k.extra["kernel_hash is the SHA-256 of the module"] = digest == hashlib.sha256(payload).digest()
          entries["kernel_hash"] = ir.StringAttr.get(f"<sha256 of kernel {len(kernels)}>")
        op.attributes["mhlo.backend_config"] = ir.DictAttr.get(entries)
      kernels.append(k)

  _walk(module.operation, visit)
  for k in kernels:
    _decode_kernel(k, kernel_ctx)
  return kernels


@dataclasses.dataclass
class Canonical:
  text: str = ""
  kernels: list[Kernel] = dataclasses.field(default_factory=list)
  error: str = ""  # parse or verification failure


def canonicalize(text: str) -> Canonical:
  ctx = mlir_text.context()
  kernel_ctx = mlir_text.context(allow_unregistered=True)
  try:
    module = mlir_text.parse(text, ctx)
  except mlir_text.ParseError as e:
    return Canonical(error=str(e))
  kernels = extract_kernels(module, ctx, kernel_ctx)
  # Through the custom printer and back: representations that mean the
  # same (e.g. `arg_attrs = [{}]` and none) become one.
  module = mlir_text.parse(mlir_text.pretty(module), ctx)
  return Canonical(mlir_text.canonical(module), kernels)


# --- Difference classes ---------------------------------------------------------
#
# Each detector looks at both canonical texts; if it recognises a kind of
# difference it names it and returns both texts with that kind removed, so
# that the next detector sees what is left.  A difference none explains is
# classed by its first differing line.

Detector = Callable[[str, str], Optional[tuple[str, str, str]]]


def _remove(pattern: str, text: str) -> str:
  return re.sub(pattern, "", text)


def _value_end(text: str, i: int) -> int:
  """The end of the attribute value starting at text[i] (balanced brackets,
  strings skipped): the index of the `,` or closing bracket after it."""
  depth, n = 0, len(text)
  while i < n:
    c = text[i]
    if c == '"':
      i += 1
      while i < n and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    elif c in "<[{(":
      depth += 1
    elif c in ">]})":
      if depth == 0:
        return i
      if not (c == ">" and i > 0 and text[i - 1] == "-"):
        depth -= 1
    elif c == "," and depth == 0:
      return i
    i += 1
  return n


def remove_attr(text: str, name: str) -> str:
  """Removes every `name = value` entry of attribute dictionaries."""
  out, i = [], 0
  key = name + " = "
  while True:
    j = text.find(key, i)
    if j < 0:
      out.append(text[i:])
      break
    before = text[j - 1] if j else ""
    if before not in "{ " or (before == " " and text[j - 2:j] != ", "):
      out.append(text[i:j + len(key)])
      i = j + len(key)
      continue
    end = _value_end(text, j + len(key))
    start = j - 2 if before == " " else j
    if before == "{" and end < len(text) and text[end] == ",":
      end += 2  # "{a = 1, b" -> "{b"
    out.append(text[i:start])
    i = end
  return _clean("".join(out))


def attr_values(text: str, name: str) -> list[str]:
  key = name + " = "
  out, i = [], 0
  while (j := text.find(key, i)) >= 0:
    end = _value_end(text, j + len(key))
    out.append(text[j + len(key):end])
    i = end
  return out


def _detect_attr(label: str, name: str) -> Detector:
  def detect(a: str, b: str):
    if attr_values(a, name) == attr_values(b, name):
      return None
    return label, remove_attr(a, name), remove_attr(b, name)
  return detect


def _clean(text: str) -> str:
  text = re.sub(r"(arg|res)_attrs = \[\{\}(, \{\})*\](, )?", "", text)
  return text.replace(" {} :", " :").replace("<{}>", "").replace("{, ", "{")


_SDY_MESH = r'(?m)^[ \t]*"sdy\.mesh"\(\)[^\n]*\n'


def _detect_shardy(a: str, b: str):
  """Shardy's meshes and shardings (sdy.mesh ops, sdy.sharding attributes):
  JAX 0.10.2 lowers with the Shardy partitioner on (jax_use_shardy_partitioner).
  When the two sides have different ops or main's signature differs (a
  callback or an argument only one side has, e.g. after JAX's DCE), their
  shardings and meshes go with them: they are removed without a class of
  their own, and the ops or signature detector names the difference."""
  if "sdy." not in a and "sdy." not in b:
    return None
  a2 = remove_attr(_remove(_SDY_MESH, a), "sdy.sharding")
  b2 = remove_attr(_remove(_SDY_MESH, b), "sdy.sharding")
  if a2 == a and b2 == b or (a2 == b2) == (a == b) and attr_values(a, "sdy.sharding") == \
      attr_values(b, "sdy.sharding") and _ops(a) == _ops(b):
    return None
  if _ops(a2) != _ops(b2) or _detect_signature(a2, b2):
    return "", a2, b2
  return "shardy", a2, b2


def _ssa_free(line: str) -> str:
  return re.sub(r"%[\w#]+", "%", line)


def _ops(text: str) -> list[str]:
  return re.findall(r'"([a-z_]+\.[a-z_.]+)"\(', text)


def _detect_ops(a: str, b: str):
  """Ops one side has and the other lacks (e.g. JAX's DCE of an unused
  equation): classed by op name."""
  from collections import Counter
  ca, cb = Counter(_ops(a)), Counter(_ops(b))
  if ca == cb:
    return None
  only_l = sorted((ca - cb).elements())
  only_j = sorted((cb - ca).elements())
  def names(ops):
    u = sorted(set(ops))
    return ",".join(u[:6]) + (f",… ({len(u)} kinds)" if len(u) > 6 else "")
  parts = []
  if only_l:
    parts.append("only lowersim has " + names(only_l))
  if only_j:
    parts.append("only JAX has " + names(only_j))
  return "ops: " + "; ".join(parts), "", ""


_MAIN_TYPE = re.compile(r'function_type = \(([^)]*)\) -> (\([^)]*\)|[^,}]*), [^\n]*sym_name = "main"')


def _arity(types: str) -> int:
  types = types.strip().strip("()")
  return 0 if not types.strip() else len(re.findall(r"(?:tensor<[^>]*>|!stablehlo\.token)", types))


def _detect_signature(a: str, b: str):
  """main takes or returns another number of values (JAX's jit drops unused
  arguments and effect-free equations: DCE)."""
  ma, mb = _MAIN_TYPE.search(a), _MAIN_TYPE.search(b)
  if not ma or not mb or (ma.group(1), ma.group(2)) == (mb.group(1), mb.group(2)):
    return None
  na, nb = (_arity(ma.group(1)), _arity(ma.group(2))), (_arity(mb.group(1)), _arity(mb.group(2)))
  if na == nb:
    return None
  return (f"main's signature: lowersim takes {na[0]} and returns {na[1]}, "
          f"JAX takes {nb[0]} and returns {nb[1]}"), "", ""


def _detect_platform_index_type(a: str, b: str):
  """The platform-index argument's type (JAX: dtypes.default_int_dtype(),
  int64 under jax_enable_x64)."""
  pa = re.search(r'function_type = \((tensor<i\d+>)', a)
  pb = re.search(r'function_type = \((tensor<i\d+>)', b)
  if not (pa and pb and "jax.global_constant" in a and "jax.global_constant" in b) or \
      pa.group(1) == pb.group(1):
    return None
  label = f"platform index: lowersim {pa.group(1)}, JAX {pb.group(1)}"
  return label, a.replace(pa.group(1), "PLATFORM_INDEX"), b.replace(pb.group(1), "PLATFORM_INDEX")


_MAIN_BLOCK = re.compile(r'sym_name = "main"[^\n]*\n\s*\^bb\d+\(([^)]*)\)')


def _detect_token_order(a: str, b: str):
  """main's ordered-effect tokens in another order: JAX orders the kinds
  as a Python set of effect objects iterates (lower_jaxpr_to_module:
  effects.ordered_effects.filter_in(closed_jaxpr.effects)), by their ids,
  so two kinds come in either order from one process to the next; lowersim
  takes them in the order the program first has them.  Classed when
  renaming lowersim's token arguments in some order makes the modules
  equal."""
  import itertools
  ma, mb = _MAIN_BLOCK.search(a), _MAIN_BLOCK.search(b)
  if not ma or not mb or a == b:
    return None
  tokens = re.findall(r"(%arg\d+): !stablehlo\.token", ma.group(1))
  if len(tokens) < 2 or len(tokens) > 4:
    return None
  ret = re.compile(r'"func\.return"\(([^)]*)\)')
  at = ret.search(a, ma.end())
  if not at:
    return None
  results = [x.strip() for x in at.group(1).split(",")]
  n = len(tokens)
  for order in itertools.permutations(range(n)):
    if list(order) == list(range(n)):
      continue
    mapping = {tokens[i]: tokens[order[i]] for i in range(n)}
    # the tokens main returns (first) go in the same order as those it takes
    back = [results[order.index(i)] for i in range(n)] + results[n:] if len(results) >= n else results
    # main's body, after its block's arguments, up to its return
    body = re.sub(r"%arg\d+\b", lambda m: mapping.get(m.group(0), m.group(0)),
                  a[ma.end():at.start(1)])
    renamed = a[:ma.end()] + body + ", ".join(back) + a[at.end(1):]
    if renamed == b:
      return f"token order: main's {n} ordered-effect tokens in another order", b, b
  return None


DETECTORS: list[Detector] = [
    _detect_attr("uses_shape_polymorphism", "jax.uses_shape_polymorphism"),
    _detect_token_order,
    _detect_platform_index_type,
    _detect_shardy,
    _detect_signature,
]


def _normalize_line(line: str) -> str:
  line = _ssa_free(line)
  line = re.sub(r'"(?:[^"\\]|\\.)*"', '"…"', line)
  line = re.sub(r"\b\d+\b", "N", line)
  return line.strip()[:160]


def module_classes(a: str, b: str) -> list[str]:
  classes = []
  for detect in DETECTORS:
    found = detect(a, b)
    if found:
      label, a, b = found
      if label:
        classes.append(label)
      if a == b:
        return classes
  found = _detect_ops(a, b)
  if found:
    classes.append(found[0])
    return classes
  for line in difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0):
    if line.startswith(("-", "+")) and not line.startswith(("---", "+++")):
      classes.append("module: " + _normalize_line(line[1:]))
      break
  return classes


def message_template(message: str) -> str:
  return _template(message)[:160]


def _template(message: str) -> str:
  """An error message with its variable parts (quoted names, numbers,
  Python lists and tuples) replaced, for classing."""
  t = re.sub(r"'[^']*'", "'…'", message)
  t = re.sub(r'"[^"]*"', '"…"', t)
  t = re.sub(r"\[[^\[\]]*\]", "[…]", t)
  t = re.sub(r"\([^()]*\)", "(…)", t)
  t = re.sub(r"\b\d+\b", "N", t)
  return t.replace("\n", "\\n")


def message_delta(ours: str, theirs: str) -> Optional[str]:
  """Two messages of one exception class that differ in a few words: what
  JAX's has that lowersim's lacks and the reverse, e.g. `JAX's message has
  «proxy,»` (a platform JAX added to a list), so that every scenario showing
  the same change is one class; None when they differ by more than a few
  words (the classes then template each message)."""
  a, b = _template(ours).split(" "), _template(theirs).split(" ")
  ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
         if op[0] != "equal"]
  if not ops or len(ops) > 2:
    return None
  # A few words, in a message mostly shared.
  changed = max(sum(i2 - i1 for _, i1, i2, _, _ in ops), sum(j2 - j1 for _, _, _, j1, j2 in ops))
  if changed > 6 or len(a) - sum(i2 - i1 for _, i1, i2, _, _ in ops) < 2 * changed:
    return None
  parts = []
  for tag, i1, i2, j1, j2 in ops:
    only_l, only_j = " ".join(a[i1:i2]), " ".join(b[j1:j2])
    if len(only_l) > 60 or len(only_j) > 60:
      return None
    if only_l and only_j:
      parts.append(f"«{only_j}» where lowersim's has «{only_l}»")
    elif only_j:
      parts.append(f"«{only_j}» that lowersim's lacks")
    else:
      parts.append(f"no «{only_l}» (lowersim's has it)")
  return "JAX's message has " + "; ".join(parts)


# --- Verdicts --------------------------------------------------------------------

@dataclasses.dataclass
class Verdict:
  path: str
  status: str                       # agree | differ | not_expressible | lowersim_invalid | timeout | oracle_error
  classes: list[str] = dataclasses.field(default_factory=list)
  summary: str = ""                 # one line
  diff: str = ""                    # unified diff(s) or a two-sided description
  jax_code: str = ""
  lowersim: dict = dataclasses.field(default_factory=dict)
  jax: dict = dataclasses.field(default_factory=dict)
  jax_seconds: float = 0.0
  context: list[str] = dataclasses.field(default_factory=list)  # what in the scenario explains it
  profile: str = ""                 # the JAX version profile the scenario pins (judge.profile_of)
  expect: dict = dataclasses.field(default_factory=dict)  # the committed <expect> against JAX (oracle/expect.py)

  def to_json(self) -> dict:
    return dataclasses.asdict(self)

  @staticmethod
  def from_json(d: dict) -> "Verdict":
    return Verdict(**d)


def _unified(a: str, b: str, a_name: str, b_name: str) -> str:
  return "\n".join(difflib.unified_diff(a.splitlines(), b.splitlines(), a_name, b_name,
                                        lineterm="", n=2))


def _describe(o) -> str:
  if o.kind == "module":
    return "a module"
  if o.kind == "error":
    return f"{o.error_class}: {o.error_message}"
  if o.kind == "not_expressible":
    return f"not expressible: {o.reason}"
  if o.kind == "invalid":
    return f"invalid input: {o.stderr.strip()}"
  return f"{o.kind} (exit {getattr(o, 'exit_code', '?')}): {getattr(o, 'stderr', '').strip()[-300:]}"


def _outcome_class(o) -> str:
  if o.kind == "module":
    return "module"
  if o.kind == "error":
    if not o.error_message.strip() and getattr(o, "jax_code", ""):
      return f"{o.error_class} (no message) in {o.jax_code}"
    return f"{o.error_class}: {message_template(o.error_message)}"
  return o.kind


def compare_warnings(lw: list[str], jw: list[str]) -> tuple[list[str], str]:
  """Classes and a description when the warnings differ (JAX's are
  compared whole: a message may span lines; lowersim's are one line each)."""
  if lw == jw:
    return [], ""
  classes = []
  only_j = [w for w in jw if w not in lw]
  only_l = [w for w in lw if w not in jw]
  for w in only_j:
    classes.append("warning only JAX gives: " + message_template(w))
  for w in only_l:
    classes.append("warning only lowersim gives: " + message_template(w))
  if not classes:
    classes.append("warnings in another order")
  text = "warnings differ:\n" + "\n".join([f"  lowersim: {w}" for w in lw] +
                                          [f"  JAX:      {w}" for w in jw])
  return classes, text


# Python's default repr of an object names its address, which differs from
# process to process and which no port can know (pxla.py's message about
# ordered effects on several devices lists effects so): messages compare
# without it.
_ADDRESS = re.compile(r"( object at )0x[0-9a-f]+>")


def address_free(message: str) -> str:
  return _ADDRESS.sub(r"\g<1>0x…>", message)


# lax's dtype rules (lax.py unop_dtype_rule, naryop_dtype_rule) name the
# accepted dtypes by iterating a Python set of numpy type objects
# (`_float | _complex`), which hash by address: the order of the list
# changes from one process to the next (seen on Python 3.12: "subtypes of
# floating, complexfloating" and "subtypes of complexfloating, floating").
# No port can know the order; messages compare with the list sorted.
_DTYPE_LIST = re.compile(r"(Accepted dtypes (?:at position \d+ )?are subtypes of )([\w]+(?:, [\w]+)+)")


def dtype_list_sorted(message: str) -> str:
  return _DTYPE_LIST.sub(lambda m: m.group(1) + ", ".join(sorted(m.group(2).split(", "))), message)


def nondeterminism_free(message: str) -> str:
  """A message with JAX's process-dependent parts made one: an object's
  address, the order of lax's accepted-dtype list."""
  return dtype_list_sorted(address_free(message))


DTYPE_ORDER_CLASS = "dtype list order: lax's accepted dtypes named in another order"


def verdict(path: str, low: LowersimOutcome, jax_out: Outcome) -> Verdict:
  v = Verdict(path=path, status="agree", jax_code=jax_out.jax_code,
              lowersim=low.to_json(), jax=jax_out.to_json(), jax_seconds=jax_out.seconds)
  for side in (v.lowersim, v.jax):
    side.pop("module", None)
  if low.kind == "invalid":
    v.status, v.summary = "lowersim_invalid", "lowersim refuses the scenario: " + low.stderr.strip()
    return v
  if jax_out.kind == "not_expressible":
    v.status, v.summary = "not_expressible", jax_out.reason
    v.classes = ["not expressible: " + jax_out.reason.split(":")[0]]
    return v
  if jax_out.kind == "invalid":
    v.status, v.summary = "oracle_error", "the oracle's reader refuses a scenario lowersim reads: " + jax_out.reason
    return v
  diffs: list[str] = []
  jax_out = dataclasses.replace(jax_out, error_message=one_line(jax_out.error_message),
                                warnings=[one_line(w) for w in jax_out.warnings])
  if low.kind != jax_out.kind:
    v.classes.append(f"outcome: lowersim {_outcome_class(low)}; JAX {_outcome_class(jax_out)}")
    diffs.append(f"lowersim: {_describe(low)}\nJAX:      {_describe(jax_out)}")
  elif low.kind == "error":
    if (low.error_class, address_free(low.error_message)) != \
        (jax_out.error_class, address_free(jax_out.error_message)):
      lt, jt = _outcome_class(low), _outcome_class(jax_out)
      if low.error_class == jax_out.error_class and \
          nondeterminism_free(low.error_message) == nondeterminism_free(jax_out.error_message):
        v.classes.append(DTYPE_ORDER_CLASS)
      elif lt == jt:
        v.classes.append(f"error values: {lt}")
      elif low.error_class == jax_out.error_class and \
          message_delta(low.error_message, jax_out.error_message):
        v.classes.append(f"error values: {low.error_class}: "
                         + message_delta(low.error_message, jax_out.error_message))
      else:
        v.classes.append(f"error: lowersim {lt}; JAX {jt}")
      diffs.append(f"lowersim: {low.error_class}: {low.error_message}\n"
                   f"JAX:      {jax_out.error_class}: {jax_out.error_message}")
  elif low.kind == "module":
    mc, md = compare_modules(low.module, jax_out.module)
    v.classes += mc
    if md:
      diffs.append(md)
  wc, wd = compare_warnings(low.warnings, jax_out.warnings)
  v.classes += wc
  if wd:
    diffs.append(wd)
  if v.classes:
    v.status = "differ"
    v.summary = v.classes[0]
    v.diff = "\n\n".join(diffs)
  return v


def compare_modules(lowersim_text: str, jax_text: str) -> tuple[list[str], str]:
  """Classes and the diff text; both empty when the modules agree."""
  ours, theirs = canonicalize(lowersim_text), canonicalize(jax_text)
  if ours.error:
    return (["lowersim's module fails StableHLO verification"],
            "lowersim's module does not parse or verify in jaxlib's MLIR "
            "(stablehlo, chlo, sdy, tpu, tt, mosaic_gpu registered):\n" + ours.error)
  if theirs.error:
    return (["JAX's module does not re-parse"], theirs.error)
  classes: list[str] = []
  parts: list[str] = []
  if ours.text != theirs.text:
    classes += module_classes(ours.text, theirs.text)
    parts.append(_unified(ours.text, theirs.text, "lowersim", "JAX"))
  if len(ours.kernels) != len(theirs.kernels):
    if ours.text == theirs.text:
      classes.append("kernel count")
  for i, (a, b) in enumerate(zip(ours.kernels, theirs.kernels)):
    # The bytecode version says which readers can read a kernel, so it is
    # compared.  The producer string only names the MLIR that wrote it
    # (lowersim's MLIR 19.1.7, jaxlib's "MLIR23.0.0git"): no reader depends
    # on it, and lowersim writing jaxlib's name would misstate what wrote
    # the bytes, so it is not compared.
    if a.version != b.version:
      classes.append("serialization: bytecode version")
      parts.append(f"kernel {i} ({a.target}, {a.where}): bytecode version {a.version} "
                   f"(lowersim, producer {a.producer!r}) vs {b.version} (JAX, producer "
                   f"{b.producer!r})")
    for key in sorted(set(a.extra) | set(b.extra)):
      if a.extra.get(key) != b.extra.get(key):
        classes.append(f"serialization: {key}")
        parts.append(f"kernel {i} ({a.target}): {key}: lowersim {a.extra.get(key)}, JAX "
                     f"{b.extra.get(key)}" + "".join(f"\n  {who}: {k.extra_detail}"
                                                    for who, k in (("lowersim", a), ("JAX", b))
                                                    if k.extra_detail))
    if a.error or b.error:
      if a.error:
        classes.append(f"kernel ({a.target}): lowersim's kernel does not parse or verify")
      if b.error:
        classes.append(f"kernel ({b.target}): JAX's kernel does not parse")
      parts.append(f"kernel {i} ({a.target}):\n  lowersim: {a.error or 'parses'}\n  JAX: {b.error or 'parses'}")
    elif a.text != b.text:
      kc = module_classes(a.text, b.text)
      classes += [f"kernel ({a.target}) " + c for c in kc]
      parts.append(f"kernel {i} ({a.target}):\n" + _unified(a.text, b.text, "lowersim kernel", "JAX kernel"))
  # keep order, drop repeats
  seen, unique = set(), []
  for c in classes:
    if c not in seen:
      seen.add(c)
      unique.append(c)
  return unique, "\n\n".join(parts)
