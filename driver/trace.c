// SPDX-License-Identifier: GPL-2.0
/* fastbinder: the trace events of trace.h, instantiated once here. */
#define CREATE_TRACE_POINTS
#include "trace.h"
