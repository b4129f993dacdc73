// SPDX-License-Identifier: MIT
/*
 * File descriptors in messages: a pipe's write end sent to another process
 * (a manager that accepts descriptors, FBINDER_OBJF_ACCEPTS_FDS) arrives as a
 * new close-on-exec descriptor the receiver writes through, the sender
 * reads the bytes; a bad descriptor fails the send with EBADF; the
 * receiver's descriptor count returns to where it was.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "fbt_proto.h"

struct fd_report {
	__s32 fds_with;		/* open descriptors holding the received one */
	__s32 fds_after;	/* after closing it */
	__s32 cloexec;
	__s32 written;
};

static int fd_handler(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	const struct fbinder_object *obj;
	struct fd_report rep = { 0 };

	(void)arg;
	if (r->cmd != FBINDER_RET_TRANSACTION)
		return 0;
	obj = fbt_obj(p, &r->msg, 0);
	if (obj->type == FBINDER_OBJ_FD && obj->fd >= 0) {
		rep.fds_with = fbt_count_fds(0);
		rep.cloexec = !!(fcntl(obj->fd, F_GETFD) & FD_CLOEXEC);
		rep.written = write(obj->fd, "through fastbinder", 18);
		close(obj->fd);
		rep.fds_after = fbt_count_fds(0);
	}
	return fbt_reply(p, &r->msg, 0, &rep, sizeof(rep), NULL, 0);
}

static int manager_body(struct fbt_ctx *p, void *arg)
{
	(void)arg;
	return fbt_serve(p, fd_handler, NULL) ? 1 : 0;
}

int main(void)
{
	struct fbinder_object obj = { .type = FBINDER_OBJ_FD };
	__u64 off = 0;
	struct fd_report rep;
	struct fbt_ret reply;
	struct fbt_ctx p;
	char buf[64] = { 0 };
	int pipefd[2];
	pid_t mgr;

	mgr = fbt_spawn_manager_ex(1 << 20, 0xfd, FBT_MGR_NOBODY | FBT_MGR_FDS, manager_body,
				   NULL);
	fbt_become_nobody();	/* root only to claim handle 0 */
	fbt_ctx_open(&p, 1 << 20);
	if (pipe(pipefd))
		die("pipe");

	obj.fd = pipefd[1];
	CHECK(fbt_call(&p, 0, 1, &obj, sizeof(obj), &off, 1, &reply, NULL,
		       NULL) == 0, "call with a descriptor");
	CHECK(reply.cmd == FBINDER_RET_REPLY, "reply");
	memcpy(&rep, fbt_data(&p, &reply.msg), sizeof(rep));
	CHECK(fbt_free_buffer(&p, reply.msg.data) == 0, "free");
	CHECK(rep.written == 18, "receiver wrote %d bytes", rep.written);
	CHECK(rep.cloexec == 1, "received descriptor is close-on-exec");
	CHECK(rep.fds_after == rep.fds_with - 1,
	      "receiver's descriptors back to their start (%d -> %d)",
	      rep.fds_with, rep.fds_after);
	CHECK(read(pipefd[0], buf, sizeof(buf)) == 18 &&
	      !memcmp(buf, "through fastbinder", 18),
	      "sender reads what the receiver wrote: '%s'", buf);

	obj.fd = 999;
	CHECK(fbt_call(&p, 0, 1, &obj, sizeof(obj), &off, 1, &reply, NULL,
		       NULL) == -EBADF, "a closed descriptor fails with EBADF");
	obj.fd = p.fd;
	CHECK(fbt_call(&p, 0, 1, &obj, sizeof(obj), &off, 1, &reply, NULL,
		       NULL) == -EINVAL, "a fastbinder descriptor is refused");

	fbt_ctx_close(&p);
	kill(mgr, SIGKILL);
	fbt_wait(mgr);
	CHECK(fbt_wait_live_zero(5000) == 0, "live counts back to zero");
	return fbt_done();
}
