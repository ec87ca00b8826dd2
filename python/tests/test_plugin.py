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


def run_plugin(tmp_path, port: str, *paths: str, jax: str | None = None):
  """pytest with the plugin over `paths`: (exit code, output, {test name: outcome})."""
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
  assert ('expected the error "ValueError: the platform for the specified backend cpu is '
          'different from the lowering platform cuda"; the port exits 1: '
          "LSIM_E_X: ValueError: another message") in output
  assert "the port's output does not parse as MLIR" in output
  assert "the modules differ:\n--- lowersim\n+++ port" in output
  assert 'expected the error "ValueError: `buffer_callback` not supported on tpu backend."' in output


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
