/* Task ids as PVM 3.4 lays them out, and PVM's own message contexts. */
#ifndef LPVM_PVM_IDS_H
#define LPVM_PVM_IDS_H

#include <pvmproto.h>

#define TIDHOST   0x3ffc0000
#define TIDLOCAL  0x0003ffff
#define TIDGID    0x40000000
#define TIDPVMD   ((int)0x80000000)
#define TID_IS_TASK(x) (!((x) & (TIDGID | TIDPVMD)) && ((x) & TIDLOCAL))
#define TID_IS_PVMD(x) (((x) & (TIDGID | TIDPVMD)) == TIDPVMD && !((x) & TIDLOCAL))
#define TID_SAME_HOST(a, b) ((((a) ^ (b)) & TIDHOST) == 0)   /* tasks or pvmds of one host */

/* PVM's own contexts (pvmproto.h): their messages always take the daemon route. */
static inline int lpvm_is_sysctx(int ctx)
{
	return ctx <= SYSCTX_FIRST && ctx >= SYSCTX_LAST;
}

#endif
