/* pvm_catchout's part in pvm_exit (catchout.c). */
#ifndef AN2PVM_CATCHOUT_H
#define AN2PVM_CATCHOUT_H

/* Before TM_EXIT: waits until the output of every child being collected has ended (as
 * stock), then stops collecting. */
void catchout_at_exit(void);

#endif
