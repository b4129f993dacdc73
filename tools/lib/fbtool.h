/* SPDX-License-Identifier: MIT */
/*
 * fbtool.h - what every fastbinder command-line program shares (the
 * tools, fb-servicemanager, the examples): the exit statuses, --help and
 * --version, a usage error, and the one message for "fastbinder cannot be
 * used here" (module not loaded, no such device, permission denied, another
 * ABI).  The man pages' EXIT STATUS sections describe the same four codes.
 */
#ifndef FBTOOL_H
#define FBTOOL_H

#include <stdio.h>

enum {
	FBTOOL_EXIT_OK = 0,		/* done */
	FBTOOL_EXIT_FAILED = 1,		/* the operation failed */
	FBTOOL_EXIT_USAGE = 2,		/* bad usage: message on stderr */
	FBTOOL_EXIT_UNAVAILABLE = 3,	/* fastbinder cannot be used here */
};

/* The program's name in messages; set once by fbtool_init(). */
extern const char *fbtool_prog;

void fbtool_init(const char *prog);

/* "PROG: message" on stderr. */
void fbtool_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * "PROG: message" and "Try 'PROG --help'." on stderr; returns
 * FBTOOL_EXIT_USAGE for the caller to exit with.
 */
int fbtool_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "PROG (fastbinder VERSION), ABI version N" on stdout. */
void fbtool_version(void);

/*
 * --help (usage on stdout) or --version when it is argv[1]: returns the
 * exit status to end with; -1 when argv[1] is neither.  For the programs
 * without option parsing of their own.
 */
int fbtool_std_args(int argc, char **argv, void (*usage)(FILE *f));

/*
 * Opening the device failed with errno e (positive): says why in one line
 * (module not loaded, no such device, permission denied, another ABI, or
 * the error) and returns FBTOOL_EXIT_UNAVAILABLE.  path NULL: the default
 * device.
 */
int fbtool_unavailable(const char *path, int e);

#endif /* FBTOOL_H */
