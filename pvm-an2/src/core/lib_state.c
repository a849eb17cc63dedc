/* The library's state (lib_state.h), with the values a task starts with. */
#include "lib_state.h"

#include <pvm3.h>

/* Data signature of this host's native format as stock computes it (x86-64, LP64, IEEE). */
#if defined(__x86_64__) && defined(__LP64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_DSIG 0x408c41
#else
#error "data signature of this architecture unknown: add it (stock pvmgetdsig())"
#endif

#define DEFAULT_FRAG_SIZE 32768

struct lib_state lpvm = {
	.mytid = -1,
	.dsig = NATIVE_DSIG,
	.route_opt = PvmAllowDirect,
	.autoerr = 1,
	.frag_size = DEFAULT_FRAG_SIZE,
	.show_tids = 1,
	.nsibs = -1,
	.next_wid = 1,
};
