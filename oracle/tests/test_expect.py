"""Tests of the corpus's expectations from JAX (oracle/expect.py): the check
must be able to fail (a committed <expect> that is not what JAX did), the
rewrite says what JAX did and touches nothing else, and a second rewrite
changes nothing."""

from __future__ import annotations

import glob
import os
import tempfile
import unittest

from oracle import expect, judge, server

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CODES = {"LSIM_E_ALIAS_AVAL_MISMATCH": "ValueError", "LSIM_E_BACKEND_FAILED": "RuntimeError"}

ERROR_SCENARIO = """<?xml version="1.0"?>
<!-- a comment that stays -->
<scenario name="t">
  <description>A description   that stays,
  with its line breaks.</description>
  <lower function="f" platforms="cpu">
    <arg dtype="f32" shape="4"/>
  </lower>
  <expect error="LSIM_E_ALIAS_AVAL_MISMATCH" message="{message}"/>
</scenario>
"""

MODULE_SCENARIO = """<?xml version="1.0"?>
<scenario name="t">
  <lower function="f" platforms="cpu">
    <arg dtype="f32" shape="4"/>
  </lower>
  <expect ok="true">
    <contains>"stablehlo.sine"</contains>
    <absent>"stablehlo.cosine"</absent>
  </expect>
</scenario>
"""

JAX_MODULE = 'module {\n  %0 = "stablehlo.sine"(%arg0)\n}\n'


def _write(text: str) -> str:
  fd, path = tempfile.mkstemp(suffix=".xml")
  with os.fdopen(fd, "w") as f:
    f.write(text)
  return path


def _error(cls: str, msg: str, warnings=()) -> dict:
  return {"kind": "error", "error_class": cls, "error_message": msg, "warnings": list(warnings)}


def _module(warnings=()) -> dict:
  return {"kind": "module", "warnings": list(warnings)}


LOW_ERROR = {"kind": "error", "code": "LSIM_E_ALIAS_AVAL_MISMATCH", "error_class": "ValueError",
             "error_message": "right"}


class ExpectationTest(unittest.TestCase):
  def check(self, text: str, jax: dict, low: dict, jax_text: str = "", must_have=None) -> dict:
    path = _write(text)
    try:
      return expect.check(path, jax, low, jax_text, CODES, must_have=must_have)
    finally:
      os.unlink(path)

  def test_an_expectation_as_jax_did_is_the_same(self):
    r = self.check(ERROR_SCENARIO.format(message="right"), _error("ValueError", "right"), LOW_ERROR)
    self.assertEqual(r["state"], "same")
    r = self.check(MODULE_SCENARIO, _module(), {"kind": "module"}, JAX_MODULE)
    self.assertEqual(r["state"], "same")

  def test_another_message_differs_and_the_rewrite_is_jaxs_alone(self):
    text = ERROR_SCENARIO.format(message="wrong &amp; old")
    r = self.check(text, _error("ValueError", 'right & "new"\nline'), dict(LOW_ERROR, error_message='right & "new"\\nline'))
    self.assertEqual(r["state"], "differs")
    self.assertIn("outcome: committed error LSIM_E_ALIAS_AVAL_MISMATCH ('wrong & old')", r["changes"][0])
    self.assertIn('-  <expect error="LSIM_E_ALIAS_AVAL_MISMATCH" message="wrong &amp; old"/>', r["diff"])
    want = text.replace('message="wrong &amp; old"', 'message="right &amp; &quot;new&quot;&#10;line"')
    self.assertEqual(r["new_text"], want)          # comment, description, layout: byte for byte

  def test_a_module_where_jax_raised_differs(self):
    r = self.check(MODULE_SCENARIO, _error("ValueError", "boom"), dict(LOW_ERROR, error_message="boom"))
    self.assertEqual(r["state"], "differs")
    self.assertIn('<expect error="LSIM_E_ALIAS_AVAL_MISMATCH" message="boom"/>', r["new_text"])
    self.assertNotIn("<contains>", r["new_text"])

  def test_contains_and_absent_that_jaxs_module_contradicts_go(self):
    jax_text = 'module {\n  %0 = "stablehlo.cosine"(%arg0)\n}\n'
    r = self.check(MODULE_SCENARIO, _module(), {"kind": "module"}, jax_text)
    self.assertEqual(r["state"], "differs")
    self.assertEqual(len(r["changes"]), 2)
    self.assertIn('  <expect ok="true"/>\n</scenario>', r["new_text"])

  def test_warnings_are_jaxs(self):
    r = self.check(MODULE_SCENARIO, _module(["DeprecationWarning: a <b> & c"]), {"kind": "module"},
                   JAX_MODULE)
    self.assertEqual(r["state"], "differs")
    self.assertIn('    <absent>"stablehlo.cosine"</absent>\n'
                  '    <warning>DeprecationWarning: a &lt;b> &amp; c</warning>\n  </expect>',
                  r["new_text"])
    again = self.check(r["new_text"], _module(["DeprecationWarning: a <b> & c"]), {"kind": "module"},
                       JAX_MODULE)
    self.assertEqual(again["state"], "same")
    gone = self.check(r["new_text"], _module(), {"kind": "module"}, JAX_MODULE)
    self.assertEqual(gone["new_text"], MODULE_SCENARIO)

  def test_a_class_no_code_has_is_not_writable(self):
    r = self.check(ERROR_SCENARIO.format(message="m"), _error("KeyError", "m"),
                   dict(LOW_ERROR, error_class="ValueError", error_message="m"))
    self.assertTrue(r["problems"])

  def test_a_missing_expect_is_written_where_the_scenario_pins_something(self):
    text = MODULE_SCENARIO.replace(MODULE_SCENARIO[MODULE_SCENARIO.index("  <expect"):
                                                   MODULE_SCENARIO.index("</scenario>")], "")
    self.assertEqual(self.check(text, _module(), {"kind": "module"}, JAX_MODULE)["state"], "skip")
    r = self.check(text, _module(), {"kind": "module"}, JAX_MODULE, must_have=True)
    self.assertEqual(r["state"], "missing")
    self.assertTrue(r["new_text"].endswith('  </lower>\n  <expect ok="true"/>\n</scenario>\n'))

  def test_not_expressible_and_refused_are_left_alone(self):
    text = ERROR_SCENARIO.format(message="x")
    self.assertEqual(self.check(text, {"kind": "not_expressible"}, LOW_ERROR)["state"], "skip")
    self.assertEqual(self.check(text, _error("ValueError", "y"), {"kind": "invalid"})["state"], "skip")

  def test_the_rewrite_is_byte_stable_on_the_corpus(self):
    """Each corpus file's <expect> rendered as it says is the file itself:
    what does not change keeps its bytes, so a second rewrite is a no-op."""
    files = sorted(glob.glob(os.path.join(ROOT, "testdata", "**", "*.xml"), recursive=True))
    self.assertGreater(len(files), 500)
    for f in files:
      with open(f, encoding="utf-8") as h:
        text = h.read()
      if expect.is_session(text):
        continue
      try:
        x = expect.parse_expect(text)
      except Exception:  # the reader's hostile fixtures
        continue
      if x is not None:
        self.assertEqual(expect.render(text, x), text, f)

  def test_judged_in_a_fork_server_child(self):
    """The whole path: lowersim and JAX on a corpus scenario whose committed
    message was altered, the module printed by MLIR 19 for <contains>."""
    src = os.path.join(ROOT, "testdata", "conformance", "callbacks", "alias-aval-dtype.xml")
    with open(src, encoding="utf-8") as f:
      text = f.read()
    bad = _write(text.replace('message="input_output_aliases', 'message="altered input_output_aliases'))
    ok = _write(text)
    mod = _write(MODULE_SCENARIO.replace('<arg dtype="f32" shape="4"/>',
                                         '<arg dtype="f32" shape="4"/>\n    <op kind="sine" args="0"/>'))
    binary = judge.lowersim_binary(ROOT)
    expect.load_codes(binary)
    try:
      from oracle import releases
      lowersim_jax = releases.lowersim_jax(releases.installed(), releases.lowersim_profiles(binary))
      tasks = [{"path": p, "lowersim": binary, "lowersim_jax": lowersim_jax, "expect": True}
               for p in (bad, ok, mod)]
      got = {t["path"]: r for t, r in server.run(tasks, judge.judge, jobs=2, timeout=120)}
    finally:
      for p in (bad, ok, mod):
        os.unlink(p)
    self.assertEqual(got[bad]["status"], "agree")
    self.assertEqual(got[bad]["expect"]["state"], "differs")
    self.assertEqual(got[bad]["expect"]["new_text"], text)
    self.assertEqual(got[ok]["expect"]["state"], "same")
    self.assertEqual(got[mod]["expect"]["state"], "same", got[mod]["expect"])

  def test_jaxs_module_printed_by_mlir_19(self):
    """Without the comparison's word (or with a kernel payload), JAX's own
    module goes through MLIR 19's printer before <contains> is matched."""
    mod = _write(MODULE_SCENARIO.replace('<arg dtype="f32" shape="4"/>',
                                         '<arg dtype="f32" shape="4"/>\n    <op kind="sine" args="0"/>'))
    bad = _write(MODULE_SCENARIO.replace('<arg dtype="f32" shape="4"/>',
                                         '<arg dtype="f32" shape="4"/>\n    <op kind="cosine" args="0"/>'))
    try:
      got = {t["path"]: r for t, r in server.run([{"path": mod}, {"path": bad}], _unagreed, jobs=2,
                                                  timeout=120)}
    finally:
      os.unlink(mod)
      os.unlink(bad)
    self.assertEqual(got[mod]["state"], "same", got[mod])
    self.assertEqual(got[bad]["state"], "differs", got[bad])
    self.assertEqual(len(got[bad]["changes"]), 2)


def _unagreed(task: dict) -> dict:
  from oracle import compare
  out = judge.jax_outcome(task["path"])
  return judge.expect_check(task["path"], compare.LowersimOutcome("module", module="not JAX's"), out,
                            judge.lowersim_binary(ROOT), agreed=False)

