/* fault_inject.c — seeded fault injection: flipped payload bits and lost cells. */
#include "fault_inject.h"

#include <math.h>

static double uniform01(struct fault_inject *f)
{
    /* xorshift64*: enough for spreading faults, repeatable from the seed */
    f->rng ^= f->rng >> 12;
    f->rng ^= f->rng << 25;
    f->rng ^= f->rng >> 27;
    uint64_t x = f->rng * 0x2545F4914F6CDD1Dull;
    return ((double)(x >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

/* Trials up to and excluding the next success of probability p; UINT64_MAX when p <= 0. */
static uint64_t geometric_gap(struct fault_inject *f, double p)
{
    if (p <= 0)
        return UINT64_MAX;
    if (p >= 1)
        return 0;
    double g = floor(log(uniform01(f)) / log1p(-p));
    return g >= 1.8e19 ? UINT64_MAX : (uint64_t)g;
}

void fault_inject_init(struct fault_inject *f, double bit_error_rate, double cell_loss_rate,
                       uint64_t seed)
{
    f->bit_error_rate = bit_error_rate;
    f->cell_loss_rate = cell_loss_rate;
    f->rng = seed ? seed : 0x853c49e6748fea9bull;
    f->bits_flipped = f->cells_lost = 0;
    f->bits_to_next_error = geometric_gap(f, bit_error_rate);
    f->cells_to_next_loss = geometric_gap(f, cell_loss_rate);
}

uint64_t fault_inject_clean_cells(const struct fault_inject *f)
{
    uint64_t by_bits = f->bits_to_next_error / 384; /* (a cell carries 384 payload bits) */
    return f->cells_to_next_loss < by_bits ? f->cells_to_next_loss : by_bits;
}

void fault_inject_skip(struct fault_inject *f, uint64_t n)
{
    if (f->cells_to_next_loss != UINT64_MAX)
        f->cells_to_next_loss -= n;
    if (f->bits_to_next_error != UINT64_MAX)
        f->bits_to_next_error -= 384 * n;
}

bool fault_inject_cell(struct fault_inject *f, uint8_t payload[48])
{
    if (f->cells_to_next_loss == 0) {
        f->cells_to_next_loss = geometric_gap(f, f->cell_loss_rate);
        f->cells_lost++;
        return false;
    }
    if (f->cells_to_next_loss != UINT64_MAX)
        f->cells_to_next_loss--;
    uint64_t bit = 0;
    while (f->bits_to_next_error < 384 - bit) {
        bit += f->bits_to_next_error;
        payload[bit / 8] ^= (uint8_t)(0x80u >> (bit % 8));
        f->bits_flipped++;
        bit++;
        f->bits_to_next_error = geometric_gap(f, f->bit_error_rate);
    }
    if (f->bits_to_next_error != UINT64_MAX)
        f->bits_to_next_error -= 384 - bit;
    return true;
}
