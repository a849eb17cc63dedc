/* Encoders and decoders of message data (codec.c): XDR, native and in place. */
#ifndef LPVM_CODEC_H
#define LPVM_CODEC_H

struct msg;

/* cnt items of a PVM_* data type of <pvm3.h> at p, every std-th: 0 or a negative error. */
int lpvm_pack(struct msg *m, int type, const void *p, int cnt, int std);
int lpvm_unpack(struct msg *m, int type, void *p, int cnt, int std);
int lpvm_pack_int(struct msg *m, int v);
/* lpvm_pack without the trace encoding's annotations: its event header and end mark. */
int lpvm_pack_unannotated(struct msg *m, int type, const void *p, int cnt, int std);
int lpvm_pack_str(struct msg *m, const char *s);
/* count, then count strings (NULL packs as "") */
int lpvm_pack_strs(struct msg *m, char **s, int count);
int lpvm_unpack_int(struct msg *m, int *v);
int lpvm_unpack_str(struct msg *m, char *s);               /* into the caller's buffer */
int lpvm_unpack_str_alloc(struct msg *m, char **s);       /* malloc'd; the caller frees */

#endif
