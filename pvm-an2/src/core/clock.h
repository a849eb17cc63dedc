/* The one clock the library measures waits and timeouts with (CLOCK_MONOTONIC). */
#ifndef LPVM_CLOCK_H
#define LPVM_CLOCK_H

long long lpvm_now_us(void);   /* microseconds */

#endif
