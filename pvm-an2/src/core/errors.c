/* Error codes, their texts, pvm_errno, pvm_perror and PvmAutoErr reporting. */
#include "errors.h"

#include <pvm3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib_state.h"

/* The texts stock PVM 3.4 prints, indexed by -code. */
char *pvm_errlist[] = {
	"Error 0", "Error 1", "Bad parameter", "Parameter mismatch", "Value too large",
	"End of buffer", "No such host", "No such file", "Permission denied", "Error 9",
	"Malloc failed", "Error 11", "Can't decode message", "Error 13",
	"Can't contact local daemon", "No current buffer", "No such buffer", "Null group name",
	"Already in group", "No such group", "Not in group", "No such instance", "Host failed",
	"No parent task", "Not implemented", "Pvmd system error", "Version mismatch",
	"Out of resources", "Duplicate host", "Can't start pvmd", "Already in progress",
	"No such task", "Not Found", "Already Exists", "Hoster must run on master host",
	"Spawning parent set PvmNoParent", "Master Host IP Address is Loopback! (See Readme)",
};
int pvm_nerr = (int)(sizeof pvm_errlist / sizeof pvm_errlist[0]);
int pvm_errno = 0;

static const char *text_of(int code)
{
	return (code <= 0 && code > -pvm_nerr) ? pvm_errlist[-code] : "Unknown Error";
}

static void prefix(void)
{
	if (lpvm.mytid == -1)
		fprintf(stderr, "libpvm [pid%d]: ", lpvm.mypid);
	else
		fprintf(stderr, "libpvm [t%x]: ", (unsigned)lpvm.mytid);
}

int pvm_perror(char *s)
{
	prefix();
	fprintf(stderr, "%s: %s\n", s ? s : "(null)", text_of(pvm_errno));
	return 0;
}

char *pvm_strerror(void)
{
	return (char *)text_of(pvm_errno);
}

int lpvm_error(const char *fn, int code)
{
	pvm_errno = code;
	if (lpvm.autoerr) {
		char buf[128];
		snprintf(buf, sizeof buf, "%s()", fn);
		pvm_perror(buf);
		fflush(stderr);
		if (lpvm.autoerr == 3)
			abort();
		if (lpvm.autoerr == 2) {
			lpvm.autoerr = 1;
			if (lpvm.leave)
				lpvm.leave();
			exit(code);
		}
	}
	return code;
}

/* Stock exports this name and some example programs call it directly. */
int lpvmerr(char *f, int n);
int lpvmerr(char *f, int n)
{
	return lpvm_error(f ? f : "(null)", n);
}

void lpvm_log(const char *fmt, ...)
{
	va_list ap;
	prefix();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
