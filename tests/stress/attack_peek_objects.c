// SPDX-License-Identifier: MIT
/*
 * attack_peek_objects: a receiver reads only what was sent to it, and
 * only once it is complete (docs/security.md, G3).
 *
 * The receiver R is the attacker: a thread of it spins over its own
 * mapping while a sender S, the victim, sends it messages full of
 * FBINDER_OBJ_LOCAL objects whose cookies carry a marker in their upper half
 * (libbinderlite puts heap addresses there).  The driver used to copy
 * the whole payload and translate the objects in place afterwards, so the
 * spinning thread saw raw cookies.  It must see none.
 *
 * Then two leftovers: a send that fails half way (its last object is
 * invalid) must leave none of its bytes in R's mapping, and the padding
 * of a 5-byte message, and an empty message's slot, must read as zero
 * although the slot held other bytes before.  And the half of an object's
 * 64-bit union that HANDLE and FD objects do not use must be zero.
 *
 * The registry (handle 0) runs as root; R and S are unprivileged.
 */
#include "fbt_slots.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define MAP		(1024 * 1024)
#define MARK		0x5ec2e7c0ULL		/* upper half of every cookie */
#define NOBJ		2048
#define ROUNDS		30
#define PRIME		(MAP / 2)		/* the oneway half, primed by a call */
#define FAIL_FILL	0xc3
#define FAIL_SIZE	8192

enum { C_PRIME = 1, C_OBJS, C_FILL, C_PAD, C_EMPTY, C_DONE };
enum { SLOT_R };

static int to_s[2];				/* R tells S to go on */

static void post(int fd)
{
	if (write(fd, "x", 1) != 1)
		die("pipe write");
}

static void await(int fd)
{
	char x;

	if (read(fd, &x, 1) != 1)
		die("pipe read");
}

/* ---- R: the attacker -------------------------------------------------- */

static const volatile __u64 *scan_base;
static atomic_int scanning = 1;
static atomic_long seen_raw;
static sigjmp_buf scan_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(scan_jmp, 1);
}

/* Spins over the oneway half of the mapping looking for raw cookies. */
static void *scanner(void *arg)
{
	volatile size_t i = 0;
	(void)arg;

	if (sigsetjmp(scan_jmp, 1))	/* a page not there: skip it */
		i = (i + 512) & ~(size_t)511;
	while (atomic_load(&scanning)) {
		for (; i < PRIME / 8; i++)
			if ((scan_base[i] >> 32) == MARK)
				atomic_fetch_add(&seen_raw, 1);
		i = 0;
	}
	return NULL;
}

/* The first run of at least 64 bytes of c in the mapping, or -1. */
static long find_run(const unsigned char *map, size_t len, unsigned char c)
{
	size_t i, run = 0;

	for (i = 0; i < len; i++) {
		run = map[i] == c ? run + 1 : 0;
		if (run == 64)
			return (long)(i + 1 - run);
	}
	return -1;
}

static int r_main(void *arg)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	struct fbt_ctx p;
	struct fbt_ret r;
	pthread_t th;
	int msgs = 0, bad_obj = 0, ret;
	long at;
	(void)arg;

	fbt_become_nobody();
	fbt_ctx_open(&p, MAP);
	ret = fbt_slot_put(&p, SLOT_R, 0x1);
	if (ret)
		die("put slot %u: %s", SLOT_R, strerror(-ret));
	sigaction(SIGBUS, &sa, NULL);
	post(to_s[1]);

	/*
	 * A call over the whole oneway half (a oneway message may take only a
	 * quarter of the buffer): every page there is mapped.
	 */
	if (fbt_next(&p, &r) || r.cmd != FBINDER_RET_TRANSACTION || r.msg.code != C_PRIME)
		die("R: no priming message");
	if (fbt_reply(&p, &r.msg, 0, NULL, 0, NULL, 0))
		die("R: reply to the priming call");
	fbt_free_buffer(&p, r.msg.data);
	scan_base = (const volatile __u64 *)p.map;
	if (pthread_create(&th, NULL, scanner, NULL))
		die("pthread_create");
	post(to_s[1]);

	for (;;) {
		size_t i;

		if (fbt_next(&p, &r) || r.cmd != FBINDER_RET_TRANSACTION)
			die("R: read");
		if (r.msg.code != C_OBJS)
			break;
		for (i = 0; i < r.msg.offsets_count; i++)
			bad_obj += fbt_obj(&p, &r.msg, i)->type != FBINDER_OBJ_HANDLE;
		fbt_free_buffer(&p, r.msg.data);
		msgs++;
	}
	atomic_store(&scanning, 0);
	pthread_join(th, NULL);
	printf("# R: %d messages of %d objects, %ld raw cookies seen\n", msgs, NOBJ,
	       atomic_load(&seen_raw));
	CHECK(msgs == ROUNDS, "R got %d of %d messages", msgs, ROUNDS);
	CHECK(!bad_obj, "%d objects arrived untranslated", bad_obj);
	CHECK(atomic_load(&seen_raw) == 0,
	      "the receiver saw %ld of the sender's raw cookies", atomic_load(&seen_raw));

	/* r is C_DONE; S's failed send happened before it */
	CHECK(r.msg.code == C_DONE, "R: code %u, want C_DONE", r.msg.code);
	fbt_free_buffer(&p, r.msg.data);
	at = find_run(p.map, PRIME, FAIL_FILL);
	CHECK(at < 0, "bytes of a failed send are readable at offset %ld", at);

	/* bytes in the slot the next messages get */
	post(to_s[1]);
	if (fbt_next(&p, &r) || r.cmd != FBINDER_RET_TRANSACTION || r.msg.code != C_FILL)
		die("R: no filler");
	fbt_free_buffer(&p, r.msg.data);
	post(to_s[1]);
	if (fbt_next(&p, &r) || r.cmd != FBINDER_RET_TRANSACTION || r.msg.code != C_PAD ||
	    r.msg.data_size != 5)
		die("R: no 5-byte message");
	{
		const unsigned char *d = fbt_data(&p, &r.msg);

		CHECK(d[5] == 0 && d[6] == 0 && d[7] == 0,
		      "padding after a 5-byte message reads %02x %02x %02x", d[5], d[6], d[7]);
	}
	fbt_free_buffer(&p, r.msg.data);
	if (fbt_next(&p, &r) || r.cmd != FBINDER_RET_TRANSACTION || r.msg.code != C_EMPTY)
		die("R: no empty message");
	{
		__u64 slot;

		memcpy(&slot, p.map + r.msg.data, sizeof(slot));
		CHECK(slot == 0, "an empty message's slot reads 0x%llx", (unsigned long long)slot);
	}
	fbt_free_buffer(&p, r.msg.data);
	fbt_ctx_close(&p);
	return fbt_child_status();
}

/* ---- S: the victim ------------------------------------------------------ */

static int s_main(void *arg)
{
	static struct fbinder_object objs[NOBJ];
	static __u64 offs[NOBJ];
	static unsigned char big[PRIME];
	struct fbt_ret rep;
	struct fbt_ctx p;
	__u32 hr;
	int i, ret;
	(void)arg;

	fbt_become_nobody();
	fbt_ctx_open(&p, MAP);
	await(to_s[0]);
	hr = fbt_slot_get_wait(&p, SLOT_R);

	memset(big, 0xee, sizeof(big));
	if (fbt_call(&p, hr, C_PRIME, big, sizeof(big), NULL, 0, &rep, NULL, NULL) ||
	    rep.cmd != FBINDER_RET_REPLY)
		die("S: priming call");
	fbt_free_buffer(&p, rep.msg.data);
	await(to_s[0]);

	for (i = 0; i < NOBJ; i++) {
		objs[i].type = FBINDER_OBJ_LOCAL;
		objs[i].cookie = MARK << 32 | (__u64)(i + 1);
		offs[i] = (__u64)i * sizeof(objs[0]);
	}
	for (i = 0; i < ROUNDS; i++) {
		/* oneway: the copy is what matters, not the answer */
		while ((ret = fbt_oneway(&p, hr, C_OBJS, objs, sizeof(objs), offs, NOBJ)) == -ENOSPC)
			usleep(1000);
		CHECK(ret == 0, "S: send %d: %s", i, strerror(-ret));
	}

	/* a send that fails at its last object */
	memset(big, FAIL_FILL, FAIL_SIZE);
	memset(big + FAIL_SIZE - sizeof(objs[0]), 0, sizeof(objs[0]));
	((struct fbinder_object *)(big + FAIL_SIZE - sizeof(objs[0])))->type = 99;
	offs[0] = FAIL_SIZE - sizeof(objs[0]);
	ret = fbt_oneway(&p, hr, C_OBJS, big, FAIL_SIZE, offs, 1);
	CHECK(ret == -EINVAL, "S: a send with a bad object: %s, want EINVAL", strerror(-ret));
	/* HANDLE and FD use the union's low 32 bits: the rest must be zero */
	memset(objs, 0, sizeof(objs[0]));
	objs[0].type = FBINDER_OBJ_HANDLE;
	objs[0].cookie = (__u64)1 << 40;
	objs[0].handle = hr;
	offs[0] = 0;
	ret = fbt_oneway(&p, hr, C_OBJS, objs, sizeof(objs[0]), offs, 1);
	CHECK(ret == -EINVAL, "S: a handle object with upper bits set: %s, want EINVAL",
	      strerror(-ret));
	objs[0].type = FBINDER_OBJ_FD;
	objs[0].cookie = (__u64)1 << 40;
	objs[0].fd = 0;
	ret = fbt_oneway(&p, hr, C_OBJS, objs, sizeof(objs[0]), offs, 1);
	CHECK(ret == -EINVAL, "S: an fd object with upper bits set: %s, want EINVAL",
	      strerror(-ret));
	CHECK(fbt_oneway(&p, hr, C_DONE, NULL, 0, NULL, 0) == 0, "S: C_DONE");

	await(to_s[0]);
	memset(big, 0xaa, 64);
	CHECK(fbt_oneway(&p, hr, C_FILL, big, 64, NULL, 0) == 0, "S: C_FILL");
	await(to_s[0]);
	CHECK(fbt_oneway(&p, hr, C_PAD, "\x11\x11\x11\x11\x11", 5, NULL, 0) == 0, "S: C_PAD");
	CHECK(fbt_oneway(&p, hr, C_EMPTY, NULL, 0, NULL, 0) == 0, "S: C_EMPTY");
	fbt_ctx_close(&p);
	return fbt_child_status();
}

int main(void)
{
	pid_t mgr, r, s;

	if (pipe(to_s))
		die("pipe");
	mgr = fbt_slot_spawn();
	r = fbt_fork(r_main, NULL);
	s = fbt_fork(s_main, NULL);
	CHECK(fbt_wait(s) == 0, "the sender failed");
	CHECK(fbt_wait(r) == 0, "the receiver saw what it must not");
	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts back to zero");
	return fbt_done();
}
