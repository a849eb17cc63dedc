/* The pvmd's message boxes (mbox.c) for the library's other mailbox users (mbox33.c). */
#ifndef AN2PVM_MBOX_H
#define AN2PVM_MBOX_H

struct msg;

/* TM_DB request { op, our tid, name, index, flags [, payload packed whole] }; returns the
 * pvmd's status (or a negative library error) and, if reply is given, the reply positioned
 * after the status (caller frees). */
int db_call(int op, const char *name, int index, int flags, struct msg *payload,
            struct msg **reply);
/* A message packed whole into m (pvm_pkmesg's format), as a new registered message. */
struct msg *unpack_message(struct msg *m, int *err);

#endif
