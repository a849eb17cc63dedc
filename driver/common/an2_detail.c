/* an2_detail.c — the calling thread's refusal text, one buffer per thread. */
#include "an2_detail.h"

#include <stdio.h>

#include "an2.h"

static _Thread_local char detail[128];

void an2_set_detail(const char *text) { snprintf(detail, sizeof detail, "%s", text); }
const char *an2_error_detail(void) { return detail; }
