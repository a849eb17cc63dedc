/* Joining and leaving the virtual machine: the TM_CONNECT/TM_CONN2 handshake, TM_EXIT. */
#include "join.h"

#include <errno.h>
#include <fcntl.h>
#include <pvm3.h>
#include <pvmproto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec.h"
#include "control.h"
#include "errors.h"
#include "lib_state.h"
#include "msg.h"
#include "requests.h"
#include "route_providers.h"
#include "route_set.h"
#include "rxqueue.h"
#include "trace.h"

static const char *tmp_dir(void)
{
	const char *d = getenv("PVM_TMP");
	return d && *d ? d : "/tmp";
}

/* The pvmd's address: $PVMSOCK, else the file $PVM_TMP/pvmd.<uid>[.<vmid>]. */
static int read_pvmd_address(char *out, size_t size)
{
	const char *env = getenv("PVMSOCK");
	if (env && *env) {
		snprintf(out, size, "%s", env);
		return 0;
	}
	char path[512];
	const char *vmid = getenv("PVM_VMID");
	int n = snprintf(path, sizeof path, "%s/pvmd.%d%s%s", tmp_dir(), (int)geteuid(),
	                 vmid ? "." : "", vmid ? vmid : "");
	if (n < 0 || (size_t)n >= sizeof path)
		return PvmSysErr;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return PvmSysErr;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != geteuid() && st.st_uid != 0)) {
		lpvm_log("%s is not a file of ours: ignoring it", path);
		close(fd);
		return PvmSysErr;
	}
	ssize_t got = read(fd, out, size - 1);
	close(fd);
	if (got <= 0)
		return PvmSysErr;
	out[got] = 0;
	out[strcspn(out, "\r\n")] = 0;
	return out[0] ? 0 : PvmSysErr;
}

/* TM_CONNECT and the authentication files: the pvmd proves itself by writing into a file
 * we create, we prove ourselves by writing into one it creates. */
static int authenticate(void)
{
	/* An unnamed file, reached by the pvmd through /proc: nothing is left behind even if we
	 * are killed mid-handshake, and the name fits the pvmd's 128-byte limit. A named file in
	 * PVM_TMP is the fallback for file systems without O_TMPFILE. */
	char authfn[600];
	int named = 0;
	int afd = open(tmp_dir(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (afd >= 0) {
		snprintf(authfn, sizeof authfn, "/proc/%d/fd/%d", (int)getpid(), afd);
	} else {
		snprintf(authfn, sizeof authfn, "%s/an2authXXXXXX", tmp_dir());
		afd = mkstemp(authfn);
		named = 1;
	}
	if (afd < 0) {
		lpvm_log("can't create authentication file in %s: %s", tmp_dir(), strerror(errno));
		return PvmSysErr;
	}
	struct msg *req = msg_new(ENC_XDR), *rep = NULL;
	int cc = req ? 0 : PvmNoMem;
	if (!cc)
		cc = lpvm_pack_int(req, TDPROTOCOL);
	if (!cc)
		cc = lpvm_pack_str(req, authfn);
	if (!cc)
		cc = lpvm_daemon_ask(req, TM_CONNECT, &rep);
	else
		msg_free(req);
	int proto = 0, ack = 0;
	char *dauth = NULL;
	if (!cc && (lpvm_unpack_int(rep, &proto) || lpvm_unpack_int(rep, &ack)))
		cc = PvmSysErr;
	if (!cc && proto != TDPROTOCOL) {
		lpvm_log("pvmd speaks task-daemon protocol %d, we speak %d", proto, TDPROTOCOL);
		cc = PvmSysErr;
	}
	if (!cc && !ack) {
		lpvm_log("pvmd refuses connection");
		cc = PvmSysErr;
	}
	if (!cc && lpvm_unpack_str_alloc(rep, &dauth))
		cc = PvmSysErr;
	char c;
	if (!cc && read(afd, &c, 1) != 1) {
		lpvm_log("pvmd didn't validate itself");
		cc = PvmSysErr;
	}
	close(afd);
	if (named)
		unlink(authfn);
	if (!cc) {
		int dfd = open(dauth, O_WRONLY | O_CLOEXEC);
		if (dfd < 0 || write(dfd, dauth, 1) != 1) {
			lpvm_log("can't write d-auth file %s", dauth);
			cc = PvmSysErr;
		}
		if (dfd >= 0)
			close(dfd);
	}
	free(dauth);
	msg_free(rep);
	return cc;
}

/* TM_CONN2: our pid and the pvmd's cookie; the answer is our identity. */
static int second_round(void)
{
	const char *epid = getenv("PVMEPID");
	struct msg *req = msg_new(ENC_XDR), *rep = NULL;
	int cc = req ? 0 : PvmNoMem;
	if (!cc)
		cc = lpvm_pack_int(req, lpvm.mypid);
	if (!cc)
		cc = lpvm_pack_int(req, epid ? atoi(epid) : 0);
	if (!cc)
		cc = lpvm_daemon_ask(req, TM_CONN2, &rep);
	else
		msg_free(req);
	if (cc)
		return cc;
	int ack = 0, v[11];
	char *inaddr = NULL;
	if (lpvm_unpack_int(rep, &ack) || !ack) {
		lpvm_log("pvmd refuses connection");
		msg_free(rep);
		return PvmSysErr;
	}
	cc = lpvm_unpack(rep, PVM_INT, v, 10, 1);
	if (!cc)
		cc = lpvm_unpack_str_alloc(rep, &inaddr);
	if (!cc)
		cc = lpvm_unpack_int(rep, &v[10]);
	msg_free(rep);
	free(inaddr);
	if (cc) {
		lpvm_log("malformed TM_CONN2 reply from pvmd");
		return PvmSysErr;
	}
	lpvm.mytid = v[0];
	lpvm.myptid = v[1];
	lpvm.self_out_tid = lpvm.out_tid = v[2];
	lpvm.self_out_ctx = lpvm.out_ctx = v[3];
	lpvm.self_out_tag = lpvm.out_tag = v[4];
	lpvm.self_trc_tid = lpvm.trc_tid = v[5];
	lpvm.self_trc_ctx = lpvm.trc_ctx = v[6];
	lpvm.self_trc_tag = lpvm.trc_tag = v[7];
	lpvm.udp_max = v[8];
	if (v[9] != lpvm.dsig)
		lpvm_log("pvmd's data signature 0x%x differs from ours 0x%x", (unsigned)v[9],
		         (unsigned)lpvm.dsig);
	lpvm.sched_tid = v[10];
	return 0;
}

int lpvm_attach(void)
{
	if (lpvm.mytid != -1)
		return lpvm.dead ? PvmSysErr : 0;
	lpvm.mypid = (int)getpid();
	char addr[256];
	if (read_pvmd_address(addr, sizeof addr))
		return PvmSysErr;
	int err = PvmSysErr;
	struct route *daemon = daemon_route_open(addr, &err);
	if (!daemon)
		return err;
	lpvm.daemon = daemon;
	lpvm.routes[0] = daemon;
	lpvm.nroutes = 1;
	lpvm.dead = 0;
	int cc = authenticate();
	if (!cc)
		cc = second_round();
	if (cc) {
		lpvm_detach();
		return cc < 0 ? cc : PvmSysErr;
	}
	const char *ctx = getenv("PVMCTX");
	if (ctx)
		lpvm.ctx = (int)strtol(ctx, NULL, 0);
	trc_joined();
	cc = lpvm_routes_open();   /* the AN2 fast path, or the pvmd route alone */
	if (cc) {
		lpvm_detach();
		return cc;
	}
	trc_routes_open();   /* (may read the tracer's mailbox entry) */
	control_joined();
	lpvm_state_changed();
	return 0;
}

void lpvm_detach(void)
{
	lpvm_routes_close();
	rxq_clear();
	control_reset();
	free(lpvm.sib_tids);
	lpvm.sib_tids = NULL;
	lpvm.nsibs = -1;
	lpvm.mytid = -1;
	lpvm.myptid = 0;
	lpvm.dead = 0;
	trc_rearm();
	lpvm_state_changed();
}

int lpvm_send_exit(void)
{
	struct msg *req = msg_new(ENC_XDR), *rep = NULL;
	lpvm_routes_quiesce();   /* what we sent by the fast path is received before we go */
	lpvm.exiting = 1;
	int cc = req ? lpvm_daemon_ask(req, TM_EXIT, &rep) : PvmNoMem;
	lpvm.exiting = 0;
	msg_free(rep);
	return cc;
}
