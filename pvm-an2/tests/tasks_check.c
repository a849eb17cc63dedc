/* Tasks, hosts, notify and bad-argument behaviour, printed so that the copy built against
 * libpvm3-an2 can be compared line by line with the copy built against Debian's libpvm3.
 * Run without arguments; spawned copies (argument "child") just serve the parent. */
#include <pvm3.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define TAG_EXIT 77
#define TAG_HOSTADD 78
#define TAG_PING 20
#define TAG_PONG 21

#define TAG_BURST 22
#define TAG_SEQ 23
#define BURST 300

static int child(void)
{
	int parent = pvm_parent();
	for (;;) {
		int mid = pvm_recv(parent, -1);
		if (mid < 0)
			break;
		int tag, me = pvm_mytid();
		pvm_bufinfo(mid, NULL, &tag, NULL);
		if (tag == TAG_BURST) {   /* numbered messages, alternating encodings and sizes */
			for (int i = 0; i < BURST; i++) {
				pvm_initsend(i % 3 == 0 ? PvmDataDefault : PvmDataRaw);
				pvm_pkint(&i, 1, 1);
				static int pad[20000];
				pvm_pkint(pad, (i * 37) % 20000, 1);
				pvm_send(parent, TAG_SEQ);
			}
			continue;
		}
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&me, 1, 1);
		pvm_send(parent, TAG_PONG);
	}
	pvm_exit();
	return 0;
}

static int only_tag_55(int mid, int tid, int tag)
{
	int t;
	(void)tid;
	(void)tag;
	if (pvm_bufinfo(mid, NULL, &t, NULL) < 0)
		return -1;
	return t == 55 ? 1 : 0;
}

/* pvm_halt from a task: the pvmd goes away, the call reports success. */
static int halt(void)
{
	pvm_setopt(PvmAutoErr, 0);
	printf("mytid positive: %d\n", pvm_mytid() > 0);
	printf("halt: %d\n", pvm_halt());
	return 0;
}

/* A request to the pvmd: its answer comes after whatever the pvmd sent us before (the notice
 * that completes a cancelled notify, sent as the pvmd takes the cancel). */
static void pvmd_roundtrip(void)
{
	pvm_pstat(pvm_mytid());
}

/* Whether the pvmd reports tid gone (pvm_pstat) within 30 s. */
static int exited(int tid)
{
	for (int i = 0; i < 3000; i++) {
		if (pvm_pstat(tid) == PvmNoTask)
			return 1;
		usleep(10000);
	}
	return 0;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();
	if (argc > 1 && !strcmp(argv[1], "halt"))
		return halt();
	setvbuf(stdout, NULL, _IOLBF, 0);
	pvm_setopt(PvmAutoErr, 0);
	int me = pvm_mytid();
	printf("mytid positive: %d\n", me > 0);
	printf("parent: %d\n", pvm_parent());
	printf("tidtohost same host part: %d\n", pvm_tidtohost(me) == (me & 0x3ffc0000));

	int nhost, narch;
	struct pvmhostinfo *hosts;
	printf("config: %d\n", pvm_config(&nhost, &narch, &hosts));
	printf("hosts %d arches %d arch %s dsig 0x%x\n", nhost, narch, hosts[0].hi_arch,
	       (unsigned)hosts[0].hi_dsig);
	char hostname[256];
	snprintf(hostname, sizeof hostname, "%s", hosts[0].hi_name);
	printf("archcode own: %d\n", pvm_archcode(hosts[0].hi_arch) == hosts[0].hi_dsig);
	printf("archcode unknown: %d\n", pvm_archcode("NO_SUCH_ARCH"));
	printf("mstat own host: %d\n", pvm_mstat(hostname));
	printf("mstat unknown host: %d\n", pvm_mstat("no-such-host.invalid"));
	char *gone[] = { "no-such-host.invalid" };
	int sv[1] = { 1 };
	int dh = pvm_delhosts(gone, 1, sv);
	printf("delhosts unknown: %d status %d\n", dh, sv[0]);

	int tids[3] = { 1, 1, 1 };
	int miss = pvm_spawn("no_such_program_an2", NULL, 0, "", 2, tids);
	printf("spawn missing: %d codes %d %d\n", miss, tids[0], tids[1]);
	char *args[] = { "child", NULL };
	int n = pvm_spawn((char *)base(argv[0]), args, PvmTaskDefault, "", 3, tids);
	printf("spawn children: %d\n", n);
	if (n != 3)
		return 1;
	printf("pstat child: %d\n", pvm_pstat(tids[0]));
	int ntask;
	struct pvmtaskinfo *ti;
	int tcc = pvm_tasks(0, &ntask, &ti);
	printf("tasks: %d count at least 4: %d\n", tcc, ntask >= 4);

	/* multicast a ping, every child answers */
	pvm_initsend(PvmDataRaw);
	printf("mcast: %d\n", pvm_mcast(tids, 3, TAG_PING));
	int seen = 0;
	for (int i = 0; i < 3; i++) {
		int t, mid = pvm_recv(-1, TAG_PONG);
		pvm_upkint(&t, 1, 1);
		for (int k = 0; k < 3; k++)
			if (t == tids[k])
				seen |= 1 << k;
		struct pvmminfo mi;
		if (i == 0) {
			pvm_getminfo(mid, &mi);
			printf("minfo tag %d src is sender %d len %d\n", mi.tag, mi.src == t, mi.len);
		}
	}
	printf("pongs from all: %d\n", seen == 7);

	struct timeval tmo = { 0, 300000 };
	/* three senders at once: each one's messages arrive in its send order */
	pvm_initsend(PvmDataDefault);
	pvm_mcast(tids, 3, TAG_BURST);
	int next[3] = { 0, 0, 0 }, in_order = 1;
	for (int i = 0; i < 3 * BURST; i++) {
		int src, seq, mid = pvm_recv(-1, TAG_SEQ);
		pvm_bufinfo(mid, NULL, NULL, &src);
		pvm_upkint(&seq, 1, 1);
		for (int k = 0; k < 3; k++)
			if (src == tids[k]) {
				in_order &= seq == next[k];
				next[k]++;
			}
	}
	printf("per-sender order kept: %d all arrived: %d\n", in_order,
	       next[0] == BURST && next[1] == BURST && next[2] == BURST);

	/* a receive-matching function of our own */
	pvm_initsend(PvmDataDefault);
	pvm_send(me, 54);
	pvm_send(me, 55);
	int (*old_match)(int, int, int) = (int (*)(int, int, int))(void (*)(void))pvm_recvf(only_tag_55);
	int m55 = pvm_recv(-1, -1), t55 = 0;
	pvm_bufinfo(m55, NULL, &t55, NULL);
	pvm_recvf(old_match);
	int m54 = pvm_recv(-1, -1), t54 = 0;
	pvm_bufinfo(m54, NULL, &t54, NULL);
	printf("recvf picks tag %d, then default picks %d\n", t55, t54);

	/* spawn placement */
	int one, r1 = pvm_spawn((char *)base(argv[0]), args, PvmTaskHost, hostname, 1, &one);
	printf("spawn on named host: %d ok %d\n", r1, one > 0);
	if (r1 == 1)
		pvm_kill(one);
	int r2 = pvm_spawn((char *)base(argv[0]), args, PvmTaskArch, hosts[0].hi_arch, 1, &one);
	printf("spawn on arch: %d ok %d\n", r2, one > 0);
	if (r2 == 1)
		pvm_kill(one);
	int r3 = pvm_spawn((char *)base(argv[0]), args, PvmTaskHost, "no-such-host.invalid", 1, &one);
	printf("spawn on unknown host: %d code %d\n", r3, one);
	int r4 = pvm_spawn((char *)base(argv[0]), args, PvmTaskArch, "NO_ARCH", 1, &one);
	printf("spawn on unknown arch: %d code %d\n", r4, one);
	int r5 = pvm_spawn((char *)base(argv[0]), args, 0, "", 0, &one);
	printf("spawn zero: %d\n", r5);
	char *own[1] = { hostname };
	int svh[1] = { 0 }, ah = pvm_addhosts(own, 1, svh);
	printf("addhosts existing: %d status %d\n", ah, svh[0]);
	int mytasks;
	struct pvmtaskinfo *mine;
	int tm = pvm_tasks(me, &mytasks, &mine);
	printf("tasks of me: %d count %d is me %d\n", tm, mytasks, mytasks == 1 && mine[0].ti_tid == me);
	int hd = pvm_notify(PvmHostDelete, 79, 1, &hosts[0].hi_tid);
	printf("hostdelete notify: %d\n", hd);
	printf("hostdelete cancel: %d\n", pvm_notify(PvmHostDelete | PvmNotifyCancel, 79, 1, &hosts[0].hi_tid));
	pvmd_roundtrip();
	int hdm = 0;
	while (pvm_trecv(-1, 79, &tmo) > 0)
		hdm++;
	printf("messages after hostdelete cancel: %d\n", hdm);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&me, 1, 1);
	pvm_setrbuf(pvm_getsbuf());
	double dv;
	printf("type mismatch (double from int): %d\n", pvm_upkdouble(&dv, 1, 1));

	printf("notify exit: %d\n", pvm_notify(PvmTaskExit, TAG_EXIT, 3, tids));
	printf("kill child: %d\n", pvm_kill(tids[0]));
	int dead;
	pvm_recv(-1, TAG_EXIT);
	pvm_upkint(&dead, 1, 1);
	printf("exit notification names the child: %d\n", dead == tids[0]);
	struct timeval t0, t1;
	printf("pstat dead child: %d\n", pvm_pstat(tids[0]));
	printf("cancel notify: %d\n", pvm_notify(PvmTaskExit | PvmNotifyCancel, TAG_EXIT, 1, &tids[1]));
	pvmd_roundtrip();
	int got = 0;
	while (pvm_trecv(-1, TAG_EXIT, &tmo) > 0)
		got++;
	printf("messages after cancel: %d\n", got);
	printf("sendsig child: %d\n", pvm_sendsig(tids[1], SIGKILL));
	/* once the pvmd says it is gone, a notice it sent would be queued before that answer */
	if (!exited(tids[1])) {
		fprintf(stderr, "tasks_check: FAIL the child killed by pvm_sendsig still runs after 30 s\n");
		return 1;
	}
	got = 0;
	while (pvm_trecv(-1, TAG_EXIT, &tmo) > 0)
		got++;
	printf("notifications for the cancelled child: %d\n", got);
	printf("kill last: %d\n", pvm_kill(tids[2]));
	pvm_recv(-1, TAG_EXIT);
	pvm_upkint(&dead, 1, 1);
	printf("notification for the last child: %d\n", dead == tids[2]);
	printf("hostadd notify: %d\n", pvm_notify(PvmHostAdd, TAG_HOSTADD, -1, NULL));
	printf("hostadd cancel: %d\n", pvm_notify(PvmHostAdd | PvmNotifyCancel, TAG_HOSTADD, 0, NULL));
	pvmd_roundtrip();
	got = 0;
	while (pvm_trecv(-1, TAG_HOSTADD, &tmo) > 0)
		got++;
	printf("messages after hostadd cancel: %d\n", got);

	/* timing and emptiness */
	gettimeofday(&t0, NULL);
	printf("trecv empty: %d\n", pvm_trecv(-1, 999, &tmo));
	gettimeofday(&t1, NULL);
	long us = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_usec - t0.tv_usec);
	printf("trecv waited: %d\n", us >= 250000 && us < 3000000);
	printf("nrecv empty: %d\n", pvm_nrecv(-1, 999));
	printf("probe empty: %d\n", pvm_probe(-1, 999));

	/* psend / precv to ourselves */
	int data[5] = { 1, -2, 3, -4, 5 }, back[5] = { 0 }, rtid, rtag, rlen;
	printf("psend: %d\n", pvm_psend(me, 5, data, 5, PVM_INT));
	int found = 0;   /* it travels through the pvmd: wait for it, up to 30 s */
	for (int i = 0; i < 3000 && !found; i++) {
		found = pvm_probe(me, 5) > 0;
		if (!found)
			usleep(10000);
	}
	if (!found) {
		fprintf(stderr, "tasks_check: FAIL a psend to ourselves did not arrive within 30 s\n");
		return 1;
	}
	printf("probe finds it: %d\n", found);
	printf("precv: %d\n", pvm_precv(me, 5, back, 5, PVM_INT, &rtid, &rtag, &rlen));
	printf("precv info: %d %d %d same %d\n", rtid == me, rtag, rlen, !memcmp(data, back, sizeof data));
	printf("psend str: %d\n", pvm_psend(me, 5, "x", 1, PVM_STR));
	printf("psend bad type: %d\n", pvm_psend(me, 5, data, 1, 99));

	/* bad arguments */
	printf("send bad tid: %d\n", pvm_send(0, 1));
	printf("send negative tag: %d\n", pvm_send(me, -5));
	printf("pstat bad tid: %d\n", pvm_pstat(-3));
	printf("sendsig bad tid: %d\n", pvm_sendsig(0x80000000, SIGTERM));
	printf("notify bad kind: %d\n", pvm_notify(99, 1, 1, &me));
	printf("notify no tids: %d\n", pvm_notify(PvmTaskExit, 1, 0, &me));
	printf("freebuf unknown: %d\n", pvm_freebuf(99999));
	printf("freebuf negative: %d\n", pvm_freebuf(-1));
	printf("freebuf zero: %d\n", pvm_freebuf(0));
	printf("setsbuf unknown: %d\n", pvm_setsbuf(99999));
	printf("setrbuf negative: %d\n", pvm_setrbuf(-1));
	printf("bufinfo zero: %d\n", pvm_bufinfo(0, NULL, NULL, NULL));
	printf("mkbuf bad encoding: %d\n", pvm_mkbuf(7));
	int x;
	pvm_setrbuf(0);
	printf("upk without buffer: %d\n", pvm_upkint(&x, 1, 1));
	pvm_setsbuf(0);
	printf("pk without buffer: %d\n", pvm_pkint(&x, 1, 1));
	printf("send without buffer: %d\n", pvm_send(me, 1));
	int b = pvm_initsend(PvmDataDefault);
	pvm_pkint(&x, 1, 1);
	pvm_setrbuf(b);
	int first = pvm_upkint(&x, 1, 1);
	printf("upk past end: %d %d\n", first, pvm_upkint(&x, 1, 1));
	pvm_initsend(PvmDataInPlace);
	printf("inplace stride: %d\n", pvm_pkint(data, 2, 2));
	printf("inplace string: %d\n", pvm_pkstr("x"));
	printf("negative count: %d\n", pvm_pkint(data, -1, 1));

	/* mailboxes */
	int box = pvm_initsend(PvmDataDefault);
	int payload[3] = { 7, -8, 9 };
	pvm_pkint(payload, 3, 1);
	pvm_pkstr("boxed");
	int i0 = pvm_putinfo("an2-test-box", box, PvmMboxDefault);
	printf("putinfo: %d\n", i0);
	printf("putinfo again (locked): %d\n", pvm_putinfo("an2-test-box", box, PvmMboxDefault));
	int i1 = pvm_putinfo("an2-test-multi", box, PvmMboxMultiInstance);
	int i2 = pvm_putinfo("an2-test-multi", box, PvmMboxMultiInstance);
	printf("multi-instance indices: %d %d\n", i1, i2);
	int got_box = pvm_recvinfo("an2-test-box", 0, PvmMboxDefault);
	int back3[3] = { 0, 0, 0 };
	char boxed[16] = "";
	pvm_upkint(back3, 3, 1);
	pvm_upkstr(boxed);
	printf("recvinfo: %d content %d %d %d %s\n", got_box > 0, back3[0], back3[1], back3[2], boxed);
	printf("recvinfo missing: %d\n", pvm_recvinfo("an2-no-such-box", 0, PvmMboxDefault));
	int ncl = 0;
	struct pvmmboxinfo *cl;
	int gm = pvm_getmboxinfo("an2-test-*", &ncl, &cl);
	int multi_entries = -1;
	for (int i = 0; i < ncl; i++)
		if (!strcmp(cl[i].mi_name, "an2-test-multi"))
			multi_entries = cl[i].mi_nentries;
	printf("getmboxinfo: %d classes %d multi entries %d\n", gm, ncl, multi_entries);
	printf("delinfo: %d\n", pvm_delinfo("an2-test-box", 0, PvmMboxDefault));
	printf("delinfo again: %d\n", pvm_delinfo("an2-test-box", 0, PvmMboxDefault));
	pvm_delinfo("an2-test-multi", i1, PvmMboxDefault);
	pvm_delinfo("an2-test-multi", i2, PvmMboxDefault);
	printf("putinfo bad name: %d\n", pvm_putinfo("", box, 0));

	/* packf / unpackf */
	double dd[4] = { 1.5, -2.25, 3.0, 4.75 }, dback[2] = { 0, 0 };
	short hh = -3, hback = 0;
	long ll = 123456, lback = 0;
	int pk = pvm_packf("%+ %d %hd %ld %s %2.2lf %c", PvmDataRaw, 42, hh, ll, "fmt", dd, 'z');
	printf("packf: %d\n", pk);
	pvm_setrbuf(pvm_getsbuf());
	int iback = 0;
	char sback[8] = "", cback = 0;
	int uk = pvm_unpackf("%d %hd %ld %s %2lf %c", &iback, &hback, &lback, sback, dback, &cback);
	printf("unpackf: %d values %d %d %ld %s %g %g %c\n", uk, iback, hback, lback, sback, dback[0],
	       dback[1], cback);
	printf("packf bad conversion: %d\n", pvm_packf("%q", 1));

	/* options */
	printf("route default: %d\n", pvm_getopt(PvmRoute));
	int was = pvm_setopt(PvmRoute, PvmDontRoute);
	printf("route set: %d now %d\n", was, pvm_getopt(PvmRoute));
	printf("route bad: %d\n", pvm_setopt(PvmRoute, 9));
	printf("autoerr: %d\n", pvm_getopt(PvmAutoErr));
	printf("fragsize too small: %d\n", pvm_setopt(PvmFragSize, 10));
	int unk = pvm_getopt(99);
	printf("option unknown: %d %d\n", unk, pvm_setopt(99, 1));
	printf("resvtids: %d\n", pvm_setopt(PvmResvTids, 1));
	printf("showtids: %d\n", pvm_setopt(PvmShowTids, 1));
	int nr = pvm_setopt(PvmNoReset, 1);
	int ncl2 = 0;
	struct pvmmboxinfo *cl2;
	pvm_getmboxinfo(PVMNORESETCLASS, &ncl2, &cl2);
	printf("noreset: %d now %d, registered %d\n", nr, pvm_getopt(PvmNoReset),
	       ncl2 == 1 && cl2[0].mi_nentries == 1 && cl2[0].mi_owners[0] == me);
	printf("noreset off: %d\n", pvm_setopt(PvmNoReset, 0));
	printf("version: %s\n", pvm_version());
	pvm_perror("tasks_check");
	printf("exit: %d\n", pvm_exit());
	return 0;
}
