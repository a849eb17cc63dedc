/* Tracing (pvm_reg_tracer, trace masks) answers PvmNotImpl: we emit no trace events. The
 * calls exist so that programs linked to Debian's libpvm3 load on the drop-in (BIND_NOW).
 * The group calls and PvmSum & co. are not here: like Debian's, they live in the group
 * library. */
#include <stdio.h>   /* before <pvm3.h>: it declares pvm_catchout only when FILE is known */
#include <pvm3.h>

#include "errors.h"

#define NOT_YET(name) lpvm_error(name, PvmNotImpl)

int pvm_reg_tracer(int a, int b, int c, int d, char *e, int f, int g) { (void)a; (void)b; (void)c; (void)d; (void)e; (void)f; (void)g; return NOT_YET("pvm_reg_tracer"); }

/* Exported by Debian's library though not declared in <pvm3.h> (tracing masks). */
int pvm_gettmask(int who, char *tmask);
int pvm_gettmask(int who, char *tmask) { (void)who; (void)tmask; return NOT_YET("pvm_gettmask"); }
int pvm_settmask(int who, char *tmask);
int pvm_settmask(int who, char *tmask) { (void)who; (void)tmask; return NOT_YET("pvm_settmask"); }
