/* The data Debian's console, tracer and trcsort import from libpvm3.so.3: pvmtevinfo (an
 * event's name, indexed by <pvmtev.h>'s TEV_* constants) and pvmtevdidlist (a datum's id and
 * meaning, indexed by TEV_DID_*), with Debian's names. The library's own state is not kept
 * here (core/trace.c); the programs only read these. */
#include <sys/time.h>
#include <pvmtev.h>

#include "trace_names.h"

#define EVENT(n) { .name = #n },
struct Pvmtevinfo pvmtevinfo[] = { TRC_EVENT_NAMES(EVENT) };
#undef EVENT

#define DATUM(id, meaning) { .did = #id, .desc = meaning },
struct Pvmtevdid pvmtevdidlist[] = { TRC_DATA_IDS(DATUM) };
#undef DATUM

_Static_assert(sizeof pvmtevinfo / sizeof pvmtevinfo[0] == TEV_MAX + 1,
               "one name for every event of <pvmtev.h>");
_Static_assert(sizeof pvmtevdidlist / sizeof pvmtevdidlist[0] == TEV_DID_MAX + 1,
               "one entry for every data id of <pvmtev.h>");
