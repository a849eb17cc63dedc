/* The predefined pvm_reduce operations: x[i] = op(x[i], y[i]) for *num elements of *type.
 * Types accepted as Debian's library accepts them (checked by the tests): max and min take
 * bytes and the signed numbers, sum and product the signed numbers but not bytes; complex
 * max/min pick the operand of larger/smaller modulus (x kept on a tie). */
#include <pvm3.h>

#define ELEMENTWISE(T, expr)                              \
	do {                                                  \
		T *x_ = x;                                        \
		const T *y_ = y;                                  \
		for (int i_ = 0; i_ < n; i_++) {                  \
			T a = x_[i_], b = y_[i_];                     \
			x_[i_] = (expr);                              \
		}                                                 \
	} while (0)

/* For each pair (re, im), keep y's when better(|y|^2, |x|^2). */
#define BY_MODULUS(T, better)                                           \
	do {                                                                \
		T *x_ = x;                                                      \
		const T *y_ = y;                                                \
		for (int i_ = 0; i_ < 2 * n; i_ += 2) {                         \
			T mx = x_[i_] * x_[i_] + x_[i_ + 1] * x_[i_ + 1];           \
			T my = y_[i_] * y_[i_] + y_[i_ + 1] * y_[i_ + 1];           \
			if (better(my, mx)) {                                       \
				x_[i_] = y_[i_];                                        \
				x_[i_ + 1] = y_[i_ + 1];                                \
			}                                                           \
		}                                                               \
	} while (0)

#define COMPLEX_PRODUCT(T)                                              \
	do {                                                                \
		T *x_ = x;                                                      \
		const T *y_ = y;                                                \
		for (int i_ = 0; i_ < 2 * n; i_ += 2) {                         \
			T re = x_[i_] * y_[i_] - x_[i_ + 1] * y_[i_ + 1];           \
			T im = x_[i_] * y_[i_ + 1] + x_[i_ + 1] * y_[i_];           \
			x_[i_] = re;                                                \
			x_[i_ + 1] = im;                                            \
		}                                                               \
	} while (0)

#define GREATER(a, b) ((a) > (b))
#define LESS(a, b) ((a) < (b))

void PvmMax(int *type, void *x, void *y, int *num, int *info)
{
	int n = *num;
	*info = PvmOk;
	switch (*type) {
	case PVM_BYTE: ELEMENTWISE(signed char, a > b ? a : b); break;
	case PVM_SHORT: ELEMENTWISE(short, a > b ? a : b); break;
	case PVM_INT: ELEMENTWISE(int, a > b ? a : b); break;
	case PVM_LONG: ELEMENTWISE(long, a > b ? a : b); break;
	case PVM_FLOAT: ELEMENTWISE(float, a > b ? a : b); break;
	case PVM_DOUBLE: ELEMENTWISE(double, a > b ? a : b); break;
	case PVM_CPLX: BY_MODULUS(float, GREATER); break;
	case PVM_DCPLX: BY_MODULUS(double, GREATER); break;
	default: *info = PvmBadParam;
	}
}

void PvmMin(int *type, void *x, void *y, int *num, int *info)
{
	int n = *num;
	*info = PvmOk;
	switch (*type) {
	case PVM_BYTE: ELEMENTWISE(signed char, a < b ? a : b); break;
	case PVM_SHORT: ELEMENTWISE(short, a < b ? a : b); break;
	case PVM_INT: ELEMENTWISE(int, a < b ? a : b); break;
	case PVM_LONG: ELEMENTWISE(long, a < b ? a : b); break;
	case PVM_FLOAT: ELEMENTWISE(float, a < b ? a : b); break;
	case PVM_DOUBLE: ELEMENTWISE(double, a < b ? a : b); break;
	case PVM_CPLX: BY_MODULUS(float, LESS); break;
	case PVM_DCPLX: BY_MODULUS(double, LESS); break;
	default: *info = PvmBadParam;
	}
}

/* Integer sums and products wrap as in two's complement (unsigned arithmetic), as the
 * stock library's plain C arithmetic does on this machine, without signed-overflow UB. */
void PvmSum(int *type, void *x, void *y, int *num, int *info)
{
	int n = *num;
	*info = PvmOk;
	switch (*type) {
	case PVM_SHORT: ELEMENTWISE(short, (short)(unsigned short)((unsigned)a + (unsigned)b)); break;
	case PVM_INT: ELEMENTWISE(int, (int)((unsigned)a + (unsigned)b)); break;
	case PVM_LONG: ELEMENTWISE(long, (long)((unsigned long)a + (unsigned long)b)); break;
	case PVM_FLOAT: ELEMENTWISE(float, a + b); break;
	case PVM_DOUBLE: ELEMENTWISE(double, a + b); break;
	case PVM_CPLX: n *= 2; ELEMENTWISE(float, a + b); break;
	case PVM_DCPLX: n *= 2; ELEMENTWISE(double, a + b); break;
	default: *info = PvmBadParam;
	}
}

void PvmProduct(int *type, void *x, void *y, int *num, int *info)
{
	int n = *num;
	*info = PvmOk;
	switch (*type) {
	case PVM_SHORT: ELEMENTWISE(short, (short)(unsigned short)((unsigned)a * (unsigned)b)); break;
	case PVM_INT: ELEMENTWISE(int, (int)((unsigned)a * (unsigned)b)); break;
	case PVM_LONG: ELEMENTWISE(long, (long)((unsigned long)a * (unsigned long)b)); break;
	case PVM_FLOAT: ELEMENTWISE(float, a * b); break;
	case PVM_DOUBLE: ELEMENTWISE(double, a * b); break;
	case PVM_CPLX: COMPLEX_PRODUCT(float); break;
	case PVM_DCPLX: COMPLEX_PRODUCT(double); break;
	default: *info = PvmBadParam;
	}
}
