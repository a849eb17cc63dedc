/* Interop test program: the master packs every type with edge values in one encoding, the
 * echo task (linked to the same or the other library) unpacks and packs everything back,
 * the master checks what returns and prints a canonical dump for cross-library comparison.
 * Usage: xtypes <echo-program-name> <0|1|2 encoding>   (spawned copies run as the echo) */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <pvm3.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_spawn.h"

#define BIG_BYTES (3 * 1024 * 1024 + 5)
#define BIG_INTS (1024 * 1024 + 3)
#define TAG_DATA 11
#define TAG_ECHO 12

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "xtypes: FAIL " __VA_ARGS__); fputc('\n', stderr); } } while (0)

struct values {
	char bytes[7];
	short shorts[6];
	unsigned short ushorts[4];
	int ints[6];
	unsigned int uints[4];
	long longs[6];
	unsigned long ulongs[4];
	float floats[6];
	double doubles[6];
	float cplx[4];
	double dcplx[4];
	int strided[9];
	char *big;
	int *bigints;
};

static void fill(struct values *v)
{
	memcpy(v->bytes, "\0\x01\x7f\x80\xff" "ab", 7);
	short s[] = { 0, -1, 1, SHRT_MIN, SHRT_MAX, -300 };
	memcpy(v->shorts, s, sizeof s);
	unsigned short us[] = { 0, 1, USHRT_MAX, 40000 };
	memcpy(v->ushorts, us, sizeof us);
	int i[] = { 0, -1, 1, INT_MIN, INT_MAX, 123456789 };
	memcpy(v->ints, i, sizeof i);
	unsigned int ui[] = { 0, 1, UINT_MAX, 0x80000000u };
	memcpy(v->uints, ui, sizeof ui);
	long l[] = { 0, -1, 1, LONG_MIN, LONG_MAX, 0x123456789L };
	memcpy(v->longs, l, sizeof l);
	unsigned long ul[] = { 0, 1, ULONG_MAX, 0xfedcba9876543210UL };
	memcpy(v->ulongs, ul, sizeof ul);
	float f[] = { 0.0f, -0.0f, NAN, INFINITY, -INFINITY, FLT_MIN };
	memcpy(v->floats, f, sizeof f);
	double d[] = { 0.0, -0.0, NAN, INFINITY, -INFINITY, DBL_MAX };
	memcpy(v->doubles, d, sizeof d);
	float c[] = { 1.5f, -2.5f, FLT_MAX, -FLT_MIN };
	memcpy(v->cplx, c, sizeof c);
	double z[] = { 1e300, -1e-300, 3.25, -0.0 };
	memcpy(v->dcplx, z, sizeof z);
	for (int k = 0; k < 9; k++)
		v->strided[k] = k * 1000 - 4000;
	v->big = malloc(BIG_BYTES);
	v->bigints = malloc(sizeof(int) * BIG_INTS);
	for (int k = 0; k < BIG_BYTES; k++)
		v->big[k] = (char)(k * 131 + 7);
	for (int k = 0; k < BIG_INTS; k++)
		v->bigints[k] = k * 2654435761u;
}

/* Packs (or unpacks) the whole set; the same sequence both ways. stride=3 packs every third
 * element of strided; unpacking puts them every other element (second stride). */
static int transfer(struct values *v, int pack, int inplace)
{
	int cc = 0;
#define DO(pk, upk, ptr, n, std) cc |= pack ? pk(ptr, n, std) : upk(ptr, n, std)
	DO(pvm_pkbyte, pvm_upkbyte, v->bytes, 7, 1);
	DO(pvm_pkbyte, pvm_upkbyte, v->bytes, 0, 1);         /* empty array */
	DO(pvm_pkshort, pvm_upkshort, v->shorts, 6, 1);
	DO(pvm_pkushort, pvm_upkushort, v->ushorts, 4, 1);
	DO(pvm_pkint, pvm_upkint, v->ints, 6, 1);
	DO(pvm_pkint, pvm_upkint, v->ints, 0, 1);
	DO(pvm_pkuint, pvm_upkuint, v->uints, 4, 1);
	DO(pvm_pklong, pvm_upklong, v->longs, 6, 1);
	DO(pvm_pkulong, pvm_upkulong, v->ulongs, 4, 1);
	DO(pvm_pkfloat, pvm_upkfloat, v->floats, 6, 1);
	DO(pvm_pkdouble, pvm_upkdouble, v->doubles, 6, 1);
	DO(pvm_pkcplx, pvm_upkcplx, v->cplx, 2, 1);
	DO(pvm_pkdcplx, pvm_upkdcplx, v->dcplx, 2, 1);
	if (!inplace) {
		if (pack) {
			cc |= pvm_pkstr("");
			cc |= pvm_pkstr("hello, world");
			cc |= pvm_pkint(v->strided, 3, 3);
			cc |= pvm_pkbyte(v->bytes, 3, 2);
			cc |= pvm_pkdouble(v->doubles, 3, 2);
		} else {
			char s1[8] = "xxxxxxx", s2[32];
			cc |= pvm_upkstr(s1);
			cc |= pvm_upkstr(s2);
			CHECK(!cc && s1[0] == 0 && !strcmp(s2, "hello, world"), "strings '%s' '%s'", s1, s2);
			memset(v->strided, 0, sizeof v->strided);
			cc |= pvm_upkint(v->strided, 3, 2);
			char b[6] = { 0 };
			cc |= pvm_upkbyte(b, 3, 2);
			CHECK(b[0] == v->bytes[0] && b[2] == v->bytes[2] && b[4] == v->bytes[4], "strided bytes");
			double d[6];
			memset(d, 0, sizeof d);
			cc |= pvm_upkdouble(d, 3, 2);
			CHECK(!memcmp(&d[0], &v->doubles[0], 8) && !memcmp(&d[2], &v->doubles[2], 8)
			      && !memcmp(&d[4], &v->doubles[4], 8), "strided doubles");
		}
	}
	DO(pvm_pkbyte, pvm_upkbyte, v->big, BIG_BYTES, 1);
	DO(pvm_pkint, pvm_upkint, v->bigints, BIG_INTS, 1);
#undef DO
	return cc;
}

static void dump(const char *name, const void *p, size_t n)
{
	const unsigned char *b = p;
	printf("%s:", name);
	for (size_t i = 0; i < n; i++)
		printf("%02x", b[i]);
	printf("\n");
}

static int echo(void)
{
	int parent = pvm_parent();
	int mid = pvm_recv(parent, TAG_DATA);
	int enc;
	pvm_upkint(&enc, 1, 1);
	struct values *v = calloc(1, sizeof *v);
	v->big = malloc(BIG_BYTES);
	v->bigints = malloc(sizeof(int) * BIG_INTS);
	int cc = transfer(v, 0, enc == PvmDataInPlace);
	/* strided came back spread at stride 2; put it back dense for the return trip */
	if (enc != PvmDataInPlace) {
		int tmp[9] = { v->strided[0], 0, 0, v->strided[2], 0, 0, v->strided[4], 0, 0 };
		memcpy(v->strided, tmp, sizeof tmp);
	}
	(void)mid;
	pvm_initsend(enc);
	pvm_pkint(&enc, 1, 1);
	if (enc == PvmDataInPlace)
		cc |= pvm_pkstr("x") != PvmNotImpl;   /* stock refuses strings in place */
	cc |= transfer(v, 1, enc == PvmDataInPlace);
	cc |= failures;
	pvm_pkint(&cc, 1, 1);
	pvm_send(parent, TAG_ECHO);
	free(v->big);
	free(v->bigints);
	free(v);
	pvm_exit();
	return 0;
}

int main(int argc, char **argv)
{
	pvm_setopt(PvmRoute, PvmRouteDirect);   /* the other library must refuse or accept cleanly */
#ifdef XTYPES_AN2
	pvm_setopt(PvmDebugMask, 1);            /* libpvm3-an2 then logs each refused direct route */
#endif
	if (pvm_parent() > 0)
		return echo();
	if (argc < 3) {
		fprintf(stderr, "usage: xtypes echo-program encoding\n");
		return 2;
	}
	int enc = atoi(argv[2]);
	int tid;
	if (pvm_mytid() < 0 || test_spawn(argv[1], NULL, 1, &tid) != 1) {
		fprintf(stderr, "xtypes: can't spawn %s\n", argv[1]);
		pvm_exit();
		return 1;
	}
	struct values in, out;
	fill(&in);
	out = in;
	out.big = malloc(BIG_BYTES);
	out.bigints = malloc(sizeof(int) * BIG_INTS);
	pvm_initsend(enc);
	pvm_pkint(&enc, 1, 1);
	CHECK(transfer(&in, 1, enc == PvmDataInPlace) == 0, "pack");
	CHECK(pvm_send(tid, TAG_DATA) == 0, "send");
	CHECK(pvm_recv(tid, TAG_ECHO) > 0, "recv");
	int e2, echo_cc;
	pvm_upkint(&e2, 1, 1);
	memset(&out, 0, offsetof(struct values, big));
	CHECK(transfer(&out, 0, enc == PvmDataInPlace) == 0, "unpack");
	pvm_upkint(&echo_cc, 1, 1);
	CHECK(echo_cc == 0 && e2 == enc, "echo side reported %d", echo_cc);
	int extra;
	CHECK(pvm_upkint(&extra, 1, 1) == PvmNoData, "unpacking past the end must give PvmNoData");
	/* what must survive exactly in every encoding */
	CHECK(!memcmp(in.bytes, out.bytes, 7), "bytes");
	CHECK(!memcmp(in.shorts, out.shorts, sizeof in.shorts), "shorts");
	CHECK(!memcmp(in.ushorts, out.ushorts, sizeof in.ushorts), "ushorts");
	CHECK(!memcmp(in.ints, out.ints, sizeof in.ints), "ints");
	CHECK(!memcmp(in.uints, out.uints, sizeof in.uints), "uints");
	CHECK(!memcmp(in.floats, out.floats, sizeof in.floats), "floats (bit-exact, NaN, inf)");
	CHECK(!memcmp(in.doubles, out.doubles, sizeof in.doubles), "doubles (bit-exact)");
	CHECK(!memcmp(in.cplx, out.cplx, sizeof in.cplx), "cplx");
	CHECK(!memcmp(in.dcplx, out.dcplx, sizeof in.dcplx), "dcplx");
	CHECK(!memcmp(in.big, out.big, BIG_BYTES), "3 MB of bytes");
	CHECK(!memcmp(in.bigints, out.bigints, sizeof(int) * BIG_INTS), "4 MB of ints");
	if (enc != PvmDataDefault) {   /* XDR carries 32 bits of a long, as stock does */
		CHECK(!memcmp(in.longs, out.longs, sizeof in.longs), "longs");
		CHECK(!memcmp(in.ulongs, out.ulongs, sizeof in.ulongs), "ulongs");
	}
	if (enc != PvmDataInPlace)
		CHECK(out.strided[0] == in.strided[0] && out.strided[2] == in.strided[3]
		      && out.strided[4] == in.strided[6], "strided ints");
	/* canonical dump: the test compares it between library pairings */
	dump("longs", out.longs, sizeof out.longs);
	dump("ulongs", out.ulongs, sizeof out.ulongs);
	dump("shorts", out.shorts, sizeof out.shorts);
	dump("doubles", out.doubles, sizeof out.doubles);
	dump("strided", out.strided, sizeof out.strided);
	printf("failures %d\n", failures);
	free(in.big);
	free(in.bigints);
	free(out.big);
	free(out.bigints);
	pvm_exit();
	return failures ? 1 : 0;
}
