/* fault_inject.h — seeded bit errors and cell loss on a link, drawn as geometric gaps. */
#ifndef FAULT_INJECT_H
#define FAULT_INJECT_H

#include <stdbool.h>
#include <stdint.h>

struct fault_inject {
    double bit_error_rate, cell_loss_rate;
    uint64_t rng;
    uint64_t bits_to_next_error;   /* payload bits that pass before the next flipped one */
    uint64_t cells_to_next_loss;
    uint64_t bits_flipped, cells_lost;
};

void fault_inject_init(struct fault_inject *f, double bit_error_rate, double cell_loss_rate,
                       uint64_t seed);
static inline bool fault_inject_enabled(const struct fault_inject *f)
{
    return f->bit_error_rate > 0 || f->cell_loss_rate > 0;
}
/* Applies the faults to one cell's 48-byte payload. Returns false if the cell is lost. */
bool fault_inject_cell(struct fault_inject *f, uint8_t payload[48]);
/* How many of the next cells pass untouched (so need not be looked at one by one), and
 * skipping n <= that many of them. */
uint64_t fault_inject_clean_cells(const struct fault_inject *f);
void fault_inject_skip(struct fault_inject *f, uint64_t n);

#endif
