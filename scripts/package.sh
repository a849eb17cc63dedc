#!/usr/bin/env bash
# Builds the Debian package pvm-an2_<version>_<arch>.deb (debian/, dpkg-buildpackage with
# debhelper) from this source tree into build/deb/ (or OUTDIR), then runs lintian on it and
# fails if lintian reports an error.
#   scripts/package.sh [OUTDIR]
# The tree is copied first (tracked and untracked files, not what .gitignore ignores), so
# build directories and the checkout stay untouched; the copy is removed at the end.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$src/build/deb}
"$src/scripts/deps.sh"
mkdir -p "$out"
out=$(cd "$out" && pwd)

work=$(mktemp -d "$out/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work   # (lintian leaves its mldbm-elf-* databases in TMPDIR: they go with it)
mkdir "$work/pvm-an2"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	# (files deleted in the work tree but still tracked are skipped)
	inside=${out#"$src"/}   # (an OUTDIR inside the tree, not ignored by git, is not copied)
	[ "$inside" = "$out" ] && inside=""
	while IFS= read -r -d '' f; do
		[ -n "$inside" ] && [[ "$f" == "$inside"/* ]] && continue
		if [ -e "$src/$f" ]; then printf '%s\0' "$f"; fi
	done < <(git -C "$src" ls-files -z --cached --others --exclude-standard) |
		tar -C "$src" --null -T - -cf - | tar -C "$work/pvm-an2" -xf -
else
	tar -C "$src" --exclude='./build*' --exclude='./results*' -cf - . | tar -C "$work/pvm-an2" -xf -
fi

jobs=$(nproc 2>/dev/null || echo 1)
echo "package: building in $work (dpkg-buildpackage, $jobs jobs)" >&2
(cd "$work/pvm-an2" &&
	DEB_BUILD_OPTIONS="parallel=$jobs ${DEB_BUILD_OPTIONS:-}" \
		dpkg-buildpackage -b -us -uc > "$work/build.log" 2>&1) || {
	tail -n 40 "$work/build.log" >&2
	echo "package: dpkg-buildpackage failed (the log's end is above)" >&2
	exit 1
}
rm -f "$out"/pvm-an2_*.deb "$out"/pvm-an2-dbgsym_*.deb "$out"/pvm-an2_*.buildinfo "$out"/pvm-an2_*.changes
mv "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes "$out"/
deb=$(ls "$out"/pvm-an2_*.deb)

# lintian: an error (or lintian failing) fails the package; its other findings are printed
# (README.md explains the warnings that remain)
rc=0
lintian --fail-on error --display-info "$deb" >&2 || rc=$?
if [ "$rc" -ne 0 ]; then
	echo "package: lintian reports errors (or failed: status $rc)" >&2
	exit 1
fi
echo "$deb"
