/* The PVM 3.3 database calls pvm_insert, pvm_lookup, pvm_delete, on the pvmd's message boxes
 * as stock 3.4 keeps them: an entry is a persistent multi-instance mailbox entry holding one
 * int. */
#include <pvm3.h>
#include <pvmproto.h>

#include "codec.h"
#include "errors.h"
#include "join.h"
#include "mbox.h"
#include "msg.h"

int pvm_insert(char *name, int req, int data)
{
	int cc = !name || !*name || req < -1 ? PvmBadParam : lpvm_attach();
	struct msg *entry = cc ? NULL : msg_new(ENC_XDR);
	if (!cc && !entry)
		cc = PvmNoMem;
	if (!cc)
		cc = lpvm_pack_int(entry, data);
	if (!cc)
		cc = db_call(TMDB_PUT, name, req, PvmMboxDefault | PvmMboxMultiInstance
		             | PvmMboxPersistent, entry, NULL);
	msg_free(entry);
	if (cc == PvmDupEntry)
		pvm_errno = cc;   /* an expected answer: no automatic report, as stock */
	else if (cc < 0)
		lpvm_error("pvm_insert", cc);
	return cc;
}

int pvm_lookup(char *name, int req, int *datap)
{
	int cc = !name || !*name || req < -1 ? PvmBadParam : 0;
	struct msg *rep = NULL;
	if (!cc)   /* -1: the first entry there is */
		cc = db_call(TMDB_GET, name, req < 0 ? 0 : req,
		             req < 0 ? PvmMboxDefault | PvmMboxFirstAvail : PvmMboxDefault, NULL, &rep);
	if (cc >= 0) {   /* the receive buffer is left alone, unlike pvm_recvinfo */
		int err = 0, data = 0;
		struct msg *entry = unpack_message(rep, &err);
		if (entry && lpvm_unpack_int(entry, &data))
			err = PvmNoData;
		msg_free(entry);
		if (err)
			cc = err;
		else if (datap)
			*datap = data;
	}
	msg_free(rep);
	if (cc == PvmNoEntry)
		pvm_errno = cc;
	else if (cc < 0)
		lpvm_error("pvm_lookup", cc);
	return cc;
}

int pvm_delete(char *name, int req)
{
	int cc = !name || !*name || req < 0 ? PvmBadParam : lpvm_attach();
	if (!cc)
		cc = db_call(TMDB_REMOVE, name, req, PvmMboxDefault, NULL, NULL);
	if (cc == PvmNoEntry)
		pvm_errno = cc;
	else if (cc < 0)
		lpvm_error("pvm_delete", cc);
	return cc;
}
