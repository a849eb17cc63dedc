/* Dispatch of incoming messages to the library before they are queued (control.c). */
#ifndef LPVM_CONTROL_H
#define LPVM_CONTROL_H

struct msg;

int control_handle(struct msg *m);        /* 1 if m was a system message and consumed */
int control_flush(void);                  /* sends replies queued by control_handle */
void control_joined(void);                /* the task has joined: handles what came before */
void control_reset(void);                 /* drops queued replies (shutdown) */

#endif
