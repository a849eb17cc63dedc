/* PVM message objects: a header plus a list of fragments, and the table of message ids. */
#ifndef AN2PVM_MSG_H
#define AN2PVM_MSG_H

#include "frag.h"

/* The message header as it travels (stock PVM 3.4): PvmFragSize counts it. */
#define MSGHDRLEN 32

/* Encoding codes as they travel in the message header (stock PVM 3.4 values). */
#define ENC_XDR     0x10000000
#define ENC_INPLACE 0x20000000
#define ENC_TRACE   0x40000000

enum msg_mode { MODE_NONE, MODE_PACK, MODE_UNPACK };

struct msg {
	int mid;                 /* buffer id (> 0) */
	int enc;                 /* wire encoding code (ENC_XDR, data signature, ENC_INPLACE) */
	int tag, ctx, wid, crc;
	int src, dst;
	struct frag *head, *tail;
	enum msg_mode mode;
	struct frag *rfrag;      /* unpack cursor: fragment ... */
	size_t rpos;             /* ... and offset in it */
	struct msg *prev, *next; /* receive-queue links (NULL: not queued); the queue is a ring
	                          * through a sentinel, so a message unlinks itself (msg_unlink) */
	int gone_tid;            /* arrived as a pvmd's notice that this task, or host (a pvmd
	                          * tid), has gone (notices.c); 0 for any other message */
};

/* Creates a message with encoding code enc and registers it in the id table. */
struct msg *msg_new(int enc);
/* Unregisters and frees a message and its fragments (unlinked from the queue first). */
void msg_free(struct msg *m);
/* Takes m out of the receive queue if it is on it. */
void msg_unlink(struct msg *m);
struct msg *msg_lookup(int mid);
size_t msg_length(const struct msg *m);
void msg_append_frag(struct msg *m, struct frag *f);
/* Resets the unpack cursor to the first data byte. */
void msg_rewind(struct msg *m);
/* Data fragment size used for packing (PvmFragSize minus the headers). */
size_t msg_frag_data_size(void);

#endif
