/* Fortran CHARACTER arguments: gfortran passes each as a pointer plus a hidden length
 * (size_t, appended after the visible arguments). Conversion to and from C strings. */
#ifndef FSTRING_H
#define FSTRING_H

#include <stddef.h>

typedef size_t flen_t;   /* a hidden CHARACTER length (gfortran >= 8) */

/* A malloc'ed C copy without the trailing blanks Fortran pads with; NULL if out of memory. */
char *fpvm_cstring(const char *f, flen_t len);
/* The same with the blanks kept (what pvmfperror prints). */
char *fpvm_cstring_raw(const char *f, flen_t len);
/* Copies s into the Fortran variable f of length len, padding with blanks (truncating). */
void fpvm_fstring(char *f, flen_t len, const char *s);

#endif
