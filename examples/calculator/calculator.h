/* SPDX-License-Identifier: MIT */
/*
 * calculator.h - the calculator interface: its registered name, its method
 * codes and, for each, the request and reply layout.  Both sides include
 * it, which is all an "interface definition" is in libbinderlite.
 *
 * Status: 0 on success, else a negative errno and an empty reply:
 *   -EDOM        CALC_DIV by zero
 *   -ERANGE      the result does not fit an i64
 *   -EBADMSG     the request is not what the method expects
 *   -EOPNOTSUPP  an unknown method code
 */
#ifndef EXAMPLE_CALCULATOR_H
#define EXAMPLE_CALCULATOR_H

#define CALC_SERVICE_NAME	"calculator"

enum calc_method {
	CALC_ADD	= 1,	/* i64 a, i64 b -> i64 a + b */
	CALC_SUB	= 2,	/* i64 a, i64 b -> i64 a - b */
	CALC_MUL	= 3,	/* i64 a, i64 b -> i64 a * b */
	CALC_DIV	= 4,	/* i64 a, i64 b -> i64 a / b, i64 a % b */
	CALC_CONCAT	= 5,	/* string a, string b -> string ab */
	CALC_UPPER	= 6,	/* string s -> string S (ASCII letters) */
};

#endif
