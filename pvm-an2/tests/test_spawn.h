/* test_spawn.h — where the test programs spawn their children: PVM_TEST_SPAWN_HOST=NAME puts
 * them on host NAME (PvmTaskHost), as the tests across several hosts need; unset, the pvmd
 * chooses (PvmTaskDefault), as on one host. */
#ifndef TEST_SPAWN_H
#define TEST_SPAWN_H

#include <pvm3.h>
#include <stdlib.h>

static inline int test_spawn(const char *program, char **argv, int count, int *tids)
{
	char *host = getenv("PVM_TEST_SPAWN_HOST");
	if (host && *host)
		return pvm_spawn((char *)program, argv, PvmTaskHost, host, count, tids);
	return pvm_spawn((char *)program, argv, PvmTaskDefault, "", count, tids);
}

#endif
