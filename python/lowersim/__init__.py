"""lowersim: JAX's multi-platform lowering, re-implemented in C, from Python.

    import lowersim
    text = lowersim.lower_file("testdata/scenarios/platform-dependent.xml")
    try:
      lowersim.lower_xml(xml, jax="0.10.2")
    except lowersim.LoweringError as e:   # what JAX raises
      print(e.code, e.jax_class, e.message)
    except lowersim.InvalidScenario as e: # what lowersim refuses: `PATH:LINE: ...`
      print(e.message)

A lowering returns the MLIR module as text, as `lowersim lower` prints it;
JAX's warnings (e.g. an experimental platform) are issued as
`lowersim.JaxWarning`.  Each thread lowers with its own `Lowerer` (an MLIR
context); the module-level functions use the calling thread's.
"""

from __future__ import annotations

import builtins
import ctypes
import dataclasses
import errno
import logging
import os
import sys
import threading
import warnings

from lowersim import _native

__all__ = ["Error", "LoweringError", "InvalidScenario", "JaxWarning", "ErrorCode", "Lowerer",
           "lower_file", "lower_xml", "write_module", "set_max_bytes", "reprint", "errors",
           "versions", "Verdict", "judge", "judge_file", "port_command", "__version__"]

__version__ = _native.text(_native.lib.lsim_version())

_KIND_JAX_ERROR, _KIND_INVALID_INPUT, _KIND_NO_MEMORY = 1, 2, 3
_LSIM_E_IO = -104

# From how many equations a lowering prints main's body as it lowers it (a
# temporary file in $TMPDIR, each op freed once nothing reads it), as
# `lowersim lower` does: the same text, in memory about flat in the equations.
STREAM_MIN_EQNS = 1024


class Error(Exception):
  """A failed lowering: `code` (e.g. "LSIM_E_TOO_MANY_CHANNELS"), `jax_class`
  (the exception class JAX raises, e.g. "RuntimeError"), `message` (JAX's
  exact text), `status` (the negative number).

  As JAX's own exception would be, an error is also an instance of JAX's
  class where that is a Python builtin (`pytest.raises(ValueError)` and
  `except NotImplementedError` catch it), its class is named after it
  (`type(e).__name__` is "ValueError") and str() is JAX's message; `line`
  is what `lowersim lower` prints: `CODE: ErrorClass: message`.  The classes
  are `LoweringError.ValueError`, `InvalidScenario.FileNotFoundError`, ...
  (made on first use)."""

  def __init__(self, status: int, code: str, jax_class: str, message: str):
    Exception.__init__(self, message)
    self.status, self.code, self.jax_class, self.message = status, code, jax_class, message

  def __str__(self) -> str:
    return self.message

  @property
  def line(self) -> str:
    return f"{self.code}: {self.jax_class}: {self.message}"

  def __reduce__(self):  # pickles (multiprocessing, pytest-xdist) as the class it is
    base = next(c for c in type(self).__mro__ if c in (LoweringError, InvalidScenario, Error))
    return (_error, (base, self.status, self.code, self.jax_class, self.message,
                     getattr(self, "filename", None)), self.__dict__)


class LoweringError(Error):
  """An error JAX raises for this lowering (`lowersim lower` exits 1), or a
  module lowersim itself fails to verify (LSIM_E_VERIFY)."""


class InvalidScenario(Error):
  """Input lowersim refuses (`lowersim lower` exits 2): a scenario that is
  not valid, or asks for something impossible (`PATH:LINE: what is wrong`),
  or a file that cannot be read (then also the OSError Python would raise:
  FileNotFoundError, PermissionError, IsADirectoryError, ..., with errno,
  strerror and filename)."""


def _builtin_exception(name: str):
  found = getattr(builtins, name, None)
  return found if isinstance(found, type) and issubclass(found, Exception) else None


def _error_class(base: type, name: str, builtin) -> type:
  """`base`'s subclass named `name` (JAX's class, or the OSError subclass of
  a file's errno), also a subclass of `builtin` when there is one; made once
  and kept as the attribute base.NAME."""
  cls = base.__dict__.get(name)
  if cls is None:
    cls = type(name, (base,) + ((builtin,) if builtin else ()),
               {"__module__": __name__, "__qualname__": f"{base.__qualname__}.{name}",
                "__doc__": f"{base.__name__} for JAX's {name}.",
                "__str__": Error.__str__, "__reduce__": Error.__reduce__})
    setattr(base, name, cls)
  return cls


def _error(base: type, status: int, code: str, jax_class: str, message: str,
           path: str | None = None) -> Error:
  """The exception of `base` (LoweringError or InvalidScenario) for JAX's
  class `jax_class`; a file that cannot be read (LSIM_E_IO, `PATH: strerror`)
  is also the OSError subclass of its errno."""
  name, builtin, errno_ = jax_class, _builtin_exception(jax_class), None
  if code == "LSIM_E_IO" and path is not None:
    for candidate in sorted(errno.errorcode):
      if message == f"{path}: {os.strerror(candidate)}":
        errno_ = candidate
        builtin = type(OSError(candidate, ""))
        name = builtin.__name__
        break
  e = _error_class(base, name, builtin)(status, code, jax_class, message)
  if errno_ is not None:
    e.errno, e.strerror, e.filename = errno_, os.strerror(errno_), path
  return e


class JaxWarning(UserWarning):
  """A warning JAX issues with warnings.warn while lowering.  Each is issued
  as the subclass named after JAX's category, which is also that builtin
  category: `JaxWarning.DeprecationWarning` is a DeprecationWarning (Python's
  default filters then treat it as they treat JAX's own).  What JAX logs
  instead (xla_bridge's "Platform 'oneapi' is experimental ...") is logged
  as JAX logs it: a WARNING record of the logger of JAX's module
  (`logging.getLogger("jax._src.xla_bridge")`)."""


def _warning_class(category: str) -> type:
  """JaxWarning's subclass for JAX's warning category `category` (made once,
  kept as JaxWarning.CATEGORY)."""
  cls = JaxWarning.__dict__.get(category)
  if cls is None:
    found = getattr(builtins, category, None)
    builtin = found if isinstance(found, type) and issubclass(found, Warning) else None
    bases = (JaxWarning,) + ((builtin,) if builtin and builtin is not UserWarning else ())
    cls = type(category, bases, {"__module__": __name__,
                                 "__qualname__": f"JaxWarning.{category}",
                                 "__doc__": f"JAX's {category}."})
    setattr(JaxWarning, category, cls)
  return cls


@dataclasses.dataclass(frozen=True)
class ErrorCode:
  """One row of the error catalogue (`lowersim errors`)."""
  status: int
  code: str
  jax_class: str
  template: str
  reference: str
  doc: str  # the section of the repository's docs that explains it: "docs/PAGE.md#CODE"


def _raise(err: _native.Error, path: str | None = None) -> None:
  lib = _native.lib
  status = err.code
  code = _native.text(lib.lsim_status_name(status)) or str(status)
  message = _native.text(lib.lsim_error_message(ctypes.byref(err)))
  jax_class = _native.text(lib.lsim_error_class(ctypes.byref(err)))
  lib.lsim_error_clear(ctypes.byref(err))
  kind = lib.lsim_status_kind(status)
  if kind == _KIND_NO_MEMORY:
    raise MemoryError(message)
  raise _error(InvalidScenario if kind == _KIND_INVALID_INPUT else LoweringError,
               status, code, jax_class, message, path) from None


def _profile(jax: str | None):
  if jax is None:
    return None
  found = _native.lib.lsim_jax_profile_find(jax.encode())
  if not found:
    raise ValueError(f"lowersim models no JAX {jax!r}; it models {', '.join(versions())}")
  return ctypes.cast(found, ctypes.c_void_p)


class Lowerer:
  """An MLIR context that lowerings reuse (lsim_lowerer); one per thread."""

  def __init__(self):
    self._ptr = ctypes.c_void_p()
    err = _native.Error()
    if _native.lib.lsim_lowerer_create(ctypes.byref(self._ptr), ctypes.byref(err)):
      _raise(err)

  def close(self) -> None:
    """Frees the MLIR context; every later call raises ValueError, as a
    closed file's do.  Closing twice is harmless."""
    if self._ptr:
      _native.lib.lsim_lowerer_destroy(self._ptr)
      self._ptr = ctypes.c_void_p()

  def _handle(self) -> ctypes.c_void_p:
    """The lsim_lowerer, or ValueError once closed (the library would be
    handed NULL, or a freed context)."""
    if not self._ptr:
      raise ValueError("lowersim: operation on a closed Lowerer")
    return self._ptr

  def __del__(self):
    self.close()

  def __enter__(self):
    return self

  def __exit__(self, *exc):
    self.close()

  def lower_file(self, path: str | os.PathLike, jax: str | None = None) -> str:
    """The module the scenario file lowers to, as text."""
    self._handle()
    scenario = ctypes.c_void_p()
    err = _native.Error()
    if _native.lib.lsim_scenario_read_file(os.fsencode(path), ctypes.byref(scenario),
                                           ctypes.byref(err)):
      _raise(err, os.fsdecode(path))
    return self._lower(scenario, jax)

  def lower_xml(self, text: str | bytes, jax: str | None = None, name: str = "<memory>") -> str:
    """The module a scenario given as XML text lowers to; `name` stands for
    the path in messages."""
    self._handle()
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    scenario = ctypes.c_void_p()
    err = _native.Error()
    if _native.lib.lsim_scenario_read_memory(data, len(data), name.encode(),
                                             ctypes.byref(scenario), ctypes.byref(err)):
      _raise(err)
    return self._lower(scenario, jax)

  def write_module(self, path: str | os.PathLike, out: str | os.PathLike,
                   jax: str | None = None) -> None:
    """Lowers the scenario file and streams the module into the file `out`
    (lsim_lowering_write, as `lowersim lower -o` does: the text is never held
    whole in memory), through the library's one output path, the command's
    (lsim_scenario_output_open): a regular file, a link to one or a link to
    nothing is written in full or not at all (a temporary beside the final
    target, renamed over it once complete, keeping the old file's mode); a
    character device or a FIFO (/dev/null) is written in place, and so are
    "-", /dev/stdout and /dev/fd/N, through the descriptor; a folder is
    refused and so is the scenario file itself.  A file that cannot be
    written raises InvalidScenario, also the OSError of its errno (e.g.
    `OSError(EFBIG)` past `ulimit -f`), `filename` the path."""
    scenario = ctypes.c_void_p()
    err = _native.Error()
    if _native.lib.lsim_scenario_read_file(os.fsencode(path), ctypes.byref(scenario),
                                           ctypes.byref(err)):
      _raise(err, os.fsdecode(path))
    out = os.fsdecode(out)
    lib = _native.lib
    for stream in (sys.stdout, sys.stderr):  # what Python printed comes first ("-", /dev/stdout)
      if stream is not None:
        stream.flush()
    output = ctypes.c_void_p()
    inputs = (ctypes.c_char_p * 1)(os.fsencode(path))
    if lib.lsim_scenario_output_open(os.fsencode(out), inputs, 1, ctypes.byref(output),
                                     ctypes.byref(err)):
      lib.lsim_scenario_destroy(scenario)
      _raise(err, out)
    try:  # _run destroys the scenario
      self._run(scenario, jax, lambda lowering: self._write(lowering, output))
    except BaseException:
      lib.lsim_scenario_output_abort(output)
      raise
    if lib.lsim_scenario_output_commit(output, ctypes.byref(err)):
      _raise(err, out)

  @staticmethod
  def _write(lowering: int, output: ctypes.c_void_p) -> None:
    err = _native.Error()
    rc = _native.lib.lsim_lowering_write(lowering, _native.lib.lsim_scenario_output_stream(output),
                                         ctypes.byref(err))
    if rc and rc != _LSIM_E_IO:  # a failed write is the commit's to report, with its errno
      _raise(err)
    _native.lib.lsim_error_clear(ctypes.byref(err))

  def _lower(self, scenario: ctypes.c_void_p, jax: str | None) -> str:
    def printed(lowering: int) -> str:
      module = _native.take_string(_native.lib.lsim_lowering_print(lowering))
      if module is None:
        raise MemoryError("lowersim: out of memory printing the module")
      return module
    return self._run(scenario, jax, printed)

  def _run(self, scenario: ctypes.c_void_p, jax: str | None, take):
    """Runs the scenario (destroyed after) and gives its lowering to
    `take`; JAX's warnings become JaxWarnings, an error its exception."""
    lib = _native.lib
    err = _native.Error()
    outcome = _native.Outcome()
    try:
      # Only printed: main's body is streamed from STREAM_MIN_EQNS equations, as
      # `lowersim lower` does.
      options = _native.RunOptions(struct_size=ctypes.sizeof(_native.RunOptions),
                                   profile=_profile(jax), stream_min_eqns=STREAM_MIN_EQNS)
      rc = lib.lsim_scenario_run(self._handle(), scenario, ctypes.byref(options),
                                 ctypes.byref(outcome), ctypes.byref(err))
      if outcome.runtime:
        for i in range(lib.lsim_runtime_warning_count(outcome.runtime)):
          category = _native.text(lib.lsim_runtime_warning_category(outcome.runtime, i))
          message = _native.text(lib.lsim_runtime_warning_at(outcome.runtime, i))
          if "." in category:  # a WARNING record of JAX's logger of that name, as JAX logs it
            logging.getLogger(category).warning(message)
          else:
            warnings.warn(message, _warning_class(category), stacklevel=3)
      if rc:
        _raise(err)
      return take(outcome.lowering)
    finally:
      lib.lsim_scenario_outcome_clear(ctypes.byref(outcome))
      lib.lsim_scenario_destroy(scenario)
      lib.lsim_error_clear(ctypes.byref(err))

  def reprint(self, module: str) -> str:
    """`module` (MLIR text) parsed and printed back by MLIR: the form in which
    two implementations' modules compare (as `lowersim check --impl` does).
    Raises InvalidScenario (LSIM_E_INVALID_INPUT) when it does not parse."""
    out = ctypes.c_void_p()
    err = _native.Error()
    if _native.lib.lsim_mlir_reprint(_native.lib.lsim_lowerer_mlir_context(self._handle()),
                                     module.encode("utf-8"), ctypes.byref(out), ctypes.byref(err)):
      _raise(err)
    return _native.take_string(out.value)

  def judge(self, answer: tuple[int, str, str], module: str | None = None,
            error: "Error | None" = None, *, colour: bool = False, normalizing: bool = False,
            normalize_note: str | None = None) -> "Verdict":
    """A port's answer `(exit status, stdout, stderr)` against lowersim's
    outcome, the `module` it lowers to or the LoweringError `error` it
    raises, by the library's one judge (lsim_scenario_port_judge, as
    `lowersim check --impl` judges): modules parsed and printed by MLIR with
    their Pallas kernels decoded and compared as modules, JAX's error line.
    `normalizing`: both modules went through jaxlib's MLIR (--normalize jax),
    `normalize_note` what it said of the port's module when it could not
    read it."""
    if (module is None) == (error is None):
      raise ValueError("judge: give lowersim's module or its error, one of the two")
    handle = self._handle()
    code, out, err_text = answer
    lib = _native.lib
    enc = lambda s: None if s is None else s.encode("utf-8", "surrogateescape")
    out_b, err_b = enc(out), enc(err_text)  # bytes with their lengths: a NUL is judged
    a = _native.PortAnswer(0, int(code), out_b, err_b, 0.0, len(out_b or b""), len(err_b or b""))
    e = _native.PortExpected(enc(module), enc(None if error is None else error.jax_class),
                             enc(None if error is None else error.message))
    o = _native.PortOptions(ctypes.sizeof(_native.PortOptions), colour, normalizing,
                            enc(normalize_note))
    v = _native.PortVerdict()
    err = _native.Error()
    if lib.lsim_scenario_port_judge(lib.lsim_lowerer_mlir_context(handle), ctypes.byref(e),
                                    ctypes.byref(a), ctypes.byref(o), ctypes.byref(v),
                                    ctypes.byref(err)):
      _raise(err)
    try:
      t = lambda b: None if b is None else b.decode("utf-8", "surrogateescape")
      return Verdict(v.passed, t(v.first), t(v.difference), t(v.notes),
                     {"class": t(v.expected_class), "message": t(v.expected_message),
                      "module": t(v.expected_module)},
                     {"class": t(v.actual_class), "message": t(v.actual_message),
                      "module": t(v.actual_module)})
    finally:
      lib.lsim_scenario_port_verdict_clear(ctypes.byref(v))


@dataclasses.dataclass
class Verdict:
  """The judge's verdict on a port's answer: `passed`; `first`, one line
  naming where lowersim and the port first differ; `difference`, that line
  then the unified diff (the differing words marked); `notes`, facts
  reported apart (kernels' bytecode producers); `expected` and `actual`,
  each side where they first differ ({"class", "message", "module"})."""
  passed: bool
  first: str | None
  difference: str | None
  notes: str | None
  expected: dict
  actual: dict

  def __bool__(self) -> bool:
    return self.passed


_local = threading.local()


def _lowerer() -> Lowerer:
  if not hasattr(_local, "lowerer"):
    _local.lowerer = Lowerer()
  return _local.lowerer


def lower_file(path: str | os.PathLike, jax: str | None = None) -> str:
  """The module the scenario file lowers to (as `lowersim lower FILE` prints
  it), lowered as JAX `jax` (one of versions(); None: the newest).  Raises
  LoweringError or InvalidScenario."""
  return _lowerer().lower_file(path, jax)


def lower_xml(text: str | bytes, jax: str | None = None, name: str = "<memory>") -> str:
  """The module a scenario given as XML text lowers to; see lower_file."""
  return _lowerer().lower_xml(text, jax, name)


def write_module(path: str | os.PathLike, out: str | os.PathLike, jax: str | None = None) -> None:
  """Lowers the scenario file into the file `out`; see Lowerer.write_module."""
  _lowerer().write_module(path, out, jax)


def set_max_bytes(limit: int) -> None:
  """The largest scenario file the reader accepts, in bytes, for every
  lowering in the process (`--max-bytes`; lsim_scenario_set_max_bytes); 0
  restores the default."""
  if limit < 0:
    raise ValueError("set_max_bytes: the limit is a number of bytes, 0 or more")
  _native.lib.lsim_scenario_set_max_bytes(limit)


def reprint(module: str) -> str:
  """`module` as MLIR parses and prints it; see Lowerer.reprint."""
  return _lowerer().reprint(module)


def judge(answer: tuple[int, str, str], module: str | None = None, error: Error | None = None,
          **options) -> Verdict:
  """A port's answer against lowersim's module or error; see Lowerer.judge."""
  return _lowerer().judge(answer, module, error, **options)


def judge_file(path: str | os.PathLike, answer: tuple[int, str, str], jax: str | None = None,
               **options) -> Verdict:
  """A port's answer `(exit status, stdout, stderr)` for the scenario file
  against lowersim's own outcome for it (lowered as JAX `jax`), as `lowersim
  check --impl` judges it.  Raises InvalidScenario when lowersim refuses the
  scenario; lowersim's warnings are not compared (nor issued)."""
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
      module, error = lower_file(path, jax), None
    except LoweringError as e:
      module, error = None, e
  return judge(answer, module, error, **options)


def port_command(command: str) -> str:
  """The shell command a port is run with for one scenario, as `lowersim
  check --impl` runs it (lsim_scenario_port_command): each {scenario} a
  reference to $LOWERSIM_SCENARIO quoted for the quotes around it, so that
  with the path in that environment variable it is one argument and nothing
  in it runs."""
  ptr = _native.lib.lsim_scenario_port_command(command.encode("utf-8", "surrogateescape"))
  if not ptr:
    raise MemoryError("lsim_scenario_port_command: out of memory")
  try:
    return _native.ctypes.string_at(ptr).decode("utf-8", "surrogateescape")
  finally:
    _native.free(ptr)


def errors() -> list[ErrorCode]:
  """The error catalogue, in table order (`lowersim errors`)."""
  lib = _native.lib
  rows = []
  for i in range(lib.lsim_status_count()):
    status = lib.lsim_status_at(i)
    rows.append(ErrorCode(status, _native.text(lib.lsim_status_name(status)),
                          _native.text(lib.lsim_status_class(status)),
                          _native.text(lib.lsim_status_template(status)),
                          _native.text(lib.lsim_status_reference(status)),
                          _native.text(lib.lsim_status_doc(status))))
  return rows


def versions() -> list[str]:
  """The JAX versions lowersim models, oldest first; the last is the default
  of `jax=`."""
  lib = _native.lib
  return [_native.text(lib.lsim_jax_profile_at(i).contents.name)
          for i in range(lib.lsim_jax_profile_count())]
