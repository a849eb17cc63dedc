/* fp_wire.h — the AN2 route's wire format: its control messages over the daemon route, and
 * the header in front of every PDU on a VC. */
#ifndef AN2PVM_FP_WIRE_H
#define AN2PVM_FP_WIRE_H

#include <pvm3.h>   /* (pvmproto.h needs it first) */
#include <pvmproto.h>
#include <stdint.h>

/* The reserved system context of the fast path's messages over the daemon route. */
#define FP_CTX SYSCTX_RS4
#define FP_TAG_REQ  1   /* "open a VC to me; my AN2 stream to you starts here": [endpoint id] */
#define FP_TAG_NAK  2   /* "I cannot": the asker falls back to the daemon route */
#define FP_TAG_NOTE 3   /* "my next daemon-route message follows my AN2 message #n": [n] */
#define FP_TAG_PDU  4   /* our failed VC's PDU you may not have: [length][PDU as sent] */
#define FP_TAG_END  5   /* "our failed VC's stream to you ended before PDU #n": [n] */
#define FP_TAG_GONE 6   /* (from the pvmd) a peer with a failed VC exited: [tid] */

/* The header in front of every PDU, in network byte order (the ends may be on two hosts). */
#define FP_PDU_MAGIC 0xa2
/* DATA: part of a message; ACK: "every PDU before `ack` arrived"; NAK: the same, and "resend
 * from `ack` on" (a damaged or missing PDU). ACK and NAK carry no data. */
/* PROBE: the sender's retransmission timer asks where the receiver is (answered by an ACK
 * when nothing is missing, else a NAK) */
enum pdu_kind { PDU_DATA = 1, PDU_ACK = 2, PDU_NAK = 3, PDU_PROBE = 4 };
#define PDU_SOM 1
#define PDU_EOM 2
struct pdu_hdr {
	uint8_t magic, kind, flags, pad;
	uint32_t msg_len;      /* SOM: the whole message's data bytes */
	uint32_t dmn_before;   /* daemon-route messages to this peer sent before this message */
	int32_t enc, tag, ctx, wid;
	uint32_t an2_index;    /* DATA: this message's number among the AN2 ones to this peer;
	                        * ACK, NAK, PROBE: damaged PDUs its sender has received so far */
	uint32_t seq;          /* DATA: this PDU's number in its direction of the VC (from 0);
	                        * ACK, NAK, PROBE: the number of the next new PDU its sender would send */
	uint32_t ack;          /* the sender's next expected PDU number from us (cumulative) */
};
#define PDU_HDR_LEN ((uint32_t)sizeof(struct pdu_hdr))

#endif
