/* The single receive queue shared by all routes, and the wait that feeds it (rxqueue.c). */
#ifndef LPVM_RXQUEUE_H
#define LPVM_RXQUEUE_H

#include <sys/time.h>

struct msg;

void rxq_deliver(struct msg *m);          /* a complete incoming message, in arrival order */
void rxq_enqueue(struct msg *m);          /* ... that every route's filter has passed */
struct msg *rxq_take_match(int tid, int tag, int remove);   /* uses lpvm.recv_match */
struct msg *rxq_take_system(int src_pvmd, int tag, int ctx, int wid);
/* Waits for more input: tmo NULL = forever, {0,0} = poll. Returns messages delivered or < 0. */
int lpvm_pump(const struct timeval *tmo);
void rxq_clear(void);
/* The matcher used while pvm_recvf has set none: source, tag and the current context. */
int lpvm_default_match(int mid, int tid, int tag);

#endif
