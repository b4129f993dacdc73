/* SPDX-License-Identifier: MIT */
/*
 * fbt_stress.h - helpers for the reliability tests (fuzz_ioctl, killstorm, soak):
 * a small seeded PRNG, environment knobs (FBINDER_SCALE scales the work of a
 * test: 1 by default, less than 1 on the slow debug kernel), and memory
 * samples (/proc/meminfo, /proc/slabinfo).
 */
#ifndef FBT_STRESS_H
#define FBT_STRESS_H

#include <stdint.h>

/* xorshift64*: fast, good enough, and replayable from its seed. */
struct fbt_rng {
	uint64_t s;
};

void fbt_rng_seed(struct fbt_rng *r, uint64_t seed);
uint64_t fbt_rnd64(struct fbt_rng *r);
/* Uniform in [0, n); 0 when n is 0. */
uint32_t fbt_rnd(struct fbt_rng *r, uint32_t n);
/* Mixes a seed with a stream number (per process, thread, round). */
uint64_t fbt_mix(uint64_t seed, uint64_t stream);

/* The environment variable as an unsigned number, or def when unset/bad. */
unsigned long long fbt_env_ull(const char *name, unsigned long long def);
/* FBINDER_SCALE (a decimal factor, default 1.0, clamped to [0.01, 100]). */
double fbt_scale(void);
/* n * fbt_scale(), at least min. */
unsigned long fbt_scaled(unsigned long n, unsigned long min);
/* A seed: the variable if set, else from the clock and the pid. */
uint64_t fbt_seed(const char *env);

/* Memory as the kernel reports it, in KiB (slabinfo: active objects * size). */
struct fbt_mem {
	long long slab_kb;		/* /proc/meminfo Slab */
	long long sunreclaim_kb;	/* /proc/meminfo SUnreclaim */
	long long avail_kb;		/* /proc/meminfo MemAvailable */
	long long slabinfo_kb;		/* /proc/slabinfo total, -1 if absent */
};

void fbt_mem_sample(struct fbt_mem *m);
/* Drop the page cache and ask the shrinkers for memory back, then settle. */
void fbt_mem_settle(void);

#endif /* FBT_STRESS_H */
