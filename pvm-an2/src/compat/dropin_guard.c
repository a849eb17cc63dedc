/* Refuses to run inside pvmd: Debian's pvmd links libpvm3.so.3 and uses its internals. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor)) static void refuse_pvmd(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return;
	exe[n] = 0;
	const char *base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	if (strcmp(base, "pvmd") && strcmp(base, "pvmd3"))
		return;
	static const char text[] =
		"libpvm3-an2: refusing to run inside pvmd: the pvmd must load Debian's libpvm3.so.3,"
		" not this library (check LD_LIBRARY_PATH / LD_PRELOAD; see pvm-an2/README.md)\n";
	(void)!write(2, text, sizeof text - 1);
	_exit(127);
}
