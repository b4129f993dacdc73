/* SPDX-License-Identifier: MIT */
/*
 * log.h - the service manager logs to stderr, one line per event
 * ("fb-servicemanager: ..."); under systemd that is the journal.
 */
#ifndef SM_LOG_H
#define SM_LOG_H

#include <stdbool.h>

extern bool sm_verbose;

/* An event worth a line: a name added, refused or dropped. */
void sm_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Every request, malformed ones included: only with -v. */
#define sm_debug(...) \
	do { \
		if (sm_verbose) \
			sm_log(__VA_ARGS__); \
	} while (0)

#endif /* SM_LOG_H */
