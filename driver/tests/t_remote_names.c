/* t_remote_names.c — names across hosts (run with AN2_PEER_SOCKET naming the other host's
 * an2d): a name the other host's endpoint registers is found here, with that endpoint's id
 * (its host in the upper bits); an unknown name is -ESRCH after the fabric's silence; a name
 * given up is no longer found. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "an2_pair.h"

#define NAME 0x80042u

static void expect_lookup(an2_ep *ep, uint32_t name, int want_rc, uint32_t want_id)
{
    uint32_t id = 0;
    int rc = an2_lookup_name(ep, name, &id);
    if (rc != want_rc || (rc == 0 && id != want_id))
        FAIL("lookup 0x%x: %d (%s) id %u, wanted %d id %u", name, rc, an2_strerror(rc), id,
             want_rc, want_id);
}

int main(void)
{
    struct an2_pair p;
    an2_pair_setup(&p, NULL);
    if (!p.parent) {
        if (an2_register_name(p.ep, NAME) != 0)
            FAIL("register");
        an2_pair_signal(&p, 'r');
        an2_pair_await(&p);          /* the parent found it */
        if (an2_register_name(p.ep, 0) != 0)
            FAIL("give the name up");
        an2_pair_signal(&p, 'g');
        an2_pair_await(&p);          /* the parent is asking for NAME + 2 already */
        /* its request is out once it sleeps for the answer; then a moment for the LOOKUP to
         * reach our an2d, which shows no sign of having heard it */
        an2_expect_proc_state(getppid(), "S", "the parent waiting for its look-up");
        usleep(50000);
        if (an2_register_name(p.ep, NAME + 2) != 0)
            FAIL("register while the parent looks");
        an2_pair_signal(&p, 'r');
        an2_pair_await(&p);
        return 0;
    }
    an2_pair_await(&p);
    expect_lookup(p.ep, NAME, 0, p.peer_id);
    if (p.peer_id >> 16 == an2_endpoint_id(p.ep) >> 16)
        FAIL("the peer %u is on our own host: run across two hosts", p.peer_id);
    expect_lookup(p.ep, NAME + 1, -ESRCH, 0);
    an2_pair_signal(&p, 'f');
    an2_pair_await(&p);
    expect_lookup(p.ep, NAME, -ESRCH, 0);
    /* a name registered while the look-up is under way (a task just spawned there): the
     * holder's an2d heard the LOOKUP and answers when the name comes, not the timeout */
    an2_pair_signal(&p, 'l');
    expect_lookup(p.ep, NAME + 2, 0, p.peer_id);
    an2_pair_await(&p);
    an2_pair_signal(&p, 'q');
    if (an2_pair_wait_child(&p) != 0)
        FAIL("the other host's side failed");
    printf("remote names: found across hosts with the holder's id, also when registered during "
           "the look-up; unknown and given-up names not found\n");
    return 0;
}
