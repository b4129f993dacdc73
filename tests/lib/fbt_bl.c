// SPDX-License-Identifier: MIT
/*
 * fbt_bl.c - see fbt_bl.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fbt_bl.h"
#include "fbt.h"

#define MGR_SLOTS 64

static struct {
	char name[BL_SM_NAME_MAX + 1];
	uint32_t handle;
} mgr_table[MGR_SLOTS];
static unsigned int mgr_used;

static int32_t mgr_handler(struct bl_object *obj, uint32_t code,
			   struct bl_reader *req, struct bl_parcel *reply,
			   const struct bl_call_info *info)
{
	struct bl_context *ctx = info->ctx;
	const char *name = NULL;
	size_t len = 0;
	unsigned int i;
	uint32_t h;

	(void)obj;
	if (code != BL_SM_LIST &&
	    (bl_reader_read_string(req, &name, &len) || len > BL_SM_NAME_MAX))
		return -EBADMSG;
	switch (code) {
	case BL_SM_ADD:
		if (bl_reader_read_handle(req, &h))
			return -EBADMSG;
		for (i = 0; i < mgr_used; i++)
			if (!strcmp(mgr_table[i].name, name))
				return -EEXIST;
		if (mgr_used == MGR_SLOTS)
			return -ENOSPC;
		if (bl_handle_acquire(ctx, h))
			return -EIO;
		memcpy(mgr_table[mgr_used].name, name, len + 1);
		mgr_table[mgr_used++].handle = h;
		return 0;
	case BL_SM_CHECK:
		for (i = 0; i < mgr_used; i++)
			if (!strcmp(mgr_table[i].name, name))
				return bl_parcel_write_handle(reply,
							mgr_table[i].handle);
		return -ENOENT;
	case BL_SM_LIST:
		bl_parcel_write_u32(reply, mgr_used);
		for (i = 0; i < mgr_used; i++)
			bl_parcel_write_string(reply, mgr_table[i].name);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

static int mgr_main(void *arg)
{
	struct bl_context *ctx = fbt_bl_open();
	struct bl_object *obj;
	int ret;

	(void)arg;
	ret = bl_object_new(ctx, mgr_handler, NULL, NULL, &obj);
	if (!ret)
		ret = bl_context_become_manager(ctx, obj);
	if (ret) {
		fprintf(stderr, "test manager: %s\n", strerror(-ret));
		return 1;
	}
	bl_object_unref(obj);
	ret = bl_loop(ctx);
	bl_context_close(ctx);
	return ret ? 1 : 0;
}

pid_t fbt_bl_manager_start(void)
{
	struct bl_context *ctx = fbt_bl_open();
	pid_t pid = fbt_fork(mgr_main, NULL);
	int64_t until = fbt_now_ms() + 5000;
	char **names;
	size_t n;
	int ret;

	while ((ret = bl_sm_list(ctx, &names, &n)) == -EHOSTDOWN &&
	       fbt_now_ms() < until)
		usleep(2000);
	if (ret)
		die("test manager did not come up: %s", strerror(-ret));
	bl_sm_list_free(names, n);
	bl_context_close(ctx);
	return pid;
}

void fbt_bl_kill(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

struct bl_context *fbt_bl_open(void)
{
	struct bl_context *ctx;
	int ret = bl_context_open(NULL, 0, &ctx);

	if (ret) {
		errno = -ret;
		die("bl_context_open");
	}
	return ctx;
}

void fbt_bl_serve_as_manager(bl_handler_fn handler, bool accept_fds, int ready)
{
	struct bl_context *ctx;
	struct bl_object *obj;
	int ret;

	ret = bl_context_open(NULL, 0, &ctx);
	if (!ret)
		ret = bl_object_new(ctx, handler, NULL, NULL, &obj);
	if (!ret && accept_fds)
		ret = bl_object_set_accept_fds(obj, true);
	if (!ret)
		ret = bl_context_become_manager(ctx, obj);
	if (ret)
		die("service: %s", strerror(-ret));
	fbt_become_nobody();
	if (write(ready, "r", 1) != 1)
		die("service: ready");
	bl_loop(ctx);
	_exit(0);
}
