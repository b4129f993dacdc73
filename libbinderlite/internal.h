// SPDX-License-Identifier: MIT
/*
 * internal.h - libbinderlite internals shared between its source files.
 * Nothing here is part of the public ABI: libbinderlite.map keeps these
 * symbols out of the shared library (the static library still has them,
 * which is how the host tests reach the allocation hook).
 */
#ifndef BL_INTERNAL_H
#define BL_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <time.h>

#include "binderlite.h"

/*
 * alloc.c: every allocation of the library goes through bl__realloc()
 * (bl__zalloc() and bl__strdup() too) and every release through
 * bl__free().  A test may point bl__realloc_hook at a function that fails
 * on demand to exercise the -ENOMEM paths; NULL means realloc().  Not
 * thread safe: set it only while no other thread uses the library (the
 * hook itself may be called from any of its threads).
 */
extern void *(*bl__realloc_hook)(void *ptr, size_t size);

void *bl__realloc(void *ptr, size_t size);
void bl__free(void *ptr);
/* count * size zeroed bytes (NULL on overflow), as calloc(). */
void *bl__zalloc(size_t count, size_t size);
char *bl__strdup(const char *s);

/*
 * object.c: the references a parcel holds on the objects written into it
 * (bl_parcel_write_obj()), dropped when it is reset or finished.
 */
struct bl_held_objects {
	size_t count;
	size_t capacity;
	struct bl_object *objs[];
};

void bl__parcel_release_held(struct bl_parcel *p);

/* parcel.c: an object item with any flags (min priority of a local). */
/* Records ret as p's first error (bl_parcel_error()) and returns it. */
int bl__parcel_sticky(struct bl_parcel *p, int ret);
int bl__parcel_write_raw_object(struct bl_parcel *p,
				const struct fbinder_object *obj);

/* ---- the context --------------------------------------------------------- */

/*
 * context.c: what the library needs of a driver: the ABI version it speaks
 * (the driver must serve it: min_abi_version <= it <= abi_version) and the
 * features it uses.  A test may add bits to bl__features_needed to see
 * bl_context_open() refuse a driver without them (not thread safe, as
 * bl__realloc_hook).
 */
#define BL_ABI_NEEDED		4u
#define BL_FEATURES_NEEDED	FBINDER_FEATURE_SEND_BATCH
extern uint64_t bl__features_needed;
/*
 * Features the library acts as if the driver lacked (test hook, static
 * library): a test clears FBINDER_FEATURE_SEND_SG to see bl_call_iov()
 * marshal, as with a driver from before it.
 */
extern uint64_t bl__features_hidden;

#define BL_OBJ_BUCKETS	256	/* local objects by cookie; chained */

struct bl_context {
	int fd;
	const uint8_t *map;
	size_t map_size;
	uint32_t abi_version;
	uint64_t features;		/* the driver's FBINDER_FEATURE_* */

	pthread_mutex_t lock;		/* everything below */
	uint32_t sm_uid;		/* the euid handle 0 must answer with */
	struct bl_object *objects[BL_OBJ_BUCKETS];
	struct bl_death *deaths;	/* list by next */

	/* the pool (looper.c) */
	bool pool_on;			/* bl_pool_start() ran, may spawn */
	bool stopping;			/* bl_context_stop() in progress */
	unsigned int loopers;		/* threads inside a loop now */
	unsigned int pool_threads;	/* pool threads alive */
	/*
	 * The driver's count of the threads it asked for that registered:
	 * it never goes down, and the driver asks for more only while it is
	 * below FBINDER_IOC_SET_MAX_THREADS, so a pool started again must set its
	 * maximum above it (looper.c).
	 */
	uint32_t spawned;
	bool spawn_owed;		/* a spawn request we did not answer */
	pthread_cond_t loopers_cond;	/* signalled when loopers drops */
	struct bl_pool_thread *pool;	/* started threads, to join */
};

struct bl_object {
	struct bl_context *ctx;
	struct bl_object *next;		/* hash chain */
	bl_handler_fn handler;
	bl_destroy_fn destroy;
	void *userdata;
	uint32_t obj_flags;		/* FBINDER_OBJF_* for FBINDER_OBJ_LOCAL */
	/* under ctx->lock: */
	uint64_t refs;			/* the application's */
	int64_t exports;		/* sends the driver has not released */
	bool ever_sent;
};

static inline uint64_t bl__cookie(const struct bl_object *obj)
{
	return (uint64_t)(uintptr_t)obj;
}

/*
 * Whole milliseconds from one clock reading to a later one.  The
 * difference is taken in nanoseconds first: tv_nsec may differ either way,
 * and C division rounds a negative part toward zero, which would end a
 * wait up to a millisecond early.
 */
static inline int64_t bl__ms_between(const struct timespec *from,
				     const struct timespec *to)
{
	return ((int64_t)(to->tv_sec - from->tv_sec) * 1000000000 +
		(to->tv_nsec - from->tv_nsec)) / 1000000;
}

/* ---- the command stream of one WRITE_READ loop frame ---------------------- */

#define BL_WBUF	1024
#define BL_RBUF	1024

/*
 * Test hook: a smaller write buffer for the frames opened from now on (bytes;
 * 0 means BL_WBUF, and at least the largest command is kept), so that a test
 * makes bl__io_put() flush often.  Not thread safe, like bl__realloc_hook.
 */
extern size_t bl__wbuf_limit;

/*
 * One loop frame (bl_call, bl_loop, ...) on the stack: commands waiting for
 * the frame's next WRITE_READ, and the reply parcel of the call it handled,
 * which must outlive that WRITE_READ.
 */
struct bl_io {
	struct bl_context *ctx;
	size_t wlen;
	size_t wcap;			/* BL_WBUF, or less (bl__wbuf_limit) */
	uint8_t wbuf[BL_WBUF];
	struct bl_parcel reply;
	bool reply_queued;		/* an FBINDER_CMD_REPLY of reply is in wbuf */
	const struct bl_parcel *request;	/* of the queued FBINDER_CMD_SEND */
	bool looper;			/* may take work of the whole context */
	unsigned int handled;		/* returns dispatched */
	/* what a call frame waits for (call.c) */
	bool want_reply;
	bool got_reply;
	int error;
	struct fbinder_txn_msg msg;
	/* descriptors of handled requests, closed once the reply is out */
	int *close_fds;
	size_t close_count;
	size_t close_cap;
	uint8_t rbuf[BL_RBUF];
};

void bl__io_init(struct bl_io *io, struct bl_context *ctx);
void bl__io_fini(struct bl_io *io);
/*
 * Queues cmd with its payload (_IOC_SIZE(cmd) bytes) for the frame's next
 * WRITE_READ.  A command is never dropped: when the buffer has no room, the
 * commands already queued go out first (bl__io_flush()).  The frame's reply
 * parcel must not change between its FBINDER_CMD_REPLY's bl__io_put() and the
 * flush that sends it: bl__dispatch_txn() flushes before it reuses it.
 */
void bl__io_put(struct bl_io *io, uint32_t cmd, const void *payload);
/* Sends the frame's queued commands now, without reading. */
void bl__io_flush(struct bl_io *io);
/*
 * One WRITE_READ: the frame's pending commands, then (read) a blocking read
 * whose returns are dispatched.  Returns the number of returns handled,
 * or a negative errno; a failed command is dropped and reported.
 */
int bl__io_run(struct bl_io *io, bool read);
int bl__msg_reader(struct bl_context *ctx, const struct fbinder_txn_msg *msg,
		   struct bl_reader *r);
/*
 * The sender's label a message carries (FBINDER_TXN_SECCTX, after its
 * offsets) into info: NULL when it carries none or it does not lie whole,
 * NUL-terminated, inside the mapping.
 */
void bl__msg_label(const uint8_t *map, size_t map_size,
		   const struct fbinder_txn_msg *msg, struct bl_call_info *info);
/*
 * A received message's descriptors belong to the message: closed when it
 * is done with.  bl__msg_close_fds() closes those of msg now, or, with
 * defer, when defer's next ioctl has sent the reply (which may carry
 * them).  bl__close_fds() does it for a message already under a reader.
 */
void bl__msg_close_fds(struct bl_context *ctx, const struct fbinder_txn_msg *msg,
		       struct bl_io *defer);
void bl__close_fds(const struct bl_reader *r);
/*
 * call.c: bl_call() with the send's FBINDER_TXN_* flags, and the replier's euid
 * in *euid (may be NULL) when it returns 0.
 */
int bl__call(struct bl_context *ctx, uint32_t handle, uint32_t code,
	     uint32_t flags, const struct bl_parcel *request,
	     struct bl_reply *reply, int timeout_ms, uint32_t *euid);
/*
 * The same, waiting with poll(2) and abandoning the call with -ECANCELED
 * when cancel_fd (-1: none) becomes readable (async.c's cancellation).
 */
int bl__call_cancel(struct bl_context *ctx, uint32_t handle, uint32_t code,
		    uint32_t flags, const struct bl_parcel *request,
		    struct bl_reply *reply, int timeout_ms, uint32_t *euid,
		    int cancel_fd);
/*
 * A request's data in pieces, for FBINDER_CMD_SEND_SG (gather.c); the
 * request parcel then gives only its offsets, at the same positions.
 */
struct bl__gather {
	const struct fbinder_iovec *iov;
	uint32_t count;
};
/* bl__call_cancel() of a request gathered from g (NULL: the parcel's data). */
int bl__call_frame(struct bl_context *ctx, uint32_t handle, uint32_t code,
		   uint32_t flags, const struct bl_parcel *request,
		   const struct bl__gather *g, struct bl_reply *reply,
		   int timeout_ms, uint32_t *euid, int cancel_fd);
/* ioctl(fd, FBINDER_IOC_WRITE_READ, wr), told to valgrind (io.c) */
int bl__write_read(int fd, struct fbinder_write_read *wr);
/* A single command, right now (FREE_BUFFER, ACQUIRE, ...). */
int bl__command(struct bl_context *ctx, uint32_t cmd, const void *payload,
		size_t size);

/* freeze.c */
extern _Thread_local bool bl__last_sent_frozen;
/* FBINDER_TXN_* of a oneway send: the frozen report where the driver has it */
uint32_t bl__oneway_flags(const struct bl_context *ctx);
/* A oneway send's bl__write_read() result: 0 or -errno; notes FBINDER_WR_FROZEN. */
int bl__oneway_result(int wr_ret);

/* object.c */
struct bl_object *bl__object_lookup_ref(struct bl_context *ctx,
					uint64_t cookie);
void bl__objects_exported(struct bl_context *ctx, const struct bl_parcel *p,
			  int delta);
void bl__object_export_one(struct bl_object *obj, int delta);
void bl__object_released(struct bl_context *ctx, uint64_t cookie,
			 uint64_t exports);
void bl__objects_drop_all(struct bl_context *ctx);

/* looper.c */
void bl__dispatch_txn(struct bl_io *io, const struct fbinder_txn_msg *msg);
void bl__spawn_looper(struct bl_context *ctx);
void bl__pool_join(struct bl_context *ctx);
/*
 * Whether the calling thread is in a loop of ctx (bl_loop(), a pool
 * thread), or whether any thread is: a waiter that is not one lets them
 * take the messages it waits for.
 */
bool bl__looping_here(const struct bl_context *ctx);
bool bl__looper_runs(struct bl_context *ctx);

/* death.c */
void bl__death_fired(struct bl_io *io, uint64_t cookie);
void bl__deaths_drop_all(struct bl_context *ctx);

#endif /* BL_INTERNAL_H */
