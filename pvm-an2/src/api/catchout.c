/* pvm_catchout: the output of the tasks we spawn comes to us (TC_OUTPUT messages from their
 * pvmds) and is printed line by line, prefixed with the task id as stock does. */
#include <stdio.h>   /* before <pvm3.h>: it declares pvm_catchout only when FILE is known */
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include <pvmproto.h>

#include "catchout.h"
#include "codec.h"
#include "errors.h"
#include "join.h"
#include "lib_state.h"
#include "mhf.h"
#include "msg.h"
#include "rxqueue.h"

/* TC_OUTPUT { int tid, int n, byte text[n] if n > 0 }: n > 0 is text, else TO_EOF (the
 * task's output ended), TO_SPAWN (the spawn that made it finished), TO_NEW (it started),
 * from <pvmproto.h>. */

#define GOT_SPAWN 1
#define GOT_EOF   2

struct child_out {
	struct child_out *next;
	int tid;
	int flags;
	char *line;          /* partial line not yet printed */
	size_t len, cap;
};

static struct child_out *children;
static FILE *out_file;
static int installed;    /* our two handlers are in the table */

static struct child_out **find(int tid)
{
	struct child_out **pp = &children;
	while (*pp && (*pp)->tid != tid)
		pp = &(*pp)->next;
	return pp;
}

static void print_line(int tid, const char *text, size_t n)
{
	if (!out_file)
		return;
	if (lpvm.show_tids)
		fprintf(out_file, "[t%x] %.*s\n", (unsigned)tid, (int)n, text);
	else
		fprintf(out_file, "%.*s\n", (int)n, text);
}

static void announce(int tid, const char *what)
{
	if (out_file && lpvm.show_tids)
		fprintf(out_file, "[t%x] %s\n", (unsigned)tid, what);
}

static void drop(struct child_out **pp)
{
	struct child_out *c = *pp;
	*pp = c->next;
	free(c->line);
	free(c);
}

static struct child_out *begin(int tid)
{
	struct child_out **pp = find(tid);
	if (*pp)
		return *pp;
	struct child_out *c = calloc(1, sizeof *c);
	if (!c) {
		lpvm_log("out of memory: output of t%x not collected", (unsigned)tid);
		return NULL;
	}
	c->tid = tid;
	*pp = c;
	announce(tid, "BEGIN");
	return c;
}

/* Whole lines go out at once; the rest waits for its newline or the task's end. */
static void text(struct child_out *c, struct msg *m, int n)
{
	if (c->len + (size_t)n > c->cap) {
		size_t cap = c->len + (size_t)n + 64;
		char *l = realloc(c->line, cap);
		if (!l) {
			lpvm_log("out of memory: output of t%x lost", (unsigned)c->tid);
			return;
		}
		c->line = l;
		c->cap = cap;
	}
	if (lpvm_unpack(m, PVM_BYTE, c->line + c->len, n, 1)) {
		lpvm_log("malformed output message for t%x ignored", (unsigned)c->tid);
		return;
	}
	c->len += (size_t)n;
	size_t start = 0;
	for (size_t i = 0; i < c->len; i++)
		if (c->line[i] == '\n') {
			print_line(c->tid, c->line + start, i - start);
			start = i + 1;
		}
	memmove(c->line, c->line + start, c->len - start);
	c->len -= start;
}

static void ended(int tid, int flag)
{
	struct child_out **pp = find(tid);
	if (!*pp) {
		lpvm_log("pvmclaimo() bogus message, no task t%x", (unsigned)tid);
		return;
	}
	struct child_out *c = *pp;
	if (flag == GOT_EOF && c->len) {
		print_line(tid, c->line, c->len);
		c->len = 0;
	}
	c->flags |= flag;
	if (c->flags == (GOT_SPAWN | GOT_EOF)) {
		announce(tid, "EOF");
		drop(pp);
	}
}

static void on_output(struct msg *m)
{
	int tid, n;
	if (lpvm_unpack_int(m, &tid) || lpvm_unpack_int(m, &n)) {
		lpvm_log("malformed output message from t%x ignored", (unsigned)m->src);
		return;
	}
	if (n > 0) {
		struct child_out **pp = find(tid);
		if (*pp)
			text(*pp, m, n);
		else
			lpvm_log("pvmclaimo() bogus message, no task t%x", (unsigned)tid);
	} else if (n == TO_EOF) {
		ended(tid, GOT_EOF);
	} else if (n == TO_SPAWN) {
		if (begin(tid))
			ended(tid, GOT_SPAWN);
	} else if (n == TO_NEW) {
		begin(tid);
	} else {
		lpvm_log("pvmclaimo() bogus message from task t%x", (unsigned)tid);
	}
}

static void on_flush(struct msg *m)
{
	(void)m;   /* stock's TC_OUTPUTX handler; nothing to do when one arrives */
}

int pvm_catchout(FILE *f)
{
	int cc = lpvm_attach();
	if (cc)
		return lpvm_error("pvm_catchout", cc);
	if (f) {
		if (!installed) {   /* the handlers take their ids as stock's do */
			mhf_add_internal(-1, TC_OUTPUT, SYSCTX_TC, on_output);
			mhf_add_internal(-1, TC_OUTPUTX, SYSCTX_TC, on_flush);
			installed = 1;
		}
		lpvm.out_tid = lpvm.mytid;
		lpvm.out_ctx = SYSCTX_TC;
		lpvm.out_tag = TC_OUTPUT;
		out_file = f;
	} else {
		lpvm.out_tag = lpvm.self_out_tag;
		lpvm.out_ctx = lpvm.self_out_ctx;
		lpvm.out_tid = lpvm.self_out_tid;
		out_file = NULL;
	}
	lpvm_state_changed();
	return PvmOk;
}

void catchout_at_exit(void)
{
	if (out_file && children) {   /* as stock: wait until every child's output has ended */
		if (lpvm.show_tids)
			lpvm_log("child task(s) still running.  waiting...");
		while (children && !lpvm.dead)
			if (lpvm_pump(NULL) < 0)
				break;
	}
	if (out_file) {
		fflush(out_file);
		pvm_catchout(NULL);
	}
	while (children)
		drop(&children);
	installed = 0;   /* pvm_exit removes every handler; a new catchout adds them again */
}
