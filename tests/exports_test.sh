#!/usr/bin/env bash
# tests/exports_test.sh: the shared libraries export the public API and
# nothing else.  liblowersim.so: every lsim_* function and object declared
# in include/lowersim/ (outside the scenario headers) under LOWERSIM_<SOVERSION>,
# private helpers (lsimp_*) only under LOWERSIM_PRIVATE, no MLIR, LLVM or C++
# symbol; liblowersim_scenario.so: the scenario headers' lsim_scenario_*.
# Both have their SONAME.
set -u
LIB=${LIBLOWERSIM:?} SCENARIO=${LIBLOWERSIM_SCENARIO:?} SRC=${SOURCE_DIR:?} SOVERSION=${SOVERSION:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if [ "$1" -eq 0 ]; then pass=$((pass+1)); else echo "FAIL $2"; fail=$((fail+1)); fi; }

# What headers declare: functions (the name at the start of a line or after
# its return type; not static inline, not typedefs) and extern objects.
declared() { # declared HEADER...
  grep -hE '^([A-Za-z_][^;(]*[ *])?lsim_[a-z0-9_]+\(' "$@" | grep -vE '^(static|typedef|#)' |
    grep -oE 'lsim_[a-z0-9_]+\(' | tr -d '(' 
  grep -hE '^extern ' "$@" | grep -oE 'lsim_[a-z0-9_]+(\[\])?;' | tr -d '[];'
}
exported() { # exported LIBRARY VERSION: defined dynamic symbols of that version node
  nm -D --defined-only "$1" | awk -v v="$2" '$3 ~ "@@?"v"$" {sub(/@.*/, "", $3); print $3}' | sort -u
}

headers=() scenario_headers=()
for h in "$SRC"/include/lowersim/*.h; do
  case $(basename "$h") in scenario*) scenario_headers+=("$h") ;; *) headers+=("$h") ;; esac
done
declared "${headers[@]}" | sort -u >"$tmp/declared"
declared "${scenario_headers[@]}" | sort -u >"$tmp/declared_scenario"
exported "$LIB" "LOWERSIM_$SOVERSION" >"$tmp/public"
exported "$SCENARIO" "LOWERSIM_$SOVERSION" >"$tmp/public_scenario"

diff "$tmp/declared" "$tmp/public" >"$tmp/d"; ok $? "liblowersim.so's public symbols are not the headers' (< declared, > exported): $(cat "$tmp/d")"
diff "$tmp/declared_scenario" "$tmp/public_scenario" >"$tmp/d"
ok $? "liblowersim_scenario.so's public symbols are not the scenario headers' (< declared, > exported): $(cat "$tmp/d")"

# Nothing else: every defined dynamic symbol is one of the above, a private
# helper under LOWERSIM_PRIVATE, or a version node's own name.
nm -D --defined-only "$LIB" | awk '{print $3}' |
  grep -vE "^(lsim_[a-z0-9_]+@@LOWERSIM_$SOVERSION|lsimp_[a-z0-9_]+@@LOWERSIM_PRIVATE|LOWERSIM_(PRIVATE|$SOVERSION))\$" >"$tmp/other"
ok $(test ! -s "$tmp/other"; echo $?) "liblowersim.so exports more: $(head -5 "$tmp/other")"
nm -D --defined-only "$SCENARIO" | awk '{print $3}' |
  grep -vE "^(lsim_scenario_[a-z0-9_]+@@LOWERSIM_$SOVERSION|LOWERSIM_$SOVERSION)\$" >"$tmp/other"
ok $(test ! -s "$tmp/other"; echo $?) "liblowersim_scenario.so exports more: $(head -5 "$tmp/other")"

for lib in "$LIB" "$SCENARIO"; do
  name=$(basename "$lib"); name=${name%%.so*}
  readelf -d "$lib" | grep -q "(SONAME).*\[$name.so.$SOVERSION\]"; ok $? "$name has no SONAME $name.so.$SOVERSION"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
