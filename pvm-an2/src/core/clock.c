/* The one clock the library measures waits and timeouts with (clock.h). */
#include "clock.h"

#include <time.h>

long long lpvm_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}
