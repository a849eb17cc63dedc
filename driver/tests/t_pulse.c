/* t_pulse.c — the controller's pulse (otto_hw.h): an awake an2d publishes a recent time and
 * its CPU in the portion, and a task whose yields would not reach it (an2d stopped while awake
 * on the task's CPU, and in another scheduling group) sleeps instead of yielding: each
 * an2_yield then naps, which the endpoint counts (not the context switches: on a loaded
 * machine a 20 us nap may end before the task blocks). In an2d's group it yields. A task
 * waiting on another CPU moves the starved an2d to its own (then as on an2d's CPU), and an2d,
 * running again, takes back the CPUs it started with. The endpoint says an2d waits for our
 * CPU (an2_controller_waits_here) only on the CPU its pulse names. Needs AN2D_PID (an an2d
 * started with our CPUs), and T_PULSE_GROUP=apart (run it in a session of its own) or same. */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "an2_internal.h"
#include "an2_pair.h"

#define YIELDS 5
#define TRIES 30 /* to catch an2d awake; each costs one of the receiver's buffers */

/* Yields YIELDS times as a waiting task does; how many of them slept. */
static long yields_that_slept(an2_ep *ep)
{
    uint64_t before = ep->naps;
    for (int i = 0; i < YIELDS; i++)
        an2_yield(ep, true);
    return (long)(ep->naps - before);
}

static void pin_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        FAIL("sched_setaffinity(%d)", cpu);
}

/* Sends one PDU and stops an2d right after its TX report, while it is still awake (it yields
 * for milliseconds before it sleeps). True once an2d is stopped awake with a fresh pulse. */
static bool stop_awake(struct an2_pair *p, pid_t an2d)
{
    struct an2_frag f = {0, 100};
    if (an2_send(p->ep, p->vc.vc, &f, 1, 0, 1) != 0)
        FAIL("send");
    /* the report looked for without sleeping (on a loaded machine a wake-up may come after
     * an2d's idle milliseconds): stopped the moment it is out */
    struct an2_report r = {0};
    int n;
    for (double t0 = an2_test_ms(); (n = an2_poll(p->ep, &r, 1)) == 0;)
        if (an2_test_ms() - t0 > AN2_TEST_WAIT_MS)
            FAIL("no TX report within %d ms", AN2_TEST_WAIT_MS);
    kill(an2d, SIGSTOP);
    if (n < 0 || r.kind != AN2_REPORT_TX || r.status != AN2_STATUS_OK)
        FAIL("not a good TX report: n %d kind %u status %s", n, r.kind,
             n == 1 ? an2_status_str(r.status) : "-");
    an2_expect_proc_state(an2d, "T", "an2d stopping on SIGSTOP");
    uint64_t awake = otto_shared_get64(&p->ep->hdr->controller_awake_ns);
    if (!otto_shared_get(&p->ep->hdr->controller_asleep) && awake != 0) {
        uint64_t age = an2_now_ns() - awake;
        if (age > 5000000000ull)
            FAIL("an2d was awake but its pulse is %.3f s old", (double)age / 1e9);
        return true;
    }
    kill(an2d, SIGCONT); /* it had fallen asleep first: again */
    return false;
}

int main(void)
{
    const char *pid_text = getenv("AN2D_PID");
    pid_t an2d = pid_text ? (pid_t)atoi(pid_text) : 0;
    if (an2d <= 0)
        FAIL("AN2D_PID not set");
    const char *group = getenv("T_PULSE_GROUP");
    if (!group || (strcmp(group, "apart") && strcmp(group, "same")))
        FAIL("T_PULSE_GROUP must be apart or same");
    bool apart = strcmp(group, "apart") == 0;
    struct an2_pair p;
    an2_pair_setup(&p, NULL);
    if (!p.parent) { /* buffers for the parent's PDUs, then wait to be told to go */
        for (uint64_t i = 0; i < 2 * TRIES; i++) {
            struct an2_frag f = {(uint32_t)(i * 128), 128};
            if (an2_post_recv(p.ep, p.vc.vc, &f, 1, i) != 0)
                FAIL("post");
        }
        an2_pair_signal(&p, 'r');
        an2_pair_await(&p);
        an2_close(p.ep);
        return 0;
    }
    an2_pair_await(&p);
    bool stopped = false;
    for (int i = 0; i < TRIES && !stopped; i++)
        stopped = stop_awake(&p, an2d);
    if (!stopped)
        FAIL("could not stop an2d while awake in %d tries", TRIES);
    uint32_t cpu = otto_shared_get(&p.ep->hdr->controller_cpu);
    cpu_set_t allowed; /* ours, and an2d's: it was started by our shell */
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        FAIL("sched_getaffinity");
    if (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed))
        FAIL("pulse names CPU %u, which we may not run on", cpu);

    usleep(2000); /* the pulse grows older than OTTO_STARVED_NS */
    pin_to((int)cpu);
    if (!an2_controller_waits_here(p.ep))
        FAIL("an2d stopped awake on our CPU %u: the endpoint does not say it waits here", cpu);
    long naps = yields_that_slept(p.ep);
    if (apart && naps < YIELDS)
        FAIL("an2d stopped awake on our CPU %u: %ld of %d yields slept", cpu, naps, YIELDS);
    if (!apart && naps >= YIELDS)
        FAIL("an2d of our scheduling group stopped awake on our CPU %u: all %d yields slept",
             cpu, YIELDS);
    printf("pulse: an2d (%s scheduling group) stopped awake on CPU %u: our %d yields there %s "
           "(%ld naps)\n", group, cpu, YIELDS, apart ? "slept" : "yielded", naps);
    int other = -1;
    for (int c = 0; c < CPU_SETSIZE && other < 0; c++)
        if (c != (int)cpu && CPU_ISSET(c, &allowed))
            other = c;
    if (other >= 0) { /* waiting on another CPU than the stopped an2d's: it is moved to ours */
        pin_to(other);
        if (an2_controller_waits_here(p.ep))
            FAIL("an2d stopped awake on CPU %u: the endpoint says it waits on ours, %d", cpu,
                 other);
        bool moved = false;
        for (int try = 0; try < TRIES && !moved; try++) {
            if (try > 0) { /* the pulse grew too old to act on (a loaded machine): again */
                kill(an2d, SIGCONT);
                if (!stop_awake(&p, an2d))
                    continue;
                /* wherever it stopped, we wait on another of our CPUs */
                uint32_t now_on = otto_shared_get(&p.ep->hdr->controller_cpu);
                if (now_on >= CPU_SETSIZE || !CPU_ISSET(now_on, &allowed))
                    FAIL("pulse names CPU %u, which we may not run on", now_on);
                if ((int)now_on == other)
                    other = (int)cpu;
                cpu = now_on;
                pin_to(other);
                usleep(1000); /* the pulse grows older than OTTO_MOVE_NS */
            }
            naps = yields_that_slept(p.ep);
            cpu_set_t its;
            if (sched_getaffinity(an2d, sizeof its, &its) != 0)
                FAIL("sched_getaffinity(an2d)");
            moved = CPU_COUNT(&its) == 1 && CPU_ISSET(other, &its);
            uint64_t age = an2_now_ns() - otto_shared_get64(&p.ep->hdr->controller_awake_ns);
            if (!moved && age < OTTO_MOVE_MAX_NS)
                FAIL("an2d stopped awake on CPU %u while we waited on CPU %d: not moved to ours "
                     "(it may run on %d CPUs)", cpu, other, CPU_COUNT(&its));
        }
        if (!moved)
            FAIL("could not catch an2d with a pulse young enough to move it in %d tries", TRIES);
        if (!otto_shared_get(&p.ep->hdr->host_moved_controller))
            FAIL("an2d moved, but the portion's move hint is not set");
        if (apart && naps < YIELDS)
            FAIL("an2d moved to our CPU %d, stopped awake: %ld of %d yields slept", other,
                 naps, YIELDS);
        if (!apart && naps >= YIELDS)
            FAIL("an2d of our group moved to our CPU %d: all %d yields slept", other, YIELDS);
        printf("pulse: an2d moved from CPU %u to our CPU %d; our yields there %s (%ld "
               "naps)\n", cpu, other, apart ? "slept" : "did not sleep", naps);
    }
    an2_yield_end(p.ep);
    kill(an2d, SIGCONT);
    if (other >= 0) { /* at its next pulse an2d takes back the CPUs it started with (ours) */
        bool back = false;
        for (double t0 = an2_test_ms(); !back && an2_test_ms() - t0 < AN2_TEST_WAIT_MS;) {
            cpu_set_t its;
            back = sched_getaffinity(an2d, sizeof its, &its) == 0 && CPU_EQUAL(&its, &allowed) &&
                   !otto_shared_get(&p.ep->hdr->host_moved_controller);
            if (!back)
                usleep(1000);
        }
        if (!back)
            FAIL("an2d, running again, did not take back its CPUs within %d ms",
                 AN2_TEST_WAIT_MS);
        printf("pulse: an2d took back the CPUs it started with\n");
    }
    an2_pair_signal(&p, 'q');
    int st = an2_pair_wait_child(&p);
    an2_close(p.ep);
    return st;
}
