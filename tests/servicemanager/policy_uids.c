// SPDX-License-Identifier: MIT
/*
 * policy_uids.c - fb-servicemanager's policy file, with services running as
 * other uids: exact names, prefixes, any-uid rules, refusals, a reload on
 * SIGHUP, and a bad policy refused at start.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fbt_bl.h"
#include "fbt.h"
#include "fbt_sm.h"

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		die("write %s", path);
}

/* Registers name as uid; the service's pid is kept in *pids. */
static int add_as(const char *name, uid_t uid, pid_t **pids)
{
	int ret;
	pid_t pid = fbt_sm_service_start(name, uid, &ret);

	if (pid)
		*(*pids)++ = pid;
	return ret;
}

int main(void)
{
	static const char *const args[] = { "-p", "policy", NULL };
	pid_t pids[16], *next = pids, *p, mgr, bad;
	struct bl_context *ctx;
	struct stat st;
	int64_t t0;
	int ret;

	CHECK(stat(FBT_DEV, &st) == 0 && (st.st_mode & 0777) == 0666,
	      "the device is mode 0666: %o", st.st_mode & 0777);
	write_file("policy",
		   "# test policy\n"
		   "allow 0 *\n"
		   "allow 1000 app.*\n"
		   "allow * public.echo   # anyone\n");
	mgr = fbt_sm_manager_start(args);
	ctx = fbt_bl_open();

	CHECK(add_as("app.one", 1000, &next) == 0, "uid 1000: app.one");
	CHECK(add_as("system.clock", 1000, &next) == -EPERM,
	      "uid 1000: system.clock refused");
	CHECK(add_as("app", 1000, &next) == -EPERM,
	      "uid 1000: 'app' is not under the prefix 'app.'");
	CHECK(add_as("app.two", 1001, &next) == -EPERM,
	      "uid 1001: app.two refused");
	CHECK(add_as("public.echo", 1001, &next) == 0,
	      "uid 1001: public.echo (any uid)");
	CHECK(add_as("system.clock", 0, &next) == 0, "root: system.clock");

	/* lookups are open to all: uid 1000's service is there */
	{
		uint32_t h;

		ret = bl_sm_check(ctx, "app.one", &h);
		CHECK(ret == 0, "app.one registered: %d", ret);
		if (!ret)
			bl_handle_release(ctx, h);
	}

	/* SIGHUP reloads; a reload that fails keeps the old policy */
	write_file("policy", "allow 0 *\nallow 1001 app.*\n");
	kill(mgr, SIGHUP);
	t0 = fbt_now_ms();
	while ((ret = add_as("app.two", 1001, &next)) == -EPERM &&
	       fbt_now_ms() - t0 < 3000)
		usleep(20000);
	CHECK(ret == 0, "after SIGHUP, uid 1001 may add app.two: %d", ret);
	write_file("policy", "allow 0 *\nthis is not a rule\n");
	kill(mgr, SIGHUP);
	usleep(200 * 1000);
	CHECK(add_as("app.three", 1001, &next) == 0,
	      "a broken reload keeps the previous policy");
	CHECK(add_as("app.four", 1000, &next) == -EPERM,
	      "uid 1000 lost app.* with the first reload");

	CHECK(fbt_sm_manager_stop(mgr) == 0, "manager exits 0 on SIGTERM");

	/* a bad policy: refused at start with exit status 2 */
	write_file("bad", "allow 0 *\nallow everyone everything\n");
	bad = fork();
	if (!bad) {
		execlp("fb-servicemanager", "fb-servicemanager", "-p", "bad",
		       NULL);
		_exit(127);
	}
	CHECK(fbt_wait(bad) == 2, "a bad policy file: exit status 2");
	bad = fork();
	if (!bad) {
		execlp("fb-servicemanager", "fb-servicemanager", "-p",
		       "missing", NULL);
		_exit(127);
	}
	CHECK(fbt_wait(bad) == 2, "a missing policy file: exit status 2");

	for (p = pids; p < next; p++)
		fbt_bl_kill(*p);
	bl_context_close(ctx);
	return fbt_done();
}
