/* an2_link_auth.c — what a daemon proves itself with on its links (an2_link_auth.h): the spec
 * parsed, the key file read and checked, and the key method's MAC; MUNGE's half is in
 * an2_link_auth_munge.c. */
#include "an2_link_auth.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "an2_link_auth_munge.h"

#define KEY_MIN_BYTES 16u
#define KEY_MAX_BYTES 4096u

struct an2_auth {
    enum an2_auth_method method;
    uint8_t key[crypto_auth_hmacsha256_KEYBYTES];   /* key: SHA-256 of the key file */
    char munge_socket[256];                         /* munge: "" for MUNGE's default */
    char text[300];
};

/* The key file at path: a regular file (no symlink followed), of our uid or root's, that no
 * one else may read or write, 16..4096 bytes; its SHA-256 is the key. */
static int load_key(struct an2_auth *a, const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(err, errlen, "key file %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    uint8_t buf[KEY_MAX_BYTES];
    ssize_t n = -1;
    const char *bad = NULL;
    if (fstat(fd, &st) != 0)
        bad = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        bad = "not a regular file";
    else if (st.st_uid != geteuid() && st.st_uid != 0)
        bad = "owned by another user (it must be ours or root's)";
    else if (st.st_mode & 077)
        bad = "readable or writable by others than its owner (chmod 600 it)";
    else if (st.st_size < (off_t)KEY_MIN_BYTES || st.st_size > (off_t)KEY_MAX_BYTES)
        bad = "not 16 to 4096 bytes long (make one with: head -c 32 /dev/urandom)";
    else if ((n = read(fd, buf, sizeof buf)) != st.st_size)
        bad = n < 0 ? strerror(errno) : "changed while read";
    close(fd);
    if (!bad)
        crypto_hash_sha256(a->key, buf, (unsigned long long)n);
    sodium_memzero(buf, sizeof buf);
    if (bad) {
        snprintf(err, errlen, "key file %s: %s", path, bad);
        return -1;
    }
    return 0;
}

struct an2_auth *an2_auth_open(const char *spec, char *err, size_t errlen)
{
    if (sodium_init() < 0) {
        snprintf(err, errlen, "libsodium cannot start");
        return NULL;
    }
    struct an2_auth *a = sodium_malloc(sizeof *a);
    if (!a) {
        snprintf(err, errlen, "no memory");
        return NULL;
    }
    memset(a, 0, sizeof *a);
    if (spec && strncmp(spec, "key:", 4) == 0 && spec[4]) {
        a->method = AN2_AUTH_KEY;
        snprintf(a->text, sizeof a->text, "key %s", spec + 4);
        if (load_key(a, spec + 4, err, errlen) == 0)
            return a;
    } else if (spec && (strcmp(spec, "munge") == 0 ||
                        (strncmp(spec, "munge:", 6) == 0 && spec[6]))) {
        a->method = AN2_AUTH_MUNGE;
        const char *sock = spec[5] ? spec + 6 : "";
        if (strlen(sock) >= sizeof a->munge_socket) {
            snprintf(err, errlen, "MUNGE socket path too long");
        } else {
            snprintf(a->munge_socket, sizeof a->munge_socket, "%s", sock);
            snprintf(a->text, sizeof a->text, "munge (%s)", *sock ? sock : "its default socket");
            /* a credential now: a munged that is missing is said at start, not at each link */
            uint8_t probe[32] = {0}, cred[AN2_AUTH_MAX_PROOF];
            if (an2_munge_prove(a->munge_socket, probe, cred, sizeof cred, err, errlen) >= 0)
                return a;
        }
    } else {
        snprintf(err, errlen, "'%s': say key:FILE or munge[:SOCKET]", spec ? spec : "");
    }
    sodium_free(a);
    return NULL;
}

void an2_auth_close(struct an2_auth *a)
{
    if (a)
        sodium_free(a); /* (zeroes the key) */
}

enum an2_auth_method an2_auth_method(const struct an2_auth *a) { return a->method; }
const char *an2_auth_describe(const struct an2_auth *a) { return a->text; }

long an2_auth_prove(const struct an2_auth *a, const uint8_t digest[32], uint8_t *proof,
                    size_t cap, char *err, size_t errlen)
{
    if (a->method == AN2_AUTH_MUNGE)
        return an2_munge_prove(a->munge_socket, digest, proof, cap, err, errlen);
    if (cap < crypto_auth_hmacsha256_BYTES) {
        snprintf(err, errlen, "no room for the proof");
        return -1;
    }
    crypto_auth_hmacsha256(proof, digest, 32, a->key);
    return crypto_auth_hmacsha256_BYTES;
}

int an2_auth_verify(const struct an2_auth *a, const uint8_t digest[32], const uint8_t *proof,
                    size_t len, long *uid, char *err, size_t errlen)
{
    *uid = -1;
    if (a->method == AN2_AUTH_MUNGE)
        return an2_munge_verify(a->munge_socket, digest, proof, len, uid, err, errlen);
    /* crypto_auth_hmacsha256_verify compares in constant time */
    if (len != crypto_auth_hmacsha256_BYTES ||
        crypto_auth_hmacsha256_verify(proof, digest, 32, a->key) != 0) {
        snprintf(err, errlen, "its proof does not check with our key (another key, or none)");
        return -1;
    }
    return 0;
}
