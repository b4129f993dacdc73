// SPDX-License-Identifier: MIT
/*
 * fbt_sm.c - see fbt_sm.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fbt_bl.h"
#include "fbt.h"
#include "fbt_sm.h"

pid_t fbt_sm_manager_start(const char *const *args)
{
	const char *argv[16] = { "fb-servicemanager" };
	struct bl_context *ctx;
	int64_t until;
	size_t n = 1, count;
	char **names;
	pid_t pid;
	int ret;

	while (args && *args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	ctx = fbt_bl_open();
	until = fbt_now_ms() + 5000;
	while ((ret = bl_sm_list(ctx, &names, &count)) == -EHOSTDOWN &&
	       fbt_now_ms() < until) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			die("fb-servicemanager exited at start");
		usleep(2000);
	}
	if (ret)
		die("fb-servicemanager did not come up: %s", strerror(-ret));
	bl_sm_list_free(names, count);
	bl_context_close(ctx);
	return pid;
}

int fbt_sm_manager_stop(pid_t pid)
{
	kill(pid, SIGTERM);
	return fbt_wait(pid);
}

static int32_t svc_handler(struct bl_object *obj, uint32_t code,
			   struct bl_reader *req, struct bl_parcel *reply,
			   const struct bl_call_info *info)
{
	int32_t v;
	int ret;

	(void)info;
	switch (code) {
	case FBT_SM_ADD_ONE:
		ret = bl_reader_read_i32(req, &v);
		if (!ret)
			ret = bl_parcel_write_i32(reply, v + 1);
		return ret;
	case FBT_SM_NAME:
		return bl_parcel_write_string(reply, bl_object_userdata(obj));
	default:
		return -EOPNOTSUPP;
	}
}

int fbt_sm_call_add_one(struct bl_context *ctx, uint32_t h, int32_t v, int32_t *out)
{
	struct bl_parcel p = BL_PARCEL_INIT;
	struct bl_reply r;
	int ret;

	bl_parcel_write_i32(&p, v);
	ret = bl_call(ctx, h, FBT_SM_ADD_ONE, &p, &r, BL_NO_TIMEOUT);
	bl_parcel_fini(&p);
	if (ret)
		return ret;
	ret = r.status;
	if (!ret)
		ret = bl_reader_read_i32(&r.reader, out);
	bl_reply_fini(&r);
	return ret;
}

static int drop_to(uid_t uid)
{
	if (!uid)
		return 0;
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -errno;
	return 0;
}

pid_t fbt_sm_service_start(const char *name, uid_t uid, int *add_ret)
{
	int pfd[2];
	pid_t pid;

	if (pipe(pfd))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		struct bl_context *ctx = NULL;
		struct bl_object *obj;
		int ret;

		close(pfd[0]);
		ret = drop_to(uid);
		if (!ret)
			ret = bl_context_open(NULL, 0, &ctx);
		if (!ret)
			ret = bl_object_new(ctx, svc_handler, NULL,
					    (void *)name, &obj);
		if (!ret) {
			ret = bl_sm_add(ctx, name, obj);
			bl_object_unref(obj);
		}
		if (!ret)
			ret = bl_pool_start(ctx, 1, 1);
		if (write(pfd[1], &ret, sizeof(ret)) != sizeof(ret))
			_exit(3);
		if (ret)
			_exit(1);
		for (;;)
			pause();
	}
	close(pfd[1]);
	if (read(pfd[0], add_ret, sizeof(*add_ret)) != sizeof(*add_ret))
		*add_ret = -EPIPE;
	close(pfd[0]);
	if (*add_ret) {
		waitpid(pid, NULL, 0);
		return 0;
	}
	return pid;
}

pid_t fbt_sm_manager_process(pid_t started)
{
	const char *env = getenv("FBT_SM_MANAGER_PID");
	long pid = env ? strtol(env, NULL, 10) : 0;

	return pid > 0 ? (pid_t)pid : started;
}
