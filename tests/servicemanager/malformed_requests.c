// SPDX-License-Identifier: MIT
/*
 * malformed_requests.c - fb-servicemanager answers 1,000 malformed requests with
 * error replies and keeps serving: unknown codes, missing, extra and
 * mistyped items, bad names, raw garbage, mutated valid requests, oneway
 * noise; requests with descriptors never reach it (it takes none: the
 * driver refuses them with EPERM).  Afterwards it is alive, answers valid
 * requests, and holds no more descriptors than before.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fbt_bl.h"
#include "fbt.h"
#include "fbt_sm.h"

#define ROUNDS 1000

struct tally {
	int error_replies;	/* status < 0, as required */
	int ok_replies;		/* only mutations may succeed */
	int wrong;		/* a malformed request that succeeded */
	int call_failures;	/* no reply at all */
	int refused;		/* with descriptors: EPERM, as required */
};

/* Sends p (NULL: empty) as code; records what came back. */
static void send(struct bl_context *ctx, uint32_t code,
		 const struct bl_parcel *p, bool may_succeed,
		 struct tally *t, const char *what)
{
	struct bl_reply r;
	int ret = bl_call(ctx, 0, code, p, &r, 5000);

	if (ret) {
		if (t->call_failures++ < 5)
			fprintf(stderr, "%s: call failed: %s\n", what,
				strerror(-ret));
		return;
	}
	if (r.status < 0) {
		t->error_replies++;
	} else if (may_succeed) {
		t->ok_replies++;
	} else {
		if (t->wrong++ < 5)
			fprintf(stderr, "%s: status %d\n", what, r.status);
	}
	bl_reply_fini(&r);
}

/* A request with descriptors: the manager takes none, the driver refuses it. */
static void send_fds(struct bl_context *ctx, uint32_t code,
		     const struct bl_parcel *p, struct tally *t, const char *what)
{
	struct bl_reply r;
	int ret = bl_call(ctx, 0, code, p, &r, 5000);

	if (ret == -EPERM) {
		t->refused++;
		return;
	}
	if (!ret)
		bl_reply_fini(&r);
	if (t->wrong++ < 5)
		fprintf(stderr, "%s: %s, want EPERM\n", what,
			ret ? strerror(-ret) : "answered");
}

/* A parcel over raw bytes: the library sends whatever data holds. */
static void send_raw(struct bl_context *ctx, uint32_t code, uint8_t *data,
		     size_t size, struct tally *t)
{
	struct bl_parcel p = BL_PARCEL_INIT;

	p.data = data;
	p.size = size;
	send(ctx, code, &p, false, t, "raw bytes");
}

/* The service and the malformed requests, as uid 65534. */
static int client(void *arg)
{
	struct bl_context *ctx = fbt_bl_open();
	struct tally t = { 0 };
	char longname[BL_SM_NAME_MAX + 2];
	uint8_t raw[256];
	int pfd[2], i;
	uint32_t h;
	pid_t svc;
	unsigned int seed = (unsigned int)getpid();
	int ret;

	(void)arg;
	printf("seed %u\n", seed);
	srand(seed);
	svc = fbt_sm_service_start("valid", 0, &ret);
	CHECK(ret == 0, "a valid registration first: %d", ret);
	ret = bl_sm_check(ctx, "valid", &h);
	CHECK(ret == 0, "check valid: %d", ret);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	if (pipe(pfd))
		die("pipe");

	for (i = 0; i < ROUNDS; i++) {
		struct bl_parcel p = BL_PARCEL_INIT;
		size_t n;

		switch (i % 16) {
		case 0:		/* unknown codes */
			bl_parcel_write_string(&p, "valid");
			send(ctx, 4 + (uint32_t)rand() % 1000, &p, false, &t,
			     "unknown code");
			break;
		case 1:		/* nothing at all */
			send(ctx, BL_SM_ADD + i % 2, NULL, false, &t, "empty");
			break;
		case 2:		/* an integer where the name goes */
			bl_parcel_write_i32(&p, 7);
			send(ctx, BL_SM_ADD + i % 2, &p, false, &t, "i32 name");
			break;
		case 3:		/* a name without an object */
			bl_parcel_write_string(&p, "noobj");
			send(ctx, BL_SM_ADD, &p, false, &t, "no object");
			break;
		case 4:		/* a name and an integer */
			bl_parcel_write_string(&p, "intobj");
			bl_parcel_write_u64(&p, 3);
			send(ctx, BL_SM_ADD, &p, false, &t, "int object");
			break;
		case 5:		/* trailing items */
			bl_parcel_write_string(&p, "valid");
			bl_parcel_write_i32(&p, 1);
			send(ctx, BL_SM_CHECK, &p, false, &t, "trailing");
			break;
		case 6:		/* a name the library would refuse */
			bl_parcel_write_string(&p, i % 32 < 16 ? "bad name!" :
					       "");
			bl_parcel_write_handle(&p, h);
			send(ctx, BL_SM_ADD, &p, false, &t, "bad name");
			break;
		case 7:		/* too long */
			bl_parcel_write_string(&p, longname);
			send(ctx, BL_SM_CHECK, &p, false, &t, "long name");
			break;
		case 8:		/* a descriptor instead of a service */
			bl_parcel_write_string(&p, "fd.service");
			bl_parcel_write_fd(&p, pfd[1]);
			send_fds(ctx, BL_SM_ADD, &p, &t, "fd object");
			break;
		case 9:		/* descriptors riding along a lookup */
			bl_parcel_write_string(&p, "valid");
			bl_parcel_write_fd(&p, pfd[0]);
			bl_parcel_write_fd(&p, pfd[1]);
			send_fds(ctx, BL_SM_CHECK, &p, &t, "fd trailing");
			break;
		case 10:	/* list with arguments */
			bl_parcel_write_blob(&p, "x", 1);
			send(ctx, BL_SM_LIST, &p, false, &t, "list args");
			break;
		case 11:	/* raw garbage (LIST would take no items) */
			n = 8 + ((size_t)rand() % (sizeof(raw) - 8) & ~(size_t)7);
			for (size_t k = 0; k < n; k++)
				raw[k] = (uint8_t)rand();
			send_raw(ctx, BL_SM_ADD + (uint32_t)(i % 2), raw, n,
				 &t);
			break;
		case 12:	/* a mutated valid ADD: anything may come back */
		case 13:
			bl_parcel_write_string(&p, "mut.svc");
			bl_parcel_write_handle(&p, h);
			/* the name item only: the object must stay valid */
			n = (size_t)rand() % 16;
			p.data[n] ^= (uint8_t)(1 + rand() % 255);
			send(ctx, BL_SM_ADD, &p, true, &t, "mutated");
			break;
		case 14:	/* an array where the name goes */
			bl_parcel_begin_array(&p);
			bl_parcel_write_string(&p, "valid");
			bl_parcel_end_array(&p);
			send(ctx, BL_SM_CHECK, &p, false, &t, "array name");
			break;
		case 15:	/* oneway noise: nothing to answer */
			bl_parcel_write_string(&p, "oneway");
			ret = bl_send_oneway(ctx, 0, BL_SM_ADD, &p);
			if (ret)
				t.call_failures++;
			break;
		}
		bl_parcel_fini(&p);
	}
	printf("%d error replies, %d successes (mutations), %d refused (descriptors), %d wrong, %d lost\n",
	       t.error_replies, t.ok_replies, t.refused, t.wrong, t.call_failures);
	CHECK(t.refused == ROUNDS / 16 * 2 + (ROUNDS % 16 > 8) + (ROUNDS % 16 > 9),
	      "every request with descriptors was refused: %d", t.refused);
	CHECK(t.wrong == 0, "no malformed request succeeded: %d", t.wrong);
	CHECK(t.call_failures == 0, "every request was answered: %d lost",
	      t.call_failures);
	CHECK(t.error_replies >= ROUNDS * 3 / 4, "error replies: %d",
	      t.error_replies);

	ret = bl_sm_check(ctx, "valid", &h);
	CHECK(ret == 0, "the manager answers a valid lookup: %d", ret);
	if (!ret)
		bl_handle_release(ctx, h);

	close(pfd[0]);
	close(pfd[1]);
	bl_handle_release(ctx, h);
	if (svc)	/* 0: it did not register (kill(0) is our group) */
		fbt_bl_kill(svc);
	bl_context_close(ctx);
	return fbt_done();
}

int main(void)
{
	int fds_before, fds_after, st;
	pid_t mgr;

	/* a root manager, as a system runs one (claiming handle 0 takes it) */
	mgr = fbt_sm_manager_start(NULL);
	fds_before = fbt_count_fds(fbt_sm_manager_process(mgr));
	st = fbt_run_as_nobody(client, NULL);
	CHECK(st == 0, "the requests, as uid 65534: status %d", st);
	CHECK(waitpid(mgr, NULL, WNOHANG) == 0, "the manager is alive");
	/* the descriptors it was sent were closed, none kept */
	fds_after = fbt_count_fds(fbt_sm_manager_process(mgr));
	CHECK(fds_before > 0 && fds_after == fds_before,
	      "manager descriptors before %d, after %d", fds_before,
	      fds_after);
	CHECK(fbt_sm_manager_stop(mgr) == 0, "manager exits 0 on SIGTERM");
	return fbt_done();
}
