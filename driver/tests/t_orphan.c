/* t_orphan.c — a task sleeping in an2_wait(-1) when an2d dies: the wait ends with
 * -ECONNRESET instead of hanging. Prints "waiting" once asleep-ready; exits 0 on that error. */
#include <errno.h>
#include <stdio.h>

#include "an2_pair.h"

int main(void)
{
    an2_ep *ep;
    int rc = an2_open(NULL, &ep);
    if (rc != 0)
        FAIL("an2_open: %s", an2_strerror(rc));
    printf("waiting\n");
    fflush(stdout);
    struct an2_report r;
    rc = an2_wait(ep, &r, 1, -1);
    if (rc != -ECONNRESET)
        FAIL("an2_wait gave %d (%s), not ECONNRESET", rc, an2_strerror(rc));
    printf("an2_wait: %s (%s)\n", an2_strerror(rc), an2_error_detail());
    an2_close(ep);
    return 0;
}
