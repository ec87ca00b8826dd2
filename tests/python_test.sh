#!/usr/bin/env bash
# tests/python_test.sh MODE: the Python package (python/), with PYTHON the
# interpreter CMake found.  Exits 77 (CTest's skip) when what MODE needs is
# missing.
#   bindings  python/tests/test_lowersim.py: the bindings against the command
#   plugin    python/tests/test_plugin.py: the pytest plugin against the command,
#             a wrong port and the oracle (when build/oracle-venv exists)
#   recipe    README.md's Python port (the block that starts `# myport.py`),
#             as written, against the whole corpus: batch and one process
#             per scenario, every scenario passing
#   pip       `pip install --no-build-isolation ./python` into a fresh venv
#             (offline, from a copy of python/), then, outside the repository,
#             the installed package lowers with its own copy of the library
#             and registers the pytest plugin
set -u
MODE=${1:?} PYTHON=${PYTHON:-python3} BUILD=${BUILD_DIR:?} SRC=${SOURCE_DIR:?}
LOWERSIM=${LOWERSIM:?}
export SOURCE_DIR=$SRC LOWERSIM
skip() { echo "skipped: $*"; exit 77; }
command -v "$PYTHON" >/dev/null || skip "no Python ($PYTHON)"

case $MODE in
  bindings|plugin)
    "$PYTHON" -c 'import pytest' 2>/dev/null || skip "no pytest for $PYTHON"
    cd "$SRC/python" &&
      PYTHONPATH=$SRC/python LOWERSIM_LIBRARY_DIR=$BUILD exec "$PYTHON" -m pytest -q \
        -p no:cacheprovider "tests/test_$MODE.py"
    ;;
  recipe)
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    awk '/^```python$/ {block=1; n=0; next} block && /^```$/ {if (mine) exit; block=0; next}
         block && ++n == 1 && /^# myport\.py/ {mine=1} block && mine {print}' \
      "$SRC/README.md" >"$tmp/myport.py"
    [ -s "$tmp/myport.py" ] || { echo "FAIL README.md has no block starting '# myport.py'"; exit 1; }
    cd "$tmp" || exit 1
    export PYTHONPATH=$SRC/python LOWERSIM_LIBRARY_DIR=$BUILD
    failed=0
    # Batch over the whole corpus, then one process per scenario over the
    # bundled ones (each start imports the package).
    for how in "--batch -j 2|python3 myport.py --batch|$SRC/testdata/conformance $SRC/testdata/scenarios" \
               "-j 2|python3 myport.py {scenario}|$SRC/testdata/scenarios"; do
      IFS='|' read -r options command paths <<<"$how"
      # shellcheck disable=SC2086
      out=$("$LOWERSIM" check $paths $options --no-progress --impl "${command/python3/$PYTHON}" 2>&1)
      code=$?
      summary=$(grep -E '^[0-9]+ passed, ' <<<"$out" | tail -1)
      if [ $code -ne 0 ] || [[ "$summary" != *" passed, 0 failed, "* ]]; then
        echo "FAIL the README's port ($command): exit $code"; grep -E '^(FAIL|  )' <<<"$out" | head -40
        echo "$summary"; failed=1
      else
        echo "ok the README's port ($command): $summary"
      fi
    done
    exit $failed
    ;;
  pip)
    # An interpreter with setuptools and wheel, so that pip builds offline.
    python=
    for p in "$PYTHON" /usr/bin/python3; do
      if "$p" -c 'import setuptools, wheel, venv' 2>/dev/null; then python=$p; break; fi
    done
    [ -n "$python" ] || skip "no Python with setuptools and wheel (Debian: python3-setuptools python3-wheel)"
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    cp -r "$SRC/python" "$tmp/python" && rm -rf "$tmp/python/build" "$tmp/python"/*.egg-info
    "$python" -m venv --system-site-packages "$tmp/venv" || exit 1
    if ! LOWERSIM_SOURCE_DIR=$SRC LOWERSIM_BUILD_DIR=$BUILD "$tmp/venv/bin/pip" install -q \
         --no-build-isolation --no-index "$tmp/python" >"$tmp/log" 2>&1; then
      echo "FAIL pip install"; cat "$tmp/log"; exit 1
    fi
    rm -rf "$tmp/python"
    cd "$tmp" && env -u LOWERSIM_LIBRARY_DIR -u PYTHONPATH "$tmp/venv/bin/python" - \
      "$SRC/testdata/scenarios/platform-dependent.xml" "$tmp/venv" <<'PY'
import importlib.metadata, subprocess, sys, os
import lowersim, lowersim._native as native
scenario, venv = sys.argv[1], sys.argv[2]
assert lowersim.__file__.startswith(venv), lowersim.__file__
assert native.lib._name.startswith(os.path.join(os.path.dirname(lowersim.__file__), "_lib")), native.lib._name
want = subprocess.run([os.environ["LOWERSIM"], "lower", scenario], capture_output=True, text=True).stdout
assert lowersim.lower_file(scenario) == want
plugins = {e.name: e.value for e in importlib.metadata.entry_points(group="pytest11")}
assert plugins.get("lowersim.pytest_plugin") == "lowersim.pytest_plugin", plugins
try:
  import pytest  # noqa: F401
except ImportError:
  pass
else:
  import lowersim.pytest_plugin  # noqa: F401
print("installed:", lowersim.__file__, native.lib._name)
PY
    code=$?
    [ $code -eq 0 ] || { echo "FAIL the installed package"; exit 1; }
    # With pytest, the entry point registers the plugin without -p.
    if "$tmp/venv/bin/python" -c 'import pytest' 2>/dev/null; then
      cd "$tmp" && env -u LOWERSIM_LIBRARY_DIR -u PYTHONPATH "$tmp/venv/bin/python" -m pytest -q \
        -p no:cacheprovider --lowersim-port "$LOWERSIM lower {scenario}" "$SRC/testdata/scenarios" ||
        { echo "FAIL the installed plugin"; exit 1; }
    fi
    echo "1 passed, 0 failed"
    ;;
  *) echo "usage: python_test.sh bindings|plugin|pip" >&2; exit 2 ;;
esac
