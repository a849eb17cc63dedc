/* pvm_addmhf / pvm_delmhf: a program's message handlers (the table is the core's, mhf.c). */
#include <pvm3.h>

#include "errors.h"
#include "mhf.h"

int pvm_addmhf(int src, int tag, int ctx, int (*f)(int))
{
	if (!f)
		return lpvm_error("pvm_addmhf", PvmBadParam);
	int cc = mhf_add_program(src, tag, ctx, f);
	return cc < 0 ? lpvm_error("pvm_addmhf", cc) : cc;
}

int pvm_delmhf(int mhid)
{
	int cc = mhf_delete(mhid);
	if (cc == PvmNotFound)
		return lpvm_error(mhid >= mhf_ids() ? "(mhid >= ndhandles) pvm_delmhf" : "pvm_delmhf", cc);
	return cc < 0 ? lpvm_error("pvm_delmhf", cc) : cc;
}
