/* Drop-in only: the internal names Debian's pvmd imports from libpvm3.so.3. They exist so
 * that a pvmd wrongly started on the drop-in gets past the dynamic linker and meets the
 * refusal in dropin_guard.c instead of a cryptic "undefined symbol"; calling one refuses too. */
#include <unistd.h>

void lpvm_refuse_pvmd_call(void);
void lpvm_refuse_pvmd_call(void)
{
	static const char text[] =
		"libpvm3-an2: a pvmd internal was called on the drop-in library; refusing\n";
	(void)!write(2, text, sizeof text - 1);
	_exit(127);
}

#define REFUSE(name) void name(void); void name(void) { lpvm_refuse_pvmd_call(); }
REFUSE(da_new) REFUSE(da_ref) REFUSE(da_unref) REFUSE(errnamecode) REFUSE(fr_new)
REFUSE(i_dump) REFUSE(pmsg_dump) REFUSE(pmsg_new) REFUSE(pmsg_pack) REFUSE(pmsg_packbody)
REFUSE(pmsg_setenc) REFUSE(pmsg_unpack) REFUSE(pmsg_unref) REFUSE(pvmgetdsig)
REFUSE(wait_delete) REFUSE(wait_dumpall) REFUSE(wait_find) REFUSE(wait_get) REFUSE(wait_init)
REFUSE(wait_new)
