#!/usr/bin/env bash
# Installs the Debian packages pvm-an2 needs to build, test and benchmark, if any is missing.
set -euo pipefail

packages=(
  gcc make cmake pkg-config   # the build
  pvm pvm-dev libpvm3 pvm-examples   # stock pvmd, <pvm3.h>/<pvmproto.h>, the TCP baseline, example sources
  libatm1-dev                 # linux-atm: text2atm/atm2text, text2qos
  zlib1g-dev                  # gzip-compressed captures
  libsodium-dev libmunge-dev munge   # the links' handshake (HMAC, MUNGE); munged for its tests
  libfabric-dev libfabric-bin # the links' network carrier (libfabric endpoints); fi_info, fi_pingpong
  tshark                      # reads captures back in the tests
  gnuplot-nox                 # the benchmark's plots
  clang libclang-rt-14-dev    # libFuzzer for the fuzz targets
  strace                      # the no-system-call check
  gfortran                    # the Fortran binding's tests (pvm-an2/fortran)
  procps psmisc               # pgrep/pkill/fuser in the tests' clean-up checks
  iproute2 python3-minimal    # emulated hosts (scripts/hosts.sh: ip, tc); tests/hosts TCP probe
  python3                     # an2trace (json) and the trace tests' normaliser
  dpkg-dev debhelper fakeroot lintian man-db   # scripts/package.sh and its test (tests/package)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
