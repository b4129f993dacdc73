// SPDX-License-Identifier: MIT
/*
 * fbidl - the interface compiler: reads an interface file (docs/idl.md)
 * and writes a C header and source of typed client proxies and server
 * stubs over libbinderlite.
 *
 *   fbidl [-o DIR] [--header NAME.h --source NAME.c] FILE.fbidl
 *
 * Exit status (tools/lib/fbtool.h): 0 done, 1 the input has an error
 * (printed as file:line:col: message; nothing is written) or an output
 * could not be written, 2 a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fbidl.h"
#include "fbtool.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fbidl [-o DIR] [--header FILE.h] [--source FILE.c] FILE.fbidl\n"
		"       fbidl --check FILE.fbidl\n"
		"Compiles an interface file into a C header and source (libbinderlite).\n"
		"  -o DIR        write NAME.h and NAME.c into DIR (default: .), NAME\n"
		"                being the file's name without .fbidl\n"
		"  --header F    the header's path (overrides -o for it)\n"
		"  --source F    the source's path\n"
		"  --check       only check the file\n"
		"  -h, --help    this text\n"
		"  --version     the version\n"
		"Exit status: 0 done, 1 an error in the input or the output, 2 usage.\n");
}

/* Writes path through a temporary, so a failed run leaves nothing half. */
static FILE *open_tmp(const char *path, char **tmp)
{
	FILE *f;

	if (asprintf(tmp, "%s.tmp%ld", path, (long)getpid()) < 0) {
		*tmp = NULL;
		return NULL;
	}
	f = fopen(*tmp, "w");
	if (!f) {
		fprintf(stderr, "fbidl: %s: %s\n", *tmp, strerror(errno));
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

static char *guard_of(const char *header)
{
	const char *base = strrchr(header, '/');
	char *g;
	size_t i, n;

	base = base ? base + 1 : header;
	n = strlen(base);
	g = malloc(n + 7);
	if (!g)
		return NULL;
	memcpy(g, "FBIDL_", 6);
	for (i = 0; i < n; i++) {
		char c = base[i];

		if (c >= 'a' && c <= 'z')
			c = (char)(c - 32);
		else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			c = '_';
		g[6 + i] = c;
	}
	g[6 + n] = '\0';
	return g;
}

int main(int argc, char **argv)
{
	const char *dir = ".", *header = NULL, *source = NULL, *input = NULL;
	char *hpath = NULL, *cpath = NULL, *htmp = NULL, *ctmp = NULL, *guard = NULL;
	const char *hbase;
	bool check_only = false;
	struct fi_file *f;
	FILE *h = NULL, *c = NULL;
	int i, rc = FBTOOL_EXIT_FAILED;

	fbtool_init("fbidl");
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return FBTOOL_EXIT_OK;
		} else if (!strcmp(a, "--version")) {
			fbtool_version();
			return FBTOOL_EXIT_OK;
		} else if (!strcmp(a, "--check")) {
			check_only = true;
		} else if ((!strcmp(a, "-o") || !strcmp(a, "--header") ||
			    !strcmp(a, "--source")) && i + 1 < argc) {
			if (a[1] == 'o')
				dir = argv[++i];
			else if (a[2] == 'h')
				header = argv[++i];
			else
				source = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			return fbtool_usage_error("unknown option or missing value: %s", a);
		} else if (input) {
			return fbtool_usage_error("one input file only");
		} else {
			input = a;
		}
	}
	if (!input)
		return fbtool_usage_error("no input file");
	f = fi_parse_file(input, stderr);
	if (!f)
		return FBTOOL_EXIT_FAILED;
	if (check_only) {
		fi_free(f);
		return 0;
	}
	if (!header || !source) {
		const char *base = strrchr(input, '/');
		size_t n;

		base = base ? base + 1 : input;
		n = strlen(base);
		if (n > 6 && !strcmp(base + n - 6, ".fbidl"))
			n -= 6;
		if ((!header && asprintf(&hpath, "%s/%.*s.h", dir, (int)n, base) < 0) ||
		    (!source && asprintf(&cpath, "%s/%.*s.c", dir, (int)n, base) < 0)) {
			fprintf(stderr, "fbidl: out of memory\n");
			goto out;
		}
	}
	if (!header)
		header = hpath;
	if (!source)
		source = cpath;
	guard = guard_of(header);
	h = open_tmp(header, &htmp);
	c = h ? open_tmp(source, &ctmp) : NULL;
	if (!guard || !h || !c)
		goto out;
	hbase = strrchr(header, '/');
	hbase = hbase ? hbase + 1 : header;
	if (fi_generate(f, hbase, guard, h, c) || fflush(h) || fflush(c)) {
		fprintf(stderr, "fbidl: write error: %s\n", strerror(errno));
		goto out;
	}
	if (fclose(h) | fclose(c)) {
		h = c = NULL;
		fprintf(stderr, "fbidl: write error: %s\n", strerror(errno));
		goto out;
	}
	h = c = NULL;
	if (rename(htmp, header) || rename(ctmp, source)) {
		fprintf(stderr, "fbidl: rename: %s\n", strerror(errno));
		goto out;
	}
	free(htmp);
	free(ctmp);
	htmp = ctmp = NULL;
	rc = 0;
out:
	if (h)
		fclose(h);
	if (c)
		fclose(c);
	if (htmp) {
		unlink(htmp);
		free(htmp);
	}
	if (ctmp) {
		unlink(ctmp);
		free(ctmp);
	}
	free(guard);
	free(hpath);
	free(cpath);
	fi_free(f);
	return rc;
}
