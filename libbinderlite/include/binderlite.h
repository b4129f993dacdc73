// SPDX-License-Identifier: MIT
/*
 * binderlite.h - the one public header of libbinderlite, the C library for
 * fastbinder (binder-style IPC for Linux, /dev/fastbinder).
 *
 * Conventions, for every function declared here:
 *  - Failure is a negative errno value (-EINVAL, -ENOMEM, -EBADMSG, ...);
 *    success is 0 unless stated otherwise.  The library never aborts or
 *    exits the caller, and never prints.
 *  - Every symbol carries the prefix bl_ (types and macros BL_).
 *  - Thread safety is stated per function.  "Object-confined" means: any
 *    number of threads may call the function concurrently on *different*
 *    objects; calls on the same object must be serialised by the caller.
 *
 * Sections:
 *  1. Parcels (docs/parcel.md): the typed message payload.
 *  2. Contexts: opening /dev/fastbinder and mapping the receive buffer.
 *  3. Local objects: what other processes call, with reference counting.
 *  4. Handles and calls: synchronous calls, oneway sends, batches.
 *  5. Loopers and the thread pool: serving incoming calls.
 *  6. Death recipients.
 *  7. The service manager client.
 *  8. Memory regions: bulk data by capability, one copy.
 * This header is the reference: every function has its comment here
 * (tests/unit/doc_coverage.sh checks it).  docs/libbinderlite.md is the
 * tutorial and the rules, docs/parcel.md the wire format.
 */
#ifndef BINDERLITE_H
#define BINDERLITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <linux/fastbinder.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * 1. Parcels
 *
 * A parcel is the payload of one fastbinder message: a byte buffer of
 * typed items plus the array of offsets (struct fbinder_txn_data.offsets) of the
 * struct fbinder_object items embedded in it, which the driver translates.
 *
 * Writing: struct bl_parcel, a growable buffer the caller owns (it may live
 * on the stack).  Reading: struct bl_reader, a bounded cursor over a const
 * byte range and its offsets array (typically the read-only slot of the
 * receive mapping).  The wire format is documented in docs/parcel.md.
 *
 * Wire format in one paragraph: every item starts at an 8-byte aligned
 * position with a 4-byte tag (BL_WIRE_TAG(type)) and occupies a multiple
 * of 8 bytes; padding is zero.  Scalars up to 32 bits take 8 bytes, 64-bit
 * scalars 16, strings and blobs 8 + length (+1 NUL for strings) rounded up
 * to 8, objects and fds 24 (the struct fbinder_object sits at item + 8, an
 * 8-aligned offset listed in the offsets array), arrays a 16-byte header
 * followed by their items.  Values are in host byte order (the peer is on
 * the same machine).
 *
 * Thread safety, for every bl_parcel_* and bl_reader_* function (inline
 * ones included): object-confined.  A parcel or a reader has no lock;
 * concurrent calls on one of them must be serialised by the caller, calls
 * on different ones need nothing, and any number of readers may read the
 * same memory at once.  The parcel functions keep no global state.
 *
 * Reader errors (the reader's position is unchanged after any error, so a
 * caller may retry with another type):
 *   -ENODATA   no item left in the reader's range (clean end)
 *   -EMSGSIZE  the item, or a length it declares, reaches past the end of
 *              the range (truncated message, or a hostile length)
 *   -EBADMSG   wrong type tag, unknown tag, nonzero padding, a value out of
 *              range for its type, a malformed string, an object not at an
 *              offset listed in the offsets array, an offsets entry inside
 *              a plain value, a bad struct fbinder_object
 *   -EINVAL    invalid arguments (API misuse, not peer input)
 * Writer errors:
 *   -ENOMEM    allocation failed; the parcel is unchanged and still valid
 *   -EMSGSIZE  the parcel would exceed BL_PARCEL_MAX_SIZE, or a string or
 *              blob is longer than a 32-bit length can say
 *   -EINVAL    invalid arguments (bad UTF-8, NULL pointer, unbalanced
 *              bl_parcel_end_array(), ...); the parcel is unchanged
 *   -EBADF     a negative file descriptor
 * ====================================================================== */

/* Item types; the low byte of each item's 4-byte wire tag. */
enum bl_type {
	BL_TYPE_U8	= 1,
	BL_TYPE_I8	= 2,
	BL_TYPE_U16	= 3,
	BL_TYPE_I16	= 4,
	BL_TYPE_U32	= 5,
	BL_TYPE_I32	= 6,
	BL_TYPE_U64	= 7,
	BL_TYPE_I64	= 8,
	BL_TYPE_BOOL	= 9,
	BL_TYPE_DOUBLE	= 10,
	BL_TYPE_STRING	= 11,
	BL_TYPE_BLOB	= 12,
	BL_TYPE_OBJECT	= 13,	/* FBINDER_OBJ_LOCAL or FBINDER_OBJ_HANDLE */
	BL_TYPE_FD	= 14,	/* FBINDER_OBJ_FD */
	BL_TYPE_ARRAY	= 15,	/* nested, length-prefixed sequence of items */
};

/* The 4-byte tag that opens every item: 'B' 'L' in the high half. */
#define BL_WIRE_MAGIC		0x424c0000u
#define BL_WIRE_TAG(type)	(BL_WIRE_MAGIC | (uint32_t)(type))

/* Items start at, and occupy multiples of, this many bytes. */
#define BL_PARCEL_ALIGN		8u

/* Largest parcel the writer builds (data bytes); offsets fit in 31 bits. */
#define BL_PARCEL_MAX_SIZE	0x7ffffff8u

/*
 * The write parcel.  The layout is public so a parcel can live on the stack
 * and the accessors below can be inline; the fields are private: use the
 * functions.  Initialise with bl_parcel_init() or BL_PARCEL_INIT, release
 * with bl_parcel_fini().
 */
struct bl_parcel {
	uint8_t *data;			/* items; size bytes used of capacity */
	size_t size;
	size_t capacity;
	uint64_t *offsets;		/* fbinder_object offsets, increasing */
	size_t offsets_count;
	size_t offsets_capacity;
	uint32_t array_head;		/* innermost open array header, or UINT32_MAX */
	uint32_t array_items;		/* items written at the current level */
	uint32_t depth;			/* open arrays */
	uint32_t reserved;
	struct bl_held_objects *held;	/* bl_parcel_write_obj() refs */
};

#define BL_PARCEL_INIT { NULL, 0, 0, NULL, 0, 0, UINT32_MAX, 0, 0, 0, NULL }

/*
 * The read parcel: a cursor over [pos, end) of data, checking objects
 * against offsets[].  Plain struct, private fields; it holds no resources,
 * so it needs no fini and may be copied.  It does not own the memory it
 * reads: data and offsets must stay valid and unchanged while the reader
 * and any pointer it returned are in use.
 */
struct bl_reader {
	const uint8_t *data;		/* start of the whole message */
	size_t size;			/* bytes at data */
	const uint64_t *offsets;	/* validated by bl_reader_init() */
	size_t offsets_count;
	size_t pos;			/* next item, relative to data */
	size_t end;			/* end of this reader's range */
};

/* ---- writing ----------------------------------------------------------- */

/*
 * Initialises an empty parcel; allocates nothing, cannot fail.
 * Thread safety: object-confined (the parcel), as every bl_parcel_*.
 */
void bl_parcel_init(struct bl_parcel *p);

/*
 * Frees the parcel's buffers and leaves it empty, as after bl_parcel_init()
 * (so fini twice, or fini then reuse, is safe).  NULL is ignored.
 */
void bl_parcel_fini(struct bl_parcel *p);

/* Empties the parcel, keeping its buffers for reuse.  Cannot fail. */
void bl_parcel_reset(struct bl_parcel *p);

/*
 * Makes room for at least data_bytes more bytes and objects more objects,
 * so the writes that fit need no allocation.  -ENOMEM, -EMSGSIZE.
 */
int bl_parcel_reserve(struct bl_parcel *p, size_t data_bytes, size_t objects);

/* Scalars.  Each returns 0, -ENOMEM or -EMSGSIZE; -EINVAL if p is NULL. */
int bl_parcel_write_u8(struct bl_parcel *p, uint8_t v);
int bl_parcel_write_i8(struct bl_parcel *p, int8_t v);
int bl_parcel_write_u16(struct bl_parcel *p, uint16_t v);
int bl_parcel_write_i16(struct bl_parcel *p, int16_t v);
int bl_parcel_write_u32(struct bl_parcel *p, uint32_t v);
int bl_parcel_write_i32(struct bl_parcel *p, int32_t v);
int bl_parcel_write_u64(struct bl_parcel *p, uint64_t v);
int bl_parcel_write_i64(struct bl_parcel *p, int64_t v);
int bl_parcel_write_bool(struct bl_parcel *p, bool v);
int bl_parcel_write_double(struct bl_parcel *p, double v);

/*
 * A NUL-terminated UTF-8 string (not NULL).  -EINVAL if s is NULL or not
 * valid UTF-8.
 */
int bl_parcel_write_string(struct bl_parcel *p, const char *s);

/*
 * A UTF-8 string of len bytes, not necessarily NUL-terminated in memory
 * (the parcel stores the terminator).  -EINVAL if it contains a NUL byte or
 * invalid UTF-8, or s is NULL with len > 0.
 */
int bl_parcel_write_string_len(struct bl_parcel *p, const char *s, size_t len);

/* len bytes copied from data (which may be NULL when len is 0). */
int bl_parcel_write_blob(struct bl_parcel *p, const void *data, size_t len);

/*
 * Appends a blob of len bytes and stores in *out a pointer to its (zeroed)
 * bytes, for the caller to fill in place.  The pointer is valid until the
 * next call that may grow or free the parcel.
 */
int bl_parcel_alloc_blob(struct bl_parcel *p, size_t len, void **out);

/* A local object, named by the caller's cookie (FBINDER_OBJ_LOCAL). */
int bl_parcel_write_local(struct bl_parcel *p, uint64_t cookie);

/* A handle the caller holds (FBINDER_OBJ_HANDLE). */
int bl_parcel_write_handle(struct bl_parcel *p, uint32_t handle);

/*
 * A memory region handle the caller holds (FBINDER_OBJ_REGION, section 8):
 * the receiver gets its own handle of the same region.
 */
int bl_parcel_write_region(struct bl_parcel *p, uint32_t handle);

/*
 * A file descriptor (FBINDER_OBJ_FD, an item of type BL_TYPE_FD).  The parcel
 * does not take ownership of fd: the driver takes its own reference to
 * the open file when the message is sent.  -EBADF if fd < 0.
 */
int bl_parcel_write_fd(struct bl_parcel *p, int fd);

/*
 * Any object as read from another parcel (bl_reader_read_object()), e.g.
 * to forward it: type FBINDER_OBJ_LOCAL, FBINDER_OBJ_HANDLE, FBINDER_OBJ_FD or
 * FBINDER_OBJ_REGION, flags 0, else -EINVAL.
 */
int bl_parcel_write_object(struct bl_parcel *p, const struct fbinder_object *obj);

/*
 * Opens a nested array: the items written until the matching
 * bl_parcel_end_array() become its body, counted and length-prefixed.
 * Arrays nest without limit and cost no allocation besides their 16-byte
 * header.  The array itself counts as one item of the enclosing level.
 */
int bl_parcel_begin_array(struct bl_parcel *p);

/* Closes the innermost open array; -EINVAL if none is open. */
int bl_parcel_end_array(struct bl_parcel *p);

/* Accessors; thread safety: object-confined; never fail. */

/* The bytes to send.  Valid until the next write, reset or fini. */
static inline const void *bl_parcel_data(const struct bl_parcel *p)
{
	return p->data;
}

/* How many bytes bl_parcel_data() points at. */
static inline size_t bl_parcel_size(const struct bl_parcel *p)
{
	return p->size;
}

/* The offsets of the objects (struct fbinder_txn_data.offsets); same lifetime. */
static inline const uint64_t *bl_parcel_offsets(const struct bl_parcel *p)
{
	return p->offsets;
}

/* How many entries bl_parcel_offsets() points at. */
static inline size_t bl_parcel_offsets_count(const struct bl_parcel *p)
{
	return p->offsets_count;
}

/* Arrays opened and not closed yet; a parcel is complete when this is 0. */
static inline unsigned int bl_parcel_open_arrays(const struct bl_parcel *p)
{
	return p->depth;
}

/* ---- reading ----------------------------------------------------------- */

/*
 * Starts reading size bytes at data, whose objects are at the
 * offsets_count offsets at offsets (e.g. struct fbinder_txn_msg's data and
 * offsets resolved in the receive mapping).  Validates the offsets array
 * (each entry 8-aligned, the whole struct fbinder_object inside the data, the
 * entries strictly increasing and 16 bytes or more apart) and returns
 * -EBADMSG if it is not valid, -EINVAL if data or offsets is NULL with a
 * nonzero size or count.  Does not copy: see struct bl_reader for the
 * lifetime rule.  data needs no alignment (every load is byte-wise safe).
 * Thread safety: object-confined (the reader), as every bl_reader_*; any
 * number of readers may read the same memory concurrently.
 */
int bl_reader_init(struct bl_reader *r, const void *data, size_t size,
		   const uint64_t *offsets, size_t offsets_count);

/*
 * Starts reading what a bl_parcel holds (a loopback, or a test).  The
 * parcel must not change while the reader is in use.  -EINVAL if the
 * parcel has open arrays.
 */
int bl_reader_init_parcel(struct bl_reader *r, const struct bl_parcel *p);

/*
 * Scalars.  Each reads one item of exactly its own type into *out (out may
 * be NULL to discard).  Errors: see the top of this section; in addition
 * -EBADMSG when the stored value does not fit the type (a u8 with high
 * bits set, a bool other than 0 or 1, ...).
 */
int bl_reader_read_u8(struct bl_reader *r, uint8_t *out);
int bl_reader_read_i8(struct bl_reader *r, int8_t *out);
int bl_reader_read_u16(struct bl_reader *r, uint16_t *out);
int bl_reader_read_i16(struct bl_reader *r, int16_t *out);
int bl_reader_read_u32(struct bl_reader *r, uint32_t *out);
int bl_reader_read_i32(struct bl_reader *r, int32_t *out);
int bl_reader_read_u64(struct bl_reader *r, uint64_t *out);
int bl_reader_read_i64(struct bl_reader *r, int64_t *out);
int bl_reader_read_bool(struct bl_reader *r, bool *out);
int bl_reader_read_double(struct bl_reader *r, double *out);

/*
 * A string: *out points into the reader's buffer (zero copy), at len valid
 * UTF-8 bytes followed by a NUL, with no NUL inside; len may be NULL.  The
 * pointer lives as long as the buffer.
 */
int bl_reader_read_string(struct bl_reader *r, const char **out, size_t *len);

/* A blob: *out points into the reader's buffer (zero copy), *len bytes. */
int bl_reader_read_blob(struct bl_reader *r, const void **out, size_t *len);

/*
 * An object item (BL_TYPE_OBJECT): copies the struct fbinder_object, which is
 * FBINDER_OBJ_LOCAL (an object of the reader's own process, by its cookie) or
 * FBINDER_OBJ_HANDLE (a handle of the reader's process).  A sender's handle may
 * arrive as a local object and vice versa: the driver translates them.
 */
int bl_reader_read_object(struct bl_reader *r, struct fbinder_object *out);

/* An object item that must be FBINDER_OBJ_LOCAL; else -EBADMSG. */
int bl_reader_read_local(struct bl_reader *r, uint64_t *cookie);

/* An object item that must be FBINDER_OBJ_HANDLE; else -EBADMSG. */
int bl_reader_read_handle(struct bl_reader *r, uint32_t *handle);

/*
 * An object item that must be FBINDER_OBJ_REGION (the reader's region
 * handle, section 8); else -EBADMSG.  Valid as long as the message, like
 * any handle: bl_handle_acquire() it to keep it.
 */
int bl_reader_read_region(struct bl_reader *r, uint32_t *handle);

/*
 * A file descriptor item (BL_TYPE_FD): the reader's own descriptor as the
 * driver installed it.  It belongs to the message: the library closes it
 * when the message is done with (bl_reply_fini() for a reply, after the
 * handler returns and its reply is sent for a request), whether or not it
 * was read, so a sender cannot fill a receiver's descriptor table.  dup()
 * it to keep the open file longer.  A reader over memory that is not a
 * received message (bl_reader_init_parcel()) closes nothing.
 */
int bl_reader_read_fd(struct bl_reader *r, int *fd);

/*
 * Enters an array: initialises *sub to read the array's body (same data
 * and offsets, range limited to the body) and moves r past the whole
 * array.  *count (may be NULL) is the number of items the sender declared;
 * it is at most the body size / 8, each item is still checked as it is
 * read, and reading *sub to -ENODATA is the authoritative end.  sub may be
 * r itself, to descend without keeping the enclosing reader.
 */
int bl_reader_enter_array(struct bl_reader *r, struct bl_reader *sub,
			  uint32_t *count);

/*
 * The type of the next item (an enum bl_type, > 0) without consuming it;
 * or -ENODATA, -EMSGSIZE, -EBADMSG.  Checks only the tag and that the item
 * fits: the read can still fail.
 */
int bl_reader_peek_type(const struct bl_reader *r);

/*
 * Skips the next item of any type (an array as a whole) after checking
 * its tag, size and padding, and for objects their offsets entry.
 * Returns the type skipped (> 0) or a negative errno.
 */
int bl_reader_skip(struct bl_reader *r);

/* Bytes left in the reader's range. */
static inline size_t bl_reader_remaining(const struct bl_reader *r)
{
	return r->end - r->pos;
}

/* Position of the next item, relative to the start of the message. */
static inline size_t bl_reader_position(const struct bl_reader *r)
{
	return r->pos;
}

/* ======================================================================
 * 2. Contexts
 *
 * A context is one open /dev/fastbinder with its read-only receive buffer
 * mapped: everything else hangs off it.  One per process is the rule (a
 * second one is a second, unrelated identity to the driver).
 *
 * Thread safety: every function of sections 2-7 may be called from any
 * thread at the same time, unless its comment says otherwise.  Handlers,
 * destroy and death callbacks run on looper threads (section 5), or on a
 * thread blocked in bl_call() when a nested call comes back to it.
 * ====================================================================== */

struct bl_context;

#define BL_DEFAULT_DEVICE	"/dev/fastbinder"
#define BL_DEFAULT_MAP_SIZE	(1u << 20)	/* 1 MiB receive buffer */

/*
 * Opens path (NULL: BL_DEFAULT_DEVICE), checks the driver's ABI version and
 * maps map_size bytes (0: BL_DEFAULT_MAP_SIZE; a multiple of the page size,
 * at most the driver's max_map_size).  Errors: what open(2) and mmap(2)
 * return (-ENOENT: module not loaded, -EINVAL: bad size, ...), and
 * -EPROTONOSUPPORT when the driver speaks another ABI version than the
 * one this library was built for (see bl_context_abi_version()).
 */
int bl_context_open(const char *path, size_t map_size,
		    struct bl_context **out);

/*
 * Stops the pool (bl_context_stop()), drops every local object the library
 * still tracks (calling its destroy callback), every death recipient, and
 * closes the device.  The driver then tells every holder of this
 * process's objects that they died.  Call it once, when no other thread
 * uses the context any more, and not from a handler.  NULL is ignored.
 */
void bl_context_close(struct bl_context *ctx);

/* The device descriptor, e.g. for poll(2) with bl_loop_once(). */
int bl_context_fd(const struct bl_context *ctx);

/* The driver's FBINDER_ABI_VERSION (what bl_context_open() compared). */
uint32_t bl_context_abi_version(const struct bl_context *ctx);

/*
 * Makes obj this device's context manager, handle 0 for every process
 * (what the service manager does); it accepts descriptors only if
 * bl_object_set_accept_fds() said so.  -EBUSY: another process is it;
 * -EPERM: the caller has neither CAP_SYS_ADMIN nor the euid of the
 * driver's manager_uid parameter, or another euid claimed handle 0 first
 * (the driver keeps handle 0 for that euid until the module is reloaded).
 */
struct bl_object;
int bl_context_become_manager(struct bl_context *ctx, struct bl_object *obj);

/* ======================================================================
 * 3. Local objects
 *
 * A local object is something of this process that others call: a handler
 * function plus user data.  Put it in a parcel with bl_parcel_write_obj();
 * the receiver gets a handle to it.  The library counts the references:
 * the caller's own (bl_object_new() returns one, bl_object_ref() and
 * bl_object_unref() add and drop) and the remote ones the driver reports.
 * When both reach zero the destroy callback runs (on the thread that
 * dropped the last one) and the object is freed.  A typical service drops
 * its own reference after registering and lives as long as someone holds
 * a handle to it.
 * ====================================================================== */

/* Facts about the call being handled, valid during the handler. */
struct bl_call_info {
	struct bl_context *ctx;
	uint64_t txn_id;	/* the driver's transaction ID */
	uint32_t code;		/* method code */
	/*
	 * FBINDER_TXN_ONEWAY for a oneway message, also one that came in a
	 * batch (whose messages share txn_id)
	 */
	uint32_t flags;
	int32_t sender_pid;	/* in this process's pid namespace; 0 if none */
	uint32_t sender_euid;	/* in this process's user namespace */
};

/*
 * A handler: reads the request, writes the reply (ignored for oneway
 * messages, and then NULL), and returns a status that reaches the caller
 * as bl_reply.status: 0 for success; by convention a negative errno for a
 * failure (-EINVAL bad arguments, -EOPNOTSUPP unknown code, ...), or a
 * positive value of the interface's own.  A handler may make calls,
 * nested ones included; it must not call bl_context_close().  The
 * request's descriptors are closed after the handler returns and its
 * reply is sent (see bl_reader_read_fd()), so one may be echoed in the
 * reply as it is; dup() one to keep it.
 */
typedef int32_t (*bl_handler_fn)(struct bl_object *obj, uint32_t code,
				 struct bl_reader *request,
				 struct bl_parcel *reply,
				 const struct bl_call_info *info);

/* Runs once, just before the object is freed. */
typedef void (*bl_destroy_fn)(struct bl_object *obj);

/*
 * Creates an object with one reference (the caller's).  destroy may be
 * NULL.  -EINVAL (no ctx or handler), -ENOMEM.
 */
int bl_object_new(struct bl_context *ctx, bl_handler_fn handler,
		  bl_destroy_fn destroy, void *userdata,
		  struct bl_object **out);

/*
 * The minimum priority of the threads that handle the object's calls
 * (FBINDER_OBJF_MIN_PRIO): rt false: a nice value (-20..19); rt true: a
 * SCHED_FIFO priority (1..99).  Must be set before the object is first
 * sent (the driver reads it when the node is created): -EBUSY after.
 * -EINVAL out of range.  The process must be allowed to raise its own
 * threads to it (prio <= RLIMIT_RTPRIO, 20 - nice <= RLIMIT_NICE, or
 * CAP_SYS_NICE): otherwise the first send of the object fails with -EPERM
 * (default limits of 0 allow no minimum without CAP_SYS_NICE).
 */
int bl_object_set_min_priority(struct bl_object *obj, bool rt, int prio);

/*
 * Whether messages to the object may carry file descriptors
 * (FBINDER_OBJF_ACCEPTS_FDS; off by default): a call or oneway message with a
 * descriptor to an object that does not accept them fails with -EPERM.
 * Must be set before the object is first sent (or made the context
 * manager), as the driver reads it when the node is created: -EBUSY
 * after.  An object that accepts them still gets at most FBINDER_MAX_FDS per
 * message, and a message whose descriptors do not fit this process's
 * table (RLIMIT_NOFILE) is not delivered: the caller's call fails with
 * -EMFILE, a oneway message is dropped.
 */
int bl_object_set_accept_fds(struct bl_object *obj, bool accept);

/* The userdata and the context bl_object_new() was given. */
void *bl_object_userdata(const struct bl_object *obj);
struct bl_context *bl_object_context(const struct bl_object *obj);

/* Adds a reference of the caller's; returns obj. */
struct bl_object *bl_object_ref(struct bl_object *obj);

/* Drops one; the last reference overall destroys it.  NULL is ignored. */
void bl_object_unref(struct bl_object *obj);

/*
 * True while other processes may still refer to the object (it was sent
 * and the driver has not reported its release yet).
 */
bool bl_object_is_exported(const struct bl_object *obj);

/*
 * Writes obj into a parcel (an FBINDER_OBJ_LOCAL item).  The parcel holds a
 * reference on obj until it is reset or finished, so an object created
 * for a reply may be unref'd right after it is written.  Parcel errors.
 */
int bl_parcel_write_obj(struct bl_parcel *p, struct bl_object *obj);

/*
 * A local object read back from a message (bl_reader_read_local() gives
 * its cookie): returns a new reference in *out.  -ENOENT: no live object
 * of this context has that cookie.
 */
int bl_object_from_cookie(struct bl_context *ctx, uint64_t cookie,
			  struct bl_object **out);

/* ======================================================================
 * 4. Handles and calls
 *
 * A handle (uint32_t) names another process's object.  Handle 0 is the
 * service manager.  A handle read from a message is valid while that
 * message's buffer is (bl_reply_fini(), or the end of the handler);
 * bl_handle_acquire() keeps it for longer, bl_handle_release() lets go.
 * ====================================================================== */

/*
 * -ENOENT: no such handle, or handle 0 while no service manager runs;
 * -EOVERFLOW: 2^32 - 1 references held.  Handle 0 needs neither: it is
 * permanent, and both change nothing on it while a manager runs.
 */
int bl_handle_acquire(struct bl_context *ctx, uint32_t handle);
/* -ENOENT: as bl_handle_acquire(); -EINVAL: more releases than acquires. */
int bl_handle_release(struct bl_context *ctx, uint32_t handle);

/*
 * A reply: status as the handler returned it, and a reader over the reply
 * payload in the receive buffer.  Release with bl_reply_fini(), which hands
 * the buffer back to the driver and closes the descriptors the reply
 * carried (dup() one to keep it).  Object-confined.
 */
struct bl_reply {
	int32_t status;
	struct bl_reader reader;
	/* private */
	struct bl_context *ctx;
	uint64_t buffer;
	bool has_buffer;
};

/*
 * Frees the reply's buffer and closes its descriptors.  Safe on a zeroed
 * or finished reply.
 */
void bl_reply_fini(struct bl_reply *reply);

/* bl_call()'s timeout_ms: wait as long as it takes. */
#define BL_NO_TIMEOUT	(-1)

/*
 * Calls code on handle with the request (NULL: empty) and waits for the
 * reply, at most timeout_ms milliseconds (BL_NO_TIMEOUT: no limit).  On
 * success returns 0 and fills *reply (NULL: discard it); the handler's
 * status is reply->status.  Errors, with nothing to fini:
 *   -ENOENT      no such handle
 *   -EOWNERDEAD  the object's owner died (before or during the call)
 *   -ETIMEDOUT   no reply in time: the call carries on in the callee, its
 *                late reply is dropped
 *   -EMSGSIZE, -ENOSPC, -EDQUOT   the message did not fit the callee
 *                (-EMSGSIZE also: more than FBINDER_MAX_FDS descriptors)
 *   -EPERM       a descriptor to an object that does not accept them
 *   -EMFILE      the callee's descriptor table could not take the
 *                request's descriptors, or ours the reply's
 *   -EBADF, -EINVAL, ...          a bad file descriptor or object in it
 * The reply may carry descriptors (the call is sent with
 * FBINDER_TXN_ACCEPT_FDS); they are closed with the reply (bl_reply_fini()).
 * One thread makes one call at a time; while it waits, calls that the
 * callee makes back into this process run on this very thread.
 */
int bl_call(struct bl_context *ctx, uint32_t handle, uint32_t code,
	    const struct bl_parcel *request, struct bl_reply *reply,
	    int timeout_ms);

/*
 * Sends a oneway message: returns once it is in the callee's buffer.
 * Oneway messages to one object are handled in order, one at a time.
 * Errors as bl_call() (no -ETIMEDOUT).  One whose descriptors the callee
 * cannot take when it reads it is dropped (the driver records it in
 * debugfs "failed").
 */
int bl_send_oneway(struct bl_context *ctx, uint32_t handle, uint32_t code,
		   const struct bl_parcel *request);

struct bl_oneway {
	uint32_t handle;
	uint32_t code;
	const struct bl_parcel *request;	/* NULL: empty */
};

/*
 * Sends count oneway messages in one system call, in order.  Returns 0
 * when all went, else the error of the first that failed; *sent (may be
 * NULL) is the number that went either way.  -EINVAL for count 0 or more
 * than BL_ONEWAY_BATCH_MAX.  Consecutive messages without objects to one
 * handle travel together (FBINDER_CMD_SEND_BATCH, up to FBINDER_MAX_BATCH
 * in one slot of the receiver's buffer, far cheaper per message); the
 * receiving library hands them to the handler one by one as ever.  A
 * batch that does not fit the receiver (-ENOSPC, -EMSGSIZE) is sent again
 * message by message, so *sent is what it would be without batches.
 */
#define BL_ONEWAY_BATCH_MAX	1024
int bl_send_oneway_batch(struct bl_context *ctx, const struct bl_oneway *msgs,
			 size_t count, size_t *sent);

/* ======================================================================
 * 5. Loopers and the thread pool
 *
 * Incoming calls, oneway messages, release notices and death notices are
 * handled by loopers: threads inside bl_loop(), pool threads, or a thread
 * calling bl_loop_once() from its own event loop.  Without one, this
 * process can call others but nobody can call it, and death recipients
 * never run.
 * ====================================================================== */

/*
 * Runs the loop on the calling thread until bl_context_stop().  Returns 0
 * when stopped, or a negative errno if the device failed.
 */
int bl_loop(struct bl_context *ctx);

/*
 * Handles what is pending for this thread, waiting at most timeout_ms
 * (0: not at all, BL_NO_TIMEOUT: until something came).  Returns the
 * number of items handled (0 on timeout), or a negative errno.  For a
 * single-threaded program that polls bl_context_fd() itself.
 */
int bl_loop_once(struct bl_context *ctx, int timeout_ms);

/*
 * Starts threads pool threads now and lets the driver ask for more, up to
 * max_threads in all, when every looper is busy.  -EINVAL if threads is
 * 0 or above max_threads, -EALREADY if a pool runs; pthread errors.  A
 * pool stopped with bl_context_stop() may be started again and grows again
 * (the driver asks for at most 1024 threads over a context's life).
 */
int bl_pool_start(struct bl_context *ctx, unsigned int threads,
		  unsigned int max_threads);

/* Threads of the pool running now (started minus exited). */
unsigned int bl_pool_size(struct bl_context *ctx);

/*
 * Makes every bl_loop() return and every pool thread exit, and waits for
 * them (not for itself when called from a handler: then it only asks, and
 * bl_context_close() waits).  Calls in flight finish first.  After it,
 * bl_loop() and bl_pool_start() may be used again.
 */
void bl_context_stop(struct bl_context *ctx);

/* ======================================================================
 * 6. Death recipients
 * ====================================================================== */

struct bl_death;

/* Runs once, on a looper, when the object behind handle died. */
typedef void (*bl_death_fn)(struct bl_context *ctx, uint32_t handle,
			    void *userdata);

/*
 * Asks for fn when handle's object dies (its process exited or crashed).
 * If it is dead already, fn runs soon.  The recipient stays allocated
 * until bl_unlink_death() or bl_context_close(), even after fn ran.  The
 * link lasts while this process holds the handle (acquire it).
 * -ENOENT: no such handle; -ENOMEM.
 */
int bl_link_death(struct bl_context *ctx, uint32_t handle, bl_death_fn fn,
		  void *userdata, struct bl_death **out);

/*
 * Cancels and frees the recipient.  0: fn will not run; -EOWNERDEAD: the
 * object had died (fn ran, or runs now on another thread and the
 * recipient is freed after it).  Safe to call from fn itself.
 */
int bl_unlink_death(struct bl_death *death);

/* ======================================================================
 * 7. The service manager client
 *
 * The service manager (fb-servicemanager) is handle 0: it maps names to
 * objects.  Names are 1..BL_SM_NAME_MAX bytes of [A-Za-z0-9._/-]
 * (bl_sm_name_valid()).  The
 * protocol is in docs/servicemanager.md.
 *
 * Who answers is checked: every reply carries the replier's euid, and a
 * reply from another euid than the expected manager's is refused with
 * -EACCES by every function below, before anything in it is used.  The
 * expected euid is root (0), or the number in the environment variable
 * FBINDER_MANAGER_UID when the context was opened (a decimal uid; ignored in
 * set-id programs, see secure_getenv(3)), or what bl_sm_set_manager_uid()
 * set.  The euid is as the driver reports it, in the caller's user
 * namespace: a manager whose uid is not mapped there reads as the
 * overflow uid (65534) and is refused.
 * ====================================================================== */

#define BL_SM_NAME_MAX		127

/*
 * The service-name rule, in this one place for the library, the service
 * manager and its policy file: a name is 1..BL_SM_NAME_MAX characters of
 * [A-Za-z0-9._/-] (ASCII, whatever the locale).
 */
static inline bool bl_sm_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '/' ||
	       c == '-';
}

/* Whether the len bytes at name are a service name (NULL: false). */
static inline bool bl_sm_name_valid(const char *name, size_t len)
{
	size_t i;

	if (!name || !len || len > BL_SM_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!bl_sm_name_char(name[i]))
			return false;
	return true;
}

/* Method codes of handle 0 (the wire protocol, for other clients). */
enum bl_sm_code {
	BL_SM_ADD	= 1,	/* string name, object -> status */
	BL_SM_CHECK	= 2,	/* string name -> status, object */
	BL_SM_LIST	= 3,	/* -> status, u32 count, count strings */
};

/*
 * The euid the service manager must answer with on this context, from now
 * on (UINT32_MAX, never a real uid, is -EINVAL).
 */
int bl_sm_set_manager_uid(struct bl_context *ctx, uint32_t uid);

/*
 * Registers obj under name.  -EEXIST: a live service holds the name;
 * -EPERM: the policy forbids this uid the name; -EINVAL: a bad name;
 * -EHOSTDOWN: no service manager runs (or it died during the call);
 * -EACCES: handle 0 answered with another euid than the manager's (see
 * above), which may or may not have kept obj.
 */
int bl_sm_add(struct bl_context *ctx, const char *name, struct bl_object *obj);

/*
 * Looks name up without waiting.  On success *handle is acquired for the
 * caller: bl_handle_release() it when done.  -ENOENT: no such service;
 * -EHOSTDOWN: no service manager runs; -ENXIO: it is an object of the
 * calling process; -EACCES: not the expected manager answered.
 */
int bl_sm_check(struct bl_context *ctx, const char *name, uint32_t *handle);

/*
 * As bl_sm_check(), but waits up to timeout_ms (BL_NO_TIMEOUT: forever)
 * for the name to appear, and for a service manager to start if none runs:
 * -ETIMEDOUT when it did not.
 */
int bl_sm_get(struct bl_context *ctx, const char *name, int timeout_ms,
	      uint32_t *handle);

/*
 * The registered names, sorted: *names is an array of *count strings,
 * freed with bl_sm_list_free().  -EHOSTDOWN: no service manager runs;
 * -EACCES: not the expected manager answered.
 */
int bl_sm_list(struct bl_context *ctx, char ***names, size_t *count);
void bl_sm_list_free(char **names, size_t count);

/* ======================================================================
 * 8. Memory regions
 *
 * A region is a range of its owner's memory that others copy from (or
 * into, with the write right) in one copy, without a shared mapping and
 * without any 16 MiB limit: the way to hand over bulk data.  It is a
 * capability: only a process that was given a handle of it, in a message,
 * reaches it.  Region handles share the handle table (bl_handle_acquire(),
 * bl_handle_release(), bl_link_death() apply) and travel with
 * bl_parcel_write_region() / bl_reader_read_region().  The owner of a
 * region may revoke it; it also dies when its owner exits or execs.  Then
 * every use fails: -EKEYREVOKED (revoked, itself or a region it was
 * narrowed from), -EOWNERDEAD (its owner is gone).
 *
 * Thread safety: all functions may be called from any thread.
 * ====================================================================== */

#define BL_REGION_READ		FBINDER_REGION_READ
#define BL_REGION_WRITE		FBINDER_REGION_WRITE

/*
 * A region of the caller's memory [addr, addr + size) with rights
 * (BL_REGION_READ, BL_REGION_WRITE or both).  *handle is the caller's
 * handle, with one reference (bl_handle_release() to drop it).  The memory
 * is not pinned: what others reach is whatever the caller has mapped there
 * when they copy (an unmapped page gives them -EFAULT).  -EINVAL: bad
 * rights, size 0, a range outside user space; -EDQUOT: too many regions.
 */
int bl_region_create(struct bl_context *ctx, const void *addr, size_t size,
		     uint32_t rights, uint32_t *handle);

/*
 * A new region, [offset, offset + size) of handle's, with rights a subset
 * of its rights: what a holder passes on when it must not pass all.  The
 * caller owns the new region (it may revoke it), which dies with handle's.
 * -EACCES: more rights than handle has; -EINVAL: outside it, or size 0;
 * -ELOOP: FBINDER_REGION_MAX_DEPTH narrowings in a row.
 */
int bl_region_narrow(struct bl_context *ctx, uint32_t handle, uint64_t offset,
		     uint64_t size, uint32_t rights, uint32_t *narrowed);

/* Rights and size of a region (either may be NULL). */
int bl_region_info(struct bl_context *ctx, uint32_t handle, uint32_t *rights,
		   uint64_t *size);

/*
 * Kills a region the caller owns, and every region narrowed from it: when
 * this returns, no copy through them touches the caller's memory any more.
 * Holders that linked get their death notice.  -EPERM: not the caller's.
 */
int bl_region_revoke(struct bl_context *ctx, uint32_t handle);

/*
 * Copies len bytes at offset of the region into buf (read) or from buf
 * into the region (write).  Interrupted by a signal, the copy goes on where
 * it stopped once the handler returned.  -EACCES: the right is missing;
 * -EINVAL: the range is not inside the region; -EFAULT: a page of the
 * owner's (unmapped, or without the access) or of buf could not be
 * reached; -EKEYREVOKED, -EOWNERDEAD (above).
 */
int bl_region_read(struct bl_context *ctx, uint32_t handle, uint64_t offset,
		   void *buf, size_t len);
int bl_region_write(struct bl_context *ctx, uint32_t handle, uint64_t offset,
		    const void *buf, size_t len);

/*
 * The same with the caller's side in iovcnt pieces (at most
 * FBINDER_REGION_MAX_IOV); *done (may be NULL) is the number of bytes
 * copied, also when it fails part way.
 */
int bl_region_readv(struct bl_context *ctx, uint32_t handle, uint64_t offset,
		    const struct iovec *iov, int iovcnt, size_t *done);
int bl_region_writev(struct bl_context *ctx, uint32_t handle, uint64_t offset,
		     const struct iovec *iov, int iovcnt, size_t *done);

#ifdef __cplusplus
}
#endif

#endif /* BINDERLITE_H */
