/* an2_link_auth_munge.c — the MUNGE method of the link handshake: our proof is a credential
 * whose payload is the handshake's digest; the other end's must decode (munged checks the
 * MUNGE key, its time to live and that it was not decoded before), carry the digest we
 * expect, and come from root or from our own uid. */
#include "an2_link_auth_munge.h"

#include <munge.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CRED_TTL_S 60          /* a credential is good this long (the handshake takes ms) */

static munge_ctx_t context(const char *socket, char *err, size_t errlen)
{
    munge_ctx_t ctx = munge_ctx_create();
    if (!ctx) {
        snprintf(err, errlen, "MUNGE: no memory");
        return NULL;
    }
    munge_err_t e = munge_ctx_set(ctx, MUNGE_OPT_TTL, CRED_TTL_S);
    if (e == EMUNGE_SUCCESS && *socket)
        e = munge_ctx_set(ctx, MUNGE_OPT_SOCKET, socket);
    if (e != EMUNGE_SUCCESS) {
        snprintf(err, errlen, "MUNGE: %s", munge_strerror(e));
        munge_ctx_destroy(ctx);
        return NULL;
    }
    return ctx;
}

long an2_munge_prove(const char *socket, const uint8_t digest[32], uint8_t *proof, size_t cap,
                     char *err, size_t errlen)
{
    munge_ctx_t ctx = context(socket, err, errlen);
    if (!ctx)
        return -1;
    char *cred = NULL;
    munge_err_t e = munge_encode(&cred, ctx, digest, 32);
    long n = -1;
    if (e != EMUNGE_SUCCESS)
        snprintf(err, errlen, "MUNGE cannot encode our credential: %s", munge_ctx_strerror(ctx));
    else if (strlen(cred) > cap)
        snprintf(err, errlen, "our MUNGE credential is longer than %zu bytes", cap);
    else
        memcpy(proof, cred, (size_t)(n = (long)strlen(cred)));
    free(cred);
    munge_ctx_destroy(ctx);
    return n;
}

int an2_munge_verify(const char *socket, const uint8_t digest[32], const uint8_t *proof,
                     size_t len, long *uid, char *err, size_t errlen)
{
    char cred[1025];
    if (len >= sizeof cred || memchr(proof, 0, len)) {
        snprintf(err, errlen, "its MUNGE credential is malformed");
        return -1;
    }
    memcpy(cred, proof, len);
    cred[len] = 0;
    munge_ctx_t ctx = context(socket, err, errlen);
    if (!ctx)
        return -1;
    void *payload = NULL;
    int plen = 0;
    uid_t cred_uid = (uid_t)-1;
    gid_t cred_gid = (gid_t)-1;
    munge_err_t e = munge_decode(cred, ctx, &payload, &plen, &cred_uid, &cred_gid);
    int rc = -1;
    if (e != EMUNGE_SUCCESS)
        snprintf(err, errlen, "its MUNGE credential is refused: %s", munge_ctx_strerror(ctx));
    else if (plen != 32 || memcmp(payload, digest, 32) != 0)
        snprintf(err, errlen, "its MUNGE credential is not for this handshake (replayed?)");
    else if (cred_uid != 0 && cred_uid != geteuid())
        snprintf(err, errlen, "its MUNGE credential is of uid %u, neither root nor ours",
                 (unsigned)cred_uid);
    else {
        *uid = (long)cred_uid;
        rc = 0;
    }
    free(payload);
    munge_ctx_destroy(ctx);
    return rc;
}
