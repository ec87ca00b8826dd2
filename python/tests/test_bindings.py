"""The bindings against the command: the same modules, the same errors.

Run by CTest as python.bindings (python/tests/run.sh), with LOWERSIM the
built command and SOURCE_DIR the repository."""

from __future__ import annotations

import builtins
import contextlib
import errno
import logging
import os
import pathlib
import pickle
import resource
import stat
import subprocess
import threading
import warnings

import pytest

import lowersim

SOURCE = pathlib.Path(os.environ.get("SOURCE_DIR", pathlib.Path(__file__).parents[2]))
LOWERSIM = os.environ.get("LOWERSIM", str(SOURCE / "build" / "lowersim"))
SCENARIOS = sorted((SOURCE / "testdata" / "scenarios").glob("*.xml"))

SINE = ('<scenario name="sine"><lower function="f" platforms="cpu,tpu" export="true">'
        '<arg dtype="f32" shape="4"/><op kind="sine" args="0"/></lower></scenario>')


def cli(*args: str) -> subprocess.CompletedProcess:
  return subprocess.run([LOWERSIM, *args], capture_output=True, text=True)


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_lower_file_is_lowersim_lower(path):
  """Each bundled scenario: the module `lowersim lower` prints, or the
  exception whose `line` is the error line it prints, of the class its exit
  code says, and (as JAX's exception) of JAX's class, named after it, whose
  str() is JAX's message."""
  p = cli("lower", str(path))
  if p.returncode == 0:
    assert lowersim.lower_file(path) == p.stdout
    return
  with pytest.raises(lowersim.Error) as raised:
    lowersim.lower_file(path)
  e = raised.value
  assert e.line == p.stderr.strip().splitlines()[-1]
  assert isinstance(e, lowersim.LoweringError if p.returncode == 1 else lowersim.InvalidScenario)
  assert (type(e).__name__, str(e)) == (e.jax_class, e.message)
  builtin = getattr(builtins, e.jax_class, None)
  if isinstance(builtin, type) and issubclass(builtin, Exception):
    assert isinstance(e, builtin)


def test_errors_are_jax_builtin_classes():
  """pytest.raises(JAX's class) catches lowersim's error, which pickles
  (multiprocessing, pytest-xdist) as the class it is."""
  with pytest.raises(ValueError, match="^the platform for the specified backend cpu is "):
    lowersim.lower_file(SOURCE / "testdata" / "scenarios" / "backend-mismatch.xml")
  with pytest.raises(NotImplementedError) as raised:
    lowersim.lower_file(SOURCE / "testdata" / "scenarios" / "missing-rule.xml")
  e = raised.value
  assert type(e) is lowersim.LoweringError.NotImplementedError
  assert repr(e) == f"NotImplementedError({e.message!r})"
  again = pickle.loads(pickle.dumps(e))
  assert type(again) is type(e) and (again.status, again.code, again.jax_class, again.message) == \
      (e.status, e.code, e.jax_class, e.message)


@pytest.mark.parametrize("path, cls, errno_", [
    ("/nonexistent/scenario.xml", FileNotFoundError, errno.ENOENT),
    ("/", IsADirectoryError, errno.EISDIR)])
def test_unreadable_files_are_oserrors(path, cls, errno_):
  """A file that cannot be read is the OSError Python raises for it (and an
  InvalidScenario, LSIM_E_IO), with errno, strerror and filename."""
  with pytest.raises(cls) as raised:
    lowersim.lower_file(path)
  e = raised.value
  assert isinstance(e, lowersim.InvalidScenario) and e.code == "LSIM_E_IO"
  assert (e.errno, e.strerror, e.filename) == (errno_, os.strerror(errno_), path)
  assert str(e) == e.message == f"{path}: {os.strerror(errno_)}"
  assert type(pickle.loads(pickle.dumps(e))) is type(e)


def test_lowering_error_carries_jax_class_and_message():
  with pytest.raises(lowersim.LoweringError) as raised:
    lowersim.lower_file(SOURCE / "testdata" / "scenarios" / "backend-mismatch.xml")
  e = raised.value
  assert (e.code, e.jax_class) == ("LSIM_E_BACKEND_PLATFORM_MISMATCH", "ValueError")
  assert e.message == ("the platform for the specified backend cpu is different from the "
                       "lowering platform cuda")
  assert e.status == -1


def test_lower_xml_from_memory():
  module = lowersim.lower_xml(SINE)
  assert '"stablehlo.sine"' in module and "jax.uses_shape_polymorphism = true" in module
  assert lowersim.lower_xml(SINE.encode()) == module


def test_invalid_scenarios_name_their_line():
  with pytest.raises(lowersim.InvalidScenario) as raised:
    lowersim.lower_xml('<scenario name="x">\n<lower><op kind="sine" args="7"/></lower></scenario>',
                       name="mine.xml")
  assert raised.value.code == "LSIM_E_INVALID_INPUT"
  assert raised.value.message.startswith("mine.xml:2: ")
  with pytest.raises(lowersim.InvalidScenario) as raised:
    lowersim.lower_file("/nonexistent/scenario.xml")
  assert raised.value.code == "LSIM_E_IO"


def test_jax_versions():
  versions = lowersim.versions()
  assert versions[0] == "0.10.2" and len(versions) >= 2
  for v in versions:
    assert lowersim.lower_xml(SINE, jax=v) == lowersim.lower_xml(SINE)
  with pytest.raises(ValueError, match="lowersim models no JAX '0.4.0'"):
    lowersim.lower_xml(SINE, jax="0.4.0")


def test_errors_are_the_catalogue():
  rows = lowersim.errors()
  listed = [line.split()[0] for line in cli("errors").stdout.splitlines()
            if line.startswith("LSIM_")]
  assert [r.code for r in rows] == listed
  mismatch = next(r for r in rows if r.code == "LSIM_E_BACKEND_PLATFORM_MISMATCH")
  assert (mismatch.status, mismatch.jax_class) == (-1, "ValueError")
  assert "{backend_platform}" in mismatch.template
  assert mismatch.doc == "docs/jax-behaviour.md#LSIM_E_BACKEND_PLATFORM_MISMATCH"


def test_jax_warnings_are_warnings():
  xml = ('<scenario name="w"><runtime><backend platform="cpu"/><backend platform="oneapi"/>'
         '</runtime><lower function="f"><arg dtype="f32" shape="4"/>'
         '<op kind="sine" args="0"/></lower></scenario>')
  with warnings.catch_warnings(record=True) as caught, \
       _records("jax._src.xla_bridge") as records:
    warnings.simplefilter("always")
    lowersim.lower_xml(xml)
  assert caught == []  # JAX logs this one, as lowersim lower's `warning: LOGGER: text` says
  assert [(r.name, r.levelname, r.getMessage()) for r in records] == [
      ("jax._src.xla_bridge", "WARNING", "Platform 'oneapi' is experimental and not all JAX "
       "functionality may be correctly supported!")]


@contextlib.contextmanager
def _records(name: str):
  """The log records of the logger `name` while the block runs."""
  records: list[logging.LogRecord] = []
  handler = logging.Handler()
  handler.emit = records.append
  logger = logging.getLogger(name)
  logger.addHandler(handler)
  try:
    yield records
  finally:
    logger.removeHandler(handler)


def test_jax_warnings_have_jax_categories():
  """Each warning is of JAX's category, as `lowersim lower` prints it
  (`warning: CATEGORY: text`); a DeprecationWarning is one, so Python's
  default filters hide it outside __main__ as they hide JAX's."""
  path = SOURCE / "testdata" / "scenarios" / "backend-mismatch.xml"
  said = [l[len("warning: "):] for l in cli("lower", str(path)).stderr.splitlines()
          if l.startswith("warning: ")]
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with pytest.raises(ValueError):
      lowersim.lower_file(path)
  assert [f"{w.category.__name__}: {w.message}" for w in caught] == said
  assert said and said[0].startswith("DeprecationWarning: ")
  assert issubclass(caught[0].category, DeprecationWarning)
  with warnings.catch_warnings(record=True) as caught:
    warnings.resetwarnings()
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    with pytest.raises(ValueError):
      lowersim.lower_file(path)
  assert caught == []


def test_reprint_is_mlir_printing():
  custom = "module {\n func.func @f() {\n return\n }\n}"
  generic = ('"builtin.module"() ({ "func.func"() <{function_type = () -> (), sym_name = "f"}> '
             '({ "func.return"() : () -> () }) : () -> () }) : () -> ()')
  assert lowersim.reprint(custom) == lowersim.reprint(generic)
  module = lowersim.lower_xml(SINE)
  assert lowersim.reprint(module) == module
  with pytest.raises(lowersim.InvalidScenario, match="the module does not parse"):
    lowersim.reprint("module {")


def test_threads_lower_side_by_side():
  """Each thread has its own lowerer (MLIR context)."""
  expected = lowersim.lower_xml(SINE)
  results, errors = [], []

  def work():
    try:
      for _ in range(20):
        results.append(lowersim.lower_xml(SINE))
    except Exception as e:  # pragma: no cover - reported below
      errors.append(e)

  threads = [threading.Thread(target=work) for _ in range(4)]
  for t in threads:
    t.start()
  for t in threads:
    t.join()
  assert not errors and results == [expected] * 80


def test_lowerer_objects():
  with lowersim.Lowerer() as lowerer:
    assert lowerer.lower_xml(SINE) == lowersim.lower_xml(SINE)
  lowerer.close()  # twice is harmless


DEEP = ("the module does not parse: it is nested deeper than 256 levels at line 1, the limit "
        "lowersim gives MLIR's parser and printer (their recursion would overflow the stack)")


@pytest.mark.parametrize("text", [
    "module {" * 20000 + "}" * 20000,
    "module attributes {x.a = " + "[" * 20000 + "]" * 20000 + "} {}",
    "module attributes {x.a = affine_map<(d0) -> (" + "-" * 20000 + "d0)>} {}",
], ids=["modules", "arrays", "affine"])
def test_reprint_deep_text_is_refused(text):
  """MLIR text nested past the parser's stack (20,000 deep took the
  interpreter down) raises InvalidScenario, whose message says why."""
  with pytest.raises(lowersim.InvalidScenario) as raised:
    lowersim.reprint(text)
  assert raised.value.message == DEEP


def test_judge_deep_kernel_is_refused():
  """A kernel's text nested past the parser's stack inside a port's module
  (Triton's `ir`) is a kernel that does not parse, not a crash."""
  def module(ir: str) -> str:
    return ('module {\n  func.func @main() {\n    "stablehlo.custom_call"() {call_target_name = '
            '"__gpu$xla.gpu.triton", mhlo.backend_config = {ir = "' + ir + '"}} : () -> ()\n'
            '    return\n  }\n}\n')
  verdict = lowersim.judge((0, module("module {" * 20000 + "}" * 20000), ""),
                           module=module("module {\\0A}"))
  assert not verdict.passed
  assert verdict.first == ("first difference: kernel 0 (__gpu$xla.gpu.triton mhlo.backend_config "
                           "ir) does not parse on the implementation's side: "
                           + DEEP.removeprefix("the module does not parse: "))


def _bytecode(text: str, tmp_path) -> bytes:
  """`text` as MLIR 19's bytecode, by mlir-opt (its own parse given a large
  stack); skips when there is no mlir-opt-19."""
  import resource, shutil
  tool = os.environ.get("MLIR_OPT") or shutil.which("mlir-opt-19")
  if not tool:
    pytest.skip("no mlir-opt-19 to write bytecode")
  (tmp_path / "in.mlir").write_text(text)
  def big_stack():
    resource.setrlimit(resource.RLIMIT_STACK, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
  subprocess.run([tool, "--allow-unregistered-dialect", "--emit-bytecode", str(tmp_path / "in.mlir"),
                  "-o", str(tmp_path / "out.mlirbc")], check=True, preexec_fn=big_stack)
  return (tmp_path / "out.mlirbc").read_bytes()


def test_judge_deep_bytecode_kernel_is_refused(tmp_path):
  """A kernel's bytecode nested past MLIR's reader (20,000 modules: a
  segfault of the judge, of `check --impl`, of Python) is decoded in a child
  process: a kernel that cannot be decoded, with the reason."""
  def module(ir: bytes) -> str:
    return ('module {\n  func.func @main() {\n    "stablehlo.custom_call"() {call_target_name = '
            '"__gpu$xla.gpu.triton", mhlo.backend_config = {ir = "'
            + "".join("\\%02X" % b for b in ir) + '"}} : () -> ()\n    return\n  }\n}\n')
  small = _bytecode("module {}", tmp_path)
  deep = _bytecode("module {" * 20000 + "}" * 20000, tmp_path)
  verdict = lowersim.judge((0, module(deep), ""), module=module(small))
  assert not verdict.passed
  assert verdict.first == (
      "first difference: kernel 0 (__gpu$xla.gpu.triton mhlo.backend_config ir) does not parse "
      "on the implementation's side: its bytecode could not be decoded: MLIR's reader was killed "
      "by signal 11 (Segmentation fault): its nesting or its sizes are past what the reader takes")
  assert lowersim.judge((0, module(small), ""), module=module(small)).passed


@pytest.mark.parametrize("call", [
    lambda l, path, out: l.lower_file(path),
    lambda l, path, out: l.lower_xml(SINE),
    lambda l, path, out: l.write_module(path, out),
    lambda l, path, out: l.reprint("module {\n}\n"),
    lambda l, path, out: l.judge((0, "module {\n}\n", ""), module="module {\n}\n"),
], ids=["lower_file", "lower_xml", "write_module", "reprint", "judge"])
def test_closed_lowerer_raises(call, tmp_path):
  """Every method of a closed Lowerer raises ValueError, as a closed file's
  do (the library was handed a freed context: a segfault), and leaves no
  file behind."""
  path = tmp_path / "sine.xml"
  path.write_text(SINE)
  out = tmp_path / "out.mlir"
  lowerer = lowersim.Lowerer()
  lowerer.close()
  with pytest.raises(ValueError, match=r"^lowersim: operation on a closed Lowerer$"):
    call(lowerer, path, out)
  assert sorted(p.name for p in tmp_path.iterdir()) == ["sine.xml"]


def test_version_is_the_library_version():
  assert lowersim.__version__ == cli("--version").stdout.split()[-1]


def test_readme_python_examples_run(capsys, monkeypatch):
  """The README's ```python blocks run as written, from the repository."""
  readme = (SOURCE / "README.md").read_text()
  blocks = [block.split("\n```", 1)[0] for block in readme.split("```python\n")[1:]]
  assert blocks
  monkeypatch.chdir(SOURCE)
  for block in blocks:
    exec(compile(block, "README.md", "exec"), {})
  assert "LSIM_E_BACKEND_PLATFORM_MISMATCH ValueError the platform" in capsys.readouterr().out


def test_write_module_streams_the_module(tmp_path):
  """write_module writes what lower_file returns, keeps an existing file's
  mode, and leaves neither the file nor a temporary behind on an error."""
  scenario = tmp_path / "sine.xml"
  scenario.write_text(SINE)
  out = tmp_path / "out.mlir"
  lowersim.write_module(scenario, out)
  assert out.read_text() == lowersim.lower_file(scenario)
  out.chmod(0o640)
  lowersim.write_module(scenario, out, jax="0.10.2")
  assert out.read_text() == lowersim.lower_file(scenario, jax="0.10.2")
  assert out.stat().st_mode & 0o777 == 0o640
  bad = tmp_path / "bad.xml"
  bad.write_text(SINE.replace('<op kind="sine" args="0"/>', '<op kind="add" args="0"/>'))
  with pytest.raises(lowersim.Error):
    lowersim.write_module(bad, tmp_path / "never.mlir")
  assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.xml", "out.mlir", "sine.xml"]


def test_write_module_shares_the_commands_output_path(tmp_path):
  """write_module goes through the command's output path
  (lsim_scenario_output_open): a symbolic link stays a link and its target
  gets the module, a link to nothing makes its target, /dev/null stays a
  character device, the scenario itself is refused, and a write that fails
  raises the OSError of its own errno with no temporary left."""
  scenario = tmp_path / "sine.xml"
  scenario.write_text(SINE)
  module = lowersim.lower_file(scenario)
  target, link = tmp_path / "target.mlir", tmp_path / "link.mlir"
  target.write_text("old\n")
  link.symlink_to("target.mlir")
  lowersim.write_module(scenario, link)
  assert link.is_symlink() and target.read_text() == module
  dangling = tmp_path / "dangling.mlir"
  dangling.symlink_to("made.mlir")
  lowersim.write_module(scenario, dangling)
  assert dangling.is_symlink() and (tmp_path / "made.mlir").read_text() == module
  lowersim.write_module(scenario, os.devnull)
  assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
  with pytest.raises(lowersim.InvalidScenario) as raised:
    lowersim.write_module(scenario, scenario)
  assert str(raised.value) == f"{scenario}: it is also an input of this command"
  assert scenario.read_text() == SINE
  with pytest.raises(OSError) as raised:
    lowersim.write_module(scenario, "/dev/full")
  assert raised.value.errno == errno.ENOSPC and raised.value.filename == "/dev/full"
  with pytest.raises(lowersim.InvalidScenario):
    lowersim.write_module(scenario, tmp_path)
  old = resource.getrlimit(resource.RLIMIT_FSIZE)
  resource.setrlimit(resource.RLIMIT_FSIZE, (64, old[1]))  # Python ignores SIGXFSZ
  try:
    with pytest.raises(OSError) as raised:
      lowersim.write_module(scenario, tmp_path / "big.mlir")
  finally:
    resource.setrlimit(resource.RLIMIT_FSIZE, old)
  assert raised.value.errno == errno.EFBIG
  assert str(raised.value) == f"{tmp_path / 'big.mlir'}: {os.strerror(errno.EFBIG)}"
  assert sorted(p.name for p in tmp_path.iterdir()) == [
      "dangling.mlir", "link.mlir", "made.mlir", "sine.xml", "target.mlir"]


def test_a_large_lowering_is_streamed_as_the_command_streams_it(tmp_path):
  """Past STREAM_MIN_EQNS equations the bindings print main's body as they
  lower it, as `lowersim lower` does: the text of the whole module."""
  n = lowersim.STREAM_MIN_EQNS + 10
  scenario = tmp_path / "chain.xml"
  scenario.write_text('<scenario name="chain"><lower function="f" platforms="cpu,tpu">'
                      '<arg dtype="f32" shape="4"/>'
                      + ''.join(f'<op kind="sine" args="{i}"/>' for i in range(n))
                      + '</lower></scenario>')
  whole = cli("lower", "--stream-eqns", "0", str(scenario))
  assert whole.returncode == 0
  assert lowersim.lower_file(scenario) == whole.stdout
  out = tmp_path / "chain.mlir"
  lowersim.write_module(scenario, out)
  assert out.read_text() == whole.stdout


def test_set_max_bytes_limits_the_reader(tmp_path):
  """A scenario above the limit is invalid input naming the limit; 0 restores
  the default."""
  scenario = tmp_path / "sine.xml"
  scenario.write_text(SINE)
  try:
    lowersim.set_max_bytes(16)
    with pytest.raises(lowersim.InvalidScenario) as raised:
      lowersim.lower_file(scenario)
    assert "16" in str(raised.value)
  finally:
    lowersim.set_max_bytes(0)
  assert lowersim.lower_file(scenario).startswith("module @jit_f")
  with pytest.raises(ValueError):
    lowersim.set_max_bytes(-1)


def test_judge_is_the_librarys_port_judge():
  """lowersim.judge/judge_file: the verdict `lowersim check --impl` gives,
  from the same C function (lsim_scenario_port_judge)."""
  path = SOURCE / "testdata" / "scenarios" / "single-platform.xml"
  module = lowersim.lower_file(path)
  assert lowersim.judge_file(path, (0, module, "")).passed
  wrong = module.replace("stablehlo.add", "stablehlo.multiply")
  v = lowersim.judge_file(path, (0, wrong, ""))
  assert not v and v.first == (
      'first difference: line 5, stablehlo.add: lowersim "... "stablehlo.add"(%0, %1) : '
      '(tensor<4xf32..." port "... "stablehlo.multiply"(%0, %1) : (tensor<..."')
  assert v.difference.startswith(v.first + "\n--- lowersim\n+++ the implementation\n@@ -2,7 +2,7 @@\n")
  assert v.expected["module"] == '... "stablehlo.add"(%0, %1) : (tensor<4xf32...'
  err = SOURCE / "testdata" / "scenarios" / "missing-rule.xml"
  with pytest.raises(lowersim.LoweringError) as e:
    lowersim.lower_file(err)
  v = lowersim.judge((1, "", "warning: x\n" + e.value.line + "\n"), error=e.value)
  assert v.passed
  v = lowersim.judge((0, module, ""), error=e.value)
  assert v.first.startswith('expected the error "NotImplementedError: ') and \
      v.first.endswith('"; the implementation exits 0 with a module')
  with pytest.raises(ValueError):
    lowersim.judge((0, module, ""))
