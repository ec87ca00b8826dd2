"""Tests of what makes the oracle judge every JAX release: the releases and
their selection, lowersim's --jax for a release, interpreter discovery (and
its message when there is none), per-release known differences, the
campaign's rule for unpinned <expect>s, feature detection on the installed
JAX, and JAX's nondeterminism classed as such."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from oracle import campaign, compare, features, judge, known, releases, report, server, venvs
from oracle import scenario as sc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _write(text: str, suffix: str = ".xml") -> str:
  fd, path = tempfile.mkstemp(suffix=suffix)
  with os.fdopen(fd, "w") as f:
    f.write(text)
  return path


class ReleasesTest(unittest.TestCase):
  def test_every_requirements_file_is_a_release_with_its_python_and_exact_pins(self):
    every = releases.all_releases()
    self.assertIn(releases.installed(), every)
    self.assertEqual(every, sorted(every, key=releases.version_key))
    for r in every:
      self.assertRegex(releases.python_of(r), r"^3\.\d+$")
      with open(releases.requirements_file(r), encoding="utf-8") as f:
        pins = [l.strip() for l in f if l.strip() and not l.startswith("#")]
      self.assertTrue(pins and all("==" in p for p in pins), (r, pins))
      self.assertIn(f"jax=={r}", pins)
      self.assertIn(f"jaxlib=={r}", pins)

  def test_the_installed_environment_is_its_requirements_file(self):
    """Every package the file pins is installed at exactly that version."""
    from importlib import metadata
    with open(releases.requirements_file(releases.installed()), encoding="utf-8") as f:
      pins = dict(l.strip().split("==") for l in f if l.strip() and not l.startswith("#"))
    for name, version in pins.items():
      self.assertEqual(metadata.version(name), version, name)
    self.assertEqual(releases.python_of(releases.installed()), "%d.%d" % sys.version_info[:2])

  def test_version_order(self):
    self.assertEqual(sorted(["0.12.0.1", "0.11.0", "0.12.0", "0.10.2", "0.11.10"],
                            key=releases.version_key),
                     ["0.10.2", "0.11.0", "0.11.10", "0.12.0", "0.12.0.1"])

  def test_selection(self):
    every = ["0.10.2", "0.11.0", "0.12.0", "0.12.0.1"]
    self.assertEqual(releases.select(None, every), every)
    self.assertEqual(releases.select("all", every), every)
    self.assertEqual(releases.select("0.12.0.1,0.10.2,0.12.0.1", every), ["0.10.2", "0.12.0.1"])
    with self.assertRaises(releases.SelectionError) as e:
      releases.select("0.10.2,0.13.0", every)
    self.assertIn("'0.13.0'", str(e.exception))
    with self.assertRaises(releases.SelectionError):
      releases.select(",", every)

  def test_lowersim_jax_is_the_release_when_lowersim_has_it_else_its_newest(self):
    profiles = ["0.10.2", "0.11.1.dev20260827+1e1c6a8fc0"]
    self.assertEqual(releases.lowersim_jax("0.10.2", profiles), "0.10.2")
    self.assertEqual(releases.lowersim_jax("0.12.0", profiles), "0.11.1.dev20260827+1e1c6a8fc0")
    self.assertEqual(releases.lowersim_jax("0.12.0", profiles + ["0.12.0", "0.12.0.1"]), "0.12.0")

  def test_lowersim_profiles_are_read_from_the_command(self):
    binary = judge.lowersim_binary(ROOT)
    profiles = releases.lowersim_profiles(binary)
    self.assertIn("0.10.2", profiles)
    for p in profiles:  # each a version lowersim lowers for
      r = subprocess.run([binary, "versions", p], capture_output=True, text=True)
      self.assertEqual(r.returncode, 0, (p, r.stderr))

  def test_pins(self):
    installed, commit = releases.installed(), releases.installed_commit()
    self.assertTrue(releases.pins(None))
    self.assertTrue(releases.pins(installed))
    self.assertFalse(releases.pins("0.11.1.dev20260827+1e1c6a8fc0"))
    self.assertFalse(releases.pins(installed + ".9"))
    if commit:
      self.assertTrue(releases.pins(commit[:7]))
      self.assertFalse(releases.pins(commit[:6]))   # too short to name a commit
    self.assertFalse(releases.names_release("abcdef0", "0.12.0", "0123456789" * 4))


class InterpreterTest(unittest.TestCase):
  """venvs.find_interpreter with a made-up machine: which() and running a
  candidate answer from tables."""

  def machine(self, interpreters: dict[str, str], on_path: dict[str, str], home: str):
    def which(name, path=None):
      return on_path.get(name)

    def run(argv, timeout=30):
      exe = argv[0]
      if exe.endswith("pyenv"):
        return None
      v = interpreters.get(exe)
      if v is None:
        return None
      if "venv" in argv[-1] and v.endswith("-novenv"):
        return None
      return v.replace("-novenv", "") + "\n"
    return which, run

  def test_pyenv_versions_first_newest_patch(self):
    home = tempfile.mkdtemp()
    for v in ("3.12.1", "3.12.10", "3.11.7", "3.12.2rc1"):
      os.makedirs(os.path.join(home, ".pyenv", "versions", v, "bin"))
    p = lambda v: os.path.join(home, ".pyenv", "versions", v, "bin", "python3.12")
    which, run = self.machine({p("3.12.10"): "3.12", p("3.12.1"): "3.12"}, {}, home)
    found = venvs.find_interpreter("0.12.0", "3.12", env={"HOME": home, "PATH": ""},
                                   which=which, run=run)
    self.assertEqual(found, p("3.12.10"))
    shutil.rmtree(home)

  def test_path_when_no_pyenv(self):
    which, run = self.machine({"/usr/bin/python3.12": "3.12"}, {"python3.12": "/usr/bin/python3.12"},
                              "/nonexistent")
    self.assertEqual(venvs.find_interpreter("0.11.0", "3.12", env={"HOME": "/nonexistent"},
                                            which=which, run=run), "/usr/bin/python3.12")

  def test_no_interpreter_says_which_release_which_python_and_what_was_tried(self):
    which, run = self.machine({"/usr/bin/python3": "3.11", "/usr/bin/python3.12": "3.12-novenv"},
                              {"python3": "/usr/bin/python3", "python3.12": "/usr/bin/python3.12"},
                              "/nonexistent")
    with self.assertRaises(venvs.NoInterpreter) as e:
      venvs.find_interpreter("0.12.0.1", "3.12", env={"HOME": "/nonexistent"}, which=which, run=run)
    msg = str(e.exception)
    self.assertIn("JAX 0.12.0.1 needs Python 3.12", msg)
    self.assertIn("oracle/requirements/0.12.0.1.txt", msg)
    self.assertIn("/usr/bin/python3 (python3 on PATH) is Python 3.11", msg)
    self.assertIn("/usr/bin/python3.12 (python3.12 on PATH) has no venv", msg)
    self.assertIn("pyenv install 3.12", msg)

  def test_this_interpreter_is_found_for_its_own_version(self):
    """On this machine: an interpreter of this Python's version exists, so
    discovery finds one that really is that version."""
    want = "%d.%d" % sys.version_info[:2]
    path = venvs.find_interpreter("test", want)
    out = subprocess.run([path, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                         capture_output=True, text=True).stdout.strip()
    self.assertEqual(out, want)

  def test_campaign_judges_what_it_can_and_names_what_it_cannot(self):
    """The campaign with a release whose Python does not exist: the
    release is named with the reason, the run says it judged nothing else
    (no release chosen that can run), and --jax makes it a failure."""
    d = tempfile.mkdtemp()
    try:
      with open(os.path.join(d, "0.99.0.txt"), "w") as f:
        f.write("# python: 3.99\njax==0.99.0\njaxlib==0.99.0\n")
      r = subprocess.run([sys.executable, "-c",
                          "import sys; from oracle import campaign, releases; "
                          f"releases.REQUIREMENTS = {d!r}; "
                          "sys.exit(campaign.main(['--jax', '0.99.0', '--self-test']))"],
                         capture_output=True, text=True, cwd=ROOT)
    finally:
      shutil.rmtree(d)
    self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
    self.assertIn("CANNOT JUDGE JAX 0.99.0: JAX 0.99.0 needs Python 3.99", r.stdout)
    self.assertTrue(r.stdout.rstrip().endswith("0 passed, 1 failed, 0 skipped"), r.stdout)


class KnownPerReleaseTest(unittest.TestCase):
  def test_a_release_reads_its_own_file(self):
    self.assertEqual(releases.known_file("0.12.0"),
                     os.path.join(ROOT, "oracle", "known-differences", "0.12.0.txt"))
    d = tempfile.mkdtemp()
    cls = "kernel (__gpu$xla.gpu.triton): JAX's kernel does not parse"
    v = compare.Verdict(path="a.xml", status="differ", classes=[cls])
    old, new = os.path.join(d, "0.10.2.txt"), os.path.join(d, "0.12.0.txt")
    known.write([v], old, "0.10.2")
    with open(old, encoding="utf-8") as f:
      self.assertIn("JAX 0.10.2", f.readline())
    # Listed for one release, the same difference is new on another.
    self.assertEqual(report.judge_all([v], known.read(old))[0].column, "known")
    self.assertEqual(report.judge_all([v], known.read(new))[0].column, "differ")
    shutil.rmtree(d)

  def test_every_known_differences_file_names_a_release(self):
    d = os.path.join(ROOT, "oracle", "known-differences")
    for f in os.listdir(d):
      self.assertIn(f[:-len(".txt")], releases.all_releases(), f)
      known.read(os.path.join(d, f))  # parses


class NondeterminismTest(unittest.TestCase):
  MSG = "sin does not accept dtype int32. Accepted dtypes are subtypes of {}."

  def verdict(self, ours: str, theirs: str, warnings=()):
    low = compare.parse_lowersim(1, "", f"LSIM_E_X: TypeError: {ours}\n")
    from oracle import program
    return compare.verdict("x", low, program.Outcome(kind="error", error_class="TypeError",
                                                     error_message=theirs, warnings=list(warnings)))

  def test_a_dtype_list_in_another_order_agrees_up_to_jaxs_nondeterminism(self):
    v = self.verdict(self.MSG.format("floating, complexfloating"),
                     self.MSG.format("complexfloating, floating"))
    self.assertEqual(v.classes, [compare.DTYPE_ORDER_CLASS])
    j = report.judge_all([v], {})[0]
    self.assertEqual((j.column, j.nondeterministic, j.failed), ("agree", True, False))
    self.assertEqual([c.name for c in known.causes_of(v.classes)], ["dtype-set-order"])

  def test_another_list_is_a_difference(self):
    v = self.verdict(self.MSG.format("floating, complexfloating"), self.MSG.format("floating, integer"))
    self.assertNotIn(compare.DTYPE_ORDER_CLASS, v.classes)
    self.assertEqual(report.judge_all([v], {})[0].column, "differ")
    # The order beside a real difference is no excuse.
    v = self.verdict(self.MSG.format("floating, complexfloating"),
                     self.MSG.format("complexfloating, floating"), warnings=["UserWarning: w"])
    self.assertEqual(report.judge_all([v], {})[0].column, "differ")

  def test_positional_lists_and_the_expectation_check(self):
    m = "add does not accept dtype bool at position 0. Accepted dtypes at position 0 are subtypes of {}."
    self.assertEqual(compare.nondeterminism_free(m.format("integer, floating, complexfloating")),
                     compare.nondeterminism_free(m.format("complexfloating, integer, floating")))
    from oracle import expect
    committed = expect.Expect(error="LSIM_E_DTYPE", message=self.MSG.format("floating, complexfloating"))
    new, problems = expect.expected_from_jax(
        committed, {"kind": "error", "error_class": "TypeError",
                    "error_message": self.MSG.format("complexfloating, floating"), "warnings": []},
        {"kind": "error"}, "", {"LSIM_E_DTYPE": "TypeError"})
    self.assertEqual(problems, [])
    self.assertTrue(expect.same(new, committed))   # the committed order stays

  def test_nondeterministic_verdicts_get_no_known_entry(self):
    v = self.verdict(self.MSG.format("a, b"), self.MSG.format("b, a"))
    path = _write("", ".txt")
    self.assertEqual(known.write([v], path, "x"), 0)
    os.unlink(path)


class UnpinnedExpectTest(unittest.TestCase):
  """The campaign rewrites an unpinned scenario's <expect> only when every
  release gives the same text."""

  def setUp(self):
    self.dir = tempfile.mkdtemp(dir=os.path.join(ROOT, "build"))
    self.file = os.path.join(self.dir, "s.xml")
    with open(self.file, "w") as f:
      f.write("old")
    self.rel = os.path.relpath(self.file, ROOT)

  def tearDown(self):
    shutil.rmtree(self.dir)

  def e(self, state, text=None):
    return {self.rel: {"profile": "unpinned", "state": state, "changes": [], "problems": [],
                       "new_text": text}}

  def content(self):
    with open(self.file) as f:
      return f.read()

  def test_written_when_every_release_agrees(self):
    lines, resolved = campaign.unpinned_expectations(
        {"0.10.2": self.e("differs", "new"), "0.12.0": self.e("differs", "new")},
        ["0.10.2", "0.12.0"], write=True)
    self.assertEqual(self.content(), "new")
    self.assertEqual(resolved, {"0.10.2": [self.rel], "0.12.0": [self.rel]})

  def test_not_written_when_releases_differ_or_one_was_not_run(self):
    for results, every, why in (
        ({"0.10.2": self.e("same"), "0.12.0": self.e("differs", "new")}, ["0.10.2", "0.12.0"],
         "the releases differ"),
        ({"0.10.2": self.e("differs", "a"), "0.12.0": self.e("differs", "b")}, ["0.10.2", "0.12.0"],
         "different <expect>s"),
        ({"0.12.0": self.e("differs", "new")}, ["0.10.2", "0.12.0"], "JAX 0.10.2 not judged")):
      lines, resolved = campaign.unpinned_expectations(results, every, write=True)
      self.assertEqual(self.content(), "old")
      self.assertFalse(any(resolved.values()))
      self.assertIn(why, lines[0])
      self.assertRegex(lines[0], r"IS NOT WHAT JAX (0\.10\.2, )?0\.12\.0 DID")

  def test_without_write_it_is_reported(self):
    lines, _ = campaign.unpinned_expectations(
        {"0.10.2": self.e("same"), "0.11.0": self.e("differs", "x")}, ["0.10.2", "0.11.0"], False)
    self.assertEqual(len(lines), 1)
    self.assertIn("JAX 0.11.0 DID", lines[0])
    self.assertIn("it is what JAX 0.10.2 did", lines[0])
    self.assertEqual(self.content(), "old")


PALLAS = """<?xml version="1.0"?>
<scenario name="t">
  <runtime><backend platform="cpu"/><backend platform="cuda"/></runtime>
  <pallas {attrs}/>
  <lower function="f" platforms="cuda">
    <arg dtype="f32" shape="8"/>
    <pallas_call args="0" kernel="add_one" grid="1" compiler_params="{params}"><result dtype="f32" shape="8"/></pallas_call>
  </lower>
</scenario>
"""

COMPUTE_ON = """<?xml version="1.0"?>
<scenario name="t">
  <lower function="f" platforms="cpu">
    <arg dtype="f32" shape="4"/>
    <compute_on compute_type="device_host" op="sine" args="0"/>
  </lower>
</scenario>
"""


def _outcome(task):
  return judge.jax_outcome(task["path"]).to_json()


def _imports_registration(task):
  import importlib
  import sys as child_sys
  from oracle import standins
  importlib.import_module(task["module"])
  return {"registered": [m for m in standins.PALLAS_REGISTRATION_MODULES.values()
                         if m in child_sys.modules]}


class FeatureTest(unittest.TestCase):
  """Feature detection on the installed JAX, checked against what JAX does."""

  def test_config_option_detection_is_what_config_update_does(self):
    for name in (features.USE_MOSAIC_GPU, "jax_enable_x64", "jax_no_such_option_at_all"):
      (_, r), = server.run([name], _try_update, timeout=60)
      self.assertEqual(features.has_config_option(name), r["known"], name)
    self.assertTrue(features.has_config_option("jax_enable_x64"))
    self.assertFalse(features.has_config_option("jax_no_such_option_at_all"))

  def test_use_mosaic_gpu_is_not_expressible_exactly_where_the_option_is_gone(self):
    path = _write(PALLAS.format(attrs='use_mosaic_gpu="false"', params="triton"))
    (_, r), = server.run([{"path": path}], _outcome, timeout=120)
    os.unlink(path)
    if features.has_config_option(features.USE_MOSAIC_GPU):
      self.assertNotEqual(r["kind"], "not_expressible", r)
    else:
      self.assertEqual(r["kind"], "not_expressible")
      self.assertEqual(r["reason"], '<pallas use_mosaic_gpu="false">: jax.config has no '
                                    'jax_pallas_use_mosaic_gpu option')
    # Unset, the option is JAX's default and the scenario runs on every release.
    path = _write(PALLAS.format(attrs='mosaic_gpu="false"', params="triton"))
    (_, r), = server.run([{"path": path}], _outcome, timeout=120)
    os.unlink(path)
    self.assertNotEqual(r["kind"], "not_expressible", r)

  def test_compute_on_function_form_is_found_and_lowers(self):
    fn, name = features.compute_on_function()
    self.assertIsNotNone(fn, name)
    path = _write(COMPUTE_ON)
    (_, r), = server.run([{"path": path}], _outcome, timeout=120)
    os.unlink(path)
    self.assertEqual(r["kind"], "module", r)
    self.assertIn('_xla_compute_type = "host"', r["module"])   # the compute type reached the module

  def test_what_the_parent_leaves_to_the_children_registers_a_backend_on_import(self):
    """Each module preimport left to the children imports a registration
    module when imported (in a fresh child); the ones it imported do not
    (the parent is clean)."""
    failed = server.preimport()  # again: what it finds is the same
    server.check_clean_parent()
    for mod, reg in server.LEFT_TO_CHILDREN.items():
      (_, r), = server.run([{"module": mod}], _imports_registration, timeout=120)
      self.assertIn(reg, r["registered"], mod)
    for mod in server.PREIMPORTS:
      if mod not in server.LEFT_TO_CHILDREN and mod not in failed:
        self.assertIn(mod, sys.modules)

  def test_triton_params_without_triton(self):
    """A scenario without Triton naming Triton's params: where importing
    the params' module imports Triton's registration, not expressible; else
    JAX's own outcome."""
    path = _write(PALLAS.format(attrs='triton="false"', params="triton"))
    (_, r), = server.run([{"path": path}], _outcome, timeout=120)
    os.unlink(path)
    if "jax.experimental.pallas.triton" in server.LEFT_TO_CHILDREN:
      self.assertEqual(r["kind"], "not_expressible", r)
      self.assertIn("Triton's CompilerParams without triton", r["reason"])
    else:
      self.assertNotEqual(r["kind"], "not_expressible", r)


def _try_update(name: str) -> dict:
  """In a child: whether jax.config.update knows the option."""
  import jax
  try:
    jax.config.update(name, False)
  except AttributeError:
    return {"known": False}
  return {"known": True}


if __name__ == "__main__":
  unittest.main()
