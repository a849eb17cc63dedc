/* t_registry.c — the endpoint registry: a name belongs to one endpoint at a time, lookup finds
 * it, registering name 0 gives it up (another endpoint may then take it), closing frees it. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "an2_pair.h"

#define NAME 0x40001u

static void expect_rc(int rc, int want, const char *what)
{
    if (rc != want)
        FAIL("%s gave %d (%s), wanted %d", what, rc, an2_strerror(rc), want);
}

static void expect_holder(an2_ep *asker, an2_ep *holder)
{
    uint32_t id = 0;
    expect_rc(an2_lookup_name(asker, NAME, &id), 0, "lookup");
    if (id != an2_endpoint_id(holder))
        FAIL("lookup found endpoint %u, not %u", id, an2_endpoint_id(holder));
}

int main(void)
{
    an2_ep *a, *b;
    expect_rc(an2_open(NULL, &a), 0, "open a");
    expect_rc(an2_open(NULL, &b), 0, "open b");
    uint32_t id;
    expect_rc(an2_lookup_name(b, NAME, &id), -ESRCH, "lookup before any register");
    expect_rc(an2_register_name(a, NAME), 0, "register a");
    expect_rc(an2_register_name(b, NAME), -EADDRINUSE, "register b while a holds it");
    expect_holder(b, a);
    expect_rc(an2_register_name(a, 0), 0, "a gives its name up");
    expect_rc(an2_lookup_name(b, NAME, &id), -ESRCH, "lookup after a gave it up");
    expect_rc(an2_register_name(b, NAME), 0, "register b after a gave it up");
    expect_holder(a, b);
    expect_rc(an2_lookup_name(a, 0, &id), -EINVAL, "lookup of name 0");
    an2_close(b);
    int rc = 0;   /* an2d sees the closed connection asynchronously: allow it AN2_TEST_WAIT_MS */
    for (double t0 = an2_test_ms();
         (rc = an2_lookup_name(a, NAME, &id)) == 0 && an2_test_ms() - t0 < AN2_TEST_WAIT_MS;)
        usleep(50000);
    expect_rc(rc, -ESRCH, "lookup after b closed");
    an2_close(a);
    printf("registry: one holder per name; name 0 gives it up; closing frees it\n");
    return 0;
}
