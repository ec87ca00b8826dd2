"""The pytest plugin (lowersim.pytest_plugin), run as a user runs it, in a
child pytest: against lowersim's own command (everything agrees), against a
port that is wrong in three ways (exactly those fail, saying why), and
against the oracle (real JAX) on a few scenarios, where its verdicts must be
`lowersim check --impl`'s.

Run by CTest as python.plugin, with LOWERSIM the built command and SOURCE_DIR
the repository."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

SOURCE = pathlib.Path(os.environ.get("SOURCE_DIR", pathlib.Path(__file__).parents[2]))
LOWERSIM = os.environ.get("LOWERSIM", str(SOURCE / "build" / "lowersim"))
SCENARIOS = SOURCE / "testdata" / "scenarios"
ORACLE_PYTHON = SOURCE / "build" / "oracle-venv" / "bin" / "python"
JAX_PYTHON = SOURCE / "build" / "oracle-venvs" / "0.12.0.1" / "bin" / "python"


def run_plugin(tmp_path, port: str, *paths: str, jax: str | None = None):
  """pytest with the plugin over `paths` (plugin options among them too):
  (exit code, output, {test name: outcome})."""
  junit = tmp_path / "junit.xml"
  args = [sys.executable, "-m", "pytest", "-p", "lowersim.pytest_plugin", "-q",
          "-p", "no:cacheprovider", f"--junitxml={junit}", "--lowersim-port", port, *paths]
  if jax:
    args += ["--lowersim-jax", jax]
  p = subprocess.run(args, capture_output=True, text=True, cwd=tmp_path)
  outcomes = {}
  if junit.exists():
    for case in ET.parse(junit).getroot().iter("testcase"):
      failed = case.find("failure") is not None or case.find("error") is not None
      outcomes[case.get("name")] = "failed" if failed else (
          "skipped" if case.find("skipped") is not None else "passed")
  return p.returncode, p.stdout + p.stderr, outcomes


def test_lowersim_against_itself(tmp_path):
  code, output, outcomes = run_plugin(tmp_path, f"{LOWERSIM} lower {{scenario}}", str(SCENARIOS))
  assert code == 0, output
  assert len(outcomes) == len(list(SCENARIOS.glob("*.xml")))
  assert set(outcomes.values()) == {"passed"}
  assert "single-platform" in outcomes  # named after the scenario


def test_the_placeholder_is_one_argument_whatever_its_quotes(tmp_path):
  """{scenario} in double quotes, single quotes or mid-word: a file name
  holding `$(...)`, backquotes and quotes is one argument, and nothing in it
  runs (lowersim.port_command, as check --impl runs a port)."""
  cases = tmp_path / "cases"
  cases.mkdir()
  for name in ("a $(touch pwned1) b.xml", "c `touch pwned2` d.xml", "e'f\"g.xml"):
    (cases / name).write_bytes((SCENARIOS / "single-platform.xml").read_bytes())
  for port in (f'{LOWERSIM} lower "{{scenario}}"', f"{LOWERSIM} lower '{{scenario}}'",
               f"sh -c 'exec \"$0\" lower \"${{1#X}}\"' {LOWERSIM} X{{scenario}}"):
    code, output, outcomes = run_plugin(tmp_path, port, str(cases))
    assert code == 0 and "3 passed" in output, (port, output)
    assert not list(tmp_path.glob("pwned*")), (port, output)


def test_lowersim_jax_picks_the_version(tmp_path):
  """The command lowers as the newest JAX, the bindings as --lowersim-jax
  says: these scenarios do not tell 0.10.2 apart; a version lowersim does not
  model fails every test."""
  paths = [str(SCENARIOS / name) for name in ("backend-mismatch.xml", "single-platform.xml")]
  code, output, outcomes = run_plugin(tmp_path, f"{LOWERSIM} lower {{scenario}}", *paths,
                                      jax="0.10.2")
  assert code == 0 and set(outcomes.values()) == {"passed"}, output
  code, output, outcomes = run_plugin(tmp_path, f"{LOWERSIM} lower {{scenario}}", *paths,
                                      jax="0.4.0")
  assert code == 1 and set(outcomes.values()) == {"failed"}, output
  assert "lowersim models no JAX '0.4.0'" in output


def test_a_wrong_port_fails_where_it_is_wrong(tmp_path):
  port = tmp_path / "port.sh"
  port.write_text(f"""#!/bin/sh
case "$1" in
  *backend-mismatch.xml) echo "LSIM_E_X: ValueError: another message" >&2; exit 1 ;;
  *single-platform.xml) echo "module {{}}" ;;
  *donation.xml) echo "not MLIR" ;;
  *buffer-callback-tpu.xml) echo "module {{}}" ;;
  *) exec {LOWERSIM} lower "$1" ;;
esac
""")
  port.chmod(0o755)
  code, output, outcomes = run_plugin(tmp_path, f"{port} {{scenario}}", str(SCENARIOS))
  assert code == 1
  failed = sorted(name for name, outcome in outcomes.items() if outcome == "failed")
  assert failed == ["backend-mismatch", "buffer-callback-tpu", "donation", "single-platform"]
  assert ("""
first difference: the error's message: lowersim "ValueError: the platform for the specifi..." port "ValueError: another message"
expected the error "ValueError: the platform for the specified backend cpu is different from the lowering platform cuda"; the implementation exits 1: ValueError: another message
""") in output
  assert ("""
the implementation's output does not parse as MLIR (MLIR 19: the module does not parse: custom op 'not' is unknown (tried 'builtin.not' as well))
""") in output
  assert ("""
first difference: line 1: lowersim "module @jit_f attributes {mhlo.num_parti..." port "module {"
--- lowersim
+++ the implementation
@@ -1,9 +1,3 @@
-module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
""") in output
  assert ("""
expected the error "ValueError: `buffer_callback` not supported on tpu backend."; the implementation exits 0 with a module
""") in output


PY_PORT = """
import sys
sys.path.insert(0, {python!r})
import lowersim
from lowersim import port

def lower(path):
  module = lowersim.lower_file(path)
  return module.replace("stablehlo.add", "stablehlo.subtract") if "single-platform" in path else module

port.main(lower)
"""


def test_batch_one_port_per_session(tmp_path):
  """--lowersim-batch: the port starts once (python/lowersim/port.py serves
  the protocol) and every scenario is asked of it; its one wrong module fails
  with the first difference, the others pass."""
  script = tmp_path / "port.py"
  script.write_text(PY_PORT.format(python=str(SOURCE / "python")))
  starts = tmp_path / "starts"
  port = f"echo started >>{starts}; exec {sys.executable} {script} --batch"
  code, output, outcomes = run_plugin(tmp_path, port, str(SCENARIOS), "--lowersim-batch")
  assert code == 1, output
  assert [n for n, o in outcomes.items() if o == "failed"] == ["single-platform"], output
  assert set(o for n, o in outcomes.items() if n != "single-platform") == {"passed"}, output
  assert starts.read_text() == "started\n"
  assert ('first difference: line 5, stablehlo.add: lowersim "... "stablehlo.add"(%0, %1) : '
          '(tensor<4xf32..." port "... "stablehlo.subtract"(%0, %1) : (tensor<...' in output)
  assert '-    %2 = "stablehlo.[-add-]"(%0, %1)' in output
  assert '+    %2 = "stablehlo.{+subtract+}"(%0, %1)' in output


def test_batch_refuses_a_scenario_placeholder(tmp_path):
  code, output, _ = run_plugin(tmp_path, "port {scenario}", str(SCENARIOS), "--lowersim-batch")
  assert code == 4 and ("--lowersim-batch: the port is started once and reads the paths on its "
                        "stdin, so its command takes no {scenario}") in output, output


def test_a_batch_port_that_breaks_the_protocol(tmp_path):
  code, output, outcomes = run_plugin(tmp_path, "echo nonsense; cat >/dev/null",
                                      str(SCENARIOS / "single-platform.xml"), "--lowersim-batch")
  assert code == 1 and outcomes == {"single-platform": "failed"}, output
  assert ("the implementation broke the batch protocol (an answer is `EXIT OUT_BYTES ERR_BYTES` "
          "and the bytes): it wrote b'nonsense\\n'") in output


@pytest.mark.skipif(not JAX_PYTHON.exists(), reason="no build/oracle-venvs/0.12.0.1 (./run oracle makes it)")
def test_normalize_jax_reads_the_pretty_form(tmp_path):
  """A port printing JAX's pretty form (tests/pretty_port.py, real JAX):
  --lowersim-normalize jax reads it (a Pallas kernel of JAX 0.12 too);
  without it the pretty form does not parse in MLIR 19."""
  port = f"cd {SOURCE} && {JAX_PYTHON} tests/pretty_port.py {{scenario}}"
  paths = [str(SCENARIOS / "single-platform.xml"),
           str(SOURCE / "testdata" / "conformance" / "pallas" / "abstract-mesh-ffi.xml")]
  code, output, outcomes = run_plugin(tmp_path, port, *paths, "--lowersim-normalize", "jax",
                                      jax="0.12.0.1")
  assert code == 0 and set(outcomes.values()) == {"passed"}, output
  code, output, outcomes = run_plugin(tmp_path, port, paths[0], jax="0.12.0.1")
  assert code == 1 and "it looks like StableHLO's pretty form" in output, output


def test_without_a_port_nothing_is_collected(tmp_path):
  p = subprocess.run([sys.executable, "-m", "pytest", "-p", "lowersim.pytest_plugin", "-q",
                      "-p", "no:cacheprovider", "--collect-only", str(SCENARIOS)],
                     capture_output=True, text=True, cwd=tmp_path)
  assert p.returncode == 5, p.stdout  # pytest's "no tests collected"


ORACLE_CASES = ["backend-mismatch.xml", "single-platform.xml", "donation.xml",
                "pallas-tpu-cuda.xml"]


@pytest.mark.skipif(not ORACLE_PYTHON.exists(), reason="no build/oracle-venv (./run oracle makes it)")
def test_the_oracle_as_a_port_agrees_with_check(tmp_path):
  """Real JAX (the oracle) as the port: the plugin's verdicts are those of
  `lowersim check --impl` for the same command, scenario by scenario."""
  port = f"{ORACLE_PYTHON} -m oracle lower {{scenario}}"
  paths = [str(SCENARIOS / name) for name in ORACLE_CASES]
  _, output, outcomes = run_plugin(tmp_path, port, *paths)
  check = subprocess.run([LOWERSIM, "check", *paths, "--impl", port], capture_output=True,
                         text=True, cwd=SOURCE)
  check_failed = {pathlib.Path(line.split(":")[0][len("FAIL "):]).stem
                  for line in check.stdout.splitlines() if line.startswith("FAIL ")}
  assert len(outcomes) == len(ORACLE_CASES), output
  assert {name for name, o in outcomes.items() if o == "failed"} == check_failed, output
  assert any(o == "passed" for o in outcomes.values()), output
