/* an2_fork.c — a child forked while endpoints are open lets go of their descriptors at
 * once, so that it cannot keep its parent's endpoints (and their VCs) alive in an2d. */
#include "an2_internal.h"

#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static an2_ep *open_eps; /* every endpoint of this process, linked by fork_next */

static void before_fork(void) { pthread_mutex_lock(&lock); }
static void in_parent(void) { pthread_mutex_unlock(&lock); }

/* In the child: close (async-signal-safe) the control, kick and interrupt descriptors of
 * every endpoint. The child's copies of the endpoints fail from now on; an2_close frees them. */
static void in_child(void)
{
    for (an2_ep *ep = open_eps; ep; ep = ep->fork_next) {
        close(ep->ctl_fd);
        if (ep->kick_fd >= 0)
            close(ep->kick_fd);
        if (ep->irq_fd >= 0)
            close(ep->irq_fd);
        ep->ctl_fd = ep->kick_fd = ep->irq_fd = -1;
    }
    pthread_mutex_unlock(&lock);
}

static void register_handlers(void) { pthread_atfork(before_fork, in_parent, in_child); }

void an2_fork_track(an2_ep *ep)
{
    pthread_once(&once, register_handlers);
    pthread_mutex_lock(&lock);
    ep->fork_next = open_eps;
    open_eps = ep;
    pthread_mutex_unlock(&lock);
}

void an2_fork_untrack(an2_ep *ep)
{
    pthread_mutex_lock(&lock);
    for (an2_ep **p = &open_eps; *p; p = &(*p)->fork_next)
        if (*p == ep) {
            *p = ep->fork_next;
            break;
        }
    pthread_mutex_unlock(&lock);
}
