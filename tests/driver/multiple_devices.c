// SPDX-License-Identifier: MIT
/*
 * multiple_devices: the module parameter devices= makes several independent devices.
 *
 * Reloads the module (so it must run with no context open, as every VM test
 * does): invalid lists (an empty name, "a/b", a name of 32 characters, a name
 * given twice) fail insmod with EINVAL or EEXIST, leave no module, no device
 * node and nothing in the kernel log.  devices=fastbinder,fbtwo makes two misc
 * devices, each its own world: its own context manager (claimed on both,
 * a second claim on one is EBUSY, handle 0 reaches the manager of the
 * context's own device only), debugfs state lists both, a handle number of
 * one means nothing on the other, a descriptor of one cannot travel in a
 * message of the other, and the death of one manager leaves the other.
 * Finally the default module is loaded again, as the suite expects.
 */
#include "fbt_proto.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define KO		"/fb/fastbinder.ko"
#define DEV2		"/dev/fbtwo"
#define COOKIE1		0xd1ULL
#define COOKIE2		0xd2ULL

static bool module_loaded(void)
{
	char *m = fbt_slurp("/proc/modules");
	bool loaded = m && (!strncmp(m, "fastbinder ", 11) || strstr(m, "\nfastbinder "));

	free(m);
	return loaded;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Whatever happened, leave the default module loaded for the suite. */
static void restore_default(void)
{
	if (exists(DEV2) || !module_loaded() || !exists(FBT_DEV)) {
		fbt_run("rmmod fastbinder", NULL, 0);
		fbt_run("insmod " KO, NULL, 0);
	}
}

/*
 * Kernel log lines since the last call (the first call returns "").  A mark
 * written to /dev/kmsg separates the calls, so the log itself stays whole
 * for the suite's own check.
 */
static char *new_dmesg(void)
{
	static char buf[256 * 1024];
	static int mark;
	char tag[64], *p = NULL, *q;
	FILE *k;

	if (mark) {
		fbt_run("dmesg", buf, sizeof(buf));
		snprintf(tag, sizeof(tag), "devices-test mark %d\n", mark);
		for (q = strstr(buf, tag); q; q = strstr(q + 1, tag))
			p = q + strlen(tag);
	}
	k = fopen("/dev/kmsg", "w");
	if (!k)
		die("/dev/kmsg");
	fprintf(k, "<5>devices-test mark %d\n", ++mark);
	fclose(k);
	return p ? p : (char *)"";
}

static void test_bad_params(void)
{
	static const struct {
		const char *arg;
		const char *err;	/* busybox insmod prints strerror */
	} bad[] = {
		{ "devices=", "Invalid argument" },
		{ "devices=fastbinder,", "Invalid argument" },
		{ "devices=fbx,,fby", "Invalid argument" },
		{ "devices=fb/x", "Invalid argument" },
		{ "devices=fb012345678901234567890123456789", "Invalid argument" },	/* 32 */
		{ "devices=fbx,fby,fbx", "File exists" },
	};
	char cmd[128], out[1024], *log;
	unsigned int i;
	int st;

	new_dmesg();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), "insmod " KO " %s", bad[i].arg);
		st = fbt_run(cmd, out, sizeof(out));
		CHECK(st != 0 && strstr(out, bad[i].err),
		      "insmod %s: status %d, output \"%s\", want a failure with \"%s\"", bad[i].arg,
		      st, out, bad[i].err);
		CHECK(!module_loaded(), "module loaded after insmod %s", bad[i].arg);
		if (module_loaded())
			fbt_run("rmmod fastbinder", NULL, 0);
		CHECK(!exists("/dev/fbx") && !exists("/dev/fby") && !exists(FBT_DEV),
		      "a device node is left after insmod %s", bad[i].arg);
		log = new_dmesg();
		CHECK(!strstr(log, "Call Trace") && !strstr(log, "duplicate") &&
		      !strstr(log, "WARNING"),
		      "insmod %s left this in the kernel log:\n%s", bad[i].arg, log);
	}
	printf("# %u invalid devices= lists fail insmod cleanly\n", i);

	/* 31 characters is the longest name. */
	st = fbt_run("insmod " KO " devices=fb01234567890123456789012345678", out, sizeof(out));
	CHECK(st == 0 && exists("/dev/fb01234567890123456789012345678"),
	      "insmod with a name of 31 characters: status %d %s", st, out);
	if (!st)
		CHECK(fbt_run("rmmod fastbinder", out, sizeof(out)) == 0, "rmmod: %s", out);
}

static int send_to(struct fbt_ctx *p, __u32 handle, const char *text)
{
	return fbt_oneway(p, handle, 1, text, strlen(text), NULL, 0);
}

/* The next message on p: a oneway with this text for this cookie. */
static void expect_msg(struct fbt_ctx *p, __u64 cookie, const char *text, const char *who)
{
	struct fbt_ret r;
	int ret = fbt_try_next(p, &r);

	CHECK(ret == 0 && r.cmd == FBINDER_RET_TRANSACTION && r.msg.cookie == cookie &&
	      r.msg.data_size == strlen(text) && !memcmp(fbt_data(p, &r.msg), text, strlen(text)),
	      "%s: %s %s cookie 0x%llx, want \"%s\" for 0x%llx", who, strerror(-ret),
	      fbt_ret_name(r.cmd), (unsigned long long)r.msg.cookie, text,
	      (unsigned long long)cookie);
	if (ret == 0 && r.cmd == FBINDER_RET_TRANSACTION)
		fbt_free_buffer(p, r.msg.data);
}

static void expect_nothing(struct fbt_ctx *p, const char *who)
{
	struct fbt_ret r;
	int ret = fbt_try_next(p, &r);

	CHECK(ret == -EAGAIN, "%s: %s %s, want nothing", who, strerror(-ret), fbt_ret_name(r.cmd));
}

/* Open p on path and map it. */
static void open_on(struct fbt_ctx *p, const char *path)
{
	void *m;

	memset(p, 0, sizeof(*p));
	p->fd = open(path, O_RDWR | O_CLOEXEC);
	if (p->fd < 0)
		die("open %s", path);
	m = mmap(NULL, MB, PROT_READ, MAP_PRIVATE, p->fd, 0);
	if (m == MAP_FAILED)
		die("mmap %s", path);
	p->map = m;
	p->map_size = MB;
}

static void test_two_devices(void)
{
	static struct fbt_ctx m1, m2, c1, c2, x2;
	struct stat s1, s2;
	struct fbinder_object obj;
	__u64 off = 0;
	__u32 hx = 0;
	char *s, *p;
	int ret;

	CHECK(stat(FBT_DEV, &s1) == 0 && stat(DEV2, &s2) == 0, "nodes %s and %s: %s", FBT_DEV,
	      DEV2, strerror(errno));
	CHECK(S_ISCHR(s1.st_mode) && S_ISCHR(s2.st_mode) && s1.st_rdev != s2.st_rdev &&
	      major(s1.st_rdev) == 10 && major(s2.st_rdev) == 10,
	      "want two misc character devices: %u:%u and %u:%u", major(s1.st_rdev),
	      minor(s1.st_rdev), major(s2.st_rdev), minor(s2.st_rdev));
	CHECK((s1.st_mode & 0777) == 0666 && (s2.st_mode & 0777) == 0666, "modes %o and %o",
	      s1.st_mode & 0777, s2.st_mode & 0777);
	s = fbt_slurp("/sys/module/fastbinder/parameters/devices");
	CHECK(s && !strcmp(s, "fastbinder,fbtwo\n"), "parameter devices reads \"%s\"", s);
	free(s);

	open_on(&m1, FBT_DEV);
	open_on(&c1, FBT_DEV);
	open_on(&m2, DEV2);
	open_on(&c2, DEV2);
	open_on(&x2, DEV2);

	/* Each device has its own handle 0. */
	ret = send_to(&c1, 0, "nobody");
	CHECK(ret == -ENOENT, "handle 0 on %s before any claim: %s, want ENOENT", FBT_DEV,
	      strerror(-ret));
	CHECK(fbt_set_mgr(m2.fd, COOKIE2) == 0, "claim on %s", DEV2);
	ret = send_to(&c1, 0, "nobody");
	CHECK(ret == -ENOENT, "handle 0 on %s with a manager on %s only: %s, want ENOENT",
	      FBT_DEV, DEV2, strerror(-ret));
	/* it takes descriptors: the one of the other device must be refused for itself */
	ret = fbt_set_mgr_flags(m1.fd, COOKIE1, FBINDER_OBJF_ACCEPTS_FDS);
	CHECK(ret == 0, "claim on %s with a manager on %s: %s, want success", FBT_DEV, DEV2,
	      strerror(-ret));
	ret = fbt_set_mgr(x2.fd, 0xbad);
	CHECK(ret == -EBUSY, "second claim on %s: %s, want EBUSY", DEV2, strerror(-ret));

	CHECK(send_to(&c1, 0, "to one") == 0 && send_to(&c2, 0, "to two") == 0, "sends");
	expect_msg(&m1, COOKIE1, "to one", "manager of " FBT_DEV);
	expect_msg(&m2, COOKIE2, "to two", "manager of " DEV2);
	expect_nothing(&m1, "manager of " FBT_DEV " after its one message");
	expect_nothing(&m2, "manager of " DEV2 " after its one message");

	s = fbt_slurp(FBT_DEBUGFS "/state");
	CHECK(s && strstr(s, "device fastbinder context-manager node ") &&
	      strstr(s, "device fbtwo context-manager node "),
	      "debugfs state does not list both devices:\n%s", s ? s : "(unreadable)");
	if (s && (p = strstr(s, "device fbtwo context-manager node ")))
		CHECK(strtoull(p + 34, NULL, 10) != 0, "fbtwo's manager node is 0 in state");
	free(s);

	/* c2 gives m2 an object: a handle of m2 on fbtwo. */
	obj = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL, .cookie = 0xc2 };
	CHECK(fbt_oneway(&c2, 0, 2, &obj, sizeof(obj), &off, 1) == 0, "c2 sends an object");
	{
		struct fbt_ret r;

		ret = fbt_try_next(&m2, &r);
		CHECK(ret == 0 && r.cmd == FBINDER_RET_TRANSACTION && r.msg.offsets_count == 1,
		      "m2: %s %s", strerror(-ret), fbt_ret_name(r.cmd));
		if (ret == 0 && r.cmd == FBINDER_RET_TRANSACTION) {
			hx = fbt_obj(&m2, &r.msg, 0)->handle;
			CHECK(fbt_acquire(&m2, hx) == 0, "m2: acquire");
			fbt_free_buffer(&m2, r.msg.data);
		}
	}
	CHECK(hx != 0 && send_to(&m2, hx, "back") == 0, "m2 -> c2 through handle %u", hx);
	expect_msg(&c2, 0xc2, "back", "c2");
	/* The same number means nothing on the other device... */
	ret = send_to(&m1, hx, "cross");
	CHECK(ret == -ENOENT, "handle %u of %s used on %s: %s, want ENOENT", hx, DEV2, FBT_DEV,
	      strerror(-ret));
	obj = (struct fbinder_object){ .type = FBINDER_OBJ_HANDLE, .handle = hx };
	ret = fbt_oneway(&c1, 0, 2, &obj, sizeof(obj), &off, 1);
	CHECK(ret == -ENOENT,
	      "handle %u of %s as an object on %s: %s, want ENOENT", hx, DEV2, FBT_DEV,
	      strerror(-ret));
	/* ...and a descriptor of one device cannot travel on the other. */
	obj = (struct fbinder_object){ .type = FBINDER_OBJ_FD, .fd = c2.fd };
	ret = fbt_oneway(&c1, 0, 2, &obj, sizeof(obj), &off, 1);
	CHECK(ret == -EINVAL, "descriptor of %s in a message on %s: %s, want EINVAL", DEV2,
	      FBT_DEV, strerror(-ret));
	expect_nothing(&m1, "manager of " FBT_DEV " after refused sends");

	/* fbtwo's manager dies; fastbinder's stays. */
	fbt_ctx_close(&m2);
	ret = send_to(&c2, 0, "gone");
	CHECK(ret == -ENOENT, "handle 0 on %s after its manager closed: %s, want ENOENT", DEV2,
	      strerror(-ret));
	CHECK(send_to(&c1, 0, "still") == 0, "handle 0 on %s after %s's manager closed", FBT_DEV,
	      DEV2);
	expect_msg(&m1, COOKIE1, "still", "manager of " FBT_DEV);
	CHECK(fbt_set_mgr(x2.fd, 0x3) == 0, "new claim on %s", DEV2);

	fbt_ctx_close(&x2);
	fbt_ctx_close(&c2);
	fbt_ctx_close(&c1);
	fbt_ctx_close(&m1);
	CHECK(fbt_wait_live_zero(3000) == 0, "live counts did not return to zero");
	printf("# two devices, two worlds\n");
}

int main(void)
{
	char out[1024];
	int st;

	alarm(50);
	if (!exists(KO))
		die(KO);
	atexit(restore_default);

	st = fbt_run("rmmod fastbinder", out, sizeof(out));
	if (st)
		die("rmmod fastbinder: %s", out);
	CHECK(!exists(FBT_DEV), "%s still there after rmmod", FBT_DEV);

	test_bad_params();

	st = fbt_run("insmod " KO " devices=fastbinder,fbtwo", out, sizeof(out));
	CHECK(st == 0, "insmod devices=fastbinder,fbtwo: %s", out);
	if (!st) {
		char *misc = fbt_slurp("/proc/misc");

		CHECK(misc && strstr(misc, " fastbinder\n") && strstr(misc, " fbtwo\n"),
		      "/proc/misc lacks a device:\n%s", misc ? misc : "");
		free(misc);
		test_two_devices();
	}

	st = fbt_run("rmmod fastbinder", out, sizeof(out));
	CHECK(st == 0, "rmmod of the two-device module: %s", out);
	CHECK(!exists(DEV2) && !exists(FBT_DEV), "device nodes left after rmmod");
	st = fbt_run("insmod " KO, out, sizeof(out));
	CHECK(st == 0, "insmod of the default module: %s", out);
	CHECK(exists(FBT_DEV) && !exists(DEV2), "default module: want %s only", FBT_DEV);
	{
		char *s = fbt_slurp("/sys/module/fastbinder/parameters/devices");

		CHECK(s && !strcmp(s, "fastbinder\n"), "parameter devices reads \"%s\"", s);
		free(s);
	}
	return fbt_done();
}
