/* Every pvmf* entry point of the binding: the symbols Debian's libfpvm3 provides (see
 * nm /usr/lib/x86_64-linux-gnu/libfpvm3.a), with Fortran's by-reference arguments. */
#ifndef FPVM_PROTOS_H
#define FPVM_PROTOS_H

/* fpvm_control.c: tasks, hosts, options, contexts */
void pvmfmytid_(int *tid);
void pvmfparent_(int *tid);
void pvmfexit_(int *info);
void pvmfkill_(int *tid, int *info);
void pvmfsendsig_(int *tid, int *signum, int *info);
void pvmfpstat_(int *tid, int *status);
void pvmftidtohost_(int *tid, int *dtid);
void pvmfspawn_(char *task, int *flag, char *where, int *ntask, int *tids, int *numt,
                flen_t task_len, flen_t where_len);
void pvmfsiblings_(int *ntids, int *index, int *sibling);
void pvmftasks_(int *where, int *ntask, int *tid, int *ptid, int *dtid, int *flag, char *aout,
                int *info, flen_t aout_len);
void pvmfconfig_(int *nhost, int *narch, int *dtid, char *name, char *arch, int *speed,
                 int *info, flen_t name_len, flen_t arch_len);
void pvmfaddhost_(char *host, int *info, flen_t host_len);
void pvmfdelhost_(char *host, int *info, flen_t host_len);
void pvmfmstat_(char *host, int *mstat, flen_t host_len);
void pvmfhalt_(int *info);
void pvmfarchcode_(char *arch, int *code, flen_t arch_len);
void pvmfcatchout_(int *onoff, int *info);
void pvmfhostsync_(int *host, int *clksec, int *clkusec, int *deltasec, int *deltausec, int *info);
void pvmfstartpvmd_(char *args, int *block, int *info, flen_t args_len);
void pvmfnotify_(int *what, int *msgtag, int *cnt, int *tids, int *info);
void pvmfsetopt_(int *what, int *val, int *oldval);
void pvmfgetopt_(int *what, int *val);
void pvmfperror_(char *msg, int *info, flen_t msg_len);
void pvmfsleep_(int *secs);
void pvmfnewcontext_(int *ctx);
void pvmfsetcontext_(int *ctx, int *oldctx);
void pvmfgetcontext_(int *ctx);
void pvmffreecontext_(int *ctx, int *info);

/* fpvm_messages.c: buffers, packing, sending, receiving, handlers */
void pvmfinitsend_(int *encoding, int *bufid);
void pvmfmkbuf_(int *encoding, int *bufid);
void pvmffreebuf_(int *bufid, int *info);
void pvmfgetsbuf_(int *bufid);
void pvmfgetrbuf_(int *bufid);
void pvmfsetsbuf_(int *bufid, int *oldbuf);
void pvmfsetrbuf_(int *bufid, int *oldbuf);
void pvmfbufinfo_(int *bufid, int *bytes, int *msgtag, int *tid, int *info);
void pvmfpack_(int *what, void *xp, int *nitem, int *stride, int *info);
void pvmfunpack_(int *what, void *xp, int *nitem, int *stride, int *info);
void pvmfsend_(int *tid, int *msgtag, int *info);
void pvmfmcast_(int *ntask, int *tids, int *msgtag, int *info);
void pvmfrecv_(int *tid, int *msgtag, int *bufid);
void pvmfnrecv_(int *tid, int *msgtag, int *bufid);
void pvmfprobe_(int *tid, int *msgtag, int *bufid);
void pvmftrecv_(int *tid, int *msgtag, int *sec, int *usec, int *bufid);
void pvmfpsend_(int *tid, int *msgtag, void *buf, int *len, int *datatype, int *info);
void pvmfprecv_(int *tid, int *msgtag, void *buf, int *len, int *datatype, int *atid, int *atag,
                int *alen, int *info);
void pvmfaddmhf_(int *src, int *tag, int *ctx, int (*handler)(int), int *mhid);
void pvmfdelmhf_(int *mhid, int *info);

/* fpvm_mbox.c: message boxes */
void pvmfputinfo_(char *name, int *bufid, int *flags, int *index, flen_t name_len);
void pvmfrecvinfo_(char *name, int *index, int *flags, int *bufid, flen_t name_len);
void pvmfdelinfo_(char *name, int *index, int *flags, int *info, flen_t name_len);
void pvmfgetmboxinfo_(char *pattern, char *name, int *nclasses, int *nentries, int *indices,
                      int *owners, int *flags, int *info, flen_t pattern_len, flen_t name_len);

/* fpvm_groups.c: groups and the reduce operations */
void pvmfjoingroup_(char *group, int *inum, flen_t group_len);
void pvmflvgroup_(char *group, int *info, flen_t group_len);
void pvmfgettid_(char *group, int *inum, int *tid, flen_t group_len);
void pvmfgetinst_(char *group, int *tid, int *inum, flen_t group_len);
void pvmfgsize_(char *group, int *size, flen_t group_len);
void pvmfbarrier_(char *group, int *count, int *info, flen_t group_len);
void pvmfbcast_(char *group, int *msgtag, int *info, flen_t group_len);
void pvmffreezegroup_(char *group, int *size, int *info, flen_t group_len);
void pvmfreduce_(reduce_fn *func, void *data, int *count, int *datatype, int *msgtag, char *group,
                 int *rootinst, int *info, flen_t group_len);
void pvmfscatter_(void *result, void *data, int *count, int *datatype, int *msgtag, char *group,
                  int *rootinst, int *info, flen_t group_len);
void pvmfgather_(void *result, void *data, int *count, int *datatype, int *msgtag, char *group,
                 int *rootinst, int *info, flen_t group_len);
reduce_fn pvmsum_, pvmmax_, pvmmin_, pvmproduct_;

#endif
