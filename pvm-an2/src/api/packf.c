/* pvm_packf / pvm_unpackf: the printf-like format language over the pack calls.
 * %[+] encoding first; then %[count|*][.stride|.*][h|l|u]{c,d,f,x,s}. */

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include <stdarg.h>

#include "codec.h"
#include "errors.h"
#include "lib_state.h"
#include "msg.h"
#include "trace.h"

struct conv {
	int cnt, std, isv, vh, vl;
	char kind;
};

/* Parses one conversion after '%'; returns the position after it. */
static const char *parse(const char *p, struct conv *c, va_list *ap)
{
	*c = (struct conv){ .cnt = 1, .std = 1, .isv = 1 };
	if (*p == '*') {
		c->cnt = va_arg(*ap, int);
		c->isv = 0;
		p++;
	} else if (isdigit((unsigned char)*p)) {
		c->cnt = (int)strtol(p, (char **)&p, 10);
		c->isv = 0;
	}
	if (*p == '.') {
		c->isv = 0;
		p++;
		if (*p == '*') {
			c->std = va_arg(*ap, int);
			p++;
		} else if (isdigit((unsigned char)*p)) {
			c->std = (int)strtol(p, (char **)&p, 10);
		}
	}
	for (;; p++) {
		if (*p == 'h')
			c->vh = 1;
		else if (*p == 'l')
			c->vl = 1;
		else if (*p != 'u')
			break;
	}
	c->kind = *p ? *p++ : 0;
	return p;
}

static int vpackf(const char *fmt, va_list ap0)
{
	va_list ap;
	va_copy(ap, ap0);
	const char *p = fmt;
	int cc = 0;
	if (p[0] == '%' && p[1] == '+') {
		int enc = va_arg(ap, int);
		if ((cc = pvm_initsend(enc)) < 0)
			goto done;
		cc = 0;
		p += 2;
	}
	struct msg *m = lpvm.sbuf;
	if (!m) {
		cc = PvmNoBuf;
		goto done;
	}
	while (*p && !cc) {
		if (*p++ != '%')
			continue;
		struct conv c;
		p = parse(p, &c, &ap);
		char tc;
		short th;
		int tn;
		long tl;
		float tf;
		double td;
		switch (c.kind) {
		case 'c':
			if (c.isv) {
				tc = (char)va_arg(ap, int);
				cc = lpvm_pack(m, PVM_BYTE, &tc, 1, 1);
			} else {
				cc = lpvm_pack(m, PVM_BYTE, va_arg(ap, char *), c.cnt, c.std);
			}
			break;
		case 'd':
			if (c.vl) {
				tl = c.isv ? va_arg(ap, long) : 0;
				cc = lpvm_pack(m, PVM_LONG, c.isv ? &tl : va_arg(ap, long *), c.cnt, c.std);
			} else if (c.vh) {
				th = c.isv ? (short)va_arg(ap, int) : 0;
				cc = lpvm_pack(m, PVM_SHORT, c.isv ? &th : va_arg(ap, short *), c.cnt, c.std);
			} else {
				tn = c.isv ? va_arg(ap, int) : 0;
				cc = lpvm_pack(m, PVM_INT, c.isv ? &tn : va_arg(ap, int *), c.cnt, c.std);
			}
			break;
		case 'f':
			if (c.vl) {
				td = c.isv ? va_arg(ap, double) : 0;
				cc = lpvm_pack(m, PVM_DOUBLE, c.isv ? &td : va_arg(ap, double *), c.cnt, c.std);
			} else {
				tf = c.isv ? (float)va_arg(ap, double) : 0;
				cc = lpvm_pack(m, PVM_FLOAT, c.isv ? &tf : va_arg(ap, float *), c.cnt, c.std);
			}
			break;
		case 'x':
			cc = c.vl ? lpvm_pack(m, PVM_DCPLX, va_arg(ap, double *), c.cnt, c.std)
			          : lpvm_pack(m, PVM_CPLX, va_arg(ap, float *), c.cnt, c.std);
			break;
		case 's':
			cc = lpvm_pack_str(m, va_arg(ap, char *));
			break;
		default:
			cc = PvmBadParam;
			break;
		}
	}
done:
	va_end(ap);
	return cc < 0 ? lpvm_error("pvm_packf", cc) : 0;
}

static int vunpackf(const char *fmt, va_list ap0)
{
	va_list ap;
	va_copy(ap, ap0);
	int cc = 0;
	struct msg *m = lpvm.rbuf;
	if (!m)
		cc = PvmNoBuf;
	for (const char *p = fmt; p && *p && !cc;) {
		if (*p++ != '%')
			continue;
		struct conv c;
		p = parse(p, &c, &ap);
		int type;
		switch (c.kind) {
		case 'c': type = PVM_BYTE; break;
		case 'd': type = c.vl ? PVM_LONG : c.vh ? PVM_SHORT : PVM_INT; break;
		case 'f': type = c.vl ? PVM_DOUBLE : PVM_FLOAT; break;
		case 'x': type = c.vl ? PVM_DCPLX : PVM_CPLX; break;
		case 's': type = PVM_STR; break;
		default: type = -1; break;
		}
		if (type == PVM_STR) {
			char *s = va_arg(ap, char *);
			int len;
			cc = lpvm_unpack_int(m, &len);
			if (!cc)
				cc = len < 0 ? PvmNoData : lpvm_unpack(m, PVM_BYTE, s, len, 1);
		} else if (type < 0) {
			cc = PvmBadParam;
		} else {
			cc = lpvm_unpack(m, type, va_arg(ap, void *), c.cnt, c.std);
		}
	}
	va_end(ap);
	return cc < 0 ? lpvm_error("pvm_unpackf", cc) : 0;
}

int pvm_vpackf(const char *fmt, va_list ap);
int pvm_vpackf(const char *fmt, va_list ap)
{
	if (!trc_armed())
		return fmt ? vpackf(fmt, ap) : lpvm_error("pvm_packf", PvmBadParam);
	int top = trc_claim();   /* as stock: the format in, the answer out */
	TRC_EVENT(top, TEV_PACKF, TEV_EVENT_ENTRY)
		trc_str(TEV_DID_PF, fmt);
	int cc = fmt ? vpackf(fmt, ap) : lpvm_error("pvm_packf", PvmBadParam);
	TRC_EVENT(top, TEV_PACKF, TEV_EVENT_EXIT)
		trc_int(TEV_DID_CC, cc);
	if (top)
		trc_release();
	return cc;
}

int pvm_vunpackf(const char *fmt, va_list ap);
int pvm_vunpackf(const char *fmt, va_list ap)
{
	return fmt ? vunpackf(fmt, ap) : lpvm_error("pvm_unpackf", PvmBadParam);
}

int pvm_packf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int cc = pvm_vpackf(fmt, ap);
	va_end(ap);
	return cc;
}

int pvm_unpackf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int cc = pvm_vunpackf(fmt, ap);
	va_end(ap);
	return cc;
}
