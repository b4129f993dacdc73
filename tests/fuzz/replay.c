// SPDX-License-Identifier: MIT
/*
 * replay.c - runs a libFuzzer target's LLVMFuzzerTestOneInput once on each
 * input file, without libFuzzer: the seed replay of "make check"
 * (tests/fuzz/fuzz_parcel_seeds.sh), built with gcc and ASan + UBSan, so
 * make check needs no clang.  "make fuzz" is the real fuzzer.
 *
 *   replay FILE|DIR...   each file, and each regular file in a DIR (sorted)
 *
 * Like libFuzzer, each input is handed over in a buffer of exactly its
 * size, so a read past its end is a sanitizer report.  Exit status 0 when
 * every input ran (a crash or sanitizer report ends the process), 1 when
 * an input could not be read or there was none.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long size;

	if (!f) {
		perror(path);
		return -1;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		perror(path);
		fclose(f);
		return -1;
	}
	/* exactly size bytes (malloc(0) may return NULL: one byte then) */
	buf = malloc(size ? (size_t)size : 1);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "%s: cannot read\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)size);
	free(buf);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Returns the number of inputs run, or -1 on an error. */
static int run_path(const char *path)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i;
	int ran = 0;
	DIR *d;

	if (stat(path, &st) != 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path) == 0 ? 1 : -1;
	d = opendir(path);
	if (!d) {
		perror(path);
		return -1;
	}
	while ((de = readdir(d))) {
		char **more;
		char *full;

		if (de->d_name[0] == '.')
			continue;
		full = malloc(strlen(path) + strlen(de->d_name) + 2);
		more = realloc(names, (n + 1) * sizeof(*names));
		if (!full || !more) {
			fprintf(stderr, "replay: out of memory\n");
			exit(1);
		}
		names = more;
		sprintf(full, "%s/%s", path, de->d_name);
		names[n++] = full;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp);
	for (i = 0; i < n; i++) {
		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
			if (run_file(names[i]) != 0)
				ran = -1;
			else if (ran >= 0)
				ran++;
		}
		free(names[i]);
	}
	free(names);
	return ran;
}

int main(int argc, char **argv)
{
	int i, n, total = 0, bad = 0;

	for (i = 1; i < argc; i++) {
		n = run_path(argv[i]);
		if (n < 0)
			bad = 1;
		else
			total += n;
	}
	printf("replay: %d inputs ran%s\n", total, bad ? ", some could not be read" : "");
	return bad || total == 0;
}
