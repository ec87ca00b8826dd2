"""Tests of the oracle's logic: reading scenarios, lowering them on JAX in a
fork-server child, comparing, classing, the known-differences list and the
minimizer."""

from __future__ import annotations

import base64
import json
import os
import tempfile
import unittest

from oracle import compare, fuzz, judge, known, mlir_text, program, report, server
from oracle import scenario as sc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MODULE = """module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = "stablehlo.sine"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""

SCENARIO = """<?xml version="1.0"?>
<scenario name="t">
  <lower function="f" platforms="cpu">
    <arg dtype="f32" shape="4"/>
    <op kind="sine" args="0"/>
  </lower>
</scenario>
"""


def _jax(module: str = "", error: tuple[str, str] | None = None, warnings=()) -> program.Outcome:
  if error:
    return program.Outcome(kind="error", error_class=error[0], error_message=error[1],
                           warnings=list(warnings))
  return program.Outcome(kind="module", module=module, warnings=list(warnings))


def _write(text: str) -> str:
  fd, path = tempfile.mkstemp(suffix=".xml")
  with os.fdopen(fd, "w") as f:
    f.write(text)
  return path


class ComparisonTest(unittest.TestCase):
  def test_same_module_agrees(self):
    low = compare.LowersimOutcome("module", module=MODULE)
    self.assertEqual(compare.verdict("x", low, _jax(MODULE)).status, "agree")

  def test_different_module_differs_with_a_diff(self):
    other = MODULE.replace("stablehlo.sine", "stablehlo.cosine")
    v = compare.verdict("x", compare.LowersimOutcome("module", module=MODULE), _jax(other))
    self.assertEqual(v.status, "differ")
    self.assertIn("-    %0 = \"stablehlo.sine\"", v.diff)
    self.assertIn("+    %0 = \"stablehlo.cosine\"", v.diff)

  def test_an_invalid_stablehlo_module_is_a_verifier_failure(self):
    bad = MODULE.replace('"stablehlo.sine"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>',
                         '"stablehlo.sine"(%arg0) : (tensor<4xf32>) -> tensor<5xf32>')
    bad = bad.replace("return %0 : tensor<4xf32>", "return %0 : tensor<5xf32>").replace(
        "-> (tensor<4xf32> {", "-> (tensor<5xf32> {")
    v = compare.verdict("x", compare.LowersimOutcome("module", module=bad), _jax(MODULE))
    self.assertEqual(v.classes, ["lowersim's module fails StableHLO verification"])

  def test_errors_compare_by_class_and_exact_message(self):
    low = compare.parse_lowersim(1, "", "LSIM_E_X: ValueError: one message\n")
    self.assertEqual(compare.verdict("x", low, _jax(error=("ValueError", "one message"))).status,
                     "agree")
    v = compare.verdict("x", low, _jax(error=("ValueError", "another message")))
    self.assertEqual(v.status, "differ")
    self.assertIn("another message", v.diff)
    v = compare.verdict("x", low, _jax(error=("TypeError", "one message")))
    self.assertEqual(v.status, "differ")

  def test_messages_that_differ_in_a_few_words_are_one_class(self):
    """A word JAX added to a list is one class whatever the scenario
    (the platform named, the list's other members)."""
    msg = ("Registering an MLIR lowering rule for primitive my_op for an unknown platform {}. "
           "Known platforms are: cpu, cuda, {}rocm, tpu.")
    classes = set()
    for platform, others in (("neuron", ""), ("metal", "metal, ")):
      low = compare.parse_lowersim(1, "", "LSIM_E_X: NotImplementedError: "
                                   + msg.format(platform, others) + "\n")
      v = compare.verdict("x", low, _jax(error=("NotImplementedError",
                                                msg.format(platform, others + "proxy, "))))
      classes.update(v.classes)
    self.assertEqual(classes, {"error values: NotImplementedError: JAX's message has «proxy,» that "
                               "lowersim's lacks"})
    # Messages that share little are classed by their templates.
    low = compare.parse_lowersim(1, "", "LSIM_E_X: ValueError: one thing went wrong here\n")
    v = compare.verdict("x", low, _jax(error=("ValueError", "something else entirely, in other words")))
    self.assertEqual(v.classes, ["error: lowersim ValueError: one thing went wrong here; "
                                 "JAX ValueError: something else entirely, in other words"])

  def test_a_module_against_an_error_differs(self):
    v = compare.verdict("x", compare.LowersimOutcome("module", module=MODULE),
                        _jax(error=("RuntimeError", "no")))
    self.assertEqual(v.classes, ["outcome: lowersim module; JAX RuntimeError: no"])

  def test_warnings_are_compared(self):
    low = compare.parse_lowersim(0, MODULE, "warning: Platform 'metal' is experimental\n")
    self.assertEqual(low.warnings, ["Platform 'metal' is experimental"])
    self.assertEqual(compare.verdict("x", low, _jax(MODULE, warnings=low.warnings)).status, "agree")
    v = compare.verdict("x", low, _jax(MODULE))
    self.assertEqual(v.status, "differ")
    self.assertTrue(v.classes[0].startswith("warning only lowersim gives"))

  def test_lowersim_multi_line_message(self):
    low = compare.parse_lowersim(1, "", "warning: w\nLSIM_E_BACKEND_INIT: RuntimeError: two\nlines\n")
    self.assertEqual((low.error_class, low.error_message), ("RuntimeError", "two\nlines"))
    self.assertEqual(compare.parse_lowersim(2, "", "f.xml:3: bad\n").kind, "invalid")

  def test_detectors_remove_attributes(self):
    a = '"builtin.module"() ({\n}) {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32} : () -> ()'
    b = '"builtin.module"() ({\n}) {mhlo.num_partitions = 1 : i32} : () -> ()'
    self.assertEqual(compare.module_classes(a, b), ["uses_shape_polymorphism"])
    self.assertEqual(compare.remove_attr(a, "jax.uses_shape_polymorphism"), b)

  def test_shardy_differences_and_their_consequences(self):
    mesh = ('  "sdy.mesh"() <{mesh = #sdy.mesh<[], device_ids=[0]>, sym_name = "maximal_mesh_0"}> '
            ': () -> ()\n')
    call = ('  "stablehlo.custom_call"(%arg0) <{call_target_name = "t"}> {sdy.sharding = '
            '#sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : (tensor<4xf32>) -> ()\n')
    head, tail = '"builtin.module"() ({\n', '}) : () -> ()'
    # The same ops, other shardings: a Shardy difference.
    other = call.replace("maximal_mesh_0, []>]", "maximal_mesh_0, []>, <@maximal_mesh_0, []>]")
    self.assertEqual(compare.module_classes(head + mesh + call + tail,
                                            head + mesh + other + tail), ["shardy"])
    # A call only one side has takes its sharding and mesh along.
    self.assertEqual(compare.module_classes(head + mesh + call + tail, head + tail),
                     ["ops: only lowersim has stablehlo.custom_call"])

  def test_object_addresses_compare_as_one(self):
    message = "effects: [<jax._src.debugging.OrderedDebugEffect object at 0x{}>]"
    low = compare.parse_lowersim(1, "", "LSIM_E_X: ValueError: " + message.format("7f0000000000") + "\n")
    jax_out = _jax(error=("ValueError", message.format("7f66f2b8afd0")))
    self.assertEqual(compare.verdict("x", low, jax_out).status, "agree")

  def test_kernel_payloads_are_decoded_on_both_sides(self):
    ctx = mlir_text.context()
    kernel = mlir_text.parse("module { func.func @k() { return } }", ctx)
    import io
    buf = io.BytesIO()
    kernel.operation.write_bytecode(buf)
    body = base64.b64encode(buf.getvalue()).decode()
    config = json.dumps({"custom_call_config": {"body": body}}).replace('"', '\\"')
    text = MODULE.replace(
        '"stablehlo.sine"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>',
        '"stablehlo.custom_call"(%arg0) {call_target_name = "tpu_custom_call", api_version = 1 : i32, '
        f'backend_config = "{config}"}} : (tensor<4xf32>) -> tensor<4xf32>')
    c = compare.canonicalize(text)
    self.assertEqual(c.error, "")
    self.assertEqual(len(c.kernels), 1)
    self.assertIn("<kernel 0: compared as a module>", c.text)
    self.assertIn('sym_name = "k"', c.kernels[0].text)
    self.assertEqual(c.kernels[0].version, compare.bytecode_header(buf.getvalue())[0])

  def test_debug_locations_are_decoded_as_a_module(self):
    ctx = mlir_text.context(allow_unregistered=True)
    import io
    def b64(text):
      buf = io.BytesIO()
      mlir_text.parse(text, ctx).operation.write_bytecode(buf)
      return base64.b64encode(buf.getvalue()).decode()
    body = b64("module { func.func @k() { return } }")
    locs = b64('module attributes {tpu.locs = [loc("x_ref"), loc("get:"("get/get"))]} {}')
    config = json.dumps({"custom_call_config": {"body": body, "debug_locations": locs}})
    text = MODULE.replace(
        '"stablehlo.sine"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>',
        '"stablehlo.custom_call"(%arg0) {call_target_name = "tpu_custom_call", api_version = 1 : i32, '
        f'backend_config = "{config.replace(chr(34), chr(92) + chr(34))}"}} : (tensor<4xf32>) -> tensor<4xf32>')
    c = compare.canonicalize(text)
    self.assertEqual(c.error, "")
    self.assertEqual([k.target for k in c.kernels],
                     ["tpu_custom_call", "tpu_custom_call debug_locations"])
    self.assertIn("<kernel 1: compared as a module>", c.text)
    self.assertIn('loc("get:"(#loc1))', c.kernels[1].text)


class ScenarioTest(unittest.TestCase):
  def test_reader(self):
    s = sc.read_bytes(SCENARIO.encode(), "t.xml")
    self.assertEqual((s.platforms, len(s.args), s.eqns[0].op), (["cpu"], 1, "sine"))
    self.assertEqual(s.outputs(), [1])
    with self.assertRaises(sc.InvalidScenario) as e:
      sc.read_bytes(SCENARIO.replace('args="0"', 'args="3"').encode(), "t.xml")
    self.assertIn("t.xml:5:", str(e.exception))

  def test_not_expressible(self):
    s = sc.read_bytes(SCENARIO.replace('<scenario name="t">', '<scenario name="t" jax="0.4.1">')
                      .encode(), "t.xml")
    with self.assertRaises(program.NotExpressible):
      program.check_expressible(s)


def _lower_in_child(task):
  out = judge.jax_outcome(task["path"])
  return out.to_json()


def _programs_run(task):
  """The texts the oracle execs for the scenario (recorded), and its outcome."""
  texts = []
  run = program.execute_program

  def recording(text):
    texts.append(text)
    return run(text)

  program.execute_program = recording
  out = judge.jax_outcome(task["path"])
  return {"texts": texts, "outcome": out.to_json()}


class RenderingTest(unittest.TestCase):
  """JAX's side of a judgement is lowersim's rendering, run as it is."""

  def _explain(self, path: str) -> str:
    import subprocess
    binary = judge.lowersim_binary(ROOT)
    if not os.path.exists(binary):
      self.skipTest(f"no lowersim at {binary}")
    return subprocess.run([binary, "explain", "--python", "--jax",
                           judge.default_lowersim_jax(binary), path],
                          capture_output=True, text=True, check=True).stdout

  def test_the_oracle_runs_exactly_explains_text(self):
    path = _write(SCENARIO)
    want = self._explain(path)
    [(_, r)] = list(server.run([{"path": path}], _programs_run, jobs=1, timeout=120))
    self.assertEqual(r["texts"], [want])
    self.assertEqual(r["outcome"]["kind"], "module", r["outcome"])
    self.assertIn("stablehlo.sine", r["outcome"]["module"])

  def test_a_sessions_lowerings_each_from_its_cut(self):
    """Lowering K's outcome is the rendering of the session cut after it:
    the first export's module, then the second lowering's error."""
    path = os.path.join(ROOT, "testdata", "conformance", "export", "call-shape-mismatch.xml")
    self._explain(path)
    [(_, r)] = list(server.run([{"path": path}], lambda t: [
        o.to_json() for o in judge.jax_outcomes(t["path"])], jobs=1, timeout=120))
    self.assertEqual([o["kind"] for o in r], ["module", "error"], r)
    self.assertIn("Shape mismatch", r[1]["error_message"])


class BindingsTest(unittest.TestCase):
  def test_the_bindings_give_the_commands_outcome(self):
    """LOWERSIM_BINDINGS=1 (lowersim through its Python bindings) gives, for
    every bundled scenario and those with oneapi's logged warning, the outcome
    `lowersim lower` gives: module, error, warnings (their categories, a
    logger's name among them) in their order.  In a child: the bindings load
    MLIR into the process, which the fork server's parent must not hold."""
    import glob
    import subprocess
    import sys
    binary = judge.lowersim_binary(ROOT)
    if not os.path.exists(binary):
      self.skipTest(f"no lowersim at {binary}")
    paths = sorted(glob.glob(os.path.join(ROOT, "testdata", "scenarios", "*.xml")))
    paths += [os.path.join(ROOT, "testdata", "conformance", "callbacks", name) for name in
              ("buffer-multi-cuda-rocm-oneapi.xml", "pure-multi-oneapi-metal.xml")]
    script = (
        "import dataclasses, json, sys\n"
        "from oracle import judge\n"
        "binary, jax, paths = sys.argv[1], sys.argv[2], sys.argv[3:]\n"
        "out = []\n"
        "for p in paths:\n"
        "  a, b = judge.run_lowersim(binary, p, jax), judge.run_lowersim_bindings(binary, p, jax)\n"
        "  out.append([p, dataclasses.asdict(a), dataclasses.asdict(b)])\n"
        "print(json.dumps(out))\n")
    p = subprocess.run([sys.executable, "-c", script, binary, "0.12.0.1", *paths],
                       capture_output=True, text=True, cwd=ROOT)
    self.assertEqual(p.returncode, 0, p.stderr[-3000:])
    results = json.loads(p.stdout)
    self.assertEqual(len(results), len(paths))
    warned = 0
    for path, command, bindings in results:
      command.pop("seconds", None), bindings.pop("seconds", None)
      self.assertEqual(bindings, command, path)
      warned += bool(command["warnings"])
    self.assertTrue(any(w.startswith("jax._src.xla_bridge: ") for _, c, _ in results
                        for w in c["warnings"]))
    self.assertGreater(warned, 2)


class JaxTest(unittest.TestCase):
  def test_lowering_in_a_fork_server_child(self):
    server.check_clean_parent()
    paths = [_write(SCENARIO), _write(SCENARIO.replace("sine", "negate"))]
    results = dict((t["path"], r) for t, r in server.run([{"path": p} for p in paths],
                                                          _lower_in_child, jobs=2))
    for p in paths:
      self.assertEqual(results[p]["kind"], "module", results[p])
    self.assertIn("stablehlo.sine", results[paths[0]]["module"])
    self.assertIn("stablehlo.negate", results[paths[1]]["module"])
    server.check_clean_parent()  # the children's state stayed theirs

  def test_jax_raises_its_own_errors(self):
    path = _write(SCENARIO.replace('platforms="cpu"', 'backend="tpu"'))
    (_, r), = server.run([{"path": path}], _lower_in_child)
    self.assertEqual(r["kind"], "error")
    self.assertEqual(r["error_class"], "RuntimeError")
    self.assertTrue(r["error_message"].startswith("Backend 'tpu' failed to initialize"), r)

  def test_effect_tokens_in_the_programs_order(self):
    base = ('<?xml version="1.0"?><scenario name="t"><lower><arg dtype="f32" shape="4"/>'
            '{}<return values="0"/></lower></scenario>')
    debug = '<debug_callback args="0" ordered="true"/>'
    io = '<io_callback args="0" ordered="true"><result dtype="f32" shape="4"/></io_callback>'
    for first, second, has_results in ((debug, io, False), (io, debug, True)):
      (_, r), = server.run([{"path": _write(base.format(first + second))}], _lower_in_child)
      self.assertEqual(r["kind"], "module", r)
      # The first callback threads main's first token (%arg0).
      call = r["module"].split('"stablehlo.custom_call"(')[1]
      self.assertTrue(call.startswith("%arg0,"), call[:40])
      self.assertEqual("result_layouts = [dense<> : tensor<0xindex>]" in call, not has_results)

  def test_lower_batch_answers_as_one_process_each(self):
    """`python -m oracle lower --batch`: each scenario's answer is what
    `lower FILE` gives it, the stand-ins of one (a tpu backend that fails)
    not leaking into the next."""
    import subprocess
    import sys
    ok = _write(SCENARIO)
    bad = _write(SCENARIO.replace('platforms="cpu"', 'backend="tpu"'))
    run = lambda *args, **kw: subprocess.run([sys.executable, "-m", "oracle", "lower", *args],
                                             capture_output=True, cwd=ROOT, **kw)
    batch = run("--batch", input=f"{ok}\n{bad}\n{ok}\n".encode())
    self.assertEqual(batch.returncode, 0, batch.stderr)
    answers, data = [], batch.stdout
    while data:
      head, data = data.split(b"\n", 1)
      code, n_out, n_err = map(int, head.split())
      answers.append((code, data[:n_out], data[n_out:n_out + n_err]))
      data = data[n_out + n_err:]
    one = [run(p) for p in (ok, bad, ok)]
    self.assertEqual(answers, [(r.returncode, r.stdout, r.stderr) for r in one])
    self.assertEqual([a[0] for a in answers], [0, 1, 0])

  def test_timeout(self):
    def sleep(task):
      import time
      time.sleep(5)
      return {}
    (_, r), = server.run([{}], sleep, timeout=0.5)
    self.assertEqual(r, {"timeout": 0.5})


class KnownTest(unittest.TestCase):
  def test_known_and_stale(self):
    cls = "kernel (__gpu$xla.gpu.triton): JAX's kernel does not parse"  # a cause known.py has
    differ = compare.Verdict(path="a.xml", status="differ", classes=[cls])
    agree = compare.Verdict(path="b.xml", status="agree")
    fd, path = tempfile.mkstemp()
    os.close(fd)
    known.write([differ], path, "0.10.2")
    entries = known.read(path)
    self.assertEqual(entries["a.xml"].causes, ["triton-kernel-old"])
    entries["b.xml"] = known.Entry("b.xml", ["x"], [], 0)
    j = {x.v.path: x for x in report.judge_all([differ, agree], entries)}
    self.assertEqual(j["a.xml"].column, "known")
    self.assertFalse(j["a.xml"].failed)
    self.assertTrue(j["b.xml"].stale and j["b.xml"].failed)
    changed = compare.Verdict(path="a.xml", status="differ", classes=["uses_shape_polymorphism"])
    self.assertTrue(report.judge_all([changed], entries)[0].failed)


class TokenOrderTest(unittest.TestCase):
  MAIN = ('  "func.func"() <{function_type = (!stablehlo.token, !stablehlo.token, tensor<4xf32>) -> '
          '(!stablehlo.token, !stablehlo.token), sym_name = "main", sym_visibility = "public"}> ({\n'
          '  ^bb0(%arg0: !stablehlo.token, %arg1: !stablehlo.token, %arg2: tensor<4xf32>):\n'
          '    %0 = "stablehlo.custom_call"(%arg{a}, %arg2) : (!stablehlo.token, tensor<4xf32>) -> !stablehlo.token\n'
          '    %1 = "stablehlo.custom_call"(%arg{b}) : (!stablehlo.token) -> !stablehlo.token\n'
          '    "func.return"(R) : (!stablehlo.token, !stablehlo.token) -> ()\n  }) : () -> ()\n')

  def module(self, a, b, r):
    return self.MAIN.replace("%arg{a}", f"%arg{a}").replace("%arg{b}", f"%arg{b}").replace("(R)", f"({r})")

  def test_tokens_in_another_order_are_one_nondeterministic_class(self):
    ours = self.module(0, 1, "%0, %1")
    theirs = self.module(1, 0, "%1, %0")
    classes = compare.module_classes(ours, theirs)
    self.assertEqual(classes, ["token order: main's 2 ordered-effect tokens in another order"])
    self.assertTrue(known.nondeterministic(classes))
    # A real difference beside it is not explained.
    other = theirs.replace("tensor<4xf32>) -> !stablehlo.token", "tensor<4xf32>) -> !stablehlo.token {x}")
    self.assertNotIn("token order", " ".join(compare.module_classes(ours, other)))


class MinimizerTest(unittest.TestCase):
  def test_minimize_keeps_the_predicate(self):
    text = """<scenario name="m"><runtime><backend platform="cpu"/><backend platform="tpu"/></runtime>
      <lower function="f"><arg dtype="f32" shape="4"/><arg dtype="f32" shape="2"/>
      <op kind="sine" args="0"/><op kind="cosine" args="1"/><pure_callback args="2,3">
      <result dtype="f32" shape="4"/></pure_callback><return values="4"/></lower></scenario>"""
    small = fuzz.minimize(text.encode(), lambda data: b"pure_callback" in data)
    s = sc.read_bytes(small, "m.xml")
    self.assertEqual([e.kind for e in s.eqns], ["pure_callback"])
    self.assertFalse(s.runtime.backends)

  def test_minimize_drops_whole_lowerings_and_shrinks_later_ones(self):
    text = """<scenario name="m"><lower function="f" export="true"><arg dtype="f32" shape="4"/>
      <op kind="sine" args="0"/></lower><lower><arg dtype="f32" shape="2"/>
      <op kind="negate" args="0"/></lower><expect ok="true"/><lower function="g">
      <arg dtype="f32" shape="4"/><op kind="cosine" args="0"/>
      <call_exported lowering="1" args="0"/><io_callback args="2"/></lower></scenario>"""
    small = fuzz.minimize(text.encode(), lambda data: b"call_exported" in data)
    root = sc.parse_xml(small, "m.xml")
    lowers = [c for c in root.children if c.tag == "lower"]
    self.assertEqual(len(lowers), 2)  # the middle lowering and its <expect> are gone
    self.assertFalse([c for c in root.children if c.tag == "expect"])
    self.assertEqual([c.tag for c in lowers[1].children if c.tag != "arg"], ["call_exported"])
    self.assertEqual(lowers[1].children[-1].attrs["lowering"], "1")
    # A lowering that a later one calls stays.
    self.assertIsNone(fuzz._drop_lowering(root, 0))


if __name__ == "__main__":
  unittest.main()
