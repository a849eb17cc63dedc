/* The resource manager's part in the library's requests (registrations.c). */
#ifndef AN2PVM_REGISTRATIONS_H
#define AN2PVM_REGISTRATIONS_H

struct msg;

/* The SM_* tag under which a TM_* request goes to the running resource manager, or 0 when
 * it goes to the pvmd. */
int rm_request_tag(int tm_tag);
/* Sends req to the resource manager and waits for its answer (*reply, rewound). */
int rm_call(struct msg *req, int sm_tag, struct msg **reply);

#endif
