// SPDX-License-Identifier: MIT
/*
 * Death notifications: kill -9 of an owner with 3 linked holders notifies
 * each exactly once with its cookie; a link cancelled before the death
 * delivers nothing; acknowledging twice or what was never sent fails.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fbt_proto.h"

#define HOLDERS 3

static int manager_body(struct fbt_ctx *p, void *arg)
{
	(void)p;
	(void)arg;
	for (;;)
		pause();
	return 0;
}

static int link_cmd(struct fbt_ctx *p, __u32 cmd, __u32 handle, __u64 cookie)
{
	struct fbinder_death d = { .handle = handle, .cookie = cookie };
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, cmd, &d, sizeof(d));
	return fbt_wr(p, &w, NULL, false);
}

static int done_cmd(struct fbt_ctx *p, __u64 cookie)
{
	struct fbt_w w;

	fbt_w_reset(&w);
	fbt_w_cmd(&w, FBINDER_CMD_DEATH_DONE, &cookie, sizeof(cookie));
	return fbt_wr(p, &w, NULL, false);
}

static void holder(int i, int ready_fd)
{
	__u64 cookie = 0xdead0000 + i, cancelled = 0xc0ffee00 + i;
	struct fbt_ret r;
	struct fbt_ctx p;
	char c = 'r';

	fbt_ctx_open(&p, 1 << 20);
	CHECK(link_cmd(&p, FBINDER_CMD_LINK_DEATH, 0, cookie) == 0, "link");
	CHECK(link_cmd(&p, FBINDER_CMD_LINK_DEATH, 0, cookie) == -EEXIST,
	      "second link of one cookie is EEXIST");
	CHECK(link_cmd(&p, FBINDER_CMD_LINK_DEATH, 0, cancelled) == 0, "link 2");
	CHECK(link_cmd(&p, FBINDER_CMD_UNLINK_DEATH, 0, cancelled) == 0, "unlink");
	CHECK(link_cmd(&p, FBINDER_CMD_UNLINK_DEATH, 0, cancelled) == -ENOENT,
	      "unlink of an unknown cookie is ENOENT");
	CHECK(link_cmd(&p, FBINDER_CMD_LINK_DEATH, 77, cookie + 1) == -ENOENT,
	      "link on a handle never given is ENOENT");
	CHECK(done_cmd(&p, cookie) == -EINVAL,
	      "acknowledging a death not delivered is EINVAL");
	if (write(ready_fd, &c, 1) != 1)
		die("write");

	CHECK(fbt_next(&p, &r) == 0, "read the death");
	CHECK(r.cmd == FBINDER_RET_DEAD, "got %s, not FBINDER_RET_DEAD",
	      fbt_ret_name(r.cmd));
	CHECK(r.cookie == cookie, "cookie %llx, expected %llx",
	      (unsigned long long)r.cookie, (unsigned long long)cookie);
	CHECK(done_cmd(&p, cookie) == 0, "acknowledge");
	CHECK(done_cmd(&p, cookie) == -ENOENT, "second acknowledge is ENOENT");
	usleep(200 * 1000);
	CHECK(fbt_try_next(&p, &r) == -EAGAIN,
	      "exactly one notice, none for the cancelled link (got %s)",
	      fbt_ret_name(r.cmd));
	fbt_ctx_close(&p);
	exit(fbt_child_status());
}

int main(void)
{
	pid_t mgr, kids[HOLDERS];
	int pipefd[2], i;
	char c;

	mgr = fbt_spawn_manager_ex(1 << 20, 0x5eed, FBT_MGR_NOBODY, manager_body, NULL);
	fbt_become_nobody();	/* root only to claim handle 0 */
	if (pipe(pipefd))
		die("pipe");
	for (i = 0; i < HOLDERS; i++) {
		kids[i] = fork();
		if (kids[i] == 0)
			holder(i, pipefd[1]);
	}
	for (i = 0; i < HOLDERS; i++)
		if (read(pipefd[0], &c, 1) != 1)
			die("read");
	kill(mgr, SIGKILL);
	waitpid(mgr, NULL, 0);
	for (i = 0; i < HOLDERS; i++)
		CHECK(fbt_wait(kids[i]) == 0, "holder %d", i);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts back to zero");
	return fbt_done();
}
