/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fastbinder's trace events (docs/tracing.md): perf, trace-cmd and bpftrace
 * see them as fastbinder:<name>.  trace.c instantiates them.  Each call
 * site costs a static branch while the event is off: the arguments are
 * pointers and values already at hand, and everything derived from them
 * is computed in TP_fast_assign, only when the event is on.  Pids and tids
 * are the initial pid namespace's, as in every kernel trace event.
 *
 * The layout is the kernel's own for trace headers (include/trace/events/):
 * one macro argument per line, so scripts/lint.sh accepts checkpatch's
 * OPEN_ENDED_LINE and PARENTHESIS_ALIGNMENT in this file.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM fastbinder

#if !defined(_FBINDER_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _FBINDER_TRACE_H

#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>

#include "internal.h"

/*
 * A message queued by the current thread: a call or oneway message
 * (fastbinder_send; to_tid: the thread woken for it, or 0) or a reply
 * (fastbinder_reply; to_tid: the caller's thread, node 0).
 */
DECLARE_EVENT_CLASS(fastbinder_txn_class,
	TP_PROTO(const struct fbinder_txn *t, const struct fbinder_thread *to),
	TP_ARGS(t, to),
	TP_STRUCT__entry(
		__field(u64, id)
		__field(pid_t, from_pid)
		__field(pid_t, from_tid)
		__field(pid_t, to_pid)
		__field(pid_t, to_tid)
		__field(u64, node)
		__field(u32, code)
		__field(u32, flags)
		__field(u64, data_size)
		__field(u32, objects)
	),
	TP_fast_assign(
		__entry->id = t->id;
		__entry->from_pid = current->tgid;
		__entry->from_tid = current->pid;
		__entry->to_pid = pid_nr(t->to_ctx->pid);
		__entry->to_tid = t->is_reply ? t->call->from->pid : to ? to->pid : 0;
		__entry->node = t->node ? t->node->debug_id : 0;
		__entry->code = t->code;
		__entry->flags = t->flags;
		__entry->data_size = t->buffer->data_size;
		__entry->objects = t->buffer->offsets_size / sizeof(u64);
	),
	TP_printk("txn=%llu from=%d:%d to=%d:%d node=%llu code=%u flags=0x%x size=%llu objects=%u",
		  __entry->id, __entry->from_pid, __entry->from_tid,
		  __entry->to_pid, __entry->to_tid, __entry->node,
		  __entry->code, __entry->flags, __entry->data_size,
		  __entry->objects)
);

DEFINE_EVENT_CONDITION(fastbinder_txn_class, fastbinder_send,
	TP_PROTO(const struct fbinder_txn *t, const struct fbinder_thread *to),
	TP_ARGS(t, to),
	TP_CONDITION(!t->is_reply)
);

DEFINE_EVENT_CONDITION(fastbinder_txn_class, fastbinder_reply,
	TP_PROTO(const struct fbinder_txn *t, const struct fbinder_thread *to),
	TP_ARGS(t, to),
	TP_CONDITION(t->is_reply)
);

/* A call, oneway message or reply read by a thread (the current one). */
TRACE_EVENT_CONDITION(fastbinder_received,
	TP_PROTO(u32 cmd, const struct fbinder_txn_msg *msg),
	TP_ARGS(cmd, msg),
	TP_CONDITION(cmd == FBINDER_RET_TRANSACTION || cmd == FBINDER_RET_REPLY),
	TP_STRUCT__entry(
		__field(u64, id)
		__field(pid_t, pid)
		__field(pid_t, tid)
		__field(u32, code)
		__field(u32, flags)
		__field(bool, reply)
		__field(u64, data_size)
		__field(u32, objects)
	),
	TP_fast_assign(
		__entry->id = msg->txn_id;
		__entry->pid = current->tgid;
		__entry->tid = current->pid;
		__entry->code = msg->code;
		__entry->flags = msg->flags;
		__entry->reply = cmd == FBINDER_RET_REPLY;
		__entry->data_size = msg->data_size;
		__entry->objects = msg->offsets_count;
	),
	TP_printk("txn=%llu by=%d:%d %s code=%u flags=0x%x size=%llu objects=%u",
		  __entry->id, __entry->pid, __entry->tid,
		  __entry->reply ? "reply" : "call", __entry->code,
		  __entry->flags, __entry->data_size, __entry->objects)
);

/* A buffer freed: FBINDER_CMD_FREE_BUFFER, or a message never delivered. */
TRACE_EVENT(fastbinder_buffer_free,
	TP_PROTO(const struct fbinder_ctx *ctx, const struct fbinder_buffer *buf),
	TP_ARGS(ctx, buf),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(u64, offset)
		__field(u64, data_size)
		__field(u32, objects)
		__field(bool, oneway)
	),
	TP_fast_assign(
		__entry->pid = pid_nr(ctx->pid);
		__entry->offset = buf->offset;
		__entry->data_size = buf->data_size;
		__entry->objects = buf->offsets_size / sizeof(u64);
		__entry->oneway = buf->oneway;
	),
	TP_printk("pid=%d offset=%llu size=%llu objects=%u%s",
		  __entry->pid, __entry->offset, __entry->data_size,
		  __entry->objects, __entry->oneway ? " oneway" : "")
);

/* A failed send, reply or delivery, as recorded in the failure ring. */
TRACE_EVENT(fastbinder_failed,
	TP_PROTO(int error, enum fbinder_failure_what what, struct pid *from,
		 const struct fbinder_node *target, u32 code,
		 unsigned long ip),
	TP_ARGS(error, what, from, target, code, ip),
	TP_STRUCT__entry(
		__field(int, error)
		__field(u32, what)
		__field(pid_t, from_pid)
		__field(pid_t, to_pid)
		__field(u64, node)
		__field(u32, code)
		__field(unsigned long, ip)
	),
	TP_fast_assign(
		__entry->error = error;
		__entry->what = what;
		__entry->from_pid = pid_nr(from);
		__entry->to_pid = target && target->owner ?
				  pid_nr(target->owner->pid) : 0;
		__entry->node = target ? target->debug_id : 0;
		__entry->code = code;
		__entry->ip = ip;
	),
	TP_printk("%s error=%d from=%d to=%d node=%llu code=%u at %pS",
		  __print_symbolic(__entry->what,
				   { FBINDER_FAILED_SEND, "send" },
				   { FBINDER_FAILED_REPLY, "reply" },
				   { FBINDER_FAILED_DELIVER, "deliver" }),
		  __entry->error, __entry->from_pid, __entry->to_pid,
		  __entry->node, __entry->code, (void *)__entry->ip)
);

DECLARE_EVENT_CLASS(fastbinder_prio_class,
	TP_PROTO(const struct task_struct *task, const struct fbinder_prio *prio),
	TP_ARGS(task, prio),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(pid_t, tid)
		__field(u32, policy)
		__field(s32, level)
	),
	TP_fast_assign(
		__entry->pid = task->tgid;
		__entry->tid = task->pid;
		__entry->policy = prio->policy;
		__entry->level = prio->level;
	),
	TP_printk("thread=%d:%d policy=%u level=%d", __entry->pid,
		  __entry->tid, __entry->policy, __entry->level)
);

/* A handler raised to its caller's or its node's priority. */
DEFINE_EVENT(fastbinder_prio_class, fastbinder_prio_raise,
	TP_PROTO(const struct task_struct *task, const struct fbinder_prio *prio),
	TP_ARGS(task, prio)
);

/* A thread given its own priority back. */
DEFINE_EVENT(fastbinder_prio_class, fastbinder_prio_restore,
	TP_PROTO(const struct task_struct *task, const struct fbinder_prio *prio),
	TP_ARGS(task, prio)
);

/* A death notice (FBINDER_RET_DEAD) read by the current thread. */
TRACE_EVENT_CONDITION(fastbinder_dead,
	TP_PROTO(u32 cmd, u64 cookie),
	TP_ARGS(cmd, cookie),
	TP_CONDITION(cmd == FBINDER_RET_DEAD),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(pid_t, tid)
		__field(u64, cookie)
	),
	TP_fast_assign(
		__entry->pid = current->tgid;
		__entry->tid = current->pid;
		__entry->cookie = cookie;
	),
	TP_printk("by=%d:%d cookie=0x%llx", __entry->pid, __entry->tid,
		  __entry->cookie)
);

/* The current thread told to start one more pool thread. */
TRACE_EVENT(fastbinder_spawn_looper,
	TP_PROTO(const struct fbinder_ctx *ctx),
	TP_ARGS(ctx),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(pid_t, tid)
		__field(u32, started)
		__field(u32, max)
	),
	TP_fast_assign(
		__entry->pid = current->tgid;
		__entry->tid = current->pid;
		__entry->started = READ_ONCE(ctx->started_threads);
		__entry->max = READ_ONCE(ctx->max_threads);
	),
	TP_printk("by=%d:%d started=%u max=%u", __entry->pid, __entry->tid,
		  __entry->started, __entry->max)
);

#endif /* _FBINDER_TRACE_H */

/* An out-of-tree module's header: define_trace.h finds it through -I$(src). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
