/* an2_handshake.c — a link's handshake (an2_link_auth.h) over its carrier (an2_carrier.h): our
 * nonce out, the other end's nonce in, our proof out, its proof in and checked; bounded in
 * bytes, records and time, and reading nothing past the other end's proof. */
#include "an2_link_auth.h"

#include <arpa/inet.h>
#include <errno.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an2_carrier.h"
#include "an2_fiber.h"

#define LABEL "AN2 link auth 1"

struct an2_handshake {
    struct an2_carrier *carrier;
    const struct an2_auth *auth;
    bool we_connected, got_nonce, sent_proof, verified, failed;
    uint8_t our_nonce[AN2_AUTH_NONCE_BYTES], peer_nonce[AN2_AUTH_NONCE_BYTES];
    uint8_t in[AN2_FIBER_HDR + AN2_AUTH_MAX_PROOF];
    size_t in_len;
    uint64_t deadline_ns;
    long peer_uid;
    char why[200];
};

static enum an2_handshake_state fail(struct an2_handshake *hs, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static enum an2_handshake_state fail(struct an2_handshake *hs, const char *fmt, ...)
{
    if (!hs->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(hs->why, sizeof hs->why, fmt, ap);
        va_end(ap);
        hs->failed = true;
    }
    return AN2_HANDSHAKE_FAILED;
}

/* What the end that connected (connected = true) or accepted proves, given its nonce and the
 * other's. */
static void digest(uint8_t out[32], enum an2_auth_method method, bool connected,
                   const uint8_t prover[AN2_AUTH_NONCE_BYTES],
                   const uint8_t verifier[AN2_AUTH_NONCE_BYTES])
{
    crypto_hash_sha256_state st;
    uint8_t tags[2] = {(uint8_t)method, connected ? 'C' : 'A'};
    crypto_hash_sha256_init(&st);
    crypto_hash_sha256_update(&st, (const uint8_t *)LABEL, sizeof LABEL - 1);
    crypto_hash_sha256_update(&st, tags, sizeof tags);
    crypto_hash_sha256_update(&st, prover, AN2_AUTH_NONCE_BYTES);
    crypto_hash_sha256_update(&st, verifier, AN2_AUTH_NONCE_BYTES);
    crypto_hash_sha256_final(&st, out);
}

/* One whole record out (the carrier is fresh: it has room for a few hundred bytes). */
static bool send_record(struct an2_handshake *hs, uint8_t type, const void *body, size_t len)
{
    uint8_t rec[AN2_FIBER_HDR + AN2_AUTH_MAX_PROOF];
    rec[0] = type;
    rec[1] = 0;
    rec[2] = (uint8_t)(len >> 8);
    rec[3] = (uint8_t)len;
    memcpy(rec + AN2_FIBER_HDR, body, len);
    ssize_t n = an2_carrier_write(hs->carrier, rec, AN2_FIBER_HDR + len);
    if (n == (ssize_t)(AN2_FIBER_HDR + len))
        return true;
    fail(hs, "cannot send the handshake: %s",
         n < 0 && errno != EAGAIN ? strerror(errno) : "the carrier is full");
    return false;
}

long an2_handshake_record_check(const uint8_t *buf, size_t len)
{
    if (len < AN2_FIBER_HDR)
        return 0;
    size_t blen = (size_t)(buf[2] << 8 | buf[3]);
    if (buf[1] != 0)
        return -1;
    if (buf[0] == AN2_FIBER_AUTH_NONCE && blen != sizeof(struct an2_fiber_auth_nonce))
        return -1;
    if (buf[0] == AN2_FIBER_AUTH_PROOF && (!blen || blen > AN2_AUTH_MAX_PROOF))
        return -1;
    if (buf[0] != AN2_FIBER_AUTH_NONCE && buf[0] != AN2_FIBER_AUTH_PROOF)
        return -1;
    return len >= AN2_FIBER_HDR + blen ? (long)(AN2_FIBER_HDR + blen) : 0;
}

static const char *method_name(unsigned m)
{
    return m == AN2_AUTH_KEY ? "a key" : m == AN2_AUTH_MUNGE ? "MUNGE" : "an unknown method";
}

static void on_nonce(struct an2_handshake *hs, const uint8_t *body)
{
    struct an2_fiber_auth_nonce n;
    memcpy(&n, body, sizeof n);
    unsigned method = ntohs(n.method), ours = an2_auth_method(hs->auth);
    if (hs->got_nonce) {
        fail(hs, "a second nonce");
        return;
    }
    if (ntohl(n.magic) != AN2_FIBER_AUTH_MAGIC || ntohs(n.version) != AN2_FIBER_VERSION) {
        fail(hs, "another version of the AN2 link handshake");
        return;
    }
    if (method != ours) {
        fail(hs, "it authenticates with %s, we with %s", method_name(method),
             method_name(ours));
        return;
    }
    if (sodium_memcmp(n.nonce, hs->our_nonce, sizeof n.nonce) == 0) {
        fail(hs, "it sent our own nonce back");
        return;
    }
    memcpy(hs->peer_nonce, n.nonce, sizeof n.nonce);
    hs->got_nonce = true;
    uint8_t d[32], proof[AN2_AUTH_MAX_PROOF];
    digest(d, ours, hs->we_connected, hs->our_nonce, hs->peer_nonce);
    char err[160];
    long len = an2_auth_prove(hs->auth, d, proof, sizeof proof, err, sizeof err);
    if (len < 0) {
        fail(hs, "%s", err);
        return;
    }
    if (send_record(hs, AN2_FIBER_AUTH_PROOF, proof, (size_t)len))
        hs->sent_proof = true;
}

static void on_proof(struct an2_handshake *hs, const uint8_t *body, size_t len)
{
    if (!hs->got_nonce || hs->verified) {
        fail(hs, hs->verified ? "a second proof" : "a proof before its nonce");
        return;
    }
    uint8_t d[32];
    digest(d, an2_auth_method(hs->auth), !hs->we_connected, hs->peer_nonce, hs->our_nonce);
    char err[160];
    if (an2_auth_verify(hs->auth, d, body, len, &hs->peer_uid, err, sizeof err) != 0)
        fail(hs, "%s", err);
    else
        hs->verified = true;
}

/* Reads toward the end of the record under way, never further. 1: it is complete; 0: more
 * to come; -1: failed. */
static int read_record(struct an2_handshake *hs)
{
    for (;;) {
        size_t want = AN2_FIBER_HDR;
        if (hs->in_len >= AN2_FIBER_HDR) {
            long total = an2_handshake_record_check(hs->in, hs->in_len);
            if (total < 0) {
                if (hs->in[0] == AN2_FIBER_HELLO)
                    fail(hs, "it said HELLO without authenticating (an AN2 link of an older "
                             "version, or one started without --auth)");
                else
                    fail(hs, "not an AN2 link handshake (record type %u, %u bytes)",
                         hs->in[0], (unsigned)(hs->in[2] << 8 | hs->in[3]));
                return -1;
            }
            if (total > 0)
                return 1;
            want = AN2_FIBER_HDR + (size_t)(hs->in[2] << 8 | hs->in[3]);
        }
        ssize_t n = an2_carrier_read(hs->carrier, hs->in + hs->in_len, want - hs->in_len);
        if (n > 0) {
            hs->in_len += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EAGAIN)
            return 0;
        fail(hs, "%s during the handshake",
             n == 0 ? "closed by the other end" : strerror(errno));
        return -1;
    }
}

enum an2_handshake_state an2_handshake_step(struct an2_handshake *hs, uint64_t now_ns)
{
    /* two records come in a handshake: a third pass finds nothing to do. The handshake is
     * stepped only when the carrier's fd says so: it asks the carrier to wake it (arm), and
     * reads again if something came meanwhile */
    for (int pass = 0; pass < 2; pass++) {
        an2_carrier_event(hs->carrier);
        for (int records = 0; records < 3 && !hs->failed && !(hs->verified && hs->sent_proof);
             records++) {
            int r = read_record(hs);
            if (r <= 0)
                break;
            if (hs->in[0] == AN2_FIBER_AUTH_NONCE)
                on_nonce(hs, hs->in + AN2_FIBER_HDR);
            else
                on_proof(hs, hs->in + AN2_FIBER_HDR, hs->in_len - AN2_FIBER_HDR);
            hs->in_len = 0;
        }
        if (hs->failed || (hs->verified && hs->sent_proof) || an2_carrier_arm(hs->carrier, 0))
            break;
    }
    if (hs->failed)
        return AN2_HANDSHAKE_FAILED;
    if (hs->verified && hs->sent_proof)
        return AN2_HANDSHAKE_DONE;
    if (now_ns >= hs->deadline_ns)
        return fail(hs, "no handshake within %u ms", AN2_AUTH_WAIT_MS);
    return AN2_HANDSHAKE_PENDING;
}

struct an2_handshake *an2_handshake_start(struct an2_carrier *carrier,
                                          const struct an2_auth *auth, bool we_connected,
                                          uint64_t now_ns)
{
    struct an2_handshake *hs = calloc(1, sizeof *hs);
    if (!hs)
        return NULL;
    hs->carrier = carrier;
    hs->auth = auth;
    hs->we_connected = we_connected;
    hs->peer_uid = -1;
    hs->deadline_ns = now_ns + AN2_AUTH_WAIT_MS * 1000000ull;
    randombytes_buf(hs->our_nonce, sizeof hs->our_nonce);
    struct an2_fiber_auth_nonce n = {.magic = htonl(AN2_FIBER_AUTH_MAGIC),
                                     .version = htons(AN2_FIBER_VERSION),
                                     .method = htons((uint16_t)an2_auth_method(auth))};
    memcpy(n.nonce, hs->our_nonce, sizeof n.nonce);
    send_record(hs, AN2_FIBER_AUTH_NONCE, &n, sizeof n);
    return hs;
}

uint64_t an2_handshake_deadline(const struct an2_handshake *hs) { return hs->deadline_ns; }
const char *an2_handshake_why(const struct an2_handshake *hs) { return hs->why; }
long an2_handshake_peer_uid(const struct an2_handshake *hs) { return hs->peer_uid; }
struct an2_carrier *an2_handshake_carrier(const struct an2_handshake *hs) { return hs->carrier; }
void an2_handshake_free(struct an2_handshake *hs) { free(hs); }
