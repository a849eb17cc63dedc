/* Internals shared by the Fortran binding's files: the pvmf* prototypes (gfortran's
 * convention: every argument by reference, a lower-case name with one trailing underscore,
 * hidden CHARACTER lengths last) and helpers. */
#ifndef FPVM_H
#define FPVM_H

#include <pvm3.h>

#include "fstring.h"

/* Reduce operations as Fortran sees them (same argument list as the C ones). */
typedef void reduce_fn(int *type, void *x, void *y, int *num, int *info);

#include "fpvm_protos.h"

#endif
