/* The last names Debian's console imports from libpvm3.so.3 (nm -D --undefined-only
 * /usr/bin/pvm) beside the pvm_* calls: pvmstrtoi, pvmputenv, pvmendtask and pvmreset, so
 * that the console runs on the drop-in. */
#include <pvm3.h>
#include <pvmproto.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "join.h"
#include "lib_state.h"
#include "msg.h"
#include "requests.h"

/* A number as C writes it: 0x… hexadecimal, 0… octal, else decimal. */
int pvmstrtoi(char *p);
int pvmstrtoi(char *p)
{
	return p ? (int)strtol(p, NULL, 0) : 0;
}

/* "NAME=value" into the environment, the string itself kept (putenv's rule); -1 if it is not
 * of that form. */
int pvmputenv(char *s);
int pvmputenv(char *s)
{
	if (!s || !*s || *s == '=' || !strchr(s, '='))
		return -1;
	return putenv(s) ? -1 : 0;
}

/* Leaves the virtual machine without telling the pvmd (it has gone, or the console is
 * being reset). */
int pvmendtask(void);
int pvmendtask(void)
{
	if (lpvm.mytid != -1)
		lpvm_detach();
	return 0;
}

/* The console's reset: kills every task but us and those that asked to survive (PvmNoReset),
 * if killtasks; then has the pvmd wipe the mailbox (TM_DB { TMDB_RESET, our tid, class,
 * index, killtasks, the survivors }). */
int pvmreset(int mytid, int killtasks, char *class, int index);
int pvmreset(int mytid, int killtasks, char *class, int index)
{
	int *keep = NULL, nkeep = 0, ntask = 0;
	struct pvmtaskinfo *tasks;
	if (!pvm_tasks(0, &ntask, &tasks) && ntask > 0) {
		if (pvm_getnoresets(&keep, &nkeep) < 0)
			nkeep = 0;
		for (int i = 0; i < ntask && killtasks; i++) {
			int tid = tasks[i].ti_tid, kept = 0;
			for (int j = 0; j < nkeep && !kept; j++)
				kept = keep[j] == tid;
			if (!kept && tid && tid != mytid)
				pvm_kill(tid);
		}
	}
	struct msg *req = msg_new(ENC_XDR), *rep = NULL;
	int v[2] = { TMDB_RESET, lpvm.mytid };
	int cc = req ? lpvm_pack(req, PVM_INT, v, 2, 1) : PvmNoMem;
	if (!cc)
		cc = lpvm_pack_str(req, class ? class : "");
	int w[3] = { index, killtasks, nkeep };
	if (!cc)
		cc = lpvm_pack(req, PVM_INT, w, 3, 1);
	if (!cc && nkeep > 0)
		cc = lpvm_pack(req, PVM_INT, keep, nkeep, 1);
	if (!cc)
		cc = lpvm_daemon_call(req, TM_DB, &rep);
	msg_free(req);
	msg_free(rep);
	return 0;
}
