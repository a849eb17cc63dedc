/* Joining and leaving the virtual machine (join.c). */
#ifndef LPVM_JOIN_H
#define LPVM_JOIN_H

int lpvm_attach(void);        /* connect to pvmd if not yet; 0 or negative error */
void lpvm_detach(void);       /* close everything, back to unconnected */
/* The request to leave (TM_EXIT), once what the routes sent is out: 0 or a negative error. */
int lpvm_send_exit(void);

#endif
