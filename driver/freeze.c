// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: freezing a process's contexts (FBINDER_IOC_FREEZE), as
 * binder's BINDER_FREEZE, for whoever stops a process for a while: the
 * cgroup freezer, SIGSTOP, a checkpoint.
 *
 * A frozen context refuses new calls at once (EHOSTDOWN), so its callers
 * do not hang on a process that does not run, and holds the oneway
 * messages that come for it on its own list (ctx->held), out of its
 * threads' sight; the thaw appends them to its queue in the order they
 * came.  They stay counted in its queue and its senders' fair shares, so
 * the usual bounds hold while it is frozen.  Freezing waits, up to the
 * caller's timeout, for the calls already queued to the context or
 * handled by it (ctx->calls_in), which its threads may still read and
 * answer meanwhile: a freeze that returned leaves no caller waiting.
 * Replies to the context's own calls, release and death notices are not
 * held: they answer what it asked.  All of it is under the context's lock.
 *
 * Who may (docs/security.md, G10): a caller with the euid the context
 * was opened with, or CAP_SYS_ADMIN or CAP_SYS_NICE in the initial user
 * namespace (a process manager).
 */
#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/jiffies.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include "internal.h"

/* The longest a freezer may wait for calls to end: a minute. */
#define FBINDER_FREEZE_MAX_TIMEOUT_MS	60000

/*
 * A call or oneway message for a frozen context: a call fails with
 * EHOSTDOWN, a oneway message is queued all the same (FBINDER_WR_FROZEN).
 * Either is recorded for FBINDER_IOC_FROZEN_INFO.
 */
int fbinder_frozen_send_clocked(struct fbinder_ctx *target, bool oneway)
{
	lockdep_assert_held(&target->lock);
	if (oneway) {
		target->async_recv = true;
		return FBINDER_WR_FROZEN;
	}
	target->sync_recv = true;
	return -EHOSTDOWN;
}

/*
 * Ends the freeze: the held messages join the queue behind what is there
 * (every one of them came after), the idle threads and the pollers are
 * woken for them, and so are freezers still waiting.
 */
void fbinder_ctx_thaw_clocked(struct fbinder_ctx *ctx)
{
	lockdep_assert_held(&ctx->lock);
	ctx->frozen = false;
	wake_up_all(&ctx->freeze_wait);
	if (list_empty(&ctx->held))
		return;
	list_splice_tail_init(&ctx->held, &ctx->todo);
	fbinder_ctx_wake_waiting_clocked(ctx, false);
	/* as fbinder_ctx_queue_clocked(): a poller looks under this lock */
	if (waitqueue_active(&ctx->poll_wait))
		wake_up_interruptible(&ctx->poll_wait);
}

static bool fbinder_ctx_of_pid(const struct fbinder_ctx *ctx, const void *pid)
{
	return ctx->pid == pid;
}

/*
 * The caller may freeze ctx and read its freeze state: the context's own
 * euid, or a process manager's capability.  *privileged caches the
 * capability's check (-1: not asked yet), so a denial is audited once.
 */
static bool fbinder_may_freeze(const struct fbinder_ctx *ctx, int *privileged)
{
	if (uid_eq(ctx->euid, current_euid()))
		return true;
	if (*privileged < 0)
		*privileged = capable(CAP_SYS_ADMIN) || capable(CAP_SYS_NICE);
	return *privileged;
}

/*
 * Calls f on each context of pid on the device, in order, until one
 * fails.  Returns f's error, -EPERM if the caller may not touch one of
 * them (checked for all before f runs on any), -ESRCH if there is none.
 */
static int fbinder_apply_to_pid(struct fbinder_device *dev, struct pid *pid,
				int (*f)(struct fbinder_ctx *ctx, void *arg), void *arg)
{
	struct fbinder_ctx_iter it = { .dev = dev };
	struct fbinder_ctx *ctx;
	int privileged = -1;
	bool found = false;
	int ret = 0;

	while ((ctx = fbinder_ctx_iter_next(&it, fbinder_ctx_of_pid, pid))) {
		found = true;
		if (!fbinder_may_freeze(ctx, &privileged))
			ret = -EPERM;
		fbinder_ctx_put(ctx);
		if (ret) {
			fbinder_ctx_iter_stop(&it);
			return ret;
		}
	}
	if (!found)
		return -ESRCH;
	while ((ctx = fbinder_ctx_iter_next(&it, fbinder_ctx_of_pid, pid))) {
		ret = f(ctx, arg);
		fbinder_ctx_put(ctx);
		if (ret) {
			fbinder_ctx_iter_stop(&it);
			return ret;
		}
	}
	return 0;
}

static int fbinder_ctx_freeze(struct fbinder_ctx *ctx, void *unused)
{
	spin_lock(&ctx->lock);
	if (!ctx->dead && !ctx->frozen) {
		ctx->frozen = true;
		ctx->sync_recv = false;
		ctx->async_recv = false;
	}
	spin_unlock(&ctx->lock);
	return 0;
}

static int fbinder_ctx_thaw(struct fbinder_ctx *ctx, void *unused)
{
	spin_lock(&ctx->lock);
	if (ctx->frozen)
		fbinder_ctx_thaw_clocked(ctx);
	spin_unlock(&ctx->lock);
	return 0;
}

/* No call to ctx is in progress, or the freeze is over (thawed, ended). */
static bool fbinder_ctx_settled(struct fbinder_ctx *ctx)
{
	bool settled;

	spin_lock(&ctx->lock);
	settled = !ctx->calls_in || !ctx->frozen || ctx->dead;
	spin_unlock(&ctx->lock);
	return settled;
}

/* arg: the freezer's time left, in jiffies, shared by its contexts. */
static int fbinder_ctx_wait_settled(struct fbinder_ctx *ctx, void *arg)
{
	long *time_left = arg;
	long left;

	if (fbinder_ctx_settled(ctx))
		return 0;
	if (!*time_left)
		return -EAGAIN;
	left = wait_event_interruptible_timeout(ctx->freeze_wait,
						fbinder_ctx_settled(ctx), *time_left);
	if (left < 0)
		return -EINTR;
	if (!left)
		return -EAGAIN;
	*time_left = left;
	return 0;
}

/*
 * FBINDER_IOC_FREEZE: freezes (or thaws) every context of the process on
 * this device.  A freeze whose calls in progress do not end within the
 * timeout (EAGAIN) or that a signal interrupts (EINTR) thaws them again.
 */
static int fbinder_freeze(struct fbinder_device *dev, struct pid *pid,
			  const struct fbinder_freeze *req)
{
	long time_left = msecs_to_jiffies(req->timeout_ms);
	int ret;

	if (!req->enable)
		return fbinder_apply_to_pid(dev, pid, fbinder_ctx_thaw, NULL);
	ret = fbinder_apply_to_pid(dev, pid, fbinder_ctx_freeze, NULL);
	if (!ret)
		ret = fbinder_apply_to_pid(dev, pid, fbinder_ctx_wait_settled,
					   &time_left);
	if (ret && ret != -EPERM && ret != -ESRCH)
		fbinder_apply_to_pid(dev, pid, fbinder_ctx_thaw, NULL);
	return ret;
}

/* The state of the process's leader, as far as the kernel tells cheaply. */
static u32 fbinder_task_frozen_flags(struct pid *pid)
{
	struct task_struct *task;
	u32 flags = 0;

	rcu_read_lock();
	task = pid_task(pid, PIDTYPE_TGID);
	if (task) {
		/*
		 * cgroup v2's freezer, or the refrigerator (cgroup v1's and
		 * suspend's): frozen() itself is not exported
		 */
		if (cgroup_task_frozen(task) ||
		    READ_ONCE(task->__state) & TASK_FROZEN)
			flags |= FBINDER_FROZEN_TASK_FROZEN;
		if (task_is_stopped_or_traced(task))
			flags |= FBINDER_FROZEN_TASK_STOPPED;
	}
	rcu_read_unlock();
	return flags;
}

static int fbinder_ctx_frozen_info(struct fbinder_ctx *ctx, void *arg)
{
	struct fbinder_frozen_info *info = arg;

	spin_lock(&ctx->lock);
	if (ctx->frozen)
		info->flags |= FBINDER_FROZEN_FROZEN;
	if (ctx->sync_recv)
		info->flags |= FBINDER_FROZEN_SYNC_RECV;
	if (ctx->async_recv)
		info->flags |= FBINDER_FROZEN_ASYNC_RECV;
	if (ctx->calls_in)
		info->flags |= FBINDER_FROZEN_CALLS_PENDING;
	info->queued += ctx->nr_queued;
	spin_unlock(&ctx->lock);
	return 0;
}

/* FBINDER_IOC_FREEZE and FBINDER_IOC_FROZEN_INFO, on a context of the caller. */
long fbinder_freeze_ioctl(struct fbinder_ctx *ctx, unsigned int cmd, void __user *uarg)
{
	struct fbinder_frozen_info info;
	struct fbinder_freeze req;
	struct pid *pid;
	int ret;

	if (cmd == FBINDER_IOC_FREEZE) {
		if (copy_from_user(&req, uarg, sizeof(req)))
			return -EFAULT;
		if ((int)req.pid <= 0 || req.enable > 1 || req.reserved ||
		    req.timeout_ms > FBINDER_FREEZE_MAX_TIMEOUT_MS)
			return -EINVAL;
		pid = find_get_pid(req.pid);
		if (!pid)
			return -ESRCH;
		ret = fbinder_freeze(ctx->dev, pid, &req);
		put_pid(pid);
		return ret;
	}
	if (copy_from_user(&info, uarg, sizeof(info)))
		return -EFAULT;
	if ((int)info.pid <= 0 || info.reserved)
		return -EINVAL;
	pid = find_get_pid(info.pid);
	if (!pid)
		return -ESRCH;
	info.flags = 0;
	info.queued = 0;
	ret = fbinder_apply_to_pid(ctx->dev, pid, fbinder_ctx_frozen_info, &info);
	if (!ret)
		info.flags |= fbinder_task_frozen_flags(pid);
	put_pid(pid);
	if (ret)
		return ret;
	return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
}
