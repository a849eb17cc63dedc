/* Fortran <-> C string conversion for the binding. */
#include <stdlib.h>
#include <string.h>

#include "fstring.h"

char *fpvm_cstring_raw(const char *f, flen_t len)
{
	char *s = malloc(len + 1);
	if (s) {
		if (len)
			memcpy(s, f, len);
		s[len] = '\0';
	}
	return s;
}

char *fpvm_cstring(const char *f, flen_t len)
{
	while (len > 0 && f[len - 1] == ' ')
		len--;
	return fpvm_cstring_raw(f, len);
}

void fpvm_fstring(char *f, flen_t len, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n > len)
		n = len;
	if (n)
		memcpy(f, s, n);
	memset(f + n, ' ', len - n);
}
