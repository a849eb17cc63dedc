#!/usr/bin/env bash
# package_build: scripts/package.sh builds the Debian package into $AN2_PACKAGE_DIR (lintian
# must report no error: package.sh fails otherwise); its file list must hold everything
# `cmake --install` installs, and its libraries must start the installed an2d; the system
# an2d's systemd units are shipped, pointing at it, and neither enabled nor started.
set -euo pipefail
if [ "${AN2_SANITIZE:-OFF}" = ON ]; then
	echo "skipped in a sanitizer build: the package is a plain build that scripts/package.sh" \
		"makes in a tree of its own, the same as in the plain build dir, which tests it"
	exit 77
fi
fail() { echo "FAIL: $*" >&2; exit 1; }
out=$AN2_PACKAGE_DIR
rm -rf "$out"
start=$(date +%s)
"$AN2_SOURCE_DIR/scripts/package.sh" "$out" || fail "scripts/package.sh failed"
echo "package built and checked by lintian in $(( $(date +%s) - start )) s"
deb=$(ls "$out"/pvm-an2_*.deb)
# (no pipe into grep -q: pipefail would see SIGPIPE)
files=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|')
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
lib=/usr/lib/$multiarch
want=(
	$lib/libpvm3-an2.so.0 $lib/libgpvm3-an2.so.0 $lib/libfpvm3-an2.so.0 $lib/liban2.so.0
	$lib/libpvm3-an2.so $lib/libgpvm3-an2.so $lib/libfpvm3-an2.so $lib/liban2.so
	$lib/libpvm3-an2.a $lib/libfpvm3-an2.a $lib/liban2.a
	/usr/include/an2.h
	$lib/pkgconfig/pvm3-an2.pc $lib/pkgconfig/gpvm3-an2.pc $lib/pkgconfig/fpvm3-an2.pc
	$lib/pkgconfig/an2.pc
	$lib/pvm3-an2/dropin/libpvm3.so.3 $lib/pvm3-an2/dropin/libgpvm3.so.3
	/usr/sbin/an2d /usr/sbin/an2switch /usr/bin/an2stat /usr/bin/an2run /usr/bin/an2trace
	/usr/share/man/man8/an2d.8.gz /usr/share/man/man8/an2switch.8.gz
	/usr/share/man/man1/an2stat.1.gz /usr/share/man/man1/an2run.1.gz /usr/share/man/man1/an2trace.1.gz
	/usr/share/man/man7/libpvm3-an2.7.gz
	/lib/systemd/system/an2d.service /lib/systemd/system/an2d.socket
)
missing=()
for f in "${want[@]}"; do grep -qxF "$f" <<< "$files" || missing+=("$f"); done
[ ${#missing[@]} -eq 0 ] || fail "not in the package: ${missing[*]}"
# the drop-in never lands on the loader's path: no libpvm3.so* outside its directory
stray=$(grep -E '/libg?pvm3\.so' <<< "$files" | grep -v "^$lib/pvm3-an2/dropin/") || true
[ -z "$stray" ] || fail "a libpvm3 outside the drop-in directory: $stray"
# the installed libraries start /usr/sbin/an2d, never an an2d of the tree they were built in
root=$AN2_TEST_TMP/root   # (the package itself stays for package_run; package_clean removes it)
rm -rf "$root"
mkdir -p "$root"
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"
for so in $lib/libpvm3-an2.so.0 $lib/pvm3-an2/dropin/libpvm3.so.3 $lib/liban2.so.0; do
	paths=$(strings "$root$so" | grep -E '/an2d$' | grep -vx /run/an2d) || true  # (the system an2d's directory)
	[ "$paths" = /usr/sbin/an2d ] || fail "$so would start: ${paths:-no an2d}"
done
# the system an2d's units: the installed an2d, the socket where clients look; not enabled
grep -qx 'ExecStart=/usr/sbin/an2d --system' "$root/lib/systemd/system/an2d.service" ||
	fail "an2d.service does not start /usr/sbin/an2d --system"
grep -qx 'ListenSequentialPacket=/run/an2d/an2d.sock' "$root/lib/systemd/system/an2d.socket" ||
	fail "an2d.socket does not listen at /run/an2d/an2d.sock"
ctl=$(mktemp -d "$AN2_TEST_TMP/ctl.XXXXXX")
dpkg-deb -e "$deb" "$ctl"
# (debhelper's "don't enable" snippet re-enables only a unit the administrator had enabled)
postinst=$(cat "$ctl/postinst" 2>/dev/null) || true
rm -rf "$ctl"
grep -q 'deb-systemd-helper debian-installed' <<< "$postinst" ||
	fail "the package's postinst enables the system an2d"
! grep -q 'deb-systemd-invoke start' <<< "$postinst" ||
	fail "the package's postinst starts the system an2d"
echo "package $(basename "$deb"): ${#want[@]} required files present, an2d path /usr/sbin/an2d"
