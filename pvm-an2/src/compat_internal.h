/* Debian's exported internal variables (compat_internal.c), kept current. */
#ifndef AN2PVM_COMPAT_INTERNAL_H
#define AN2PVM_COMPAT_INTERNAL_H

/* Copies our tid, context and children's output/trace settings into pvmmytid, pvmmyctx,
 * pvmctrc (called on joining, leaving, and changes of context or output settings). */
void compat_publish(void);

#endif
