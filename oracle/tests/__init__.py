"""The oracle's own tests (`./run oracle --self-test` on every release, or
`build/oracle-venvs/RELEASE/bin/python -m unittest discover oracle/tests`):
the comparison must be able to fail, so these feed it modules, errors and
warnings that differ and check that it says so; the corpus's expectations
from JAX (test_expect.py): the check fails on an <expect> that is not what
JAX did, and the rewrite is byte-stable; and what judging every release
takes (test_releases.py): releases, interpreters, per-release known
differences, feature detection checked against the installed JAX."""

from __future__ import annotations

import sys
import unittest


def run_self_tests() -> int:
  suite = unittest.defaultTestLoader.loadTestsFromNames(["oracle.tests.test_oracle",
                                                         "oracle.tests.test_expect",
                                                         "oracle.tests.test_releases"])
  result = unittest.TextTestRunner(stream=sys.stdout, verbosity=1).run(suite)
  n, bad = result.testsRun, len(result.failures) + len(result.errors)
  print(f"oracle self-test: {n - bad} passed, {bad} failed")
  return 0 if result.wasSuccessful() else 1
