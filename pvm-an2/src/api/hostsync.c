/* pvm_hostsync (a host's clock and its offset from ours, TM_HOSTSYNC) and pvm_getfds (the
 * descriptors a program may select() on to learn that messages wait). */

#include <stdlib.h>
#include <pvm3.h>
#include <pvmproto.h>

#include "codec.h"
#include "errors.h"
#include "join.h"
#include "lib_state.h"
#include "msg.h"
#include "requests.h"
#include "route.h"

int pvm_hostsync(int host, struct timeval *clk, struct timeval *delta)
{
	int cc = lpvm_attach();
	struct msg *req = cc ? NULL : msg_new(ENC_XDR), *rep = NULL;
	if (!cc && !req)
		cc = PvmNoMem;
	if (!cc)
		cc = lpvm_pack_int(req, host);
	struct timeval before, after;
	gettimeofday(&before, NULL);
	if (!cc)
		cc = lpvm_daemon_call(req, TM_HOSTSYNC, &rep);
	gettimeofday(&after, NULL);
	msg_free(req);
	int status = 0, t[2];
	if (!cc && (lpvm_unpack_int(rep, &status) || (status >= 0
	            && lpvm_unpack(rep, PVM_INT, t, 2, 1))))
		cc = PvmSysErr;
	msg_free(rep);
	if (!cc && status < 0)
		cc = status;
	if (cc < 0)
		return lpvm_error("pvm_host_sync", cc);
	struct timeval remote = { t[0], t[1] };
	if (clk)
		*clk = remote;
	if (delta) {   /* the midpoint of our request and its answer, minus the host's clock */
		long long mid_us = ((long long)before.tv_sec * 1000000 + before.tv_usec
		                    + (long long)after.tv_sec * 1000000 + after.tv_usec) / 2;
		long long d = mid_us - ((long long)remote.tv_sec * 1000000 + remote.tv_usec);
		long long sec = d / 1000000, usec = d % 1000000;
		if (usec < 0) {
			usec += 1000000;
			sec--;
		}
		delta->tv_sec = (time_t)sec;
		delta->tv_usec = (suseconds_t)usec;
	}
	return 0;
}

int pvm_getfds(int **fds)
{
	static int list[MAX_ROUTES * 2];
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_getfds", cc);
	if (!fds)
		return lpvm_error("pvm_getfds", PvmBadParam);
	int n = 0;
	for (int i = 0; i < lpvm.nroutes; i++) {   /* the pvmd's socket comes first, as stock */
		struct pollfd p[MAX_ROUTES * 2];
		int k = lpvm.routes[i]->ops->pollfds(lpvm.routes[i], p, MAX_ROUTES * 2 - n);
		for (int j = 0; j < k; j++)
			list[n++] = p[j].fd;
	}
	*fds = list;
	return n;
}
