// SPDX-License-Identifier: MIT
/*
 * idle_memory: an idle context with a 1 MiB mapping holds at most one
 * resident page of its buffer (smaps Rss and mincore), fresh, as the
 * context manager, and as a sender that never received anything.  (Pages
 * freed slots leave may be kept for a shrinker: not checked after a receive.)
 */
#include "fbt_proto.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define MB (1024 * 1024)

/* Rss in kB of the mapping that starts at addr, from /proc/self/smaps; -1 if not found. */
static long smaps_rss_kb(const void *addr)
{
	char *s = fbt_slurp("/proc/self/smaps"), *line, *save = NULL;
	unsigned long start = (unsigned long)addr, lo, hi;
	int in = 0;
	long rss = -1;

	if (!s)
		die("read /proc/self/smaps");
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = lo == start;
			continue;
		}
		if (in && sscanf(line, "Rss: %ld kB", &rss) == 1)
			break;
	}
	free(s);
	return rss;
}

static int mincore_pages(const void *addr, size_t len)
{
	size_t n = len / 4096, i;
	unsigned char *vec = calloc(n, 1);
	int count = 0;

	if (!vec)
		die("calloc");
	if (mincore((void *)addr, len, vec) < 0) {
		printf("# mincore: %s (not counted)\n", strerror(errno));
		free(vec);
		return 0;
	}
	for (i = 0; i < n; i++)
		count += vec[i] & 1;
	free(vec);
	return count;
}

static void check_idle(const struct fbt_ctx *p, const char *when)
{
	long rss = smaps_rss_kb(p->map);
	int pages = mincore_pages(p->map, p->map_size);

	CHECK(rss >= 0, "%s: mapping at %p not in /proc/self/smaps", when, (void *)p->map);
	CHECK(rss <= 4, "%s: Rss of the 1 MiB buffer is %ld kB, want at most 4", when, rss);
	CHECK(pages <= 1, "%s: mincore says %d pages resident, want at most 1", when, pages);
	printf("# %s: Rss %ld kB, %d pages resident\n", when, rss, pages);
}

int main(void)
{
	struct fbt_ctx a, b;
	struct fbt_ret r;
	char *big = malloc(200000);
	int ret;

	if (!big)
		die("malloc");
	fbt_ctx_open(&a, MB);
	check_idle(&a, "fresh context");

	/* A message comes and goes: Rss may grow while it is held. */
	fbt_ctx_open(&b, MB);
	if (fbt_set_mgr(a.fd, 0x1d1e))
		die("claim");
	fbt_become_nobody();	/* root only to claim handle 0 */
	check_idle(&a, "idle manager");
	fbt_fill(big, 200000, 77);
	ret = fbt_oneway(&b, 0, 1, big, 200000, NULL, 0);
	CHECK(ret == 0, "oneway of 200000 bytes: %s", strerror(-ret));
	ret = fbt_try_next(&a, &r);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_TRANSACTION && r.msg.data_size == 200000,
	      "receive: %s %s size %llu", strerror(-ret), fbt_ret_name(r.cmd),
	      (unsigned long long)r.msg.data_size);
	if (ret == 0 && r.cmd == FBINDER_RET_TRANSACTION) {
		CHECK(fbt_verify(fbt_data(&a, &r.msg), r.msg.data_size, 77) < 0,
		      "200000-byte payload corrupted");
		CHECK(fbt_free_buffer(&a, r.msg.data) == 0, "free");
	}
	/* The untouched sender's buffer stays empty. */
	check_idle(&b, "sender that never received");
	fbt_ctx_close(&b);
	fbt_ctx_close(&a);
	free(big);
	return fbt_done();
}
