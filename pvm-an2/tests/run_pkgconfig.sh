#!/usr/bin/env bash
# An application relinks with: cc app.c $(pkg-config --cflags --libs pvm3-an2), uninstalled.
set -euo pipefail
pcdir=$1 cc=$2
source "$(dirname "$0")/pvmd_env.sh"
pvm_env_start /nonexistent
cat > "$PVM_WORK/app.c" <<'C'
#include <pvm3.h>
#include <stdio.h>
int main(void)
{
	int me = pvm_mytid();
	printf("tid %s\n", me > 0 ? "ok" : "bad");
	return pvm_exit() == 0 && me > 0 ? 0 : 1;
}
C
flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs pvm3-an2)
echo "pkg-config: $flags"
san=""
case "${AN2_SANITIZE_FLAGS:-}" in "") ;; *) san=$AN2_SANITIZE_FLAGS ;; esac
"$cc" $san "$PVM_WORK/app.c" -o "$PVM_WORK/app" $flags
linked=$(ldd "$PVM_WORK/app")   # (not piped into grep -q: pipefail would see SIGPIPE)
grep -q 'libpvm3-an2' <<< "$linked" || pvm_env_fail "not linked to libpvm3-an2: $linked"
said=$("$PVM_WORK/app") || pvm_env_fail "app failed: $said"
[ "$said" = "tid ok" ] || pvm_env_fail "app said: $said"
