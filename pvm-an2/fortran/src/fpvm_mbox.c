/* Fortran binding: message boxes. */
#include <stdlib.h>

#include "fpvm.h"

void pvmfputinfo_(char *name, int *bufid, int *flags, int *index, flen_t name_len)
{
	char *n = fpvm_cstring(name, name_len);
	*index = n ? pvm_putinfo(n, *bufid, *flags) : PvmNoMem;
	free(n);
}

void pvmfrecvinfo_(char *name, int *index, int *flags, int *bufid, flen_t name_len)
{
	char *n = fpvm_cstring(name, name_len);
	*bufid = n ? pvm_recvinfo(n, *index, *flags) : PvmNoMem;
	free(n);
}

void pvmfdelinfo_(char *name, int *index, int *flags, int *info, flen_t name_len)
{
	char *n = fpvm_cstring(name, name_len);
	*info = n ? pvm_delinfo(n, *index, *flags) : PvmNoMem;
	free(n);
}

/* One class per call, cycling through a snapshot as pvmfconfig does; nclasses = -1 on entry
 * starts a new cycle. nclasses is only read, never written (as Debian's binding: a program
 * may pass the constant -1); name, nentries, indices, owners and flags receive the class.
 * No class matching: info = PvmNotFound. */
static struct {
	int count, next;
	struct pvmmboxinfo *classes;
} mbox_cycle;

void pvmfgetmboxinfo_(char *pattern, char *name, int *nclasses, int *nentries, int *indices,
                      int *owners, int *flags, int *info, flen_t pattern_len, flen_t name_len)
{
	if (*nclasses == -1)
		mbox_cycle.count = 0;
	if (mbox_cycle.count == 0) {
		char *p = fpvm_cstring(pattern, pattern_len);
		int cc = p ? pvm_getmboxinfo(p, &mbox_cycle.count, &mbox_cycle.classes) : PvmNoMem;
		free(p);
		if (cc < 0 || mbox_cycle.count <= 0) {
			*info = cc < 0 ? cc : PvmNotFound;
			mbox_cycle.count = 0;
			return;
		}
		mbox_cycle.next = 0;
	}
	struct pvmmboxinfo *c = &mbox_cycle.classes[mbox_cycle.next++];
	fpvm_fstring(name, name_len, c->mi_name);
	*nentries = c->mi_nentries;
	for (int i = 0; i < c->mi_nentries; i++) {
		indices[i] = c->mi_indices[i];
		owners[i] = c->mi_owners[i];
		flags[i] = c->mi_flags[i];
	}
	*info = 0;
	if (mbox_cycle.next >= mbox_cycle.count)
		mbox_cycle.count = 0;
}
