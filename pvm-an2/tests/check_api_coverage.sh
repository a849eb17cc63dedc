#!/usr/bin/env bash
# Walks the function declarations of the system's <pvm3.h>: each must be exported by
# libpvm3-an2.so and the drop-in libpvm3.so.3 (group calls: by libgpvm3-an2.so), and each
# exported pvm_* function must be listed in api_coverage.txt with a registered test whose
# source calls it. A new export without a test fails here.
#   check_api_coverage.sh <build dir> <C compiler>
set -euo pipefail
build=$(cd "$1" && pwd) cc=$2
here=$(cd "$(dirname "$0")" && pwd) repo=$(cd "$(dirname "$0")/../.." && pwd)
list=$here/api_coverage.txt
status=0
fail() { echo "FAIL: $*" >&2; status=1; }
decls=$(printf '#include <stdio.h>\n#include <pvm3.h>\n' | "$cc" -E -P - \
	| grep -oE '\b(pvm_[a-z_]+|Pvm[A-Z][a-z]+)[ ]*\(' | tr -d '( ' | sort -u)
[ "$(wc -w <<< "$decls")" -ge 100 ] || fail "too few declarations found in <pvm3.h>: $decls"
exports() { nm -D --defined-only "$1" | awk '$2 ~ /[TW]/ {print $3}' | sed 's/@.*//' | sort -u; }
an2=$(exports "$build/lib/libpvm3-an2.so")
dropin=$(exports "$build/lib/dropin/libpvm3.so.3")
grp=$(exports "$build/lib/libgpvm3-an2.so")
# The registered tests, read from the CTestTestfile.cmake files (add_test, then subdirs), as
# ctest reads them: running ctest -N in the build would overwrite Testing/Temporary/LastTest.log,
# which then holds the output of the test run this check is part of.
registered() {
	local file=$1/CTestTestfile.cmake dir
	[ -f "$file" ] || return 0
	sed -nE 's/^add_test\(\[=\[([^]]*)\]=\] .*/\1/p' "$file"
	for dir in $(sed -nE 's/^subdirs\("(.*)"\)$/\1/p' "$file"); do registered "$1/$dir"; done
}
tests=$(registered "$build")
[ -n "$tests" ] || fail "no registered tests found in $build/CTestTestfile.cmake"
for f in $decls; do
	if grep -qx "$f" <<< "$grp" && ! grep -qx "$f" <<< "$an2"; then
		continue   # a group call: libgpvm3-an2 (its own tests, grp_exports)
	fi
	grep -qx "$f" <<< "$an2" || fail "$f declared in <pvm3.h>, not exported by libpvm3-an2.so"
	grep -qx "$f" <<< "$dropin" || fail "$f declared in <pvm3.h>, not exported by the drop-in"
done
# (the group library's extra names, not in <pvm3.h>, are grp_exports' business)
for f in $(grep -E '^pvm_' <<< "$an2"; grep -E '^(Pvm|pvm_)' <<< "$grp" | grep -xF "$decls"); do
	read -r name test src < <(awk -v f="$f" '$1 == f' "$list") || true
	if [ -z "${name:-}" ]; then fail "$f is exported but api_coverage.txt names no test"; continue; fi
	grep -qx "$test" <<< "$tests" || fail "$f: test $test is not registered"
	[ -f "$repo/$src" ] && grep -qE "\b$f\b" "$repo/$src" || fail "$f: $src does not call it"
	name=""
done
[ $status -eq 0 ] && echo "ok: $(wc -w <<< "$decls") declarations of <pvm3.h>, all exported and tested"
exit $status
