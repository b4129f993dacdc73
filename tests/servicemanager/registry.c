// SPDX-License-Identifier: MIT
/*
 * registry.c - fb-servicemanager: registration, lookup, list, waiting
 * for a name, duplicates refused, names dropped when their service dies,
 * one manager at a time, clean exit on SIGTERM.  The manager runs as root,
 * the clients and services as uid 65534.
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

/* The registered names, joined with ',' ("" when none); -errno. */
static int list_names(struct bl_context *ctx, char *buf, size_t size)
{
	char **names;
	size_t n, i;
	int ret = bl_sm_list(ctx, &names, &n);

	if (ret)
		return ret;
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			strncat(buf, ",", size - strlen(buf) - 1);
		strncat(buf, names[i], size - strlen(buf) - 1);
	}
	bl_sm_list_free(names, n);
	return 0;
}

/* A child that waits for "late" to appear, then calls it. */
static int waiter_main(void *arg)
{
	struct bl_context *ctx = fbt_bl_open();
	int64_t start = fbt_now_ms();
	int32_t v = 0;
	uint32_t h;
	int ret;

	(void)arg;
	ret = bl_sm_get(ctx, "late", 5000, &h);
	if (ret) {
		fprintf(stderr, "waiter: bl_sm_get: %s\n", strerror(-ret));
		return 1;
	}
	if (fbt_now_ms() - start < 250) {
		fprintf(stderr, "waiter: found 'late' before it was added\n");
		return 2;
	}
	ret = fbt_sm_call_add_one(ctx, h, 9, &v);
	bl_handle_release(ctx, h);
	bl_context_close(ctx);
	return ret || v != 10 ? 3 : 0;
}

/*
 * The manager is root's, as on a system: the client (uid 65534) asks the
 * root parent to start a second one or to stop it, over a pair of pipes.
 */
enum { ASK_SECOND = 's', ASK_STOP = 't' };
static int ask_pipe[2], answer_pipe[2];

static int ask_root(char what)
{
	int st = -1;

	if (write(ask_pipe[1], &what, 1) != 1 ||
	    read(answer_pipe[0], &st, sizeof(st)) != sizeof(st))
		die("ask the root parent");
	return st;
}

static void serve_asks(pid_t mgr)
{
	pid_t second;
	char what;
	int st;

	while (read(ask_pipe[0], &what, 1) == 1) {
		if (what == ASK_STOP) {
			st = fbt_sm_manager_stop(mgr);
		} else {
			second = fork();
			if (!second) {
				execlp("fb-servicemanager", "fb-servicemanager", NULL);
				_exit(127);
			}
			st = fbt_wait(second);
		}
		if (write(answer_pipe[1], &st, sizeof(st)) != sizeof(st))
			die("answer the client");
	}
}

static int client(void *arg)
{
	struct bl_context *ctx;
	pid_t a, b, c, d, late, waiter;
	uint32_t h, h2;
	int32_t v = 0;
	char names[512];
	int64_t t0;
	int ret;

	(void)arg;
	fbt_become_nobody();
	close(ask_pipe[0]);
	close(answer_pipe[1]);
	ctx = fbt_bl_open();

	CHECK(list_names(ctx, names, sizeof(names)) == 0 && !names[0],
	      "a new manager lists nothing: '%s'", names);

	/* add, check, call */
	a = fbt_sm_service_start("echo.one", 0, &ret);
	CHECK(ret == 0, "add echo.one: %d", ret);
	ret = bl_sm_check(ctx, "echo.one", &h);
	CHECK(ret == 0, "check echo.one: %d", ret);
	if (!ret) {
		CHECK(fbt_sm_call_add_one(ctx, h, 41, &v) == 0 && v == 42,
		      "call through the looked-up handle: %d", v);
	}
	b = fbt_sm_service_start("alpha", 0, &ret);
	CHECK(ret == 0, "add alpha: %d", ret);
	CHECK(list_names(ctx, names, sizeof(names)) == 0 &&
	      !strcmp(names, "alpha,echo.one"), "list, sorted: '%s'", names);

	/* a name held by a live service is refused */
	c = fbt_sm_service_start("echo.one", 0, &ret);
	CHECK(ret == -EEXIST && !c, "second echo.one refused: %d", ret);

	/* names the library refuses before asking */
	CHECK(bl_sm_check(ctx, "bad name", &h2) == -EINVAL, "bad name");
	CHECK(bl_sm_check(ctx, "", &h2) == -EINVAL, "empty name");

	/* check does not wait; get waits a bounded time */
	CHECK(bl_sm_check(ctx, "nope", &h2) == -ENOENT, "check nope");
	t0 = fbt_now_ms();
	CHECK(bl_sm_get(ctx, "nope", 200, &h2) == -ETIMEDOUT,
	      "get nope times out");
	CHECK(fbt_now_ms() - t0 >= 200 && fbt_now_ms() - t0 < 2000,
	      "after 200 ms: %lld", (long long)(fbt_now_ms() - t0));

	/* wait-for-name completes when the service appears */
	waiter = fbt_fork(waiter_main, NULL);
	usleep(300 * 1000);
	late = fbt_sm_service_start("late", 0, &ret);
	CHECK(ret == 0, "add late: %d", ret);
	CHECK(fbt_wait(waiter) == 0, "the waiter found 'late' and called it");

	/* the name leaves when its service dies */
	fbt_bl_kill(a);
	t0 = fbt_now_ms();
	while ((ret = bl_sm_check(ctx, "echo.one", &h2)) == 0 &&
	       fbt_now_ms() - t0 < 3000) {
		bl_handle_release(ctx, h2);
		usleep(5000);
	}
	CHECK(ret == -ENOENT, "echo.one dropped after kill -9: %d", ret);
	CHECK(list_names(ctx, names, sizeof(names)) == 0 &&
	      !strcmp(names, "alpha,late"), "list after the death: '%s'",
	      names);
	CHECK(fbt_sm_call_add_one(ctx, h, 1, &v) == -EOWNERDEAD,
	      "the old handle reports the death");
	bl_handle_release(ctx, h);

	/* and may be taken again */
	d = fbt_sm_service_start("echo.one", 0, &ret);
	CHECK(ret == 0, "echo.one registered again: %d", ret);
	ret = bl_sm_get(ctx, "echo.one", 1000, &h);
	CHECK(ret == 0, "get the new echo.one: %d", ret);
	if (!ret) {
		CHECK(fbt_sm_call_add_one(ctx, h, 1, &v) == 0 && v == 2,
		      "the new echo.one answers");
		bl_handle_release(ctx, h);
	}

	/* one manager at a time */
	CHECK(ask_root(ASK_SECOND) == 1, "a second manager exits with 1");
	CHECK(bl_sm_check(ctx, "alpha", &h2) == 0,
	      "the first manager still answers");
	bl_handle_release(ctx, h2);

	/* SIGTERM: a clean exit, and handle 0 is gone */
	CHECK(ask_root(ASK_STOP) == 0, "manager exits 0 on SIGTERM");
	CHECK(bl_sm_check(ctx, "alpha", &h2) == -EHOSTDOWN,
	      "no manager: lookups fail with EHOSTDOWN");
	CHECK(list_names(ctx, names, sizeof(names)) == -EHOSTDOWN,
	      "no manager: list fails with EHOSTDOWN");
	CHECK(bl_sm_get(ctx, "alpha", 200, &h2) == -ETIMEDOUT,
	      "no manager: a bounded wait times out");

	fbt_bl_kill(b);
	fbt_bl_kill(late);
	fbt_bl_kill(d);
	bl_context_close(ctx);
	return fbt_done();
}

int main(void)
{
	pid_t mgr, cl;
	int st;

	if (pipe(ask_pipe) || pipe(answer_pipe))
		die("pipe");
	mgr = fbt_sm_manager_start(NULL);
	cl = fbt_fork(client, NULL);
	close(ask_pipe[1]);
	close(answer_pipe[0]);
	serve_asks(mgr);
	st = fbt_wait(cl);
	CHECK(st == 0, "the clients and services, as uid 65534: status %d", st);
	if (waitpid(mgr, NULL, WNOHANG) == 0)
		fbt_sm_manager_stop(mgr);
	return fbt_done();
}
