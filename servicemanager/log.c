// SPDX-License-Identifier: MIT
/* log.c - see log.h. */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

bool sm_verbose;

void sm_log(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	/* formatted first: one write per line, never interleaved */
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "fb-servicemanager: %s\n", line);
}
