/* NetPIPE-style message sizes: powers of two with optional perturbations around each. */
#include "bench_sizes.h"

#include <errno.h>
#include <stdlib.h>

static int compare_sizes(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

static size_t sort_unique(size_t *sizes, size_t count)
{
    qsort(sizes, count, sizeof sizes[0], compare_sizes);
    size_t kept = 0;
    for (size_t i = 0; i < count; i++)
        if (kept == 0 || sizes[kept - 1] != sizes[i])
            sizes[kept++] = sizes[i];
    return kept;
}

size_t bench_sizes_build(size_t min, size_t max, size_t perturbation, size_t sizes[BENCH_SIZES_MAX])
{
    size_t count = 0;
    if (min < 1 || max < min)
        return 0;
    sizes[count++] = min;
    sizes[count++] = max;
    for (size_t p = 1; p <= max && count + 3 <= BENCH_SIZES_MAX; p *= 2) {
        size_t candidates[3] = { p > perturbation ? p - perturbation : 0, p, p + perturbation };
        for (int i = 0; i < 3; i++)
            if (candidates[i] >= min && candidates[i] <= max)
                sizes[count++] = candidates[i];
        if (p > max / 2)
            break;
    }
    return sort_unique(sizes, count);
}

size_t bench_sizes_parse(const char *list, size_t sizes[BENCH_SIZES_MAX])
{
    size_t count = 0;
    const char *cursor = list;
    while (*cursor) {
        char *end;
        errno = 0;
        unsigned long long value = strtoull(cursor, &end, 10);
        if (end == cursor || errno || value == 0 || *cursor == '-' || count == BENCH_SIZES_MAX)
            return 0;
        sizes[count++] = (size_t)value;
        if (*end == ',')
            end++;
        else if (*end != '\0')
            return 0;
        cursor = end;
    }
    return sort_unique(sizes, count);
}
