#!/usr/bin/env bash
# Every routine Debian's libfpvm3.a provides to Fortran programs (pvmf*_ and the reduce
# operations pvmsum_ ...) is defined by our shared and static Fortran libraries. Debian's
# internal string helpers ftocstr/ctofstr are not API and are left out on purpose.
set -euo pipefail
debian=$1; shift
defined() { nm $2 "$1" 2>/dev/null | awk '$2 == "T" { print $3 }' | grep -Ev '^(ftocstr|ctofstr)$' | sort -u; }
want=$(defined "$debian" "")
n=$(echo "$want" | wc -l)
[ "$n" -ge 60 ] || { echo "FAIL: only $n routines found in $debian" >&2; exit 1; }
for lib in "$@"; do
	flag=""
	case $lib in *.so*) flag=-D ;; esac
	missing=$(comm -23 <(echo "$want") <(defined "$lib" "$flag"))
	[ -z "$missing" ] || { echo "FAIL: $lib lacks:" $missing >&2; exit 1; }
	extra=$(comm -13 <(echo "$want") <(defined "$lib" "$flag") | grep -E '^pvm' || true)
	[ -z "$extra" ] || { echo "FAIL: $lib exports more than Debian's:" $extra >&2; exit 1; }
	echo "ok: $lib defines the $n Fortran routines of Debian's libfpvm3"
done
