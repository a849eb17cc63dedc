/* The second traced program of the trace tests: the calls trace_prog does not make, each with
 * fixed arguments and answers, so that two runs traced by Debian's tracer give the same
 * records apart from times, task ids and buffer ids. Its first PVM call is pvm_initsend (a
 * traced call joins the task first, as in stock). Then: archcode and mstat (found and not),
 * the mailbox (putinfo, recvinfo, getmboxinfo, delinfo, and a delinfo of what is gone),
 * packf, getminfo/setminfo, a message handler of its own (addmhf, the message that invokes it,
 * whose handler unpacks it, delmhf), reg_tasker and reg_hoster (each twice: taken, given up),
 * addhosts of its own host, delhosts of a host it lacks, start_pvmd of a second pvmd, and
 * perror. Prints one line per answer. */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>

#define TAG_HANDLED 21
#define TAG_DONE 22
#define CLASS "trace_calls"

static int handled = -1;

static int handler(int mid)
{
	(void)mid;
	pvm_upkint(&handled, 1, 1);
	return 0;
}

int main(void)
{
	int sbuf = pvm_initsend(PvmDataDefault);
	int me = pvm_mytid();
	if (sbuf < 0 || me < 0)
		return 1;
	printf("archcode of LINUX64 > 0: %d\n", pvm_archcode("LINUX64") > 0);
	printf("archcode of NOSUCH: %d\n", pvm_archcode("NOSUCH"));
	struct pvmhostinfo *hosts;
	int nhost, narch;
	pvm_config(&nhost, &narch, &hosts);
	printf("mstat of our host: %d\n", pvm_mstat(hosts[0].hi_name));
	printf("mstat of nosuchhost: %d\n", pvm_mstat("nosuchhost"));

	int seven = 7;
	pvm_pkint(&seven, 1, 1);
	printf("putinfo: %d\n", pvm_putinfo(CLASS, sbuf, PvmMboxDefault));
	int got = 0;
	printf("recvinfo > 0: %d\n", pvm_recvinfo(CLASS, 0, PvmMboxDefault) > 0);
	pvm_upkint(&got, 1, 1);
	printf("from the mailbox: %d\n", got);
	int nclasses = 0;
	struct pvmmboxinfo *classes;
	printf("getmboxinfo: %d\n", pvm_getmboxinfo(CLASS, &nclasses, &classes));
	printf("classes: %d\n", nclasses);
	printf("delinfo: %d\n", pvm_delinfo(CLASS, 0, PvmMboxDefault));
	printf("delinfo again: %d\n", pvm_delinfo(CLASS, 0, PvmMboxDefault));

	printf("packf: %d\n", pvm_packf("%+ %d %s", PvmDataDefault, 5, "five"));
	struct pvmminfo info;
	int packed = pvm_getsbuf();
	printf("getminfo: %d\n", pvm_getminfo(packed, &info));
	printf("setminfo: %d\n", pvm_setminfo(packed, &info));

	int mhid = pvm_addmhf(me, TAG_HANDLED, -1, handler);
	printf("addmhf >= 0: %d\n", mhid >= 0);
	int nine = 9;
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&nine, 1, 1);
	pvm_send(me, TAG_HANDLED);
	pvm_initsend(PvmDataDefault);
	pvm_send(me, TAG_DONE);
	pvm_recv(me, TAG_DONE);   /* (the handled message came first) */
	printf("the handler unpacked: %d\n", handled);
	printf("delmhf: %d\n", pvm_delmhf(mhid));

	/* the helper roles, each taken and given up (every call toggles) */
	printf("reg_tasker: %d\n", pvm_reg_tasker());
	printf("reg_tasker again: %d\n", pvm_reg_tasker());
	printf("reg_hoster: %d\n", pvm_reg_hoster());
	printf("reg_hoster again: %d\n", pvm_reg_hoster());
	/* the virtual machine: a host it has, a host it does not, a second pvmd */
	char *names[2] = { hosts[0].hi_name, "nosuchhost" };
	int sv[2];
	printf("addhosts of our host: %d\n", pvm_addhosts(names, 1, sv));
	printf("its answer: %d\n", sv[0]);
	printf("delhosts of nosuchhost: %d\n", pvm_delhosts(names + 1, 1, sv));
	printf("its answer: %d\n", sv[0]);
	printf("start_pvmd: %d\n", pvm_start_pvmd(0, NULL, 0));
	pvm_perror("trace_calls");
	pvm_exit();
	return 0;
}
