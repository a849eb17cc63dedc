/* driver_state.h — the driver's state shared by its files (clients, VCs, rendezvous). */
#ifndef AN2_DRIVER_STATE_H
#define AN2_DRIVER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "an2_clock.h"
#include "an2_ctl_proto.h"
#include "driver.h"
#include "otto_hw.h"
#include "otto_ring.h"

#define AN2_LINK_ITF 0   /* the interface number shown in VC addresses */
#define AN2_LINK_VPI 0   /* every VC of the host link is on VPI 0 */
#define AN2_HOST_PORT 0  /* an2d's controller sits on switch port 0 */
#define AN2_UPLINK_PORT 1 /* the link to a switch of the fabric, if any, on port 1 */
#define AN2_FIRST_VCI 32 /* VCIs below 32 are reserved by ITU-T */
#define AN2_SILENT_NS (10 * 1000000000ull) /* a connection without an endpoint that sends
                                            * nothing for this long is dropped */

/* One local VC of an endpoint. Its cells enter the switch as vci and leave at the peer's. */
struct drv_vc {
    bool     used;
    bool     peer_gone;    /* the peer closed its end or died */
    bool     draining;     /* the peer closed its end; cells it sent still drain into this VC */
    bool     closing;      /* closed (or its task left) with transmits queued: it is taken
                            * down once they have gone out */
    uint16_t vci;
    uint32_t peer_id;
    uint32_t peer_slot;    /* valid while !peer_gone */
    uint16_t peer_vc;
    bool     remote;       /* the peer is on another host: its cells cross the uplink */
    bool     released;     /* remote: the call is gone (RELEASE, or the uplink went down) */
    bool     release_held; /* remote: the peer released; cells it sent still drain to us */
    uint16_t link_vci;     /* remote: the VC's VCI on the uplink */
};

struct drv_client {
    int      fd;           /* -1: slot free */
    int      kick_fd;      /* the task's doorbell kick (eventfd); -1 until OPEN */
    int      irq_fd;       /* the interrupt as a descriptor (eventfd); -1 until OPEN */
    bool     doomed;       /* a reply could not be sent: dropped after the current event */
    char     why[64];      /* why it is doomed, for the log */
    pid_t    pid;
    uid_t    uid;          /* its task's uid (SO_PEERCRED) */
    uint64_t last_request_ns; /* accepted, or its last request (CLOCK_MONOTONIC) */
    uint32_t endpoint_id;  /* 0 until OPEN */
    uint32_t name;         /* REGISTER's name (a PVM tid), 0 if none */
    void    *base;         /* the portion, mapped here (an2d maps every portion) */
    size_t   size;
    uint64_t buf_size;
    uint32_t max_vcs;
    uint32_t vcs_open;     /* used entries of vcs */
    uint32_t pending;      /* VC_OPEN requests waiting for the peer */
    struct drv_vc *vcs;    /* max_vcs entries */
    bool     lingering;    /* the task left (fd -1) while a VC was closing: the slot and the
                            * portion stay until every closing VC is done */
};

/* A closed VC end whose cells are still buffered in the switch: its route stays until they
 * have reached the peer's VC, which is told PEER_GONE only then. */
struct drv_drain {
    uint16_t vci;          /* the closed end's VCI: the route's input, still reserved */
    uint32_t peer_slot;
    uint16_t peer_vc;
};

/* A remote VC's release waiting for the cells sent before it to leave this host's switch:
 * outward (our end closed: the RELEASE goes once our cells are on the uplink) or inward (the
 * peer released: PEER_GONE once its cells have reached our VC). driver_remote_drain.c */
struct drv_rdrain {
    bool     outward;
    uint16_t vci;          /* outward: our closed end's local VCI, still reserved */
    uint16_t link_vci;
    uint32_t slot;         /* inward: our end */
    uint16_t vc;
    uint8_t  cause;        /* inward: the peer's RELEASE cause */
    uint64_t moved_ns;     /* when one of the cells last left */
    uint64_t cells_out;    /* the route's cells out then */
};

/* A VC closed by its owner while transmits were queued on it (drv_vc.closing). */
struct drv_closing {
    uint32_t slot;
    uint16_t vc;
};

/* A VC_OPEN of endpoint from_id (client slot) for to_id, waiting: for the peer's matching
 * request (a peer on this host: drv->pending), or for the call over the fabric (a peer on
 * another host: drv->rpending; we sent SETUP, as the lower endpoint id calls, or we wait for
 * the peer's). */
struct drv_pending {
    uint32_t slot, from_id, to_id;
    bool setup_sent;         /* remote: our SETUP went */
    uint16_t link_vci;       /* remote, setup_sent: the VCI our SETUP took on the uplink */
};

/* A SETUP from another host for a local endpoint that has not asked for that VC (yet). */
struct drv_held {
    uint32_t from_id, to_id;
    uint16_t link_vci;
    uint64_t deadline_ns;
};

/* A LOOKUP sent over the fabric for a task, waiting for FOUND. */
struct drv_lookup {
    uint32_t slot, endpoint_id, name, ref;
    uint64_t deadline_ns;
};

/* A LOOKUP from another host for a name no endpoint here has, remembered for as long as its
 * asker waits: an endpoint that registers the name meanwhile (a task just spawned there)
 * answers it at once instead of the asker timing out. */
#define DRV_HEARD_LOOKUPS 32
struct drv_heard_lookup {
    uint64_t until_ns;            /* 0: free */
    uint32_t name, call_ref, calling_host;
};

struct an2_driver {
    struct an2_driver_limits limits;
    struct otto *otto;
    struct an2_switch *sw;
    int epoll_fd;
    double cells_per_second;
    uint64_t start_ns;
    bool stop_requested;
    uint32_t next_endpoint_id;
    struct drv_client *clients;   /* limits.max_clients slots */
    struct drv_pending *pending;  /* npending used of cap_pending */
    size_t npending, cap_pending;
    struct drv_drain *drains;     /* ndrains used of cap_drains */
    size_t ndrains, cap_drains;
    uint32_t nroutes;
    struct drv_closing *closing;  /* nclosing used of cap_closing */
    size_t nclosing, cap_closing;
    uint8_t vci_used[65536 / 8];
    uint32_t vci_cursor;
    /* the fabric beyond this host (driver_remote.c); uplink NULL: this host alone */
    struct an2_link *uplink;
    uint32_t host_addr;           /* ours on the fabric; 0 alone */
    struct drv_pending *rpending;
    size_t nrpending, cap_rpending;
    struct drv_held *held;
    size_t nheld, cap_held;
    struct drv_lookup *lookups;
    size_t nlookups, cap_lookups;
    uint32_t lookup_ref;
    struct drv_heard_lookup heard[DRV_HEARD_LOOKUPS]; /* LOOKUPs for names not (yet) here */
    unsigned heard_next;
    struct drv_rdrain *rdrains;   /* nrdrains used of cap_rdrains */
    size_t nrdrains, cap_rdrains;
    uint64_t releases_held, releases_given_up;
};

/* driver_client.c: what every handler does with a client */
/* A free local endpoint number made global with our host address; 0 if none is free. */
uint32_t drv_endpoint_id_alloc(struct an2_driver *drv);
/* The connected client whose endpoint is endpoint_id; NULL if none (or endpoint_id is 0). */
struct drv_client *drv_client_by_id(struct an2_driver *drv, uint32_t endpoint_id);
/* Sends a reply (and fds, if nfds) without blocking; false if the client must be dropped. */
bool drv_send(struct drv_client *c, const void *msg, size_t len, const int *fds, int nfds);
/* A reply of op with status, every other field zero. */
void drv_reply_init(struct an2_ctl_reply *r, uint16_t op, int32_t status);
/* Marks a client to be dropped once the current event is handled (never drops at once, so
 * callers may keep using other clients' state). */
void drv_doom(struct drv_client *c, const char *why);
/* Unmaps a lingering client's portion and frees its slot (its VCs are all gone). */
void drv_release_portion(struct an2_driver *drv, uint32_t slot);

/* driver_vc.c */
void drv_vc_open(struct an2_driver *drv, uint32_t slot, uint32_t peer_id);
void drv_vc_cancel(struct an2_driver *drv, uint32_t slot, uint32_t peer_id);
void drv_vc_close(struct an2_driver *drv, uint32_t slot, uint32_t vc);
/* A departing endpoint: its pending requests go, and its VCs (peers told, routes freed); with
 * keep_closing, VCs it closed while their transmits were queued stay until these have gone
 * out (like a socket's data after close). True if such a VC remains. */
bool drv_vc_release_all(struct an2_driver *drv, uint32_t slot, bool keep_closing);

/* driver_vc.c: the lists of VC_OPENs waiting (drv->pending, drv->rpending) */
/* The index in list (n entries) of from_id's request for to_id; -1 if there is none. */
long drv_pending_find(const struct drv_pending *list, size_t n, uint32_t from_id,
                      uint32_t to_id);
/* Takes entry i out of list (*n entries; the last one takes its place) and out of its
 * client's count of requests. */
void drv_pending_remove(struct an2_driver *drv, struct drv_pending *list, size_t *n, size_t i);

/* driver_vc.c, for driver_remote.c */
int drv_vci_alloc(struct an2_driver *drv);
void drv_vci_free(struct an2_driver *drv, uint16_t vci);
int drv_free_vc_index(const struct drv_client *c);
void drv_reply_vc(struct drv_client *c, int status, uint32_t peer_id, uint16_t vc,
                  uint16_t vci, const char *detail);
/* Whether c may ask peer_id for one more VC: not while it already asks it (list, n: the
 * waiting VC_OPENs), nor beyond its VC limit; otherwise replied to here. */
bool drv_vc_may_ask(struct drv_client *c, const struct drv_pending *list, size_t n,
                    uint32_t peer_id);

/* driver_remote.c: VCs to endpoints on other hosts, signalled over the uplink */
bool drv_is_remote(const struct an2_driver *drv, uint32_t endpoint_id);
void drv_remote_open(struct an2_driver *drv, uint32_t slot, uint32_t peer_id);
/* true if a remote request of this endpoint to peer_id was withdrawn */
bool drv_remote_cancel(struct an2_driver *drv, uint32_t slot, uint32_t peer_id);
/* A remote VC's end goes: routes, the uplink's VC and (unless it is gone) a RELEASE, sent
 * once the cells it sent have left this host's switch. True if its local VCI stays reserved
 * until then (the caller must not free it). */
bool drv_remote_teardown(struct an2_driver *drv, const struct drv_vc *v);
/* A departing endpoint's remote requests go (SETUPs sent are released). */
void drv_remote_release_all(struct an2_driver *drv, uint32_t slot);
/* The call of a connected remote VC is gone: routes go, the task gets PEER_GONE. */
void drv_remote_vc_gone(struct an2_driver *drv, uint32_t slot, uint16_t vc, unsigned cause);
/* Sends a RELEASE for the uplink VCI and forgets the uplink's VC. */
void drv_remote_release(struct an2_driver *drv, uint16_t link_vci, uint8_t cause);

/* driver_remote_drain.c: releases that wait for the VC's buffered cells (an2_fiber.h).
 * Outward: our closed end; true if its cells are still buffered toward the uplink (the
 * RELEASE is held, the VCI stays reserved). */
bool drv_rdrain_outward(struct an2_driver *drv, uint16_t vci, uint16_t link_vci);
/* Inward: the peer's RELEASE for our end (slot, vc); true if cells it sent are still
 * buffered toward our VC (PEER_GONE is held until they have reached it). */
bool drv_rdrain_inward(struct an2_driver *drv, uint32_t slot, uint16_t vc, uint8_t cause);
/* Drains whose cells have all left end; those stalled for AN2_FIBER_DRAIN_STALL_MS end too
 * (the cells dropped, counted, logged). */
void drv_rdrains_check(struct an2_driver *drv, uint64_t now_ns);
/* Our end closes while the peer's cells drain to it on link_vci: the drain goes (no
 * PEER_GONE); the caller takes the routes down. */
void drv_rdrain_cancel_inward(struct an2_driver *drv, uint16_t link_vci);
/* The switch has forgotten the call on link_vci: a new SETUP reuses the VCI (why: logged,
 * counted as given up), or (why NULL) the peer released too, which ends only our outward
 * drain. The drain ends now, with no RELEASE from us. True if there was one. */
bool drv_rdrain_end_link_vci(struct an2_driver *drv, uint16_t link_vci, const char *why);
/* The uplink went: every drain ends at once (outward ones send nothing). */
void drv_rdrains_uplink_gone(struct an2_driver *drv);

/* a LOOKUP not answered here: asked over the fabric; false if there is no fabric */
bool drv_remote_lookup(struct an2_driver *drv, uint32_t slot, uint32_t name);
/* Endpoint c has just been named: answer the LOOKUPs for its name heard meanwhile. */
void drv_remote_name_registered(struct an2_driver *drv, const struct drv_client *c);

/* driver_users.c: a system an2d's rules between uids and its per-uid limits */
/* Whether endpoints of uids a and b may be joined by a VC. */
bool drv_uids_may_connect(const struct an2_driver *drv, uid_t a, uid_t b);
/* Whether a task of uid sees the endpoint of client c (STATS, LOOKUP). */
bool drv_uid_sees(const struct an2_driver *drv, uid_t uid, const struct drv_client *c);
/* 0 if a new connection of uid fits its limit, else -EUSERS with the reason in detail. */
int drv_user_connection_check(const struct an2_driver *drv, uid_t uid, char *detail, size_t len);
/* 0 if one more endpoint of portion_size bytes fits c's uid's limits, else -EDQUOT. */
int drv_user_open_check(const struct an2_driver *drv, const struct drv_client *c,
                        uint64_t portion_size, char *detail, size_t len);
/* 0 if one more VC end (open or asked for) fits c's uid's limit, else -EDQUOT. */
int drv_user_vc_check(const struct an2_driver *drv, const struct drv_client *c, char *detail,
                      size_t len);

/* driver_names.c: REGISTER and LOOKUP */
void drv_name_request(struct an2_driver *drv, uint32_t slot, const struct an2_ctl_req *q);

/* driver_stats.c */
void drv_stats(struct an2_driver *drv, uint32_t slot);

/* driver.c */
void drv_drop_client(struct an2_driver *drv, uint32_t slot, const char *why);

#endif
