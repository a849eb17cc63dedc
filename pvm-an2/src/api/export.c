/* pvm_export / pvm_unexport: names in PVM_EXPORT, the variables spawned tasks inherit. */

#include <stdlib.h>
#include <string.h>
#include <pvm3.h>

#include "errors.h"

/* Where name sits in the colon-separated list, or NULL. */
static const char *find_name(const char *list, const char *name, size_t *len)
{
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		while (*p == ':')
			p++;
		size_t l = strcspn(p, ":");
		if (l == n && !strncmp(p, name, n)) {
			*len = l;
			return p;
		}
		p += l;
	}
	return NULL;
}

int pvm_export(char *name)
{
	if (!name)
		return lpvm_error("pvm_export", PvmBadParam);
	const char *list = getenv("PVM_EXPORT");
	size_t l;
	if (!*name || (list && find_name(list, name, &l)))
		return 0;
	size_t size = (list ? strlen(list) : 0) + strlen(name) + 2;
	char *v = malloc(size);
	if (!v)
		return lpvm_error("pvm_export", PvmNoMem);
	strcpy(v, list ? list : "");
	if (*v)
		strcat(v, ":");
	strcat(v, name);
	int cc = setenv("PVM_EXPORT", v, 1);
	free(v);
	return cc ? lpvm_error("pvm_export", PvmNoMem) : 0;
}

int pvm_unexport(char *name)
{
	if (!name)
		return lpvm_error("pvm_unexport", PvmBadParam);
	const char *list = getenv("PVM_EXPORT");
	size_t l;
	const char *p = list && *name ? find_name(list, name, &l) : NULL;
	if (!p)
		return 0;
	const char *rest = p + l;   /* drop the name and one colon next to it */
	if (*rest == ':')
		rest++;
	else if (p > list && p[-1] == ':')
		p--;
	char *v = malloc(strlen(list) + 1);
	if (!v)
		return lpvm_error("pvm_unexport", PvmNoMem);
	memcpy(v, list, (size_t)(p - list));
	strcpy(v + (p - list), rest);
	int cc = setenv("PVM_EXPORT", v, 1);
	free(v);
	return cc ? lpvm_error("pvm_unexport", PvmNoMem) : 0;
}
