/* The task <-> pvmgs (group server) protocol: request tags, group states and the server's
 * mailbox name. Debian ships pvmgs but not its headers, so the values are restated here;
 * each is fixed by the unmodified pvmgs binary (PVM 3.4 pvmgs/pvmgs_const.h), not by us. */
#ifndef GS_PROTOCOL_H
#define GS_PROTOCOL_H

/* pvmgs registers its tid under this mailbox name (pvm_putinfo, index 0). */
#define GS_MBOX_NAME "pvmgs"
/* ... and is started by spawning this program name, found on the pvmd's ep= path. */
#define GS_PROGRAM "pvmgs"

/* Every request and reply travels in this system context (<pvmproto.h>): pvmgs switches to
 * it at start-up and only ever receives there. Data messages of reduce, scatter and gather
 * use it too, so that group traffic cannot be taken by a user's pvm_recv. */
#include <pvmproto.h>
#define GS_CONTEXT SYSCTX_DG

/* Request tags; the reply to a request carries the same tag. The request body is the group
 * name (pvm_pkstr), followed by one int for the requests marked "+ int". */
enum gs_request {
	GS_DIE = 0,         /* (no reply) the server prints its state and exits */
	GS_JOIN = 1,        /* -> instance or error */
	GS_LEAVE = 2,       /* -> status */
	GS_BARRIER = 3,     /* + count -> count, sent to all waiters once reached; or error */
	GS_BCAST = 4,       /* -> ntids, tids[ntids] (holes skipped), state [, static info]; or error */
	GS_GETINST = 5,     /* + tid -> instance [, state [, static info]] */
	GS_GETTID = 6,      /* + instance -> tid [, state [, static info]] */
	GS_GSIZE = 7,       /* -> size [, state [, static info]] */
	GS_RESET = 8,       /* (unused by the library) */
	GS_DUMP = 9,        /* (no reply) the server prints its state on its output */
	GS_GSLS = 10,       /* -> list of groups (unused by the library) */
	GS_DEADTID = 11,    /* the server's pvm_notify tag for a member's exit */
	GS_TIDLIST = 12,    /* like GS_BCAST but refused (PvmNoInst) when instances have holes */
	GS_STATICGROUP = 13,/* + size -> size, state, static info, sent to all once reached; or error */
	GS_HOSTCHAR = 14,   /* + host tid -> nhosts, members on host, coordinator, state [, static info] */
	GS_HOSTCHARV = 15,  /* -> nhosts, members[nhosts], coordinators[nhosts], state [, static info] */
	GS_BARRIERV = 16,   /* barrier by a host coordinator for its host (unused: MPP only) */
};

/* Group states in replies; "static info" follows only when the state is GS_STATIC:
 * name length, name, ntids, maxntids, tids[maxntids] (-1 = hole), nhosts,
 * members[nhosts], coordinators[nhosts]. */
enum gs_state {
	GS_STATIC = 1,      /* frozen by pvm_freezegroup: members may cache it */
	GS_DYNAMIC = 2,
	GS_STATIC_DEAD = 3, /* a member of a frozen group left */
};

#define GS_NO_TID (-1)      /* an empty instance slot */

#endif
