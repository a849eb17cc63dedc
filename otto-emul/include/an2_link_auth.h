/* an2_link_auth.h — the handshake by which both ends of an AN2 link prove, before either
 * says HELLO, that they belong to the same fabric: a MAC with a key shared by the fabric's
 * daemons, or a MUNGE credential; each end proves itself over a fresh challenge of the other.
 *
 * On the wire (an2_fiber.h records) each end first sends AUTH_NONCE (its method and 32 fresh
 * random bytes), then, once the other's nonce has come, AUTH_PROOF over
 *     SHA-256("AN2 link auth 1" | method | direction | prover's nonce | verifier's nonce)
 * where direction is 'C' from the end that connected and 'A' from the end that accepted (so
 * that neither end's proof can be reflected back to it or relayed to another link of the same
 * switch as the other side's). The link is authenticated once each end has checked the other's
 * proof; then the records of an2_fiber.h follow, HELLO first. Anything else before that, a
 * method that differs from ours, a proof that does not check, or silence past
 * AN2_AUTH_WAIT_MS ends the connection with the reason.
 *
 *   key:PATH   proof = HMAC-SHA-256 over the digest, keyed with SHA-256 of the key file (at
 *              least 16 bytes, a regular file of the daemon's own uid or root's, mode 0600 or
 *              stricter). Whoever holds the file is of the fabric.
 *   munge[:SOCKET]  proof = a MUNGE credential carrying the digest, encoded by the local munged
 *              (its socket, or MUNGE's default) and decoded by the other end's munged, which
 *              proves the encoder's uid within the MUNGE key's realm and refuses a credential
 *              decoded before; the uid must be root's or the verifier's own.
 *
 * What the handshake does not do: the records after it are not authenticated one by one. An
 * attacker who can rewrite the TCP stream between two daemons can still take over a link once
 * it is up; run the fabric's links on a network you trust for that, or inside a tunnel
 * (WireGuard, IPsec) that authenticates every packet. */
#ifndef AN2_LINK_AUTH_H
#define AN2_LINK_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AN2_AUTH_NONCE_BYTES 32u
#define AN2_AUTH_MAX_PROOF   1024u     /* a MUNGE credential of a 32-byte payload is ~ 200 */
#define AN2_AUTH_WAIT_MS     5000u     /* the whole handshake, from connect or accept */

enum an2_auth_method {
    AN2_AUTH_KEY = 1,
    AN2_AUTH_MUNGE = 2,
};

/* How this daemon proves itself and checks the other end: from a spec "key:PATH", "munge" or
 * "munge:SOCKET". NULL with the reason in err. */
struct an2_auth;
struct an2_auth *an2_auth_open(const char *spec, char *err, size_t errlen);
void an2_auth_close(struct an2_auth *auth);
enum an2_auth_method an2_auth_method(const struct an2_auth *auth);
/* "key FILE" or "munge (SOCKET)", for logs. */
const char *an2_auth_describe(const struct an2_auth *auth);

/* The handshake over a link's carrier (an2_carrier.h), before the link takes the carrier over.
 * It reads no byte past the other end's proof, so the link finds the other end's HELLO in the
 * carrier. */
struct an2_carrier;
struct an2_handshake;
enum an2_handshake_state {
    AN2_HANDSHAKE_PENDING,
    AN2_HANDSHAKE_DONE,
    AN2_HANDSHAKE_FAILED,
};
/* Starts: sends our nonce. we_connected: whether our end opened the carrier (connected) or
 * took it (accepted). NULL only for no memory (errno set; the carrier is not closed then). */
struct an2_handshake *an2_handshake_start(struct an2_carrier *carrier,
                                          const struct an2_auth *auth, bool we_connected,
                                          uint64_t now_ns);
/* Reads what has come (bounded), answers, checks; call when the carrier's fd is readable and
 * at the deadline. */
enum an2_handshake_state an2_handshake_step(struct an2_handshake *hs, uint64_t now_ns);
uint64_t an2_handshake_deadline(const struct an2_handshake *hs);
/* Why it failed ("" while it has not). */
const char *an2_handshake_why(const struct an2_handshake *hs);
/* The uid the other end's credential proves (MUNGE), or -1 (a key proves no uid). */
long an2_handshake_peer_uid(const struct an2_handshake *hs);
struct an2_carrier *an2_handshake_carrier(const struct an2_handshake *hs);
/* Frees the handshake; the carrier stays open (the caller's, e.g. for an2_link_create). */
void an2_handshake_free(struct an2_handshake *hs);

/* The method-specific part (an2_link_auth_munge.c, an2_link_auth.c): the proof of digest by
 * this end, and the check of the other end's. prove: proof length, or -1 with err set.
 * verify: 0, or -1 with the reason in err; *uid: what the proof says of the prover, or -1. */
long an2_auth_prove(const struct an2_auth *auth, const uint8_t digest[32], uint8_t *proof,
                    size_t cap, char *err, size_t errlen);
int an2_auth_verify(const struct an2_auth *auth, const uint8_t digest[32], const uint8_t *proof,
                    size_t len, long *uid, char *err, size_t errlen);

/* The handshake's records, for the fuzz target: the total size of the record at buf (len
 * bytes), 0 if incomplete, -1 if it is not a handshake record the reader would take. */
long an2_handshake_record_check(const uint8_t *buf, size_t len);

#endif
