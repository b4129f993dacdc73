// SPDX-License-Identifier: MIT
/*
 * fbstat_unprivileged: fbstat for an unprivileged user, without debugfs.
 * Root starts a manager and keeps a context; everything else runs as uid
 * 65534 in a mount namespace where debugfs is unmounted: "fbstat -N"
 * exits 0, lists the user's own process (a holder of a context) and
 * neither root's process nor the manager, and says the debugfs sections
 * are left out; asking for one of them by name exits 1; "--json" has the
 * holder's context and the counters; "--top" shows the rates; "--follow"
 * prints the user's own failure as it happens, and not root's earlier one.
 */
#define _GNU_SOURCE
#include "fbt_proto.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define CODE_ROOT	0x5eed0001u
#define CODE_USER	0x5eed0002u
#define OUT		"/tmp/fbstat_unprivileged.out"

/* Serves until killed. */
static int m_main(struct fbt_ctx *p, void *arg)
{
	struct fbt_ret r;

	(void)arg;
	alarm(60);
	while (fbt_next(p, &r) == 0)
		if (r.cmd == FBINDER_RET_TRANSACTION && !(r.msg.flags & FBINDER_TXN_ONEWAY))
			fbt_reply(p, &r.msg, 0, NULL, 0, NULL, 0);
	return 0;
}

/* uid 65534 holding a context until killed. */
static int holder(void *arg)
{
	struct fbt_ctx p;

	(void)arg;
	fbt_become_nobody();
	fbt_ctx_open(&p, MB);
	pause();
	return 0;
}

/* uid 65534: one failed send. */
static int failer(void *arg)
{
	struct fbt_ctx p;
	int ret;

	(void)arg;
	fbt_become_nobody();
	fbt_ctx_open(&p, MB);
	ret = fbt_oneway(&p, 777, CODE_USER, NULL, 0, NULL, 0);
	fbt_ctx_close(&p);
	return ret == -ENOENT ? 0 : 1;
}

/*
 * Runs fbstat with args as uid 65534, without debugfs (its own mount
 * namespace), output in OUT; returns its exit status.  With background,
 * returns its pid at once instead.
 */
static int fbstat(const char *args, bool background)
{
	char cmd[512];
	pid_t pid;
	int fd;

	snprintf(cmd, sizeof(cmd), "fbstat %s", args);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			die("a mount namespace");
		umount2("/sys/kernel/debug", MNT_DETACH);	/* tracefs inside too */
		fd = open(OUT, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			die("redirect to " OUT);
		fbt_become_nobody();
		if (!access("/sys/kernel/debug/fastbinder", F_OK))
			die("debugfs still there");
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		die("exec");
	}
	return background ? pid : fbt_wait(pid);
}

static bool has_pid_row(const char *out, pid_t pid)
{
	char needle[32];

	/* the CONTEXTS table: DEVICE PID COMMAND ... */
	snprintf(needle, sizeof(needle), "  %-12s %7d ", "fastbinder", (int)pid);
	return strstr(out, needle) != NULL;
}

int main(void)
{
	char *out, needle[128];
	pid_t m, h, f, w;
	struct fbt_ctx root;
	int rc;

	alarm(60);
	m = fbt_spawn_manager(MB, 0x5e, m_main, NULL);
	fbt_ctx_open(&root, MB);
	h = fbt_fork(holder, NULL);
	usleep(200 * 1000);

	rc = fbstat("-N", false);
	out = fbt_slurp(OUT);
	printf("%s", out ? out : "");
	CHECK(rc == 0, "fbstat -N as 65534 without debugfs: exit %d", rc);
	CHECK(out && has_pid_row(out, h), "the user's own process %d is not listed", h);
	CHECK(out && !has_pid_row(out, getpid()) && !has_pid_row(out, m),
	      "root's processes (%d, manager %d) are listed to uid 65534", getpid(), m);
	CHECK(out && strstr(out, "come from debugfs"), "no word on the debugfs sections");
	free(out);

	rc = fbstat("-N threads", false);
	out = fbt_slurp(OUT);
	CHECK(rc == 1 && out && strstr(out, "debugfs"),
	      "fbstat threads without debugfs: exit %d, %s", rc, out ? out : "");
	free(out);

	rc = fbstat("--json", false);
	out = fbt_slurp(OUT);
	snprintf(needle, sizeof(needle), "{\"device\":\"fastbinder\",\"pid\":%d,", (int)h);
	CHECK(rc == 0 && out && out[0] == '{' && strstr(out, needle) &&
	      strstr(out, "\"counters\":{\"live_contexts\":") && !strstr(out, "\"pid\":1,"),
	      "fbstat --json: exit %d, %s", rc, out ? out : "");
	free(out);

	rc = fbstat("--top 0.2 -c 2 -N", false);
	out = fbt_slurp(OUT);
	CHECK(rc == 0 && out && strstr(out, "CALLS/s") && strstr(out, "RECV/s"),
	      "fbstat --top -c 2: exit %d", rc);
	free(out);

	/* --follow: root's failure before it started, then the user's */
	CHECK(fbt_oneway(&root, 777, CODE_ROOT, NULL, 0, NULL, 0) == -ENOENT, "root's bad send");
	w = fbstat("--follow -c 1 --json", true);
	usleep(500 * 1000);
	CHECK(fbt_oneway(&root, 777, CODE_ROOT, NULL, 0, NULL, 0) == -ENOENT, "root's bad send");
	f = fbt_fork(failer, NULL);
	fbt_wait_ok(f);
	rc = fbt_wait(w);
	out = fbt_slurp(OUT);
	snprintf(needle, sizeof(needle), "\"what\":\"send\",\"error\":-2,\"errno\":\"-ENOENT\",\"from_pid\":%d,",
		 (int)f);
	CHECK(rc == 0 && out && strstr(out, needle) && !strstr(out, "1592590337") &&
	      strstr(out, "\"code\":1592590338"),
	      "fbstat --follow: exit %d, %s", rc, out ? out : "");
	free(out);

	kill(h, SIGKILL);
	fbt_wait(h);
	kill(m, SIGKILL);
	fbt_wait(m);
	fbt_ctx_close(&root);
	unlink(OUT);
	return fbt_done();
}
