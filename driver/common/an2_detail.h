/* an2_detail.h — the calling thread's explanation of its last refusal, which the public
 * an2_error_detail() returns; set by whatever refused (an2d's reply, a directory check). */
#ifndef AN2_DETAIL_H
#define AN2_DETAIL_H

/* Replaces the thread's refusal text (cut to fit). */
void an2_set_detail(const char *text);

#endif
