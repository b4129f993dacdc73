// SPDX-License-Identifier: MIT
/*
 * fbt_stress.c - helpers for the reliability tests, see fbt_stress.h.
 */
#include "fbt_stress.h"
#include "fbt.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void fbt_rng_seed(struct fbt_rng *r, uint64_t seed)
{
	r->s = fbt_mix(seed, 0x9e3779b97f4a7c15ULL) | 1;
}

uint64_t fbt_rnd64(struct fbt_rng *r)
{
	uint64_t x = r->s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

uint32_t fbt_rnd(struct fbt_rng *r, uint32_t n)
{
	return n ? (uint32_t)((fbt_rnd64(r) >> 32) % n) : 0;
}

uint64_t fbt_mix(uint64_t seed, uint64_t stream)
{
	uint64_t z = seed + stream * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

unsigned long long fbt_env_ull(const char *name, unsigned long long def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return def;
	v = strtoull(s, &end, 0);
	return *end ? def : v;
}

double fbt_scale(void)
{
	const char *s = getenv("FBINDER_SCALE");
	double v;

	if (!s || !*s)
		return 1.0;
	v = strtod(s, NULL);
	if (!(v >= 0.01))
		v = 0.01;
	if (v > 100)
		v = 100;
	return v;
}

unsigned long fbt_scaled(unsigned long n, unsigned long min)
{
	double v = n * fbt_scale();

	return v < min ? min : (unsigned long)v;
}

uint64_t fbt_seed(const char *env)
{
	struct timespec ts;

	if (getenv(env) && *getenv(env))
		return fbt_env_ull(env, 1);
	clock_gettime(CLOCK_REALTIME, &ts);
	return (fbt_mix((uint64_t)ts.tv_nsec, (uint64_t)ts.tv_sec ^ (uint64_t)getpid())
		& 0xffffffffffffULL) | 1;
}

static long long meminfo_kb(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

static char *slurp(const char *path, char *buf, size_t cap)
{
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	while (len + 1 < cap && (n = read(fd, buf + len, cap - len - 1)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	return buf;
}

void fbt_mem_sample(struct fbt_mem *m)
{
	static char buf[1 << 18];
	char *line, *save = NULL;

	memset(m, 0, sizeof(*m));
	m->slabinfo_kb = -1;
	if (slurp("/proc/meminfo", buf, sizeof(buf))) {
		m->slab_kb = meminfo_kb(buf, "\nSlab:");
		m->sunreclaim_kb = meminfo_kb(buf, "\nSUnreclaim:");
		m->avail_kb = meminfo_kb(buf, "MemAvailable:");
	}
	if (!slurp("/proc/slabinfo", buf, sizeof(buf)))
		return;
	m->slabinfo_kb = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		long long active, num, size;

		if (line[0] == '#' || !strncmp(line, "slabinfo", 8))
			continue;
		if (sscanf(line, "%63s %lld %lld %lld", name, &active, &num, &size) == 4)
			m->slabinfo_kb += active * size / 1024;
	}
}

void fbt_mem_settle(void)
{
	sync();
	if (fbt_write_file("/proc/sys/vm/drop_caches", "3")) {
		/* not fatal: the sample is only less precise */
	}
	usleep(300000);
}
