/* an2_carrier_ofi.c — the network carrier (an2_carrier.h): a link's bytes as the messages of a
 * libfabric connected endpoint (FI_EP_MSG: the tcp provider on Ethernet, verbs where there is
 * RDMA hardware; fi_getinfo picks, FI_PROVIDER overrides). The link's TCP connection sets the
 * endpoints up and then only says the link's end:
 *
 *   the end that accepted the TCP connection listens on a passive endpoint at the connection's
 *   local address and sends its hello (provider, address, 32 random bytes); the end that made
 *   the TCP connection sends its hello (provider) and, given the other's, connects to that
 *   address with the 32 bytes as its connection data. The listener accepts the one request
 *   that carries them, rejects any other, and stops listening once connected.
 *
 * Receives are posted before the connection is made, in a fixed order, and read back in that
 * order whatever order their completions come in. Every byte that comes is untrusted input to
 * the link's reader, as on every carrier. */
#include "an2_carrier.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#define MSG_BYTES   32768u   /* per message */
#define TX_MSGS     16u      /* messages in flight out */
#define RX_MSGS     32u      /* receives posted: 1 MiB, as a shared-memory ring */
#define COMPLETIONS 64       /* taken per look at the completion queue: bounded */
#define CM_EVENTS   8        /* connection events taken per look: bounded */
#define ADDR_MAX    64u      /* a listening endpoint's address, as fi_getname gives it */
#define TOKEN_BYTES 32u
#define MAGIC       "AN2OFI2"

/* What each end sends on the TCP connection: the listener its provider, address and token;
 * the connector its provider (the rest zero). Fixed size; integers in network byte order. */
struct ofi_hello {
    char magic[8];
    char provider[32];   /* NUL-terminated */
    uint32_t listener;   /* 1 from the end that listens */
    uint32_t addr_format, addr_len;
    uint8_t addr[ADDR_MAX];
    uint8_t token[TOKEN_BYTES];
};
static_assert(sizeof(struct ofi_hello) == 148, "the hello's size is part of the protocol");

struct rx_slot {
    struct fi_context ctx;   /* first: a completion's op_context points here */
    uint32_t len;            /* bytes that came, once done */
    bool done;
};

struct ofi_carrier {
    struct an2_carrier c;    /* first: the carrier the link sees (c.fd: an epoll set) */
    int sock;                /* the link's TCP connection; -1 once closed by the other end */
    bool listener;           /* we accepted the TCP connection: we listen, the other connects */
    struct fi_info *info;    /* the provider chosen */
    struct fid_fabric *fabric;
    struct fid_eq *eq;
    struct fid_domain *domain;
    struct fid_cq *cq;
    struct fid_pep *pep;     /* the listener's, until connected */
    struct fid_ep *ep;
    struct fid_mr *mr;       /* when the provider wants local buffers registered */
    void *desc;
    uint8_t *mem;            /* TX_MSGS then RX_MSGS buffers of MSG_BYTES */
    struct fi_context tx_ctx[TX_MSGS];
    uint32_t tx_free[TX_MSGS], ntx_free;   /* buffers neither queued nor in flight */
    uint32_t tx_queue[TX_MSGS], tx_len[TX_MSGS];   /* written, not yet handed to the provider
                                            * (before the connection, or refused for now) */
    uint32_t txq_head, txq_len;
    struct rx_slot rx[RX_MSGS];
    uint32_t rx_head;        /* the oldest posted receive: the next bytes of the link */
    uint32_t rx_off;         /* bytes of it already read */
    uint32_t rx_unposted;    /* receives read out, to post again (from rx_head - rx_unposted) */
    struct ofi_hello mine, theirs;
    size_t theirs_len;       /* bytes of theirs that came */
    bool connected, ended;
    int error;
};

static struct ofi_carrier *of(struct an2_carrier *c) { return (struct ofi_carrier *)c; }
static uint8_t *tx_buf(struct ofi_carrier *o, uint32_t i) { return o->mem + (size_t)i * MSG_BYTES; }
static uint8_t *rx_buf(struct ofi_carrier *o, uint32_t i)
{
    return o->mem + (size_t)(TX_MSGS + i) * MSG_BYTES;
}

static int fail(struct ofi_carrier *o, int e)
{
    if (!o->error)
        o->error = e;
    errno = o->error;
    return -1;
}

/* Posts the receives read out since, in order. */
static void post_receives(struct ofi_carrier *o)
{
    while (o->rx_unposted && !o->error) {
        uint32_t i = (o->rx_head + RX_MSGS - o->rx_unposted) % RX_MSGS;
        o->rx[i].done = false;
        ssize_t rc = fi_recv(o->ep, rx_buf(o, i), MSG_BYTES, o->desc, 0, &o->rx[i].ctx);
        if (rc == -FI_EAGAIN)
            return;   /* the provider's queue is full: again after its next completions */
        if (rc) {
            fail(o, EIO);
            return;
        }
        o->rx_unposted--;
    }
}

/* Hands the queued messages to the provider, in order, as far as it takes them. */
static void send_queued(struct ofi_carrier *o)
{
    while (o->connected && o->txq_len && !o->error) {
        uint32_t i = o->tx_queue[o->txq_head];
        ssize_t rc = fi_send(o->ep, tx_buf(o, i), o->tx_len[i], o->desc, 0, &o->tx_ctx[i]);
        if (rc == -FI_EAGAIN)
            return;   /* again when its completions have made room */
        if (rc) {
            fail(o, rc == -FI_ENOTCONN || rc == -FI_ECONNRESET ? ECONNRESET : EIO);
            return;
        }
        o->txq_head = (o->txq_head + 1) % TX_MSGS;
        o->txq_len--;
    }
}

/* Takes the completions that came (a bounded number), which also drives the provider. */
static void take_completions(struct ofi_carrier *o)
{
    if (!o->ep || o->error)
        return;
    struct fi_cq_data_entry e[COMPLETIONS];
    ssize_t n = fi_cq_read(o->cq, e, COMPLETIONS);
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        fi_cq_readerr(o->cq, &err, 0);
        if (err.err == FI_ECANCELED || o->ended)
            return;   /* receives flushed at the end */
        /* too long a message for our receive is the other end's fault, not the network's */
        fail(o, err.err == FI_ETRUNC ? EPROTO : EIO);
        return;
    }
    for (ssize_t k = 0; k < n; k++) {
        struct fi_context *ctx = e[k].op_context;
        if (ctx >= o->tx_ctx && ctx < o->tx_ctx + TX_MSGS) {
            o->tx_free[o->ntx_free++] = (uint32_t)(ctx - o->tx_ctx);
        } else {
            struct rx_slot *s = (struct rx_slot *)ctx;
            s->len = (uint32_t)(e[k].len < MSG_BYTES ? e[k].len : MSG_BYTES);
            s->done = true;
        }
    }
    if (n < 0 && n != -FI_EAGAIN)
        fail(o, EIO);
    post_receives(o);
    send_queued(o);
}

static ssize_t ofi_write(struct an2_carrier *c, const void *buf, size_t len)
{
    struct ofi_carrier *o = of(c);
    if (o->error || o->ended) {
        errno = o->error ? o->error : EPIPE;
        return -1;
    }
    if (!o->ntx_free)
        take_completions(o);
    /* queued in order (before the connection is made too: the handshake speaks first) */
    size_t taken = 0;
    while (taken < len && o->ntx_free) {
        uint32_t i = o->tx_free[--o->ntx_free];
        size_t n = len - taken < MSG_BYTES ? len - taken : MSG_BYTES;
        memcpy(tx_buf(o, i), (const uint8_t *)buf + taken, n);
        o->tx_len[i] = (uint32_t)n;
        o->tx_queue[(o->txq_head + o->txq_len++) % TX_MSGS] = i;
        taken += n;
    }
    send_queued(o);
    if (o->error)
        return fail(o, o->error);
    if (!taken) {
        errno = EAGAIN;
        return -1;
    }
    return (ssize_t)taken;
}

static ssize_t ofi_read(struct an2_carrier *c, void *buf, size_t cap)
{
    struct ofi_carrier *o = of(c);
    if (o->error)
        return fail(o, o->error);
    take_completions(o);
    size_t got = 0;
    while (got < cap && o->rx_unposted < RX_MSGS && o->rx[o->rx_head].done) {
        struct rx_slot *s = &o->rx[o->rx_head];
        size_t n = s->len - o->rx_off < cap - got ? s->len - o->rx_off : cap - got;
        memcpy((uint8_t *)buf + got, rx_buf(o, o->rx_head) + o->rx_off, n);
        got += n;
        o->rx_off += (uint32_t)n;
        if (o->rx_off == s->len) {
            s->done = false;
            o->rx_off = 0;
            o->rx_head = (o->rx_head + 1) % RX_MSGS;
            o->rx_unposted++;
        }
    }
    if (got) {
        if (!o->ended)
            post_receives(o);
        return (ssize_t)got;
    }
    if (o->error)
        return fail(o, o->error);
    if (o->ended)
        return 0;
    errno = EAGAIN;
    return -1;
}

/* The connected endpoint, from the chosen provider's info (the connector's, aimed at the
 * listener) or a connection request's (the listener's): bound, enabled, receives posted.
 * 0 or a libfabric error. */
static int open_endpoint(struct ofi_carrier *o, struct fi_info *fi)
{
    int rc = fi_endpoint(o->domain, fi, &o->ep, NULL);
    if (!rc)
        rc = fi_ep_bind(o->ep, &o->eq->fid, 0);
    if (!rc)
        rc = fi_ep_bind(o->ep, &o->cq->fid, FI_TRANSMIT | FI_RECV);
    if (!rc)
        rc = fi_enable(o->ep);
    if (!rc) {
        o->rx_unposted = RX_MSGS;
        post_receives(o);
        rc = o->error ? -FI_EIO : 0;
    }
    return rc;
}

/* The other end's hello is complete: check it, and the connector connects. 0 or an errno. */
static int meet(struct ofi_carrier *o)
{
    const struct ofi_hello *h = &o->theirs;
    uint32_t alen = ntohl(h->addr_len);
    bool listener = ntohl(h->listener) == 1;
    if (memcmp(h->magic, MAGIC, sizeof h->magic) || !memchr(h->provider, 0, sizeof h->provider) ||
        listener == o->listener || (listener && (alen == 0 || alen > ADDR_MAX)))
        return EPROTO;
    if (strcmp(h->provider, o->info->fabric_attr->prov_name) ||
        (listener && ntohl(h->addr_format) != o->info->addr_format))
        return EPROTONOSUPPORT;   /* the two ends chose different providers */
    if (o->listener)
        return 0;   /* its connection request comes on the event queue */
    struct fi_info *fi = fi_dupinfo(o->info);
    if (!fi)
        return ENOMEM;
    free(fi->dest_addr);
    fi->dest_addr = malloc(alen);
    if (!fi->dest_addr) {
        fi_freeinfo(fi);
        return ENOMEM;
    }
    memcpy(fi->dest_addr, h->addr, alen);
    fi->dest_addrlen = alen;
    int rc = open_endpoint(o, fi);
    if (!rc)
        rc = fi_connect(o->ep, h->addr, h->token, TOKEN_BYTES);
    fi_freeinfo(fi);
    return rc ? (rc == -FI_ENOMEM ? ENOMEM : ECONNREFUSED) : 0;
}

/* Whether a connection request's data is our token, in a time that does not depend on where
 * a guess first goes wrong (its length is no secret). */
static bool token_matches(const struct ofi_carrier *o, const uint8_t *data, size_t len)
{
    if (len < TOKEN_BYTES)
        return false;
    uint8_t diff = 0;
    for (size_t i = 0; i < TOKEN_BYTES; i++)
        diff |= (uint8_t)(data[i] ^ o->mine.token[i]);
    return diff == 0;
}

/* A connection request on the listener: accepted if it carries our token and none was
 * accepted before, otherwise rejected. */
static void connection_request(struct ofi_carrier *o, struct fi_eq_cm_entry *e, size_t len)
{
    size_t data = len > sizeof *e ? len - sizeof *e : 0;
    bool ours = o->pep && !o->ep && token_matches(o, e->data, data);
    if (ours && open_endpoint(o, e->info) == 0 && fi_accept(o->ep, NULL, 0) == 0) {
        fi_freeinfo(e->info);
        return;
    }
    if (ours) {
        fail(o, ECONNREFUSED);
    } else if (o->pep) {
        fi_reject(o->pep, e->info->handle, NULL, 0);
    }
    fi_freeinfo(e->info);
}

/* Connection events, a bounded number: a request, the connection made, its end. */
static void take_connection_events(struct ofi_carrier *o)
{
    for (int i = 0; i < CM_EVENTS && !o->error; i++) {
        _Alignas(struct fi_eq_cm_entry) uint8_t buf[sizeof(struct fi_eq_cm_entry) + TOKEN_BYTES + 32];
        struct fi_eq_cm_entry *e = (struct fi_eq_cm_entry *)buf;
        uint32_t event;
        ssize_t n = fi_eq_read(o->eq, &event, buf, sizeof buf, 0);
        if (n == -FI_EAGAIN)
            return;
        if (n == -FI_EAVAIL) {
            struct fi_eq_err_entry err = {0};
            fi_eq_readerr(o->eq, &err, 0);
            if (o->pep && err.fid == &o->pep->fid)
                continue;   /* a stranger's request that went wrong: not ours */
            if (o->connected)
                o->ended = true;
            else
                fail(o, ECONNREFUSED);
            return;
        }
        if (n < 0) {
            fail(o, EIO);
            return;
        }
        if (event == FI_CONNREQ) {
            connection_request(o, e, (size_t)n);
        } else if (event == FI_CONNECTED && o->ep && e->fid == &o->ep->fid) {
            o->connected = true;
            if (o->pep) {   /* no one else may connect now */
                fi_close(&o->pep->fid);
                o->pep = NULL;
            }
            /* the connection's own end says the link's now: the TCP connection stays open
             * (its end could reach the other end before its own connection event) but is
             * no longer looked at */
            if (o->sock >= 0)
                epoll_ctl(o->c.fd, EPOLL_CTL_DEL, o->sock, NULL);
            send_queued(o);
        } else if (event == FI_SHUTDOWN) {
            o->ended = true;
        }
    }
}

/* The TCP connection is readable (it is looked at until the connection is made): the other
 * end's hello, or its end. Anything more is a protocol error. Bounded. */
static void take_from_socket(struct ofi_carrier *o)
{
    for (int i = 0; i < 4 && o->sock >= 0 && !o->connected && !o->error; i++) {
        uint8_t extra;
        bool hello = o->theirs_len < sizeof o->theirs;
        ssize_t n = hello ? recv(o->sock, (uint8_t *)&o->theirs + o->theirs_len,
                                 sizeof o->theirs - o->theirs_len, MSG_DONTWAIT)
                          : recv(o->sock, &extra, 1, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n > 0 && hello) {
            o->theirs_len += (size_t)n;
            if (o->theirs_len == sizeof o->theirs) {
                int rc = meet(o);
                if (rc)
                    fail(o, rc);
            }
            continue;
        }
        if (n > 0) {
            fail(o, EPROTO);
            return;
        }
        /* its end (or a reset) before the connection was made: the link's end */
        epoll_ctl(o->c.fd, EPOLL_CTL_DEL, o->sock, NULL);
        close(o->sock);
        o->sock = -1;
        o->ended = true;
    }
}

static void ofi_event(struct an2_carrier *c)
{
    struct ofi_carrier *o = of(c);
    take_from_socket(o);
    take_connection_events(o);
    take_completions(o);
}

static bool ofi_arm(struct an2_carrier *c, size_t want_room)
{
    struct ofi_carrier *o = of(c);
    take_connection_events(o);
    take_completions(o);
    if (o->error || o->ended || (o->rx_unposted < RX_MSGS && o->rx[o->rx_head].done))
        return false;
    if (want_room && o->ntx_free)
        return false;
    /* true: the queues' wait fds (in our epoll set) will say when something comes */
    struct fid *fids[] = {&o->eq->fid, &o->cq->fid};
    return fi_trywait(o->fabric, fids, 2) == FI_SUCCESS;
}

static void ofi_free(struct ofi_carrier *o)
{
    struct fid *objs[] = {o->ep ? &o->ep->fid : NULL, o->pep ? &o->pep->fid : NULL,
                          o->mr ? &o->mr->fid : NULL, o->cq ? &o->cq->fid : NULL,
                          o->domain ? &o->domain->fid : NULL, o->eq ? &o->eq->fid : NULL,
                          o->fabric ? &o->fabric->fid : NULL};
    for (size_t i = 0; i < sizeof objs / sizeof *objs; i++)
        if (objs[i])
            fi_close(objs[i]);
    o->ep = NULL, o->pep = NULL, o->mr = NULL, o->cq = NULL, o->domain = NULL, o->eq = NULL,
    o->fabric = NULL, o->desc = NULL;
}

static void ofi_close(struct an2_carrier *c)
{
    struct ofi_carrier *o = of(c);
    ofi_free(o);
    if (o->info)
        fi_freeinfo(o->info);
    if (o->c.fd >= 0)
        close(o->c.fd);
    if (o->sock >= 0)
        close(o->sock);
    free(o->mem);
    free(o);
}

static const struct an2_carrier_ops ofi_ops = {
    .write = ofi_write, .read = ofi_read, .close = ofi_close, .event = ofi_event,
    .arm = ofi_arm};

/* A wait fd of a queue, into our epoll set. 0 or a libfabric error. */
static int watch(struct ofi_carrier *o, struct fid *queue)
{
    int fd;
    int rc = fi_control(queue, FI_GETWAIT, &fd);
    struct epoll_event ev = {.events = EPOLLIN};
    if (!rc && epoll_ctl(o->c.fd, EPOLL_CTL_ADD, fd, &ev) != 0)
        rc = -FI_EIO;
    return rc;
}

/* One candidate provider's fabric, queues, domain, and (the listener) its passive endpoint,
 * listening. 0, or a libfabric error (the candidate's objects closed again). */
static int open_provider(struct ofi_carrier *o, struct fi_info *fi)
{
    struct fi_eq_attr eq_attr = {.size = 16, .wait_obj = FI_WAIT_FD};
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_FD,
                                 .size = 2 * (TX_MSGS + RX_MSGS)};
    int rc = fi_fabric(fi->fabric_attr, &o->fabric, NULL);
    if (!rc)
        rc = fi_eq_open(o->fabric, &eq_attr, &o->eq, NULL);
    if (!rc)
        rc = fi_domain(o->fabric, fi, &o->domain, NULL);
    if (!rc)
        rc = fi_cq_open(o->domain, &cq_attr, &o->cq, NULL);
    if (!rc)
        rc = watch(o, &o->eq->fid);
    if (!rc)
        rc = watch(o, &o->cq->fid);
    if (!rc && (fi->domain_attr->mr_mode & FI_MR_LOCAL)) {
        rc = fi_mr_reg(o->domain, o->mem, (size_t)(TX_MSGS + RX_MSGS) * MSG_BYTES,
                       FI_SEND | FI_RECV, 0, 0, 0, &o->mr, NULL);
        if (!rc)
            o->desc = fi_mr_desc(o->mr);
    }
    if (!rc && o->listener)
        rc = fi_passive_ep(o->fabric, fi, &o->pep, NULL);
    if (!rc && o->listener)
        rc = fi_pep_bind(o->pep, &o->eq->fid, 0);
    if (!rc && o->listener)
        rc = fi_listen(o->pep);
    if (rc) {
        ofi_free(o);
        /* the wait fds went with their queues, and so out of the epoll set */
    }
    return rc;
}

/* The providers that offer connected, ordered messages at node (NULL: anywhere), into *list;
 * 0 or fi_getinfo's error. */
static int getinfo(const char *node, struct fi_info **list)
{
    struct fi_info *hints = fi_allocinfo();
    if (!hints)
        return -FI_ENOMEM;
    hints->ep_attr->type = FI_EP_MSG;
    hints->caps = FI_MSG | FI_SEND | FI_RECV;
    hints->tx_attr->msg_order = FI_ORDER_SAS;
    hints->rx_attr->msg_order = FI_ORDER_SAS;
    hints->mode = FI_CONTEXT;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_ALLOCATED | FI_MR_VIRT_ADDR | FI_MR_PROV_KEY;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    /* port 0: the listener's passive endpoint takes a free port */
    int rc = fi_getinfo(FI_VERSION(1, 9), node, node ? "0" : NULL, node ? FI_SOURCE : 0, hints,
                        list);
    fi_freeinfo(hints);
    return rc;
}

/* The first provider that offers connected, ordered messages at the TCP connection's local
 * address, with queues to sleep on. 0 or an errno (EPROTONOSUPPORT: none). */
static int choose_provider(struct ofi_carrier *o)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char node[INET6_ADDRSTRLEN];
    if (getsockname(o->sock, (struct sockaddr *)&ss, &sl) != 0)
        return errno;
    const struct in6_addr *a6 = &((struct sockaddr_in6 *)&ss)->sin6_addr;
    if (ss.ss_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, node, sizeof node);
    else if (ss.ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(a6))
        inet_ntop(AF_INET, &a6->s6_addr[12], node, sizeof node);   /* as the other end has it */
    else if (ss.ss_family == AF_INET6)
        inet_ntop(AF_INET6, a6, node, sizeof node);
    else
        return EAFNOSUPPORT;   /* the network carrier is set up over a TCP connection */
    struct fi_info *list = NULL;
    int rc = getinfo(node, &list);
    if (rc)
        return rc == -FI_ENODATA ? EPROTONOSUPPORT : rc == -FI_ENOMEM ? ENOMEM : EIO;
    rc = -FI_ENODATA;
    for (struct fi_info *fi = list; fi && rc; fi = fi->next) {
        /* a provider whose name does not fit our hello could not be told to the other end */
        if (strlen(fi->fabric_attr->prov_name) >= sizeof o->mine.provider)
            continue;
        rc = open_provider(o, fi);
        if (!rc && !(o->info = fi_dupinfo(fi)))
            rc = -FI_ENOMEM;
    }
    fi_freeinfo(list);
    return rc ? (rc == -FI_ENOMEM ? ENOMEM : EPROTONOSUPPORT) : 0;
}

/* Our hello, on the fresh connection (it fits in any socket buffer). 0 or an errno. */
static int send_hello(struct ofi_carrier *o)
{
    struct ofi_hello *h = &o->mine;
    memcpy(h->magic, MAGIC, sizeof h->magic);
    snprintf(h->provider, sizeof h->provider, "%s", o->info->fabric_attr->prov_name);
    h->listener = htonl(o->listener ? 1 : 0);
    if (o->listener) {
        size_t alen = sizeof h->addr;
        if (fi_getname(&o->pep->fid, h->addr, &alen) != 0 || alen == 0 || alen > ADDR_MAX)
            return EPROTONOSUPPORT;
        h->addr_format = htonl(o->info->addr_format);
        h->addr_len = htonl((uint32_t)alen);
        if (getrandom(h->token, sizeof h->token, 0) != (ssize_t)sizeof h->token)
            return EIO;
    }
    ssize_t n;
    do
        n = send(o->sock, h, sizeof *h, MSG_NOSIGNAL | MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof *h ? 0 : n < 0 ? errno : EIO;
}

void an2_carrier_ofi_warm_up(void)
{
    struct fi_info *list = NULL;
    if (getinfo(NULL, &list) == 0)
        fi_freeinfo(list);
}

struct an2_carrier *an2_carrier_ofi(int fd, bool accepted)
{
    struct ofi_carrier *o = calloc(1, sizeof *o);
    if (!o) {
        close(fd);
        errno = ENOMEM;
        return NULL;
    }
    o->sock = fd;
    o->listener = accepted;
    o->c.fd = epoll_create1(EPOLL_CLOEXEC);
    o->mem = aligned_alloc(4096, (size_t)(TX_MSGS + RX_MSGS) * MSG_BYTES);
    struct epoll_event ev = {.events = EPOLLIN};
    int e = o->c.fd < 0 || !o->mem ? ENOMEM
            : epoll_ctl(o->c.fd, EPOLL_CTL_ADD, fd, &ev) != 0 ? errno
                                                            : choose_provider(o);
    if (!e)
        e = send_hello(o);
    if (e) {
        o->c.ops = &ofi_ops;
        ofi_close(&o->c);
        errno = e;
        return NULL;
    }
    for (uint32_t i = 0; i < TX_MSGS; i++)
        o->tx_free[o->ntx_free++] = i;
    o->c.ops = &ofi_ops;
    o->c.polled = true;
    o->c.write_events = EPOLLIN;
    char where[48];
    an2_carrier_peer_text(fd, where, sizeof where);
    snprintf(o->c.peer, sizeof o->c.peer, "%s over %s", where, o->info->fabric_attr->prov_name);
    return &o->c;
}
