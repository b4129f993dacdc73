// SPDX-License-Identifier: MIT
/*
 * deathwatch - waits for a named service, asks the kernel to say when it
 * dies (a death recipient), and reports its death.
 *
 * The kernel knows when a process that owns an object exits, however it
 * exits (a crash, kill -9): it then tells every process that linked to
 * the object's death.  The notice arrives like a call, so this process
 * needs a looper: here its main thread runs bl_loop(), and the death
 * callback stops that loop.
 *
 * Run: deathwatch-target my.name &
 *      deathwatch my.name &        -> "watching ..."
 *      kill %1                     -> "deathwatch: my.name died ..."
 * Exit status: 0 after reporting the death, 1 on an error (or when
 * TIMEOUT_S seconds passed without one), 2 usage.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binderlite.h"
#include "fbtool.h"

struct watch {
	const char *name;
	struct timespec since;
	bool died;
};

/* Runs once, on the looper (our main thread inside bl_loop()). */
static void on_death(struct bl_context *ctx, uint32_t handle, void *userdata)
{
	struct watch *w = userdata;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	printf("deathwatch: %s died (handle %u), after %.1f s of watching\n",
	       w->name, handle,
	       (double)(now.tv_sec - w->since.tv_sec) +
	       (double)(now.tv_nsec - w->since.tv_nsec) / 1e9);
	fflush(stdout);
	w->died = true;
	/* Called from a looper, this asks bl_loop() to return and does not wait. */
	bl_context_stop(ctx);
}

int main(int argc, char **argv)
{
	struct watch w = { 0 };
	struct bl_context *ctx;
	struct bl_death *death;
	uint32_t handle;
	int ret;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: deathwatch NAME [TIMEOUT_S]\n");
		return 2;
	}
	w.name = argv[1];
	if (argc == 3)
		alarm((unsigned int)atoi(argv[2]));	/* SIGALRM ends us: exit != 0 */

	fbtool_init("deathwatch");
	ret = bl_context_open(NULL, 0, &ctx);
	if (ret)
		return fbtool_unavailable(NULL, -ret);
	/* The handle from bl_sm_get() is acquired: the link lasts while we hold it. */
	ret = bl_sm_get(ctx, w.name, 10000, &handle);
	if (ret) {
		fprintf(stderr, "deathwatch: no \"%s\": %s\n", w.name, strerror(-ret));
		bl_context_close(ctx);
		return 1;
	}
	ret = bl_link_death(ctx, handle, on_death, &w, &death);
	if (ret) {
		fprintf(stderr, "deathwatch: link: %s\n", strerror(-ret));
		bl_handle_release(ctx, handle);
		bl_context_close(ctx);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &w.since);
	printf("deathwatch: watching %s (handle %u)\n", w.name, handle);
	fflush(stdout);

	/* Serve until on_death() stops the loop. */
	ret = bl_loop(ctx);
	if (ret)
		fprintf(stderr, "deathwatch: loop: %s\n", strerror(-ret));

	bl_unlink_death(death);		/* frees the recipient (it fired) */
	bl_handle_release(ctx, handle);
	bl_context_close(ctx);
	return w.died ? 0 : 1;
}
