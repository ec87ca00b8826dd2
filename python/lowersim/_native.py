"""liblowersim_scenario.so (and liblowersim.so under it) through ctypes.

The library is looked for, in order:
  1. in $LOWERSIM_LIBRARY_DIR, when set (and only there);
  2. in the package's `_lib/` folder, where `pip install ./python` puts it;
  3. in the build tree of the repository the package is imported from
     (`python/lowersim/` -> `build/`), for running from a checkout;
  4. where the dynamic linker finds installed libraries (`cmake --install`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import pathlib

_HERE = pathlib.Path(__file__).resolve().parent
CORE = "liblowersim.so"
SCENARIO = "liblowersim_scenario.so"


class LibraryNotFound(ImportError):
  pass


def _folders() -> list[pathlib.Path]:
  env = os.environ.get("LOWERSIM_LIBRARY_DIR")
  if env:
    return [pathlib.Path(env)]
  return [_HERE / "_lib", _HERE.parent.parent / "build"]


def _load() -> ctypes.CDLL:
  for folder in _folders():
    if (folder / SCENARIO).exists():
      # liblowersim.so first: the scenario library's NEEDED entry is then the
      # one already loaded (the same SONAME), wherever its RUNPATH points.
      if (folder / CORE).exists():
        ctypes.CDLL(str(folder / CORE))
      return ctypes.CDLL(str(folder / SCENARIO))
  installed = ctypes.util.find_library("lowersim_scenario")
  if installed:
    return ctypes.CDLL(installed)
  raise LibraryNotFound(
      f"lowersim: {SCENARIO} is not in {', '.join(map(str, _folders()))} nor installed; "
      "build lowersim (./run), set LOWERSIM_LIBRARY_DIR, or reinstall with pip")


lib = _load()
_libc = ctypes.CDLL(None)
free = _libc.free
free.argtypes = [ctypes.c_void_p]
free.restype = None


class Error(ctypes.Structure):
  """lsim_error: {lsim_status code; char *message}."""
  _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_void_p)]


class Outcome(ctypes.Structure):
  """lsim_scenario_outcome."""
  _fields_ = [("runtime", ctypes.c_void_p), ("lowering", ctypes.c_void_p),
              ("executed", ctypes.c_bool), ("profile", ctypes.c_void_p)]


class RunOptions(ctypes.Structure):
  """lsim_scenario_run_options (its struct_size tells the library which
  fields this caller knows)."""
  _fields_ = [("struct_size", ctypes.c_size_t), ("explain", ctypes.c_void_p),
              ("explain_data", ctypes.c_void_p), ("skip_verify", ctypes.c_bool),
              ("profile", ctypes.c_void_p), ("explain_ops", ctypes.c_bool),
              ("stream_min_eqns", ctypes.c_size_t)]


class MlirContext(ctypes.Structure):
  _fields_ = [("ptr", ctypes.c_void_p)]


class JaxProfile(ctypes.Structure):
  """lsim_jax_profile: {const char *name}."""
  _fields_ = [("name", ctypes.c_char_p)]


class PortAnswer(ctypes.Structure):
  """lsim_scenario_port_answer."""
  _fields_ = [("how", ctypes.c_int), ("code", ctypes.c_int), ("out", ctypes.c_char_p),
              ("err", ctypes.c_char_p), ("seconds", ctypes.c_double),
              ("out_len", ctypes.c_size_t), ("err_len", ctypes.c_size_t)]


class PortExpected(ctypes.Structure):
  """lsim_scenario_port_expected."""
  _fields_ = [("module", ctypes.c_char_p), ("error_class", ctypes.c_char_p),
              ("error_message", ctypes.c_char_p)]


class PortOptions(ctypes.Structure):
  """lsim_scenario_port_options (its struct_size tells the library which
  fields this caller knows)."""
  _fields_ = [("struct_size", ctypes.c_size_t), ("colour", ctypes.c_bool),
              ("normalizing", ctypes.c_bool), ("normalize_note", ctypes.c_char_p)]


class PortVerdict(ctypes.Structure):
  """lsim_scenario_port_verdict (its strings freed by
  lsim_scenario_port_verdict_clear)."""
  _fields_ = [("passed", ctypes.c_bool)] + [
      (name, ctypes.c_char_p) for name in (
          "first", "difference", "notes", "expected_class", "expected_message",
          "expected_module", "actual_class", "actual_message", "actual_module")]


P = ctypes.POINTER
_void_pp = P(ctypes.c_void_p)
_SIGNATURES = {
    "lsim_version": ([], ctypes.c_char_p),
    "lsim_error_message": ([P(Error)], ctypes.c_char_p),
    "lsim_error_class": ([P(Error)], ctypes.c_char_p),
    "lsim_error_clear": ([P(Error)], None),
    "lsim_status_kind": ([ctypes.c_int], ctypes.c_int),
    "lsim_status_name": ([ctypes.c_int], ctypes.c_char_p),
    "lsim_status_class": ([ctypes.c_int], ctypes.c_char_p),
    "lsim_status_template": ([ctypes.c_int], ctypes.c_char_p),
    "lsim_status_reference": ([ctypes.c_int], ctypes.c_char_p),
    "lsim_status_doc": ([ctypes.c_int], ctypes.c_char_p),
    "lsim_status_count": ([], ctypes.c_size_t),
    "lsim_status_at": ([ctypes.c_size_t], ctypes.c_int),
    "lsim_jax_profile_count": ([], ctypes.c_size_t),
    "lsim_jax_profile_at": ([ctypes.c_size_t], P(JaxProfile)),
    "lsim_jax_profile_find": ([ctypes.c_char_p], P(JaxProfile)),
    "lsim_jax_profile_default": ([], P(JaxProfile)),
    "lsim_lowerer_create": ([_void_pp, P(Error)], ctypes.c_int),
    "lsim_lowerer_destroy": ([ctypes.c_void_p], None),
    "lsim_lowerer_mlir_context": ([ctypes.c_void_p], MlirContext),
    "lsim_mlir_reprint": ([MlirContext, ctypes.c_char_p, _void_pp, P(Error)], ctypes.c_int),
    "lsim_scenario_read_file": ([ctypes.c_char_p, _void_pp, P(Error)], ctypes.c_int),
    "lsim_scenario_read_memory": ([ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, _void_pp,
                                   P(Error)], ctypes.c_int),
    "lsim_scenario_destroy": ([ctypes.c_void_p], None),
    "lsim_scenario_run": ([ctypes.c_void_p, ctypes.c_void_p, P(RunOptions), P(Outcome),
                           P(Error)], ctypes.c_int),
    "lsim_scenario_outcome_clear": ([P(Outcome)], None),
    "lsim_lowering_print": ([ctypes.c_void_p], ctypes.c_void_p),
    "lsim_lowering_write": ([ctypes.c_void_p, ctypes.c_void_p, P(Error)], ctypes.c_int),
    "lsim_scenario_set_max_bytes": ([ctypes.c_size_t], None),
    "lsim_scenario_output_open": ([ctypes.c_char_p, P(ctypes.c_char_p), ctypes.c_size_t, _void_pp,
                                   P(Error)], ctypes.c_int),
    "lsim_scenario_output_stream": ([ctypes.c_void_p], ctypes.c_void_p),
    "lsim_scenario_output_commit": ([ctypes.c_void_p, P(Error)], ctypes.c_int),
    "lsim_scenario_output_abort": ([ctypes.c_void_p], None),
    "lsim_scenario_port_judge": ([MlirContext, P(PortExpected), P(PortAnswer), P(PortOptions),
                                  P(PortVerdict), P(Error)], ctypes.c_int),
    "lsim_scenario_port_verdict_clear": ([P(PortVerdict)], None),
    "lsim_scenario_port_command": ([ctypes.c_char_p], ctypes.c_void_p),
    "lsim_runtime_warning_count": ([ctypes.c_void_p], ctypes.c_size_t),
    "lsim_runtime_warning_at": ([ctypes.c_void_p, ctypes.c_size_t], ctypes.c_char_p),
    "lsim_runtime_warning_category": ([ctypes.c_void_p, ctypes.c_size_t], ctypes.c_char_p),
}

for _name, (_args, _result) in _SIGNATURES.items():
  _f = getattr(lib, _name)
  _f.argtypes = _args
  _f.restype = _result


def take_string(ptr: int | None) -> str | None:
  """A string the library allocated (owned by the caller), freed."""
  if not ptr:
    return None
  try:
    return ctypes.string_at(ptr).decode("utf-8")
  finally:
    free(ptr)


def text(value: bytes | None) -> str:
  return value.decode("utf-8") if value is not None else ""
