#!/usr/bin/env bash
# tests/explain_html_test.sh MODE: `lowersim explain --html` pages checked by
# tests/explain_html_check.py (every op links a step and back, the dispatch
# diagram, the source links at the profile's ref, no network, the outcome).
#   MODE page:    the pages as written.
#   MODE browser: each page loaded in Debian's headless Chromium
#                 (chromium --headless --dump-dom) and its DOM checked, and a
#                 screenshot of each in $SHOTS_DIR (build/explain-html/) for humans;
#                 skipped (exit 77) when chromium is not installed.
# Environment: LOWERSIM (the command), SOURCE_DIR, SHOTS_DIR (for the screenshots).
set -u
mode=${1:-page}
L="$LOWERSIM"
S="$SOURCE_DIR/testdata/scenarios"
C="$SOURCE_DIR/tests/explain_html_check.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
browser=""
if [ "$mode" = browser ]; then
  browser=$(command -v chromium || command -v chromium-browser || true)
  if [ -z "$browser" ]; then
    echo "explain_html_test: skipped: no chromium (apt-get install -y chromium; .ci/run installs it)"
    exit 77
  fi
  shots="$SHOTS_DIR"
  mkdir -p "$shots"
fi
failed=0
# The pages name their scenario's path; it comes from a folder whose name is
# wider than a phone's screen, so a long unbroken path must wrap, wherever the
# checkout lies.
long="$tmp/a-folder-whose-name-is-wider-than-a-phone-screen-$(printf 'x%.0s' $(seq 60))"
cp -r "$S" "$long" && S="$long"

# page NAME EXIT SCENARIO [lowersim options] -- [check options]
page() {
  local name=$1 want=$2 scenario=$3; shift 3
  local opts=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  "$L" explain "${opts[@]}" --html "$tmp/$name.html" "$scenario" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local code=$?
  if [ "$code" != "$want" ]; then
    echo "FAIL $name: exit $code, expected $want: $(head -c 300 "$tmp/$name.err")"
    failed=1
    return
  fi
  if [ -s "$tmp/$name.out" ]; then
    echo "FAIL $name: --html printed on stdout"
    failed=1
  fi
  if [ -z "$browser" ]; then
    python3 "$C" "$tmp/$name.html" "$@" || failed=1
    return
  fi
  # At a desktop's width and a phone's (500 px: headless Chromium's narrowest window):
  # the page measured by the script
  # below (its DOM dumped), and a screenshot of each for humans.
  local width
  for width in 1280 500; do
    MEASURE="$measure" python3 -c 'import os, sys; sys.stdout.write(sys.stdin.read().replace(
      "</body>", "<script>" + os.environ["MEASURE"] + "</script></body>"))' \
      <"$tmp/$name.html" >"$tmp/$name-$width.html"
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
      --user-data-dir="$tmp/profile" --window-size=$width,1000 --dump-dom \
      "file://$tmp/$name-$width.html" >"$tmp/$name-$width.dom.html" 2>"$tmp/$name.chromium" ||
      { echo "FAIL $name: chromium: $(tail -3 "$tmp/$name.chromium")"; failed=1; return; }
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
      --user-data-dir="$tmp/profile" --window-size=$width,1600 \
      --screenshot="$shots/$name-$width.png" "file://$tmp/$name.html" >/dev/null 2>&1 ||
      { echo "FAIL $name: chromium could not take a screenshot at $width px"; failed=1; }
    python3 "$C" "$tmp/$name-$width.dom.html" "$@" --browser --width $width || failed=1
  done
}

# Run in the page after its own script: every element's content fits its
# box (scrollWidth <= clientWidth, and the page's the window's), every
# dispatch diagram inside its column; the window's width, for the check.
measure='(function(){var over=[];document.querySelectorAll("body *").forEach(function(e){'\
'if(e instanceof HTMLElement&&e.clientWidth>0&&e.scrollWidth>e.clientWidth+1)'\
'over.push(e.tagName.toLowerCase()+(e.id?"#"+e.id:"")+(e.className?"."+e.className.split(" ")[0]:""));});'\
'var d=document.documentElement;if(d.scrollWidth>d.clientWidth+1)over.push("the page");'\
'var svg=[];document.querySelectorAll("svg.case-diagram").forEach(function(s){'\
'var r=s.getBoundingClientRect(),c=s.closest("section").getBoundingClientRect();'\
'if(r.right>c.right+1||r.left<c.left-1||r.width<1)svg.push(s.parentElement.id);});'\
'document.body.dataset.overflow=over.join(" ");document.body.dataset.svgOverflow=svg.join(" ");'\
'document.body.dataset.measured=window.innerWidth;})();'

# lax.platform_dependent for (cpu, cuda, tpu): one dispatch, 3 platforms, 3
# kept rules; the newest release links its tag.
# The page carries what the terminal says around the narration: the JAX
# program and its jaxpr first, then the request, runtime and module context.
page platform-dependent 0 "$S/platform-dependent.xml" -- --outcome ok --ops 31 \
  --dispatches 1 --platforms 3 --rules 3 --ref jax-v0.12.0.1 \
  --link lower_per_platform#L2604 --link jaxpr_subcomp#L2217 \
  --section scenario --section python --section jaxpr --section request --section runtime \
  --section module-context --section narration-pane --section module-pane \
  --text "python=v += [lax.platform_dependent(v[0], default=lax.neg, **{'tpu': lax.sin, 'cuda': lax.cos, 'rocm': lax.cos})]" \
  --text "python=lowered = jitted.trace(*args).lower(lowering_platforms=('cpu', 'cuda', 'tpu'))" \
  --text "jaxpr={ lambda ; a:f32[4]. let" \
  --text "jax-version=JAX 0.12.0.1 (commit dc4af68444; the newest: neither jax= nor --jax)" \
  --text "request=function f (module jit_f) platforms cpu,cuda,tpu pinned backend (none) arguments 1, equations 1" \
  --text "runtime=JAX_PLATFORMS (unset: every factory is tried)" \
  --text "runtime=backends cpu 1 device, priority 0 <- default backend" \
  --text "module-context=host callbacks 0 channels 0"
# The same at 0.10.2: the links name the tag and its lines.
page platform-dependent-0.10.2 0 "$S/platform-dependent.xml" --jax 0.10.2 -- --outcome ok \
  --ops 31 --dispatches 1 --ref jax-v0.10.2 --link lower_per_platform#L2462 \
  --link lower_jaxpr_to_module#L1287 --link _cond_lowering#L1014
# Host callbacks and channels; Pallas with its kernel module.
page buffer-callback-cuda 0 "$S/buffer-callback-cuda.xml" -- --outcome ok \
  --link ModuleContext.add_host_callback#L971
page pallas-tpu 0 "$S/pallas-tpu.xml" -- --outcome ok --dispatches 0
# A JAX error is the page's outcome (exit 1, as the text's).
page missing-rule 1 "$S/missing-rule.xml" -- --outcome error --ops 0 \
  --section request --section runtime
# An error with the runtime's warning and the error step's cause.
page backend-mismatch 1 "$S/backend-mismatch.xml" -- --outcome error --ops 0 \
  --link ModuleContext.get_backend#L940 \
  --text "request=pinned backend cpu" \
  --text "runtime=backends cpu 1 device, priority 0 cuda 2 devices, priority 500 <- default backend" \
  --text "runtime=warning DeprecationWarning: backend and device argument on jit is deprecated." \
  --text "narration-pane=cause: the check in ModuleContext.get_backend fails on backend_platform = cpu, platform = cuda"
# Every bundled scenario: every op linked, both ways.
for f in "$S"/*.xml; do
  n=$(basename "$f" .xml)
  case $n in platform-dependent | buffer-callback-cuda | pallas-tpu | missing-rule | backend-mismatch) continue ;; esac
  [ -n "$browser" ] && continue # the browser run takes the five above
  "$L" explain --html "$tmp/all.html" "$f" >/dev/null 2>&1
  code=$?
  if [ "$code" -gt 1 ]; then echo "FAIL $n: exit $code"; failed=1; continue; fi
  [ "$code" = 0 ] && o=ok || o=error
  python3 "$C" "$tmp/all.html" --outcome "$o" >"$tmp/all.out" || { cat "$tmp/all.out"; failed=1; }
done
# Invalid input: a page that says so, exit 2; --json with --html is refused.
printf '<scenario' >"$tmp/bad.xml"
"$L" explain --html "$tmp/bad.html" "$tmp/bad.xml" 2>"$tmp/bad.err"
[ $? = 2 ] && grep -q 'class="outcome error">LSIM_E_INVALID_INPUT' "$tmp/bad.html" ||
  { echo "FAIL invalid input: $(cat "$tmp/bad.err")"; failed=1; }
"$L" explain --json --html "$tmp/x.html" "$S/platform-dependent.xml" 2>/dev/null
[ $? = 2 ] && [ ! -e "$tmp/x.html" ] || { echo "FAIL --json --html accepted"; failed=1; }
# Never half-written: an unwritable target leaves nothing behind.
"$L" explain --html /nonexistent/dir/x.html "$S/platform-dependent.xml" 2>"$tmp/nw.err"
[ $? = 2 ] && grep -q "cannot write /nonexistent/dir/x.html" "$tmp/nw.err" ||
  { echo "FAIL unwritable target: $(cat "$tmp/nw.err")"; failed=1; }
[ -n "$browser" ] && echo "screenshots in $shots"
exit $failed
