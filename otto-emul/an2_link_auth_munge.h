/* an2_link_auth_munge.h — the MUNGE method of the link handshake (an2_link_auth.h): a
 * credential carrying the handshake's digest, encoded and decoded by the local munged. */
#ifndef AN2_LINK_AUTH_MUNGE_H
#define AN2_LINK_AUTH_MUNGE_H

#include <stddef.h>
#include <stdint.h>

/* socket: munged's socket, "" for MUNGE's default. As an2_auth_prove / an2_auth_verify. */
long an2_munge_prove(const char *socket, const uint8_t digest[32], uint8_t *proof, size_t cap,
                     char *err, size_t errlen);
int an2_munge_verify(const char *socket, const uint8_t digest[32], const uint8_t *proof,
                     size_t len, long *uid, char *err, size_t errlen);

#endif
