// SPDX-License-Identifier: MIT
/*
 * context_manager: one context per device claims handle 0; a second claim is
 * EBUSY, bad arguments EINVAL, and the claim is freed when the manager's
 * context closes.  Also: sends, ACQUIRE and RELEASE to handle 0 without a
 * manager (ENOENT; with one, ACQUIRE and RELEASE change nothing), to
 * one's own context (EINVAL), to a context without a mapping (ESRCH).
 */
#include "fbt_proto.h"

#include <sys/ioctl.h>
#include <unistd.h>

#define MB (1024 * 1024)

static int claim_raw(int fd, __u64 cookie, __u32 flags, __u32 reserved)
{
	struct fbinder_context_mgr m = { .cookie = cookie, .flags = flags, .reserved = reserved };

	return ioctl(fd, FBINDER_IOC_SET_CONTEXT_MGR, &m) < 0 ? -errno : 0;
}

static int claim_in_child(void *arg)
{
	struct fbt_ctx p;
	int ret;

	(void)arg;
	fbt_ctx_open(&p, MB);
	ret = fbt_set_mgr(p.fd, 0xc41d);
	fbt_ctx_close(&p);
	return ret == -EBUSY ? 0 : 1;
}

/* With no manager, a send to handle 0 is ENOENT; bad flags/reserved are EINVAL and claim nothing. */
static void test_no_manager(void)
{
	struct fbt_ctx c;
	char byte = 1;
	int ret;

	fbt_ctx_open(&c, MB);
	ret = fbt_oneway(&c, 0, 1, &byte, 1, NULL, 0);
	CHECK(ret == -ENOENT, "oneway to handle 0 with no manager: %s, want ENOENT",
	      strerror(-ret));
	{
		struct fbt_ret r;

		ret = fbt_call(&c, 0, 1, &byte, 1, NULL, 0, &r, NULL, NULL);
		CHECK(ret == -ENOENT, "call to handle 0 with no manager: %s, want ENOENT",
		      strerror(-ret));
	}
	/* docs/abi.md: ACQUIRE and RELEASE of handle 0 fail too, not no-ops */
	ret = fbt_acquire(&c, 0);
	CHECK(ret == -ENOENT, "ACQUIRE of handle 0 with no manager: %s, want ENOENT",
	      strerror(-ret));
	ret = fbt_release(&c, 0);
	CHECK(ret == -ENOENT, "RELEASE of handle 0 with no manager: %s, want ENOENT",
	      strerror(-ret));
	ret = claim_raw(c.fd, 0x1234, 1, 0);
	CHECK(ret == -EINVAL, "SET_CONTEXT_MGR flags=1: %s, want EINVAL", strerror(-ret));
	ret = claim_raw(c.fd, 0x1234, 0, 1);
	CHECK(ret == -EINVAL, "SET_CONTEXT_MGR reserved=1: %s, want EINVAL", strerror(-ret));
	ret = ioctl(c.fd, FBINDER_IOC_SET_CONTEXT_MGR, (void *)8);
	CHECK(ret < 0 && errno == EFAULT, "SET_CONTEXT_MGR with a bad pointer: %s, want EFAULT",
	      ret < 0 ? strerror(errno) : "success");
	/* The refused claims left no manager behind. */
	ret = fbt_oneway(&c, 0, 1, &byte, 1, NULL, 0);
	CHECK(ret == -ENOENT, "handle 0 after refused claims: %s, want ENOENT", strerror(-ret));
	fbt_ctx_close(&c);
	printf("# no manager: ENOENT (sends, ACQUIRE, RELEASE); bad claims: EINVAL\n");
}

/* The first claim works; any second claim (same context, other context, other process) is EBUSY. */
static void test_claim_busy(void)
{
	struct fbt_ctx m, o;
	int ret, st;

	fbt_ctx_open(&m, MB);
	fbt_ctx_open(&o, MB);
	ret = fbt_set_mgr(m.fd, 0xfeed);
	CHECK(ret == 0, "first SET_CONTEXT_MGR: %s", strerror(-ret));
	ret = fbt_set_mgr(o.fd, 0xbeef);
	CHECK(ret == -EBUSY, "second claim from another context: %s, want EBUSY",
	      strerror(-ret));
	ret = fbt_set_mgr(m.fd, 0xfeed);
	CHECK(ret == -EBUSY, "second claim from the manager itself: %s, want EBUSY",
	      strerror(-ret));
	st = fbt_wait(fbt_fork(claim_in_child, NULL));
	CHECK(st == 0, "claim from another process was not EBUSY (child status %d)", st);

	/* With a manager, handle 0 is permanent: ACQUIRE and RELEASE change nothing. */
	ret = fbt_release(&o, 0);
	CHECK(ret == 0, "RELEASE of handle 0 with a manager: %s, want 0", strerror(-ret));
	ret = fbt_acquire(&o, 0);
	CHECK(ret == 0, "ACQUIRE of handle 0 with a manager: %s, want 0", strerror(-ret));
	ret = fbt_release(&o, 0);
	CHECK(ret == 0, "RELEASE of handle 0 again: %s, want 0", strerror(-ret));

	/* The manager's own handle 0 is its own context: EINVAL. */
	{
		char byte = 0;

		ret = fbt_oneway(&m, 0, 1, &byte, 1, NULL, 0);
		CHECK(ret == -EINVAL, "manager sending to its own handle 0: %s, want EINVAL",
		      strerror(-ret));
	}
	/* Another context reaches the manager, with its cookie. */
	{
		struct fbt_ret r;
		__u32 v = 0x600d;

		ret = fbt_oneway(&o, 0, 42, &v, sizeof(v), NULL, 0);
		CHECK(ret == 0, "oneway to the manager: %s", strerror(-ret));
		ret = fbt_try_next(&m, &r);
		CHECK(ret == 0 && r.cmd == FBINDER_RET_TRANSACTION && r.msg.cookie == 0xfeed &&
		      r.msg.code == 42,
		      "manager read: %s %s cookie 0x%llx code %u, want TRANSACTION cookie 0xfeed code 42",
		      strerror(-ret), fbt_ret_name(r.cmd),
		      (unsigned long long)r.msg.cookie, r.msg.code);
		if (ret == 0 && r.cmd == FBINDER_RET_TRANSACTION)
			CHECK(fbt_free_buffer(&m, r.msg.data) == 0, "free");
	}
	fbt_ctx_close(&o);
	fbt_ctx_close(&m);

	/* The manager's context closed: the device has no manager any more. */
	fbt_ctx_open(&o, MB);
	ret = fbt_set_mgr(o.fd, 0xbeef);
	CHECK(ret == 0, "claim after the manager closed: %s, want success", strerror(-ret));
	fbt_ctx_close(&o);
	printf("# one manager per device; freed on close\n");
}

/*
 * A context without a mapping can send, but nothing can be delivered to
 * it: a call to its node is ESRCH, and a reply to its call is ESRCH for
 * the replier and FBINDER_RET_FAILED -ESRCH for the caller.
 */
static void test_no_mapping(void)
{
	struct fbt_ctx m, u;
	struct fbinder_object obj = { .type = FBINDER_OBJ_LOCAL, .cookie = 0x5eed };
	__u64 off = 0;
	struct fbt_ret r, e;
	struct fbt_w w;
	__u32 h = 0;
	int ret;

	fbt_ctx_open(&m, MB);
	fbt_ctx_open(&u, 0);	/* no mapping */
	if (fbt_set_mgr(m.fd, 0x3a9))
		die("claim");

	ret = fbt_oneway(&u, 0, 7, &obj, sizeof(obj), &off, 1);
	CHECK(ret == 0, "oneway from an unmapped context: %s", strerror(-ret));
	ret = fbt_try_next(&m, &r);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_TRANSACTION && r.msg.offsets_count == 1,
	      "manager did not get the oneway with one object: %s %s",
	      strerror(-ret), fbt_ret_name(r.cmd));
	if (ret == 0 && r.cmd == FBINDER_RET_TRANSACTION && r.msg.offsets_count == 1) {
		const struct fbinder_object *o = fbt_obj(&m, &r.msg, 0);

		CHECK(o->type == FBINDER_OBJ_HANDLE && o->handle != 0,
		      "object arrived as type %u handle %u, want FBINDER_OBJ_HANDLE != 0",
		      o->type, o->handle);
		h = o->handle;
		CHECK(fbt_acquire(&m, h) == 0, "acquire %u", h);
		CHECK(fbt_free_buffer(&m, r.msg.data) == 0, "free");
	}
	if (h) {
		ret = fbt_oneway(&m, h, 1, NULL, 0, NULL, 0);
		CHECK(ret == -ESRCH, "oneway to an unmapped context's node: %s, want ESRCH",
		      strerror(-ret));
		ret = fbt_call(&m, h, 1, NULL, 0, NULL, 0, &e, NULL, NULL);
		CHECK(ret == -ESRCH, "call to an unmapped context's node: %s, want ESRCH",
		      strerror(-ret));
		CHECK(fbt_release(&m, h) == 0, "release %u", h);
	}

	/* u calls the manager without waiting (read_size 0), m replies. */
	fbt_w_reset(&w);
	fbt_w_send(&w, 0, 8, 0, NULL, 0, NULL, 0);
	ret = fbt_wr(&u, &w, NULL, false);
	CHECK(ret == 0, "call from an unmapped context: %s", strerror(-ret));
	ret = fbt_try_next(&m, &r);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_TRANSACTION && r.msg.code == 8,
	      "manager did not get the call: %s %s", strerror(-ret), fbt_ret_name(r.cmd));
	if (ret == 0 && r.cmd == FBINDER_RET_TRANSACTION) {
		ret = fbt_reply(&m, &r.msg, 0, "x", 1, NULL, 0);
		CHECK(ret == -ESRCH, "reply to an unmapped caller: %s, want ESRCH",
		      strerror(-ret));
		ret = fbt_try_next(&u, &e);
		CHECK(ret == 0 && e.cmd == FBINDER_RET_FAILED && e.err.error == -ESRCH &&
		      e.err.txn_id == r.msg.txn_id,
		      "caller got %s %s error %d txn %llu, want FBINDER_RET_FAILED -ESRCH txn %llu",
		      strerror(-ret), fbt_ret_name(e.cmd), e.err.error,
		      (unsigned long long)e.err.txn_id, (unsigned long long)r.msg.txn_id);
	}
	fbt_ctx_close(&u);
	fbt_ctx_close(&m);
	printf("# unmapped contexts: ESRCH\n");
}

int main(void)
{
	test_no_manager();
	test_claim_busy();
	test_no_mapping();
	return fbt_done();
}
