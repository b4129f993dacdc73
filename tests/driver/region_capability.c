// SPDX-License-Identifier: MIT
/*
 * region_capability: memory regions by capability.  The owner names a range of
 * its memory and the rights it grants; a holder given the region through a
 * message copies from it (and into it with the write right) at offsets
 * checked against the range at every edge, narrows it (a sub-range, fewer
 * rights, never more), but cannot revoke what it does not own; the owner's
 * revoke, or its exit, kills the region and every region narrowed from it
 * (EKEYREVOKED, EOWNERDEAD) and the holders' death links fire; a context
 * never given a region reaches none; a region never travels as a node.
 *
 * Processes: the relay manager (fbt_region_relay), A (this one, the owner), B and
 * C (holders), D (an owner that exits).  All but the manager's claim run
 * as uid 65534.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fbt_attack.h"
#include "fbt_region.h"

#define MB		(1024 * 1024)
#define SIZE		(64 * 1024 + 123)	/* not a page multiple */
#define DEATH_COOKIE	0xdeadbeefULL
#define RD		FBINDER_REGION_READ
#define WR		FBINDER_REGION_WRITE

static unsigned char *data;	/* A's region, SIZE bytes at an odd address */

static void pipe_or_die(int fds[2])
{
	if (pipe(fds) < 0)
		die("pipe");
}

static int link_death(struct fbt_ctx *p, __u32 handle, __u64 cookie)
{
	struct fbinder_death d = { .handle = handle, .cookie = cookie };
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_LINK_DEATH, &d, sizeof(d));
	return fbt_wr(p, &w, NULL, false);
}

static void expect_death(struct fbt_ctx *p, __u64 cookie, const char *why)
{
	struct fbt_w w;
	struct fbt_ret r;

	CHECK(fbt_next(p, &r) == 0 && r.cmd == FBINDER_RET_DEAD && r.cookie == cookie,
	      "%s: FBINDER_RET_DEAD with the link's cookie (got %s)", why,
	      fbt_ret_name(r.cmd));
	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_DEATH_DONE, &cookie, sizeof(cookie));
	CHECK(fbt_wr(p, &w, NULL, false) == 0, "%s: DEATH_DONE", why);
}

/* ---- A alone: arguments, edges, narrowing ---- */

static void test_create_args(struct fbt_ctx *p)
{
	__u32 h;

	CHECK(fbt_region_create(p->fd, data, SIZE, 0, &h) == -EINVAL, "no rights: EINVAL");
	CHECK(fbt_region_create(p->fd, data, SIZE, 4, &h) == -EINVAL, "unknown right: EINVAL");
	CHECK(fbt_region_create(p->fd, data, 0, RD, &h) == -EINVAL, "size 0: EINVAL");
	CHECK(fbt_region_create(p->fd, (void *)(uintptr_t)-4096, 8192, RD, &h) == -EINVAL,
	      "range wrapping the address space: EINVAL");
	CHECK(fbt_region_create(p->fd, (void *)(uintptr_t)(1ULL << 62), 4096, RD, &h) == -EINVAL,
	      "range beyond user space: EINVAL");
	CHECK(fbt_region_info(p->fd, 12345, NULL, NULL) == -ENOENT, "info of no handle: ENOENT");
	CHECK(fbt_region_revoke(p->fd, 12345) == -ENOENT, "revoke of no handle: ENOENT");
	CHECK(fbt_region_info(p->fd, 0, NULL, NULL) == -ENOENT, "handle 0 is no region: ENOENT");
}

static void test_self(struct fbt_ctx *p)
{
	static unsigned char out[SIZE + 16];
	struct fbinder_iovec iov[4];
	__u32 h, rights = 0;
	__u64 size = 0, done;
	unsigned char b;

	fbt_fill(data, SIZE, 1);
	CHECK(fbt_region_create(p->fd, data, SIZE, RD | WR, &h) == 0, "create");
	CHECK(fbt_region_info(p->fd, h, &rights, &size) == 0 && rights == (RD | WR) &&
	      size == SIZE, "info: rights %u size %llu", rights,
	      (unsigned long long)size);

	done = 0;
	CHECK(fbt_region_copy(p, false, h, 0, out, SIZE, &done) == 0 && done == SIZE,
	      "read all: done %llu", (unsigned long long)done);
	CHECK(fbt_verify(out, SIZE, 1) < 0, "read all: the owner's bytes");

	/* every edge of the range */
	done = 0;
	CHECK(fbt_region_copy(p, false, h, SIZE, out, 0, &done) == 0 && done == 0,
	      "0 bytes at the end: ok");
	done = 0;
	CHECK(fbt_region_copy(p, false, h, SIZE - 1, &b, 1, &done) == 0 && done == 1 &&
	      b == data[SIZE - 1], "the last byte");
	done = 0;
	CHECK(fbt_region_copy(p, false, h, SIZE, &b, 1, &done) == -EINVAL && done == 0,
	      "1 byte past the end: EINVAL");
	done = 0;
	CHECK(fbt_region_copy(p, false, h, 0, out, SIZE + 1, &done) == -EINVAL,
	      "1 byte more than the region: EINVAL");
	done = 0;
	CHECK(fbt_region_copy(p, false, h, UINT64_MAX, &b, 1, &done) == -EINVAL,
	      "offset 2^64-1: EINVAL");
	done = 0;
	CHECK(fbt_region_copy(p, false, h, SIZE + 1, out, 0, &done) == -EINVAL,
	      "offset past the end, 0 bytes: EINVAL");
	done = 5;
	CHECK(fbt_region_copy_once(p, false, h, 0, out, 4, &done) == -EINVAL,
	      "done beyond the length: EINVAL");

	/* iovecs: an empty one, pieces across pages */
	memset(out, 0, sizeof(out));
	iov[0] = (struct fbinder_iovec){ (__u64)(uintptr_t)out, 100 };
	iov[1] = (struct fbinder_iovec){ (__u64)(uintptr_t)(out + 100), 0 };
	iov[2] = (struct fbinder_iovec){ (__u64)(uintptr_t)(out + 100), 5000 };
	iov[3] = (struct fbinder_iovec){ (__u64)(uintptr_t)(out + 5100), SIZE - 5100 };
	done = 0;
	CHECK(fbt_region_copy_iov(p, false, h, 0, iov, 4, &done) == 0 && done == SIZE,
	      "read into 4 iovecs");
	CHECK(fbt_verify(out, SIZE, 1) < 0, "4 iovecs: the owner's bytes");
	done = 0;
	CHECK(fbt_region_copy_iov(p, false, h, 0, iov, FBINDER_REGION_MAX_IOV + 1, &done) == -EINVAL,
	      "more than FBINDER_REGION_MAX_IOV iovecs: EINVAL");
	iov[0].base = 16;	/* unmapped */
	done = 0;
	CHECK(fbt_region_copy_iov(p, false, h, 0, iov, 1, &done) == -EFAULT && done == 0,
	      "a bad pointer of the caller: EFAULT");

	/* write, then read back through the memory itself */
	fbt_fill(out, 3000, 7);
	done = 0;
	CHECK(fbt_region_copy(p, true, h, 1000, out, 3000, &done) == 0 && done == 3000,
	      "write 3000 bytes at 1000");
	CHECK(fbt_verify(data + 1000, 3000, 7) < 0, "the write landed in the owner's memory");
	fbt_fill(data, SIZE, 1);
	CHECK(fbt_release(p, h) == 0, "release");
	CHECK(fbt_region_info(p->fd, h, NULL, NULL) == -ENOENT, "released: ENOENT");
}

static void test_narrow(struct fbt_ctx *p)
{
	unsigned char out[100];
	__u32 h, ro, sub, chain[FBINDER_REGION_MAX_DEPTH], x, rights;
	__u64 size, done;
	int i;

	CHECK(fbt_region_create(p->fd, data, SIZE, RD | WR, &h) == 0, "create");
	CHECK(fbt_region_narrow(p->fd, h, 0, SIZE, RD, &ro) == 0, "narrow to read only");
	CHECK(fbt_region_narrow(p->fd, ro, 0, SIZE, RD | WR, &x) == -EACCES,
	      "widen the rights: EACCES");
	CHECK(fbt_region_narrow(p->fd, ro, 1, SIZE, RD, &x) == -EINVAL, "past the end: EINVAL");
	CHECK(fbt_region_narrow(p->fd, ro, SIZE, 1, RD, &x) == -EINVAL, "at the end: EINVAL");
	CHECK(fbt_region_narrow(p->fd, ro, 0, 0, RD, &x) == -EINVAL, "size 0: EINVAL");
	CHECK(fbt_region_narrow(p->fd, ro, 2, UINT64_MAX, RD, &x) == -EINVAL,
	      "offset + size wraps: EINVAL");
	CHECK(fbt_region_narrow(p->fd, ro, 0, 10, 0, &x) == -EINVAL, "no rights: EINVAL");
	CHECK(fbt_region_narrow(p->fd, ro, 1000, 100, RD, &sub) == 0, "narrow to [1000, 1100)");
	CHECK(fbt_region_info(p->fd, sub, &rights, &size) == 0 && rights == RD && size == 100,
	      "narrowed info");
	done = 0;
	CHECK(fbt_region_copy(p, false, sub, 0, out, 100, &done) == 0 &&
	      !memcmp(out, data + 1000, 100), "narrowed offsets are its own");
	done = 0;
	CHECK(fbt_region_copy(p, false, sub, 1, out, 100, &done) == -EINVAL,
	      "past the narrowed end: EINVAL");
	done = 0;
	CHECK(fbt_region_copy(p, true, sub, 0, out, 1, &done) == -EACCES,
	      "write through a read-only narrowing: EACCES");

	chain[0] = h;
	for (i = 1; i < FBINDER_REGION_MAX_DEPTH; i++)
		CHECK(fbt_region_narrow(p->fd, chain[i - 1], 1, SIZE - i, RD, &chain[i]) == 0,
		      "narrow chain level %d", i + 1);
	CHECK(fbt_region_narrow(p->fd, chain[i - 1], 0, 1, RD, &x) == -ELOOP,
	      "a chain deeper than FBINDER_REGION_MAX_DEPTH: ELOOP");
	done = 0;
	CHECK(fbt_region_copy(p, false, chain[i - 1], 0, out, 1, &done) == 0 &&
	      out[0] == data[FBINDER_REGION_MAX_DEPTH - 1], "the deepest reads its byte");

	/* revoking the root kills the whole tree, the owner's own handles too */
	CHECK(fbt_region_revoke(p->fd, h) == 0, "revoke the root");
	CHECK(fbt_region_revoke(p->fd, h) == -EKEYREVOKED, "revoke again: EKEYREVOKED");
	done = 0;
	CHECK(fbt_region_copy(p, false, sub, 0, out, 1, &done) == -EKEYREVOKED,
	      "narrowed after the root's revoke: EKEYREVOKED");
	CHECK(fbt_region_info(p->fd, chain[i - 1], NULL, NULL) == -EKEYREVOKED,
	      "deepest after the root's revoke: EKEYREVOKED");
	CHECK(fbt_region_narrow(p->fd, ro, 0, 1, RD, &x) == -EKEYREVOKED,
	      "narrowing a revoked region: EKEYREVOKED");
	for (i = 0; i < FBINDER_REGION_MAX_DEPTH; i++)
		fbt_release(p, chain[i]);
	fbt_release(p, ro);
	fbt_release(p, sub);
}

static void test_not_a_node(struct fbt_ctx *p)
{
	struct fbinder_object obj = { .type = FBINDER_OBJ_HANDLE };
	__u64 off = 0;
	struct fbt_ret rep;
	__u32 h;

	CHECK(fbt_region_create(p->fd, data, SIZE, RD, &h) == 0, "create");
	CHECK(fbt_call(p, h, 1, NULL, 0, NULL, 0, &rep, NULL, NULL) == -EINVAL,
	      "a call to a region handle: EINVAL");
	obj.handle = h;
	CHECK(fbt_call(p, 0, FBT_REGION_PUT, &obj, sizeof(obj), &off, 1, &rep, NULL, NULL) == -EINVAL,
	      "a region handle sent as FBINDER_OBJ_HANDLE: EINVAL");
	obj.type = FBINDER_OBJ_REGION;
	obj.flags = 1;
	CHECK(fbt_call(p, 0, FBT_REGION_PUT, &obj, sizeof(obj), &off, 1, &rep, NULL, NULL) == -EINVAL,
	      "FBINDER_OBJ_REGION with flags: EINVAL");
	obj.flags = 0;
	obj.handle = 0;
	CHECK(fbt_call(p, 0, FBT_REGION_PUT, &obj, sizeof(obj), &off, 1, &rep, NULL, NULL) == -EINVAL,
	      "handle 0 sent as FBINDER_OBJ_REGION: EINVAL");
	fbt_release(p, h);
}

/* ---- B: a holder given a read-only region ---- */

static int holder_b(int go, int back)
{
	unsigned char *out = malloc(SIZE), b = 0;
	__u32 h, sub, x, rights = 0;
	__u64 size = 0, done;
	struct fbt_ctx p;

	fbt_ctx_open(&p, 1 * MB);
	CHECK(fbt_region_get(&p, &h) == 0, "B: get the region");
	CHECK(fbt_region_info(p.fd, h, &rights, &size) == 0 && rights == RD && size == SIZE,
	      "B: info rights %u size %llu", rights, (unsigned long long)size);
	done = 0;
	CHECK(fbt_region_copy(&p, false, h, 0, out, SIZE, &done) == 0 && done == SIZE &&
	      fbt_verify(out, SIZE, 1) < 0, "B: reads the owner's bytes");
	done = 0;
	CHECK(fbt_region_copy(&p, true, h, 0, out, 1, &done) == -EACCES && done == 0,
	      "B: no write through a read grant: EACCES");
	CHECK(fbt_region_narrow(p.fd, h, 0, SIZE, RD | WR, &x) == -EACCES, "B: no widening: EACCES");
	CHECK(fbt_region_narrow(p.fd, h, 10, 20, RD, &sub) == 0, "B: narrow");
	CHECK(fbt_region_revoke(p.fd, h) == -EPERM, "B: revoke of A's region: EPERM");
	CHECK(link_death(&p, h, DEATH_COOKIE) == 0, "B: link death to the region");
	fbt_tell(back, 1);		/* A: revoke now */
	fbt_await(go);
	expect_death(&p, DEATH_COOKIE, "B: A revoked");
	done = 0;
	CHECK(fbt_region_copy(&p, false, h, 0, &b, 1, &done) == -EKEYREVOKED,
	      "B: read after the revoke: EKEYREVOKED");
	done = 0;
	CHECK(fbt_region_copy(&p, false, sub, 0, &b, 1, &done) == -EKEYREVOKED,
	      "B: its narrowing after the revoke: EKEYREVOKED");
	CHECK(fbt_region_revoke(p.fd, sub) == -EKEYREVOKED,
	      "B: revoke of its dead narrowing: EKEYREVOKED");
	CHECK(fbt_release(&p, h) == 0 && fbt_release(&p, sub) == 0, "B: release");
	fbt_ctx_close(&p);
	free(out);
	return fbt_child_status();
}

static int child_b(void *arg)
{
	int *fds = arg;

	return holder_b(fds[0], fds[1]);
}

/* C: a context given nothing finds nothing. */
static int child_c(void *arg)
{
	__u64 done = 0;
	unsigned char b;
	struct fbt_ctx p;
	__u32 id;
	int found = 0;

	(void)arg;
	fbt_ctx_open(&p, 0);
	for (id = 0; id < 64; id++)
		found += fbt_region_info(p.fd, id, NULL, NULL) != -ENOENT;
	CHECK(!found, "C: no handle id 0..63 names a region: %d did", found);
	CHECK(fbt_region_copy(&p, false, 1, 0, &b, 1, &done) == -ENOENT,
	      "C: a read through a guessed id: ENOENT");
	fbt_ctx_close(&p);
	return fbt_child_status();
}

static void test_holder(struct fbt_ctx *p)
{
	int go[2], back[2], fds[2];
	__u32 h;
	pid_t b;

	fbt_fill(data, SIZE, 1);
	CHECK(fbt_region_create(p->fd, data, SIZE, RD, &h) == 0, "create read only");
	CHECK(fbt_region_put(p, h) == 0, "send it to the relay");
	pipe_or_die(go);
	pipe_or_die(back);
	fds[0] = go[0];
	fds[1] = back[1];
	b = fbt_fork(child_b, fds);
	fbt_await(back[0]);
	CHECK(fbt_region_revoke(p->fd, h) == 0, "A: revoke");
	fbt_tell(go[1], 1);
	CHECK(fbt_wait(b) == 0, "B passed");
	CHECK(fbt_wait(fbt_fork(child_c, NULL)) == 0, "C passed");
	CHECK(fbt_region_tell(p, FBT_REGION_DROP) == 0, "relay drops it");
	CHECK(fbt_release(p, h) == 0, "A: release");
	close(go[0]);
	close(go[1]);
	close(back[0]);
	close(back[1]);
}

/* ---- D: an owner that exits ---- */

static int child_d(void *arg)
{
	int *fds = arg;
	static unsigned char mine[4096];
	struct fbt_ctx p;
	__u32 h;

	fbt_ctx_open(&p, 1 * MB);
	CHECK(fbt_region_create(p.fd, mine, sizeof(mine), RD | WR, &h) == 0, "D: create");
	CHECK(fbt_region_put(&p, h) == 0, "D: send it");
	fbt_tell(fds[1], 1);
	fbt_await(fds[0]);
	return fbt_child_status();	/* exits holding it */
}

static void test_owner_exit(struct fbt_ctx *p)
{
	int go[2], back[2], fds[2];
	unsigned char b;
	__u64 done = 0;
	__u32 h;
	pid_t d;

	pipe_or_die(go);
	pipe_or_die(back);
	fds[0] = go[0];
	fds[1] = back[1];
	d = fbt_fork(child_d, fds);
	fbt_await(back[0]);
	CHECK(fbt_region_get(p, &h) == 0, "A: get D's region");
	CHECK(fbt_region_copy(p, false, h, 0, &b, 1, &done) == 0, "A: reads D's region");
	CHECK(link_death(p, h, DEATH_COOKIE + 1) == 0, "A: link death");
	fbt_tell(go[1], 1);
	CHECK(fbt_wait(d) == 0, "D passed");
	expect_death(p, DEATH_COOKIE + 1, "A: D exited");
	done = 0;
	CHECK(fbt_region_copy(p, false, h, 0, &b, 1, &done) == -EOWNERDEAD,
	      "A: read after the owner's exit: EOWNERDEAD");
	CHECK(fbt_region_info(p->fd, h, NULL, NULL) == -EOWNERDEAD, "A: info: EOWNERDEAD");
	CHECK(fbt_region_tell(p, FBT_REGION_DROP) == 0, "relay drops it");
	CHECK(fbt_release(p, h) == 0, "A: release");
	close(go[0]);
	close(go[1]);
	close(back[0]);
	close(back[1]);
}

static int manager(struct fbt_ctx *p, void *arg)
{
	return fbt_region_relay(p, arg);
}

int main(void)
{
	struct fbt_ctx p;
	pid_t mgr;

	mgr = fbt_spawn_manager_ex(1 * MB, 0x5eed, FBT_MGR_NOBODY, manager, NULL);
	fbt_become_nobody();	/* root only to claim handle 0 */
	data = (unsigned char *)malloc(SIZE + 8) + 5;
	fbt_ctx_open(&p, 1 * MB);
	test_create_args(&p);
	test_self(&p);
	test_narrow(&p);
	test_not_a_node(&p);
	test_holder(&p);
	test_owner_exit(&p);
	CHECK(fbt_region_tell(&p, FBT_REGION_QUIT) == 0, "relay quits");
	CHECK(fbt_wait(mgr) == 0, "relay exited cleanly");
	fbt_ctx_close(&p);
	free(data - 5);
	return fbt_done();
}
