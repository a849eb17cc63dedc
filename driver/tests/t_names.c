/* t_names.c — the words an2d and liban2 agree on: the control socket path rule, link rates
 * in linux-atm QoS text, VC addresses in itf.vpi.vci text, error texts. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "an2_pair.h"
#include "link_rate.h"

static void expect_path(const char *want)
{
    char path[108];
    if (an2_socket_path(path, sizeof path) != 0 || strcmp(path, want) != 0)
        FAIL("socket path '%s', wanted '%s'", path, want);
}

static void expect_rate(const char *text, double want)
{
    double cps = -1;
    int rc = an2_parse_rate(text, &cps);
    if (want < 0 ? rc != -EINVAL : (rc != 0 || fabs(cps - want) > 0.5))
        FAIL("rate '%s': rc %d, %.1f cells/s, wanted %.1f", text, rc, cps, want);
}

int main(void)
{
    char want[108];
    unsetenv("AN2_SOCKET");
    unsetenv("PVM_TMP");
    unsetenv("PVM_VMID");
    snprintf(want, sizeof want, "/tmp/an2d.%u/an2d.sock", (unsigned)geteuid());
    expect_path(want);
    setenv("PVM_TMP", "/var/tmp/x", 1);
    snprintf(want, sizeof want, "/var/tmp/x/an2d.%u/an2d.sock", (unsigned)geteuid());
    expect_path(want);
    setenv("PVM_VMID", "vm3", 1);
    snprintf(want, sizeof want, "/var/tmp/x/an2d.%u.vm3/an2d.sock", (unsigned)geteuid());
    expect_path(want);
    setenv("AN2_SOCKET", "/some/where.sock", 1);
    expect_path("/some/where.sock");
    char longname[200];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    setenv("AN2_SOCKET", longname, 1);
    char path[108];
    if (an2_socket_path(path, sizeof path) != -ENAMETOOLONG)
        FAIL("a 199-character socket path was not refused");

    expect_rate("unpaced", 0);
    expect_rate("oc3", 353207.5);
    expect_rate("OC12", 4 * 353207.5);
    expect_rate("cbr:pcr=100000", 100000);
    expect_rate("ubr:max_pcr=100Mbps", 260416);
    expect_rate("ubr", 0);
    expect_rate("oc48", -1);
    expect_rate("cbr:pcr=fast", -1);

    char addr[AN2_ADDR_LEN];
    uint16_t itf, vpi, vci;
    if (an2_addr_format(addr, sizeof addr, 0, 0, 32) != 0 || strcmp(addr, "0.0.32") != 0)
        FAIL("address text '%s'", addr);
    if (an2_addr_parse("1.2.65535", &itf, &vpi, &vci) != 0 || itf != 1 || vpi != 2 ||
        vci != 65535)
        FAIL("1.2.65535 parsed as %u.%u.%u", itf, vpi, vci);
    if (an2_addr_parse("0.0.70000", &itf, &vpi, &vci) == 0 ||
        an2_addr_parse("x", &itf, &vpi, &vci) == 0)
        FAIL("bad address text accepted");
    if (strstr(an2_strerror(-E2BIG), "limit") == NULL || strcmp(an2_status_str(5), "peer gone"))
        FAIL("error texts");
    printf("names: socket paths, rates, addresses and error texts as expected\n");
    return 0;
}
