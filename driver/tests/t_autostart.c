/* t_autostart.c — with no an2d running, two tasks open the device at the same moment: an2d
 * is started (once) by the library, both get distinct endpoints of the same an2d. We are the
 * daemon's subreaper, so we stop it (`an2d --stop`) and reap it: nothing is left behind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "an2_pair.h"

int main(void)
{
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        FAIL("PR_SET_CHILD_SUBREAPER");
    int gate[2], ids[2], quit[2];
    if (pipe(gate) || pipe(ids) || pipe(quit))
        FAIL("pipe");
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
        fflush(NULL);
        kids[k] = fork();
        if (kids[k] < 0)
            FAIL("fork");
        if (kids[k] == 0) {
            close(gate[1]);
            close(quit[1]);
            char c;
            if (read(gate[0], &c, 1) != 0) /* both start when the gate closes */
                FAIL("gate");
            an2_ep *ep;
            int rc = an2_open(NULL, &ep);
            if (rc != 0)
                FAIL("an2_open: %s (%s)", an2_strerror(rc), an2_error_detail());
            uint32_t id = an2_endpoint_id(ep);
            if (write(ids[1], &id, sizeof id) != sizeof id)
                FAIL("write");
            if (read(quit[0], &c, 1) != 0)
                FAIL("quit");
            an2_close(ep);
            _exit(0);
        }
    }
    close(gate[0]);
    close(ids[1]);
    close(quit[0]);
    close(gate[1]); /* go */
    uint32_t id[2];
    for (int k = 0; k < 2; k++)
        if (read(ids[0], &id[k], sizeof id[k]) != sizeof id[k])
            FAIL("a task could not open the device");
    if (id[0] == id[1] || !id[0] || !id[1])
        FAIL("endpoint ids %u and %u", id[0], id[1]);
    const char *dir = getenv("AN2_BUILD_DIR");
    char cmd[512], line[256] = "";
    snprintf(cmd, sizeof cmd, "%s/bin/an2stat --summary", dir ? dir : ".");
    FILE *f = popen(cmd, "r");
    if (!f || !fgets(line, sizeof line, f))
        FAIL("an2stat gave nothing");
    pclose(f);
    if (!strstr(line, "endpoints 2 "))
        FAIL("both tasks are not on one an2d: %s", line);
    printf("autostart: endpoints %u and %u on one an2d: %s", id[0], id[1], line);
    close(quit[1]);
    int bad = 0;
    for (int k = 0; k < 2; k++) {
        int st;
        waitpid(kids[k], &st, 0);
        bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    const char *an2d = getenv("AN2D_PATH");
    snprintf(cmd, sizeof cmd, "%s --stop", an2d ? an2d : "an2d");
    if (system(cmd) != 0)
        FAIL("%s failed", cmd);
    int st;
    pid_t daemon = wait(&st); /* the daemonised an2d, reparented to us */
    if (daemon < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        FAIL("the autostarted an2d did not exit cleanly");
    return bad;
}
