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
 *  (the context, object, call, looper and service-manager API follow in
 *   later sections)
 */
#ifndef BINDERLITE_H
#define BINDERLITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/fastbinder.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * 1. Parcels
 *
 * A parcel is the payload of one fastbinder message: a byte buffer of
 * typed items plus the array of offsets (struct fb_txn.offsets) of the
 * struct fb_object items embedded in it, which the driver translates.
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
 * to 8, objects and fds 24 (the struct fb_object sits at item + 8, an
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
 *              a plain value, a bad struct fb_object
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
	BL_TYPE_OBJECT	= 13,	/* FB_OBJ_LOCAL or FB_OBJ_HANDLE */
	BL_TYPE_FD	= 14,	/* FB_OBJ_FD */
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
	uint64_t *offsets;		/* fb_object offsets, increasing */
	size_t offsets_count;
	size_t offsets_capacity;
	uint32_t array_head;		/* innermost open array header, or UINT32_MAX */
	uint32_t array_items;		/* items written at the current level */
	uint32_t depth;			/* open arrays */
	uint32_t reserved;
};

#define BL_PARCEL_INIT { NULL, 0, 0, NULL, 0, 0, UINT32_MAX, 0, 0, 0 }

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

/* A local object, named by the caller's cookie (FB_OBJ_LOCAL). */
int bl_parcel_write_local(struct bl_parcel *p, uint64_t cookie);

/* A handle the caller holds (FB_OBJ_HANDLE). */
int bl_parcel_write_handle(struct bl_parcel *p, uint32_t handle);

/*
 * A file descriptor (FB_OBJ_FD, an item of type BL_TYPE_FD).  The parcel
 * does not take ownership of fd.  -EBADF if fd < 0.  Note: ABI 1 reserves
 * FB_OBJ_FD; a driver of that version refuses to send it.
 */
int bl_parcel_write_fd(struct bl_parcel *p, int fd);

/*
 * Any object as read from another parcel (bl_reader_read_object()), e.g.
 * to forward it: type FB_OBJ_LOCAL, FB_OBJ_HANDLE or FB_OBJ_FD, flags 0,
 * else -EINVAL.
 */
int bl_parcel_write_object(struct bl_parcel *p, const struct fb_object *obj);

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

static inline size_t bl_parcel_size(const struct bl_parcel *p)
{
	return p->size;
}

/* The offsets of the objects (struct fb_txn.offsets); same lifetime. */
static inline const uint64_t *bl_parcel_offsets(const struct bl_parcel *p)
{
	return p->offsets;
}

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
 * offsets_count offsets at offsets (e.g. struct fb_txn_msg's data and
 * offsets resolved in the receive mapping).  Validates the offsets array
 * (each entry 8-aligned, the whole struct fb_object inside the data, the
 * entries strictly increasing and 16 bytes or more apart) and returns
 * -EBADMSG if it is not valid, -EINVAL if data or offsets is NULL with a
 * nonzero size or count.  Does not copy: see struct bl_reader for the
 * lifetime rule.
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
 * An object item (BL_TYPE_OBJECT): copies the struct fb_object, which is
 * FB_OBJ_LOCAL (an object of the reader's own process, by its cookie) or
 * FB_OBJ_HANDLE (a handle of the reader's process).  A sender's handle may
 * arrive as a local object and vice versa: the driver translates them.
 */
int bl_reader_read_object(struct bl_reader *r, struct fb_object *out);

/* An object item that must be FB_OBJ_LOCAL; else -EBADMSG. */
int bl_reader_read_local(struct bl_reader *r, uint64_t *cookie);

/* An object item that must be FB_OBJ_HANDLE; else -EBADMSG. */
int bl_reader_read_handle(struct bl_reader *r, uint32_t *handle);

/*
 * A file descriptor item (BL_TYPE_FD).  The number is the reader's own
 * descriptor as installed by the driver; the library does not close it.
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
 * end of 1. Parcels
 * ====================================================================== */

#ifdef __cplusplus
}
#endif

#endif /* BINDERLITE_H */
