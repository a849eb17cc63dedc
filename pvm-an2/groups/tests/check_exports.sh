#!/usr/bin/env bash
# Every function Debian's libgpvm3 exports as API (pvm_* and the Pvm* reduce operations) is
# exported by libgpvm3-an2 and by the drop-in libgpvm3.so.3; the drop-in has Debian's soname.
set -euo pipefail
debian=$1; shift
api() { nm -D --defined-only "$1" | awk '$2 == "T" { print $3 }' | grep -E '^(pvm_|Pvm)' | sort; }
want=$(api "$debian")
[ -n "$want" ] || { echo "FAIL: no API found in $debian" >&2; exit 1; }
for lib in "$@"; do
	missing=$(comm -23 <(echo "$want") <(api "$lib"))
	[ -z "$missing" ] || { echo "FAIL: $lib lacks: $missing" >&2; exit 1; }
	echo "ok: $lib exports all $(echo "$want" | wc -l) group functions"
done
soname=$(readelf -d "${@: -1}" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libgpvm3.so.3 ] || { echo "FAIL: drop-in soname is '$soname'" >&2; exit 1; }
echo "ok: drop-in soname $soname"
