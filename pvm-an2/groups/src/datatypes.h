/* Element size and typed packing for the collective calls. */
#ifndef GRP_DATATYPES_H
#define GRP_DATATYPES_H

#include <pvm3.h>

int grp_type_size(int type);               /* bytes per element, or PvmBadParam */
int grp_pack(int type, void *p, int n);    /* into the active send buffer */
int grp_unpack(int type, void *p, int n);  /* from the active receive buffer */

#endif
