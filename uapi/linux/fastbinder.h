/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * fastbinder: binder-style IPC for ordinary Linux, the user-space ABI.
 *
 * docs/abi.md is the prose reference for everything declared here.  Every
 * structure uses fixed-width fields with explicit padding, so 32-bit and
 * 64-bit processes share one layout and no compat ioctl is needed.  Each
 * write-stream command and read-stream return encodes the size of its
 * payload in its number (the _IO* macros), so a mismatched structure is
 * detected by the driver instead of misparsed.
 */
#ifndef _UAPI_LINUX_FASTBINDER_H
#define _UAPI_LINUX_FASTBINDER_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* Bumped on every incompatible change; FBINDER_IOC_VERSION reports it. */
#define FBINDER_ABI_VERSION		4

/* Handle 0 always names the context manager (the service manager). */
#define FBINDER_CONTEXT_MGR_HANDLE	0

/* ---- objects carried inside a message ---------------------------------- */

enum fbinder_object_type {
	FBINDER_OBJ_LOCAL	= 1,	/* an object of the sender, named by cookie */
	FBINDER_OBJ_HANDLE	= 2,	/* a handle the sender holds */
	FBINDER_OBJ_FD	= 3,	/* a file descriptor, installed on delivery */
	FBINDER_OBJ_REGION	= 4,	/* a memory region handle the sender holds */
	FBINDER_OBJ_PTR	= 5,	/* a buffer in the message: struct fbinder_ptr_object */
	FBINDER_OBJ_FDA	= 6,	/* descriptors in a buffer: struct fbinder_fda_object */
};

/*
 * An object embedded in a message's data.  Each one sits at an 8-byte
 * aligned offset listed in the message's offsets array.  The driver
 * translates it on the way: the receiver sees FBINDER_OBJ_LOCAL with its own
 * cookie when it owns the object, FBINDER_OBJ_HANDLE with its own handle
 * otherwise.
 */
struct fbinder_object {
	__u32 type;		/* enum fbinder_object_type */
	__u32 flags;		/* FBINDER_OBJF_* allowed for the type, else 0 */
	union {
		__u64 cookie;	/* FBINDER_OBJ_LOCAL: the owner's name for it */
		__u32 handle;	/* FBINDER_OBJ_HANDLE, FBINDER_OBJ_REGION */
		__s32 fd;	/* FBINDER_OBJ_FD */
	};
};

/*
 * fbinder_object.flags of FBINDER_OBJ_LOCAL: the minimum priority of the threads that
 * handle the object's calls, read when the send creates its node.  The
 * low byte is a nice value (-20..19, as a signed byte) or, with
 * FBINDER_OBJF_PRIO_RT, a SCHED_FIFO priority (1..99).
 */
#define FBINDER_OBJF_PRIO_MASK	0xff
#define FBINDER_OBJF_MIN_PRIO	0x100
#define FBINDER_OBJF_PRIO_RT		0x200

/*
 * fbinder_object.flags of FBINDER_OBJ_LOCAL, and struct fbinder_context_mgr.flags: the
 * object takes messages that carry descriptors (binder's ACCEPTS_FDS).
 * Read when the node is created, as the priority; a send with an
 * FBINDER_OBJ_FD object to a node without it fails with EPERM.
 */
#define FBINDER_OBJF_ACCEPTS_FDS	0x400

/*
 * fbinder_object.flags of FBINDER_OBJ_LOCAL, and struct fbinder_context_mgr.flags: the
 * object's calls and oneway messages carry the sender's security label
 * (binder's TXN_SECURITY_CTX, FBINDER_TXN_SECCTX below).  Read when the node
 * is created, as the priority; needs FBINDER_FEATURE_SECCTX.
 */
#define FBINDER_OBJF_TXN_SECCTX	0x800

/*
 * fbinder_object.flags of FBINDER_OBJ_FD, fbinder_fda_object.flags: the
 * receiver's descriptors survive exec.
 */
#define FBINDER_OBJF_NO_CLOEXEC	0x1

/*
 * The most descriptors one message may carry (as SCM_MAX_FD): its
 * FBINDER_OBJ_FD objects and the descriptors of its FBINDER_OBJ_FDA arrays.
 */
#define FBINDER_MAX_FDS		253

/* ---- memory regions ---------------------------------------------------- */

/*
 * A region is a range of its owner's address space that holders of a
 * region handle may copy from (FBINDER_REGION_READ) or into
 * (FBINDER_REGION_WRITE), one copy, without a shared mapping.  Region
 * handles live in the same table as node handles (FBINDER_CMD_ACQUIRE,
 * FBINDER_CMD_RELEASE, FBINDER_CMD_LINK_DEATH apply) and travel as
 * FBINDER_OBJ_REGION objects.  docs/abi.md, "Memory regions".
 */
#define FBINDER_REGION_READ		0x1
#define FBINDER_REGION_WRITE		0x2

/* Most regions narrowed from one another in a chain (root included). */
#define FBINDER_REGION_MAX_DEPTH	8
/* Most caller iovecs in one copy command (as UIO_MAXIOV). */
#define FBINDER_REGION_MAX_IOV		1024

/* Argument of FBINDER_IOC_REGION_CREATE. */
struct fbinder_region_create {
	__u64 addr;		/* start, in the caller's address space */
	__u64 size;		/* bytes, at least 1 */
	__u32 rights;		/* FBINDER_REGION_*, at least one */
	__u32 handle;		/* out: the caller's handle of the region */
};

/* Argument of FBINDER_IOC_REGION_NARROW. */
struct fbinder_region_narrow {
	__u32 handle;		/* a region handle the caller holds */
	__u32 rights;		/* a non-empty subset of its rights */
	__u64 offset;		/* of the new region in it */
	__u64 size;		/* at least 1, ending inside it */
	__u32 new_handle;	/* out: the caller's handle of the new region */
	__u32 reserved;		/* 0 */
};

/* Argument of FBINDER_IOC_REGION_INFO. */
struct fbinder_region_info {
	__u32 handle;		/* a region handle the caller holds */
	__u32 rights;		/* out: FBINDER_REGION_* */
	__u64 size;		/* out: bytes */
};

/* A piece of the caller's memory in a copy command. */
struct fbinder_iovec {
	__u64 base;		/* user pointer */
	__u64 len;
};

/*
 * Payload of FBINDER_CMD_REGION_READ and FBINDER_CMD_REGION_WRITE.  The
 * driver writes done back into the command as it goes: a command that
 * returns with an error or EINTR (a signal, or its work bound) has copied
 * done bytes, and the same stream called again goes on from there.
 */
struct fbinder_region_copy {
	__u32 handle;		/* a region handle the caller holds */
	__u32 iov_count;	/* entries at iov, at most FBINDER_REGION_MAX_IOV */
	__u64 offset;		/* in the region, of the first byte */
	__u64 iov;		/* user pointer to struct fbinder_iovec[] */
	__u64 done;		/* in/out: bytes copied so far, 0 to start */
};

/* ---- what a sender writes ---------------------------------------------- */

/* struct fbinder_txn_data.flags */
#define FBINDER_TXN_ONEWAY		0x01	/* no reply; the sender does not wait */
#define FBINDER_TXN_ACCEPT_FDS	0x02	/* a call whose reply may carry fds */
#define FBINDER_TXN_BATCH		0x04	/* read only: a batch, see below */
#define FBINDER_TXN_SECCTX		0x08	/* read only: a label follows, see below */
/*
 * With FBINDER_TXN_ONEWAY (FBINDER_FEATURE_FREEZE): a message queued for a
 * frozen target makes FBINDER_IOC_WRITE_READ return FBINDER_WR_FROZEN
 * instead of 0.  Without it the sender is not told.
 */
#define FBINDER_TXN_FROZEN_REPORT	0x10

/* FBINDER_IOC_WRITE_READ's positive return, see FBINDER_TXN_FROZEN_REPORT. */
#define FBINDER_WR_FROZEN		1

/* Payload of FBINDER_CMD_SEND and FBINDER_CMD_REPLY. */
struct fbinder_txn_data {
	__u32 handle;		/* target; ignored by FBINDER_CMD_REPLY */
	__u32 code;		/* method code, or a reply's status */
	__u32 flags;		/* FBINDER_TXN_* */
	__u32 offsets_count;	/* entries in offsets[] */
	__u64 data;		/* user pointer to the payload */
	__u64 data_size;	/* bytes at data */
	__u64 offsets;		/* user pointer to __u64 offsets[] */
};

/*
 * One message of a batch.  The sender's (FBINDER_CMD_SEND_BATCH) names its
 * payload by a user pointer; the receiver's, in the batch it reads, by its
 * offset in the receiver's mapping.
 */
struct fbinder_batch_msg {
	__u32 code;		/* method code */
	__u32 reserved;		/* 0 */
	__u64 data;		/* user pointer, or offset in the mapping */
	__u64 data_size;	/* bytes at data */
};

/* The most messages in one batch. */
#define FBINDER_MAX_BATCH		256

/*
 * Payload of FBINDER_CMD_SEND_BATCH: count oneway messages without objects
 * to one handle, delivered as one.  They take one slot in the receiver's
 * buffer and one place in its queue, and arrive as one
 * FBINDER_RET_TRANSACTION with FBINDER_TXN_BATCH set.
 */
struct fbinder_batch_send {
	__u32 handle;		/* target */
	__u32 count;		/* entries at msgs, 1..FBINDER_MAX_BATCH */
	__u64 msgs;		/* user pointer to struct fbinder_batch_msg[] */
};

/*
 * A delivered batch (FBINDER_TXN_BATCH; the message's code is 0): its data
 * starts with this header, the messages in the order sent, then their
 * payloads, each at an 8-byte aligned offset.  One FBINDER_CMD_FREE_BUFFER
 * of the message's data frees them all.
 */
struct fbinder_batch {
	__u32 count;
	__u32 reserved;		/* 0 */
	struct fbinder_batch_msg msgs[];
};

/* ---- scatter-gather sends and buffer objects (FBINDER_FEATURE_SEND_SG) -- */

/* The most iovecs in one FBINDER_CMD_SEND_SG or FBINDER_CMD_REPLY_SG (as UIO_MAXIOV). */
#define FBINDER_SG_MAX_IOV		1024

/*
 * Payload of FBINDER_CMD_SEND_SG and FBINDER_CMD_REPLY_SG: the message of
 * FBINDER_CMD_SEND and FBINDER_CMD_REPLY, its data gathered from iov_count
 * pieces of the sender's memory (struct fbinder_iovec), one after the other
 * with nothing between them, straight into the receiver's slot.  offsets
 * are positions in the gathered data.  docs/abi.md, "Scatter-gather sends".
 */
struct fbinder_txn_sg {
	__u32 handle;		/* target; ignored by FBINDER_CMD_REPLY_SG */
	__u32 code;		/* method code, or a reply's status */
	__u32 flags;		/* FBINDER_TXN_* as FBINDER_CMD_SEND's */
	__u32 offsets_count;	/* entries in offsets[] */
	__u64 iov;		/* user pointer to struct fbinder_iovec[] */
	__u32 iov_count;	/* entries at iov, at most FBINDER_SG_MAX_IOV */
	__u32 reserved;		/* 0 */
	__u64 offsets;		/* user pointer to __u64 offsets[] */
};

/*
 * An FBINDER_OBJ_PTR object: a buffer inside the same message, the 16 bytes
 * of a struct fbinder_object with the length in place of the flags.  The
 * sender names the buffer by its offset in the message's data (8-byte
 * aligned, the buffer inside the data, after the end of the buffer of the
 * previous FBINDER_OBJ_PTR object of the message); the receiver finds the
 * buffer's address in its own mapping in ptr.  An object that lies inside
 * a buffer is translated like any other: buffers nest without links.
 */
struct fbinder_ptr_object {
	__u32 type;		/* FBINDER_OBJ_PTR */
	__u32 length;		/* bytes of the buffer */
	__u64 ptr;		/* sent: its offset in the data; received: its address */
};

/*
 * An FBINDER_OBJ_FDA object (FBINDER_FEATURE_FDA): an array of count
 * descriptors (__s32 each) inside the buffer of an earlier FBINDER_OBJ_PTR
 * object of the same message, the parent-th entry of its offsets, at
 * parent_offset in that buffer (4-byte aligned, the array inside the
 * buffer, after the array of the message's previous FBINDER_OBJ_FDA
 * object, over no object).  The 16 bytes of a struct fbinder_object; the
 * receiver reads it as sent, and finds its own descriptors in the array,
 * installed as an FBINDER_OBJ_FD object's are.  docs/abi.md, "Descriptor
 * arrays".
 */
struct fbinder_fda_object {
	__u32 type;		/* FBINDER_OBJ_FDA */
	__u16 flags;		/* FBINDER_OBJF_NO_CLOEXEC, or 0 */
	__u16 parent;		/* index in offsets[] of the buffer's object */
	__u32 count;		/* descriptors in the array */
	__u32 parent_offset;	/* bytes from the start of the buffer */
};

/* ---- what a receiver reads --------------------------------------------- */

/*
 * Payload of FBINDER_RET_TRANSACTION and FBINDER_RET_REPLY.  data and offsets are
 * offsets into the receiver's own read-only mapping; the receiver hands
 * data back with FBINDER_CMD_FREE_BUFFER when it is done with the message.
 */
struct fbinder_txn_msg {
	__u64 txn_id;		/* unique in the module; a reply carries its call's */
	__u64 cookie;		/* target object's cookie; 0 in a reply */
	__u32 code;		/* method code, or a reply's status */
	__u32 flags;		/* FBINDER_TXN_* */
	__s32 sender_pid;	/* in the receiver's pid namespace, 0 if none */
	__u32 sender_euid;	/* in the receiver's user namespace */
	__u64 data;		/* offset of the payload in the mapping */
	__u64 data_size;
	__u64 offsets;		/* offset of __u64 offsets[] in the mapping */
	__u64 offsets_count;
};

/*
 * A message to an object created with FBINDER_OBJF_TXN_SECCTX (not a reply)
 * has FBINDER_TXN_SECCTX set, and its slot carries the sender's LSM
 * security label right after its offsets, at offsets + offsets_count * 8
 * in the mapping: this header, then size bytes of label and a NUL.  The
 * driver takes it from the sending thread's credentials at the send; size
 * 0 (an empty label) when no LSM gives one.  docs/abi.md, "Security label".
 */
struct fbinder_secctx {
	__u32 size;		/* bytes of the label, without its NUL; 0: none */
	__u32 reserved;		/* 0 */
	/* followed by the label and a NUL */
};

/* The longest label, its NUL included: a longer one fails the send (EMSGSIZE). */
#define FBINDER_SECCTX_MAX		4096

/* Payload of FBINDER_RET_FAILED: a call that ended without a reply. */
struct fbinder_txn_error {
	__u64 txn_id;		/* the call that failed */
	__s32 error;		/* negative errno, see docs/abi.md */
	__u32 reserved;
};

/* Payload of FBINDER_RET_RELEASE. */
struct fbinder_node_release {
	__u64 cookie;		/* the object no other process refers to now */
	__u64 exports;		/* FBINDER_OBJ_LOCAL sends of it this retires */
};

/* Payload of FBINDER_CMD_LINK_DEATH and FBINDER_CMD_UNLINK_DEATH. */
struct fbinder_death {
	__u32 handle;
	__u32 reserved;
	__u64 cookie;		/* the holder's name for this link */
};

/* ---- write-stream commands (each a __u32 followed by its payload) ------ */

#define FBINDER_CMD_SEND		_IOW('c', 0, struct fbinder_txn_data)
#define FBINDER_CMD_REPLY		_IOW('c', 1, struct fbinder_txn_data)
#define FBINDER_CMD_FREE_BUFFER	_IOW('c', 2, __u64)	/* data offset */
#define FBINDER_CMD_ACQUIRE		_IOW('c', 3, __u32)	/* handle */
#define FBINDER_CMD_RELEASE		_IOW('c', 4, __u32)	/* handle */
#define FBINDER_CMD_REGISTER_LOOPER	_IO('c', 5)	/* a pool thread */
#define FBINDER_CMD_ENTER_LOOPER	_IO('c', 6)	/* an application thread */
#define FBINDER_CMD_EXIT_LOOPER	_IO('c', 7)
#define FBINDER_CMD_LINK_DEATH	_IOW('c', 8, struct fbinder_death)
#define FBINDER_CMD_UNLINK_DEATH	_IOW('c', 9, struct fbinder_death)
#define FBINDER_CMD_DEATH_DONE	_IOW('c', 10, __u64)	/* cookie */
#define FBINDER_CMD_ABANDON		_IO('c', 11)	/* stop awaiting a reply */
#define FBINDER_CMD_REGION_READ	_IOWR('c', 12, struct fbinder_region_copy)
#define FBINDER_CMD_REGION_WRITE	_IOWR('c', 13, struct fbinder_region_copy)
#define FBINDER_CMD_SEND_BATCH	_IOW('c', 14, struct fbinder_batch_send)
/* FBINDER_FEATURE_SEND_SG */
#define FBINDER_CMD_SEND_SG		_IOW('c', 15, struct fbinder_txn_sg)
#define FBINDER_CMD_REPLY_SG	_IOW('c', 16, struct fbinder_txn_sg)

/* ---- read-stream returns (each a __u32 followed by its payload) -------- */

#define FBINDER_RET_TRANSACTION	_IOR('r', 0, struct fbinder_txn_msg)
#define FBINDER_RET_REPLY		_IOR('r', 1, struct fbinder_txn_msg)
#define FBINDER_RET_FAILED		_IOR('r', 2, struct fbinder_txn_error)
#define FBINDER_RET_SPAWN_LOOPER	_IO('r', 3)
#define FBINDER_RET_RELEASE		_IOR('r', 4, struct fbinder_node_release)
#define FBINDER_RET_DEAD		_IOR('r', 5, __u64)	/* link cookie */

/* ---- ioctls ------------------------------------------------------------ */

/*
 * FBINDER_IOC_VERSION's answer.  The command number carries the caller's
 * size of it, and the driver writes that much: a program built before the
 * fields after abi_version existed (FBINDER_IOC_VERSION_V4, 8 bytes) still
 * gets its answer.  A caller built for version V works with a driver when
 * min_abi_version <= V <= abi_version and it has the features the caller
 * needs; new commands come with a new feature bit, not a new version.
 */
struct fbinder_version {
	__u32 abi_version;	/* FBINDER_ABI_VERSION of the driver */
	__u32 min_abi_version;	/* oldest version it serves; 0: abi_version */
	__u64 features;		/* FBINDER_FEATURE_* the driver has */
};

/* Feature bits: what a driver of the same version may or may not have. */
#define FBINDER_FEATURE_REGIONS		0x1ULL		/* memory regions */
#define FBINDER_FEATURE_INFO		0x2ULL		/* FBINDER_IOC_INFO */
#define FBINDER_FEATURE_SEND_BATCH	0x4ULL		/* FBINDER_CMD_SEND_BATCH */
#define FBINDER_FEATURE_INSTANCES	0x8ULL		/* fastbinderfs, FBINDER_CTL_ADD */
#define FBINDER_FEATURE_SECCTX		0x10ULL		/* FBINDER_OBJF_TXN_SECCTX */
/* FBINDER_CMD_SEND_SG, FBINDER_CMD_REPLY_SG and FBINDER_OBJ_PTR objects */
#define FBINDER_FEATURE_SEND_SG		0x20ULL
/* FBINDER_IOC_FREEZE, FBINDER_IOC_FROZEN_INFO, FBINDER_TXN_FROZEN_REPORT */
#define FBINDER_FEATURE_FREEZE		0x40ULL
/* FBINDER_OBJ_FDA objects */
#define FBINDER_FEATURE_FDA		0x80ULL
/* What every version 4 driver has, also one that knows only the V4 command. */
#define FBINDER_FEATURES_V4		(FBINDER_FEATURE_REGIONS | \
					 FBINDER_FEATURE_INFO | \
					 FBINDER_FEATURE_SEND_BATCH)

/*
 * One WRITE_READ runs the write stream first, then fills the read stream.
 * The driver updates both consumed counts even when it fails, so user
 * space knows which commands took effect.
 */
struct fbinder_write_read {
	__u64 write_buffer;	/* user pointer */
	__u64 write_size;
	__u64 write_consumed;	/* bytes the driver processed */
	__u64 read_buffer;	/* user pointer */
	__u64 read_size;
	__u64 read_consumed;	/* bytes the driver filled */
};

/* Payload of FBINDER_IOC_SET_CONTEXT_MGR. */
struct fbinder_context_mgr {
	__u64 cookie;		/* the local object that becomes handle 0 */
	__u32 flags;		/* FBINDER_OBJF_ACCEPTS_FDS, FBINDER_OBJF_TXN_SECCTX, or 0 */
	__u32 reserved;
};

/* ---- FBINDER_IOC_INFO: the driver's state for tools -------------------- */

/*
 * What FBINDER_IOC_INFO reads (docs/abi.md, Information).  The caller sees
 * only what docs/security.md lets it see of other users' contexts.
 */
enum fbinder_info_what {
	FBINDER_INFO_COUNTERS	= 0,	/* __u64 per counter, FBINDER_COUNTER_* order */
	FBINDER_INFO_CONTEXTS	= 1,	/* struct fbinder_info_context */
	FBINDER_INFO_NODES	= 2,	/* struct fbinder_info_node */
	FBINDER_INFO_FAILURES	= 3,	/* struct fbinder_info_failure */
	FBINDER_INFO_HANDLES	= 4,	/* struct fbinder_info_handle */
};

/* Version of the entries' layout; new fields only ever go at their end. */
#define FBINDER_INFO_VERSION		1

/* FBINDER_INFO_FAILURES: sleep until a failure newer than seq comes. */
#define FBINDER_INFO_WAIT		0x1

struct fbinder_info {
	__u32 what;		/* enum fbinder_info_what */
	__u32 flags;		/* FBINDER_INFO_WAIT, or 0 */
	__u32 version;		/* out: FBINDER_INFO_VERSION */
	__u32 entry_size;	/* in: the caller's entry size; out: the driver's */
	__u32 count;		/* in: room, in entries; out: entries written */
	__u32 total;		/* out: entries there were (more than count: retry) */
	__u64 seq;		/* FAILURES: in: the last seen; out: the newest */
	__u64 entries;		/* user pointer, count * entry_size bytes */
	__u64 reserved[2];	/* must be 0 */
};

/* The counters of FBINDER_INFO_COUNTERS; new ones are appended. */
enum fbinder_counter {
	FBINDER_COUNTER_LIVE_CONTEXTS,
	FBINDER_COUNTER_LIVE_THREADS,
	FBINDER_COUNTER_LIVE_NODES,
	FBINDER_COUNTER_LIVE_HANDLES,
	FBINDER_COUNTER_LIVE_BUFFERS,
	FBINDER_COUNTER_LIVE_TRANSACTIONS,
	FBINDER_COUNTER_LIVE_DEATHS,
	FBINDER_COUNTER_LIVE_PAGES,
	FBINDER_COUNTER_CALLS,
	FBINDER_COUNTER_ONEWAYS,
	FBINDER_COUNTER_REPLIES,
	FBINDER_COUNTER_FAILED,
	FBINDER_COUNTER_DEAD_REPLIES,
	FBINDER_COUNTER_RELEASE_NOTICES,
	FBINDER_COUNTER_SPAWN_REQUESTS,
	FBINDER_COUNTER_ABANDONED,
	FBINDER_COUNTER_LIVE_REGIONS,	/* memory regions not freed yet */
	FBINDER_COUNTER_COUNT
};

/* One context (open file) the caller may see. */
struct fbinder_info_context {
	__u64 id;		/* the context's, for nodes and handles to name */
	__u32 pid;		/* its owner, in the caller's pid namespace */
	__u32 euid;		/* it opened the device with, in the caller's user ns */
	char device[32];	/* the device's name */
	__u32 threads;		/* thread records */
	__u32 queued;		/* calls and oneway messages not read yet */
	__u32 max_threads;	/* FBINDER_IOC_SET_MAX_THREADS */
	__u32 requested_threads;	/* FBINDER_RET_SPAWN_LOOPER not registered yet */
	__u32 started_threads;	/* registered at the driver's request */
	__u32 nodes;
	__u32 handles;
	__u32 death_links;
	__u32 buffers;		/* slots of its buffer in use */
	__u32 flags;		/* FBINDER_INFO_CONTEXT_* (0 before FREEZE) */
	__u64 map_size;		/* bytes mapped, 0 before mmap */
	__u64 pages_resident;	/* pages of its buffer present */
	__u64 bytes_queued;	/* slots held by calls and oneway messages to it */
	__u64 received;		/* calls and oneway messages queued to it */
	__u64 sent;		/* calls and oneway messages its threads sent */
	__u64 failed;		/* its sends and replies that failed */
};

#define FBINDER_INFO_CONTEXT_FROZEN	0x1	/* FBINDER_IOC_FREEZE froze it */

#define FBINDER_INFO_NODE_CTX_MGR	0x1	/* handle 0 of its device */

/* One node of a context the caller may see. */
struct fbinder_info_node {
	__u64 id;		/* as in failures and tracepoints */
	__u64 ctx;		/* its owner's context id */
	__u64 cookie;		/* its owner's name for it */
	__u32 owner_pid;	/* in the caller's pid namespace */
	__u32 flags;		/* FBINDER_INFO_NODE_* */
	__u32 handles;		/* handles of other contexts to it */
	__u32 oneway_out;	/* oneway messages delivered, not freed */
	__u64 calls;		/* calls and oneway messages queued to it */
};

#define FBINDER_INFO_HANDLE_DEAD	0x1	/* its node's owner is gone */

/* One handle of a context the caller may see. */
struct fbinder_info_handle {
	__u64 ctx;		/* its holder's context id */
	__u32 holder_pid;	/* in the caller's pid namespace */
	__u32 id;		/* the holder's handle number */
	__u64 node;		/* the node's id */
	__u32 owner_pid;	/* the node's owner, 0 if gone or not visible */
	__u32 flags;		/* FBINDER_INFO_HANDLE_* */
	__u32 refs;		/* FBINDER_CMD_ACQUIRE minus RELEASE */
	__u32 buffer_refs;	/* unfreed buffers carrying it */
};

enum fbinder_failure_what {
	FBINDER_FAILED_SEND	= 1,	/* FBINDER_CMD_SEND */
	FBINDER_FAILED_REPLY	= 2,	/* FBINDER_CMD_REPLY */
	FBINDER_FAILED_DELIVER	= 3,	/* a message its receiver could not take */
};

/* One failure the caller sent or was the target of. */
struct fbinder_info_failure {
	__u64 seq;		/* 1 for the first since the module loaded */
	__u64 time_ns;		/* CLOCK_MONOTONIC */
	__s32 error;		/* negative errno */
	__u32 what;		/* enum fbinder_failure_what */
	__u32 from_pid;		/* the sender, 0 if not visible */
	__u32 to_pid;		/* the target's owner, 0 if none or not visible */
	__u64 node;		/* the target node's id, 0 if none */
	__u32 code;
	__u32 reserved;
};

/* ---- freezing a process's contexts (FBINDER_FEATURE_FREEZE) ------------ */

/* Argument of FBINDER_IOC_FREEZE. */
struct fbinder_freeze {
	__u32 pid;		/* the process, in the caller's pid namespace */
	__u32 enable;		/* 1: freeze, 0: thaw */
	__u32 timeout_ms;	/* freeze: how long calls in progress may take */
	__u32 reserved;		/* 0 */
};

/* struct fbinder_frozen_info.flags */
#define FBINDER_FROZEN_FROZEN		0x01	/* frozen by FBINDER_IOC_FREEZE */
#define FBINDER_FROZEN_SYNC_RECV	0x02	/* a call came since the freeze */
#define FBINDER_FROZEN_ASYNC_RECV	0x04	/* a oneway came since the freeze */
#define FBINDER_FROZEN_CALLS_PENDING	0x08	/* calls to it not answered yet */
#define FBINDER_FROZEN_TASK_FROZEN	0x10	/* its leader is frozen (cgroup, suspend) */
#define FBINDER_FROZEN_TASK_STOPPED	0x20	/* its leader is stopped or traced */

/* Argument of FBINDER_IOC_FROZEN_INFO. */
struct fbinder_frozen_info {
	__u32 pid;		/* in: the process, in the caller's pid namespace */
	__u32 flags;		/* out: FBINDER_FROZEN_*, of all its contexts */
	__u32 queued;		/* out: messages queued to them, not read yet */
	__u32 reserved;		/* in: 0 */
};

#define FBINDER_IOC_MAGIC		0xFB
#define FBINDER_IOC_VERSION		_IOR(FBINDER_IOC_MAGIC, 0, struct fbinder_version)
/* The same command as built before features: the first 8 bytes only. */
#define FBINDER_IOC_VERSION_V4	_IOC(_IOC_READ, FBINDER_IOC_MAGIC, 0, 8)
#define FBINDER_IOC_WRITE_READ	_IOWR(FBINDER_IOC_MAGIC, 1, struct fbinder_write_read)
#define FBINDER_IOC_SET_MAX_THREADS	_IOW(FBINDER_IOC_MAGIC, 2, __u32)
#define FBINDER_IOC_SET_CONTEXT_MGR	_IOW(FBINDER_IOC_MAGIC, 3, struct fbinder_context_mgr)
#define FBINDER_IOC_THREAD_EXIT	_IO(FBINDER_IOC_MAGIC, 4)
#define FBINDER_IOC_WAKE_IDLE	_IO(FBINDER_IOC_MAGIC, 5)
#define FBINDER_IOC_REGION_CREATE	_IOWR(FBINDER_IOC_MAGIC, 6, struct fbinder_region_create)
#define FBINDER_IOC_REGION_NARROW	_IOWR(FBINDER_IOC_MAGIC, 7, struct fbinder_region_narrow)
#define FBINDER_IOC_REGION_INFO	_IOWR(FBINDER_IOC_MAGIC, 8, struct fbinder_region_info)
#define FBINDER_IOC_REGION_REVOKE	_IOW(FBINDER_IOC_MAGIC, 9, __u32)
#define FBINDER_IOC_FREEZE		_IOW(FBINDER_IOC_MAGIC, 10, struct fbinder_freeze)
#define FBINDER_IOC_FROZEN_INFO	_IOWR(FBINDER_IOC_MAGIC, 11, struct fbinder_frozen_info)
#define FBINDER_IOC_INFO		_IOWR(FBINDER_IOC_MAGIC, 16, struct fbinder_info)

/* ---- fastbinderfs: instances at run time (docs/abi.md, Instances) ------- */

/* The filesystem type, its statfs f_type, and the control file in its root. */
#define FBINDER_FS_TYPE		"fastbinderfs"
#define FBINDER_FS_MAGIC	0x66626673	/* "fbfs" */
#define FBINDER_FS_CONTROL	"fastbinder-control"
#define FBINDER_FS_MAX_INSTANCES	64	/* in one mount */

/* Argument of FBINDER_CTL_ADD, on the control file of a mount. */
struct fbinder_instance {
	char name[32];		/* in: 1-31 bytes and a NUL, no '/', not "." or ".." */
	__u32 major;		/* out: the device number of <mount>/<name> */
	__u32 minor;
	__u32 flags;		/* in: 0 */
	__u32 reserved;		/* in: 0 */
};

#define FBINDER_CTL_ADD		_IOWR(FBINDER_IOC_MAGIC, 32, struct fbinder_instance)

#endif /* _UAPI_LINUX_FASTBINDER_H */
