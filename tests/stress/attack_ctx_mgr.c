// SPDX-License-Identifier: MIT
/*
 * attack_ctx_mgr: handle 0 belongs to a privileged, configured claimant, and
 * a client can check who answers on it (docs/security.md, G4).
 *
 * The attacks, each from a child that dropped every privilege:
 *  - uid 65534 claims handle 0 with no manager running: EPERM, and the
 *    device still has no manager (a send to handle 0 is ENOENT);
 *  - the same from a user namespace of its own, where it is "root" with
 *    every capability of that namespace: EPERM;
 *  - uid 65534 claims while a root manager runs, and again after it exited:
 *    EPERM both times (not EBUSY: privilege is checked first), while root
 *    may claim again;
 *  - with the module loaded with manager_uid=4242: uid 65534 is refused,
 *    uid 4242 claims with no capability at all; once it did, that euid is
 *    pinned on the device: root is refused too, and only 4242 claims again
 *    after its manager exited;
 *  - a service-manager impostor (uid 4242, claimed as the configured
 *    manager) answers lookups: libbinderlite's service-manager client, which
 *    expects root by default, refuses it with -EACCES, and accepts it only
 *    when told to (bl_sm_set_manager_uid(), or FBINDER_MANAGER_UID in the
 *    environment when the context is opened; not a malformed one).
 *
 * Root (VM_ROOT_TESTS): it reloads the module with a parameter, as
 * tests/driver/multiple_devices.c does, and reads the live counts in debugfs.  The
 * default module is loaded again at the end, as the suite expects.
 */
#define _GNU_SOURCE
#include "fbt_bl.h"
#include "fbt_proto.h"

#include <grp.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define KO		"/fb/fastbinder.ko"
#define MGR_UID		4242	/* the configured manager_uid */
#define COOKIE		0xc7a1ULL

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Loads the module again with these parameters ("" for none). */
static void reload(const char *params)
{
	char cmd[256], out[1024];
	int st;

	CHECK(fbt_wait_live_zero(5000) == 0, "live counts before rmmod");
	st = fbt_run("rmmod fastbinder", out, sizeof(out));
	if (st)
		die("rmmod fastbinder: %s", out);
	snprintf(cmd, sizeof(cmd), "insmod " KO " %s", params);
	st = fbt_run(cmd, out, sizeof(out));
	if (st || !exists(FBT_DEV))
		die("%s: %s", cmd, out);
	printf("# module loaded again: %s\n", *params ? params : "(no parameters)");
}

/* Whatever happened, leave the default module loaded for the suite. */
static void restore_default(void)
{
	char *p = fbt_slurp("/sys/module/fastbinder/parameters/manager_uid");

	if (!exists(FBT_DEV) || (p && strcmp(p, "-1\n"))) {
		fbt_run("rmmod fastbinder", NULL, 0);
		fbt_run("insmod " KO, NULL, 0);
	}
	free(p);
}

/* uid 65534 as fbt_become_nobody() makes it; any other uid the same way. */
static void become(uid_t uid)
{
	if (uid == FBT_NOBODY_UID) {
		fbt_become_nobody();
		return;
	}
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
		die("drop to uid %u", (unsigned int)uid);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("PR_SET_NO_NEW_PRIVS");
	if (geteuid() != uid)
		die("still euid %u", (unsigned int)geteuid());
}

struct claim {
	uid_t uid;		/* 0: stay root */
	bool userns;		/* claim from a user namespace of its own */
	int want;		/* 0 or -errno */
	const char *what;
	bool running;		/* a manager runs: handle 0 answers */
};

static bool mgr_running;

/* A child: drop to c->uid, open a context, claim handle 0, then let go. */
static int claim_child(void *arg)
{
	const struct claim *c = arg;
	char byte = 0;
	struct fbt_ctx p;
	int ret;

	fbt_failures = 0;	/* not the parent's */
	if (c->uid)
		become(c->uid);
	if (c->userns) {
		if (unshare(CLONE_NEWUSER)) {
			printf("# %s: no user namespace here (%s)\n", c->what,
			       strerror(errno));
			return FBT_SKIP;
		}
	}
	fbt_ctx_open(&p, MB);
	ret = fbt_set_mgr(p.fd, COOKIE);
	CHECK(ret == c->want, "%s (euid %u): claim %s, want %s", c->what,
	      (unsigned int)geteuid(), ret ? strerror(-ret) : "succeeded",
	      c->want ? strerror(-c->want) : "success");
	if (c->want && !c->running) {
		/* a refused claim leaves no manager behind */
		ret = fbt_oneway(&p, FBINDER_CONTEXT_MGR_HANDLE, 1, &byte, 1, NULL, 0);
		CHECK(ret == -ENOENT, "%s: handle 0 after the refused claim: %s, want ENOENT",
		      c->what, ret ? strerror(-ret) : "a manager answers");
	}
	fbt_ctx_close(&p);
	return fbt_child_status();
}

static void claim(uid_t uid, bool userns, int want, const char *what)
{
	struct claim c = { uid, userns, want, what, mgr_running };
	int st = fbt_wait(fbt_fork(claim_child, &c));

	if (st == FBT_SKIP) {
		fbt_skip("%s: not checked", what);
		return;
	}
	CHECK(st == 0, "%s: child status %d", what, st);
	if (!st)
		printf("# %s: %s\n", what, want ? strerror(-want) : "claimed");
}

/* A raw manager that claims as root and waits to be killed. */
static int idle_manager(struct fbt_ctx *p, void *arg)
{
	(void)p;
	(void)arg;
	for (;;)
		pause();
	return 0;
}

/* ---- the impostor: a service manager that answers as uid MGR_UID ---- */

static int32_t impostor_handler(struct bl_object *obj, uint32_t code,
				struct bl_reader *req, struct bl_parcel *reply,
				const struct bl_call_info *info)
{
	int ret;

	(void)obj;
	(void)req;
	(void)info;
	if (code != BL_SM_LIST)
		return -ENOENT;
	ret = bl_parcel_write_u32(reply, 1);
	if (!ret)
		ret = bl_parcel_write_string(reply, "evil.directory");
	return ret;
}

static int impostor_main(void *arg)
{
	int ready = (int)(intptr_t)arg;
	struct bl_context *ctx;
	struct bl_object *obj;
	int ret;

	fbt_failures = 0;
	become(MGR_UID);
	ret = bl_context_open(NULL, 0, &ctx);
	if (!ret)
		ret = bl_object_new(ctx, impostor_handler, NULL, NULL, &obj);
	if (!ret) {
		ret = bl_context_become_manager(ctx, obj);
		bl_object_unref(obj);
	}
	if (write(ready, &ret, sizeof(ret)) != sizeof(ret) || ret)
		return 1;
	close(ready);
	bl_loop(ctx);
	return 0;
}

/* bl_sm_list() on ctx: its result, and the one name the impostor lists. */
static int list_one(struct bl_context *ctx, const char *want)
{
	char **names;
	size_t n;
	int ret = bl_sm_list(ctx, &names, &n);

	if (!ret) {
		CHECK(n == 1 && !strcmp(names[0], want), "the list has %zu names", n);
		bl_sm_list_free(names, n);
	}
	return ret;
}

/* A lookup client as uid 65534: who answers on handle 0 is checked. */
static int client_main(void *arg)
{
	struct bl_context *ctx;
	uint32_t h;
	int ret;

	(void)arg;
	fbt_failures = 0;
	fbt_become_nobody();
	ctx = fbt_bl_open();
	ret = list_one(ctx, "evil.directory");
	CHECK(ret == -EACCES, "bl_sm_list answered by euid %d, expecting root: %s, want EACCES",
	      MGR_UID, ret ? strerror(-ret) : "accepted");
	ret = bl_sm_check(ctx, "anything", &h);
	CHECK(ret == -EACCES, "bl_sm_check answered by euid %d: %s, want EACCES", MGR_UID,
	      strerror(-ret));
	CHECK(bl_sm_set_manager_uid(ctx, UINT32_MAX) == -EINVAL, "manager uid -1 is EINVAL");
	CHECK(bl_sm_set_manager_uid(ctx, MGR_UID) == 0, "bl_sm_set_manager_uid");
	ret = list_one(ctx, "evil.directory");
	CHECK(ret == 0, "bl_sm_list, told to expect euid %d: %s", MGR_UID, strerror(-ret));
	bl_context_close(ctx);

	/* the same through the environment, read when a context opens */
	setenv("FBINDER_MANAGER_UID", "4242", 1);
	ctx = fbt_bl_open();
	ret = list_one(ctx, "evil.directory");
	CHECK(ret == 0, "bl_sm_list with FBINDER_MANAGER_UID=4242: %s", strerror(-ret));
	bl_context_close(ctx);
	setenv("FBINDER_MANAGER_UID", "42x", 1);
	ctx = fbt_bl_open();
	ret = list_one(ctx, "evil.directory");
	CHECK(ret == -EACCES, "FBINDER_MANAGER_UID=42x is not a uid (root stays expected): %s",
	      ret ? strerror(-ret) : "accepted");
	bl_context_close(ctx);
	return fbt_child_status();
}

static void test_impostor(void)
{
	int pfd[2], ret = -1;
	pid_t imp;

	if (pipe(pfd))
		die("pipe");
	imp = fbt_fork(impostor_main, (void *)(intptr_t)pfd[1]);
	close(pfd[1]);
	if (read(pfd[0], &ret, sizeof(ret)) != sizeof(ret))
		ret = -EPIPE;
	close(pfd[0]);
	CHECK(ret == 0, "uid %d could not become the manager: %s", MGR_UID, strerror(-ret));
	if (!ret) {
		ret = fbt_wait(fbt_fork(client_main, NULL));
		CHECK(ret == 0, "lookup client");
		if (!ret)
			printf("# the library refuses a manager that is not root, unless told\n");
	}
	kill(imp, SIGKILL);
	fbt_wait(imp);
}

int main(void)
{
	pid_t m;

	alarm(50);
	if (geteuid() != 0)
		die("attack_ctx_mgr must start as root (VM_ROOT_TESTS)");
	if (!exists(KO))
		die(KO);
	atexit(restore_default);

	/* The suite's module: root is the only one who may claim. */
	claim(FBT_NOBODY_UID, false, -EPERM, "uid 65534, no manager");
	claim(FBT_NOBODY_UID, true, -EPERM, "uid 65534, root of its own user namespace");
	m = fbt_spawn_manager(MB, COOKIE, idle_manager, NULL);
	mgr_running = true;
	claim(FBT_NOBODY_UID, false, -EPERM, "uid 65534 while a root manager runs");
	claim(0, false, -EBUSY, "root while a root manager runs");
	kill(m, SIGKILL);
	fbt_wait(m);
	mgr_running = false;
	claim(FBT_NOBODY_UID, false, -EPERM, "uid 65534 after the root manager exited");
	claim(0, false, 0, "root after the root manager exited");

	/* A configured manager uid, on a fresh module (nothing pinned yet). */
	reload("manager_uid=4242");
	claim(FBT_NOBODY_UID, false, -EPERM, "uid 65534 with manager_uid=4242");
	test_impostor();
	claim(0, false, -EPERM, "root after uid 4242's manager exited (4242 pinned)");
	claim(FBT_NOBODY_UID, false, -EPERM, "uid 65534 after uid 4242's manager exited");
	claim(MGR_UID, false, 0, "uid 4242 again");

	reload("");
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts back to zero");
	return fbt_done();
}
