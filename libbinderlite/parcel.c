// SPDX-License-Identifier: MIT
/*
 * parcel.c - typed message payloads: the growable write parcel and the
 * bounded read parcel.  The wire format is in docs/parcel.md; the public
 * API in include/binderlite.h (section 1).
 *
 * The reader trusts nothing it reads: every length is checked against the
 * reader's range before use, with arithmetic that cannot wrap; every load
 * goes through memcpy (no alignment assumption about the caller's buffer);
 * a failed read leaves the reader where it was.  Nothing recurses, so
 * nesting depth costs neither stack nor heap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- wire helpers ------------------------------------------------------ */

#define HDR		8u	/* tag + 4 bytes (a 32-bit value, a length, or 0) */
#define ARRAY_HDR	16u	/* tag, count, size, reserved */
#define OBJ_ITEM	(HDR + sizeof(struct fbinder_object))
/* a descriptor array: tag, count, its buffer object, its array object, the descriptors */
#define FDA_HDR		(HDR + 2 * sizeof(struct fbinder_object))
#define NONE		UINT32_MAX

static inline size_t round8(size_t n)
{
	return (n + 7u) & ~(size_t)7u;
}

static inline uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

static bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF. */
static bool utf8_valid(const uint8_t *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint8_t c = s[i];

		if (c < 0x80) {
			i++;
		} else if (c < 0xc2) {
			return false;
		} else if (c < 0xe0) {
			if (n - i < 2 || (s[i + 1] & 0xc0) != 0x80)
				return false;
			i += 2;
		} else if (c < 0xf0) {
			if (n - i < 3 || (s[i + 1] & 0xc0) != 0x80 ||
			    (s[i + 2] & 0xc0) != 0x80)
				return false;
			if (c == 0xe0 && s[i + 1] < 0xa0)
				return false;
			if (c == 0xed && s[i + 1] >= 0xa0)
				return false;
			i += 3;
		} else if (c < 0xf5) {
			if (n - i < 4 || (s[i + 1] & 0xc0) != 0x80 ||
			    (s[i + 2] & 0xc0) != 0x80 ||
			    (s[i + 3] & 0xc0) != 0x80)
				return false;
			if (c == 0xf0 && s[i + 1] < 0x90)
				return false;
			if (c == 0xf4 && s[i + 1] >= 0x90)
				return false;
			i += 4;
		} else {
			return false;
		}
	}
	return true;
}

/* ---- the write parcel -------------------------------------------------- */

void bl_parcel_init(struct bl_parcel *p)
{
	if (!p)
		return;
	*p = (struct bl_parcel)BL_PARCEL_INIT;
}

void bl_parcel_fini(struct bl_parcel *p)
{
	if (!p)
		return;
	bl__free(p->data);
	bl__free(p->offsets);
	bl__parcel_release_held(p);
	bl_parcel_init(p);
}

void bl_parcel_reset(struct bl_parcel *p)
{
	if (!p)
		return;
	p->error = 0;
	p->size = 0;
	p->offsets_count = 0;
	p->array_head = NONE;
	p->array_items = 0;
	p->depth = 0;
	bl__parcel_release_held(p);
}

/*
 * The first error a write returned since init or reset stays in the
 * parcel (bl_parcel_error()); bl_call() and the sends refuse it with that
 * error, so a sequence of writes needs one check.  The write itself
 * behaves as ever: it fails alone and leaves the parcel unchanged.
 */
int bl__parcel_sticky(struct bl_parcel *p, int ret)
{
	if (ret && p && !p->error)
		p->error = ret;
	return ret;
}

/* Room for bytes more data bytes; the parcel is untouched on failure. */
static int grow_data(struct bl_parcel *p, size_t bytes)
{
	size_t cap;
	void *n;

	if (bytes > BL_PARCEL_MAX_SIZE || p->size > BL_PARCEL_MAX_SIZE - bytes)
		return -EMSGSIZE;
	if (p->size + bytes <= p->capacity)
		return 0;
	cap = p->capacity ? p->capacity : 256;
	while (cap < p->size + bytes)
		cap = cap > BL_PARCEL_MAX_SIZE / 2 ? BL_PARCEL_MAX_SIZE : cap * 2;
	n = bl__realloc(p->data, cap);
	if (!n)
		return -ENOMEM;
	p->data = n;
	p->capacity = cap;
	return 0;
}

static int grow_offsets(struct bl_parcel *p, size_t objects)
{
	size_t cap, max = BL_PARCEL_MAX_SIZE / sizeof(struct fbinder_object);
	void *n;

	if (objects > max || p->offsets_count > max - objects)
		return -EMSGSIZE;
	if (p->offsets_count + objects <= p->offsets_capacity)
		return 0;
	cap = p->offsets_capacity ? p->offsets_capacity : 8;
	while (cap < p->offsets_count + objects)
		cap *= 2;
	n = bl__realloc(p->offsets, cap * sizeof(uint64_t));
	if (!n)
		return -ENOMEM;
	p->offsets = n;
	p->offsets_capacity = cap;
	return 0;
}

int bl_parcel_reserve(struct bl_parcel *p, size_t data_bytes, size_t objects)
{
	int ret;

	if (!p)
		return -EINVAL;
	ret = grow_data(p, data_bytes);
	if (ret)
		return ret;
	return grow_offsets(p, objects);
}

/* Appends len zeroed bytes, room already made; one more item at this level. */
static uint8_t *append(struct bl_parcel *p, size_t len)
{
	uint8_t *at = p->data + p->size;

	memset(at, 0, len);
	p->size += len;
	p->array_items++;
	return at;
}

static int write32(struct bl_parcel *p, enum bl_type type, uint32_t v)
{
	uint8_t *at;
	int ret;

	if (!p)
		return -EINVAL;
	ret = grow_data(p, HDR);
	if (ret)
		return ret;
	at = append(p, HDR);
	put32(at, BL_WIRE_TAG(type));
	put32(at + 4, v);
	return 0;
}

static int write64(struct bl_parcel *p, enum bl_type type, uint64_t v)
{
	uint8_t *at;
	int ret;

	if (!p)
		return -EINVAL;
	ret = grow_data(p, HDR + 8);
	if (ret)
		return ret;
	at = append(p, HDR + 8);
	put32(at, BL_WIRE_TAG(type));
	put64(at + HDR, v);
	return 0;
}

/* A scalar of one type: its 4- or 8-byte wire form, the error kept. */
#define DEFINE_WRITE_SCALAR(name, ctype, type, width, wire)		\
int bl_parcel_write_##name(struct bl_parcel *p, ctype v)		\
{									\
	return bl__parcel_sticky(p, write##width(p, type, wire));	\
}

DEFINE_WRITE_SCALAR(u8, uint8_t, BL_TYPE_U8, 32, v)
DEFINE_WRITE_SCALAR(i8, int8_t, BL_TYPE_I8, 32, (uint32_t)(int32_t)v)
DEFINE_WRITE_SCALAR(u16, uint16_t, BL_TYPE_U16, 32, v)
DEFINE_WRITE_SCALAR(i16, int16_t, BL_TYPE_I16, 32, (uint32_t)(int32_t)v)
DEFINE_WRITE_SCALAR(u32, uint32_t, BL_TYPE_U32, 32, v)
DEFINE_WRITE_SCALAR(i32, int32_t, BL_TYPE_I32, 32, (uint32_t)v)
DEFINE_WRITE_SCALAR(u64, uint64_t, BL_TYPE_U64, 64, v)
DEFINE_WRITE_SCALAR(i64, int64_t, BL_TYPE_I64, 64, (uint64_t)v)
DEFINE_WRITE_SCALAR(bool, bool, BL_TYPE_BOOL, 32, v ? 1 : 0)

static int do_parcel_write_double(struct bl_parcel *p, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	return write64(p, BL_TYPE_DOUBLE, bits);
}

int bl_parcel_write_double(struct bl_parcel *p, double v)
{
	return bl__parcel_sticky(p, do_parcel_write_double(p, v));
}

/*
 * Appends a string or blob item of len bytes (+ NUL for a string) and
 * returns where its bytes go.
 */
static int write_bytes(struct bl_parcel *p, enum bl_type type, size_t len,
		       uint8_t **bytes)
{
	size_t nul = type == BL_TYPE_STRING, total;
	uint8_t *at;
	int ret;

	if (len > BL_PARCEL_MAX_SIZE - HDR - 8)
		return -EMSGSIZE;
	total = HDR + round8(len + nul);
	ret = grow_data(p, total);
	if (ret)
		return ret;
	at = append(p, total);
	put32(at, BL_WIRE_TAG(type));
	put32(at + 4, (uint32_t)len);
	*bytes = at + HDR;
	return 0;
}

/* A string or blob item holding a copy of the len bytes at data. */
static int write_copy(struct bl_parcel *p, enum bl_type type, const void *data, size_t len)
{
	uint8_t *bytes;
	int ret = write_bytes(p, type, len, &bytes);

	if (ret)
		return ret;
	if (len)
		memcpy(bytes, data, len);
	return 0;
}

static int do_parcel_write_string_len(struct bl_parcel *p, const char *s, size_t len)
{
	if (!p || (!s && len))
		return -EINVAL;
	if (len && (memchr(s, 0, len) || !utf8_valid((const uint8_t *)s, len)))
		return -EINVAL;
	return write_copy(p, BL_TYPE_STRING, s, len);
}

int bl_parcel_write_string_len(struct bl_parcel *p, const char *s, size_t len)
{
	return bl__parcel_sticky(p, do_parcel_write_string_len(p, s, len));
}

static int do_parcel_write_token(struct bl_parcel *p, const char *s, size_t len)
{
	if (!p || (!s && len))
		return -EINVAL;
	return write_copy(p, BL_TYPE_STRING, s, len);
}

int bl_parcel_write_token(struct bl_parcel *p, const char *s, size_t len)
{
	return bl__parcel_sticky(p, do_parcel_write_token(p, s, len));
}

static int do_parcel_write_string(struct bl_parcel *p, const char *s)
{
	if (!s)
		return -EINVAL;
	return bl_parcel_write_string_len(p, s, strlen(s));
}

int bl_parcel_write_string(struct bl_parcel *p, const char *s)
{
	return bl__parcel_sticky(p, do_parcel_write_string(p, s));
}

static int do_parcel_alloc_blob(struct bl_parcel *p, size_t len, void **out)
{
	uint8_t *bytes;
	int ret;

	if (!p || !out)
		return -EINVAL;
	ret = write_bytes(p, BL_TYPE_BLOB, len, &bytes);
	if (ret)
		return ret;
	*out = bytes;
	return 0;
}

int bl_parcel_alloc_blob(struct bl_parcel *p, size_t len, void **out)
{
	return bl__parcel_sticky(p, do_parcel_alloc_blob(p, len, out));
}

static int do_parcel_write_blob(struct bl_parcel *p, const void *data, size_t len)
{
	if (!p || (!data && len))
		return -EINVAL;
	return write_copy(p, BL_TYPE_BLOB, data, len);
}

int bl_parcel_write_blob(struct bl_parcel *p, const void *data, size_t len)
{
	return bl__parcel_sticky(p, do_parcel_write_blob(p, data, len));
}

static int write_obj(struct bl_parcel *p, const struct fbinder_object *obj)
{
	enum bl_type type = obj->type == FBINDER_OBJ_FD ? BL_TYPE_FD : BL_TYPE_OBJECT;
	uint8_t *at;
	int ret;

	ret = grow_data(p, OBJ_ITEM);
	if (ret)
		return ret;
	ret = grow_offsets(p, 1);
	if (ret)
		return ret;
	at = append(p, OBJ_ITEM);
	put32(at, BL_WIRE_TAG(type));
	memcpy(at + HDR, obj, sizeof(*obj));
	p->offsets[p->offsets_count++] = (uint64_t)(at + HDR - p->data);
	return 0;
}

int bl__parcel_write_raw_object(struct bl_parcel *p,
				const struct fbinder_object *obj)
{
	return write_obj(p, obj);
}

static int do_parcel_write_object(struct bl_parcel *p, const struct fbinder_object *obj)
{
	struct fbinder_object o;

	if (!p || !obj || obj->flags)
		return -EINVAL;
	memset(&o, 0, sizeof(o));
	o.type = obj->type;
	switch (obj->type) {
	case FBINDER_OBJ_LOCAL:
		o.cookie = obj->cookie;
		break;
	case FBINDER_OBJ_HANDLE:
	case FBINDER_OBJ_REGION:
		o.handle = obj->handle;
		break;
	case FBINDER_OBJ_FD:
		if (obj->fd < 0)
			return -EBADF;
		o.fd = obj->fd;
		break;
	default:
		return -EINVAL;
	}
	return write_obj(p, &o);
}

int bl_parcel_write_object(struct bl_parcel *p, const struct fbinder_object *obj)
{
	return bl__parcel_sticky(p, do_parcel_write_object(p, obj));
}

/* An object of one kind, from the one field the caller gives. */
#define DEFINE_WRITE_OBJ(name, ctype, kind, field)			\
int bl_parcel_write_##name(struct bl_parcel *p, ctype v)		\
{									\
	struct fbinder_object o = { .type = kind, .field = v };		\
									\
	return bl_parcel_write_object(p, &o);				\
}

DEFINE_WRITE_OBJ(local, uint64_t, FBINDER_OBJ_LOCAL, cookie)
DEFINE_WRITE_OBJ(handle, uint32_t, FBINDER_OBJ_HANDLE, handle)
DEFINE_WRITE_OBJ(region, uint32_t, FBINDER_OBJ_REGION, handle)
DEFINE_WRITE_OBJ(fd, int, FBINDER_OBJ_FD, fd)

/* Bytes of a descriptor array item of count descriptors. */
static size_t fda_item_len(uint32_t count)
{
	return FDA_HDR + round8((size_t)count * sizeof(int32_t));
}

/*
 * The buffer object names the descriptors after the two objects, the
 * array object that buffer (the previous entry of the offsets).
 */
static int do_parcel_write_fd_array(struct bl_parcel *p, const int *fds, uint32_t count)
{
	struct fbinder_ptr_object buf = { .type = FBINDER_OBJ_PTR };
	struct fbinder_fda_object arr = { .type = FBINDER_OBJ_FDA };
	size_t len = fda_item_len(count);
	uint32_t i;
	uint8_t *at;
	int ret;

	if (!p || (!fds && count))
		return -EINVAL;
	if (count > FBINDER_MAX_FDS)
		return -EMSGSIZE;
	for (i = 0; i < count; i++)
		if (fds[i] < 0)
			return -EBADF;
	/* the parent is named by its index, which must fit */
	if (p->offsets_count >= UINT16_MAX)
		return -EMSGSIZE;
	ret = grow_data(p, len);
	if (ret)
		return ret;
	ret = grow_offsets(p, 2);
	if (ret)
		return ret;
	at = append(p, len);
	put32(at, BL_WIRE_TAG(BL_TYPE_FD_ARRAY));
	put32(at + 4, count);
	buf.length = count * (uint32_t)sizeof(int32_t);
	buf.ptr = (uint64_t)(at + FDA_HDR - p->data);
	arr.parent = (uint16_t)p->offsets_count;
	arr.count = count;
	memcpy(at + HDR, &buf, sizeof(buf));
	memcpy(at + HDR + sizeof(buf), &arr, sizeof(arr));
	for (i = 0; i < count; i++) {
		int32_t fd = fds[i];

		memcpy(at + FDA_HDR + i * sizeof(fd), &fd, sizeof(fd));
	}
	p->offsets[p->offsets_count++] = (uint64_t)(at + HDR - p->data);
	p->offsets[p->offsets_count++] = (uint64_t)(at + HDR + sizeof(buf) - p->data);
	return 0;
}

int bl_parcel_write_fd_array(struct bl_parcel *p, const int *fds, uint32_t count)
{
	return bl__parcel_sticky(p, do_parcel_write_fd_array(p, fds, count));
}

/*
 * While an array is open, its header keeps the state of the enclosing
 * level: the count field holds the enclosing level's item count, the size
 * field the enclosing array's header position (NONE at the top).  So open
 * arrays form a list threaded through the buffer and need no allocation.
 */
static int do_parcel_begin_array(struct bl_parcel *p)
{
	uint32_t items;
	uint8_t *at;
	int ret;

	if (!p)
		return -EINVAL;
	ret = grow_data(p, ARRAY_HDR);
	if (ret)
		return ret;
	items = p->array_items;
	at = append(p, ARRAY_HDR);
	put32(at, BL_WIRE_TAG(BL_TYPE_ARRAY));
	put32(at + 4, items);
	put32(at + 8, p->array_head);
	p->array_head = (uint32_t)(at - p->data);
	p->array_items = 0;
	p->depth++;
	return 0;
}

int bl_parcel_begin_array(struct bl_parcel *p)
{
	return bl__parcel_sticky(p, do_parcel_begin_array(p));
}

static int do_parcel_end_array(struct bl_parcel *p)
{
	uint8_t *at;
	uint32_t parent_items, parent_head;

	if (!p || !p->depth)
		return -EINVAL;
	at = p->data + p->array_head;
	parent_items = get32(at + 4);
	parent_head = get32(at + 8);
	put32(at + 4, p->array_items);
	put32(at + 8, (uint32_t)(p->size - p->array_head - ARRAY_HDR));
	p->array_head = parent_head;
	p->array_items = parent_items + 1;
	p->depth--;
	return 0;
}

int bl_parcel_end_array(struct bl_parcel *p)
{
	return bl__parcel_sticky(p, do_parcel_end_array(p));
}

/* ---- the read parcel --------------------------------------------------- */

int bl_reader_init(struct bl_reader *r, const void *data, size_t size,
		   const uint64_t *offsets, size_t offsets_count)
{
	size_t i;

	if (!r || (!data && size) || (!offsets && offsets_count))
		return -EINVAL;
	if (offsets_count > size / sizeof(struct fbinder_object))
		return -EBADMSG;
	for (i = 0; i < offsets_count; i++) {
		uint64_t o = offsets[i];

		if (o % BL_PARCEL_ALIGN || o > size - sizeof(struct fbinder_object))
			return -EBADMSG;
		if (i && o < offsets[i - 1] + sizeof(struct fbinder_object))
			return -EBADMSG;
	}
	r->data = data;
	r->size = size;
	r->offsets = offsets;
	r->offsets_count = offsets_count;
	r->pos = 0;
	r->end = size;
	return 0;
}

int bl_reader_init_parcel(struct bl_reader *r, const struct bl_parcel *p)
{
	if (!p || p->depth)
		return -EINVAL;
	return bl_reader_init(r, p->data, p->size, p->offsets, p->offsets_count);
}

/* Index of the first offsets entry >= x (offsets are sorted). */
static size_t lower_bound(const struct bl_reader *r, size_t x)
{
	size_t lo = 0, hi = r->offsets_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->offsets[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Does an object listed in the offsets overlap [a, b)? */
static bool object_within(const struct bl_reader *r, size_t a, size_t b)
{
	size_t i;

	if (!r->offsets_count)
		return false;
	i = lower_bound(r, a >= sizeof(struct fbinder_object) ?
			   a - sizeof(struct fbinder_object) + 1 : 0);
	return i < r->offsets_count && r->offsets[i] < b;
}

struct item {
	enum bl_type type;
	size_t len;		/* whole item, a multiple of 8 */
	uint32_t n;		/* string/blob length, array body size */
	const uint8_t *at;
};

/*
 * Parses the header of the next item and checks that the whole item lies
 * in the range: -ENODATA, -EMSGSIZE, -EBADMSG (unknown tag).
 */
static int peek(const struct bl_reader *r, struct item *it)
{
	size_t avail;
	uint32_t tag;

	if (!r)
		return -EINVAL;
	avail = r->end - r->pos;
	if (!avail)
		return -ENODATA;
	if (avail < HDR)
		return -EMSGSIZE;
	it->at = r->data + r->pos;
	tag = get32(it->at);
	if ((tag & 0xffff0000u) != BL_WIRE_MAGIC)
		return -EBADMSG;
	it->type = (enum bl_type)(tag & 0xffffu);
	it->n = get32(it->at + 4);
	switch (it->type) {
	case BL_TYPE_U8: case BL_TYPE_I8: case BL_TYPE_U16: case BL_TYPE_I16:
	case BL_TYPE_U32: case BL_TYPE_I32: case BL_TYPE_BOOL:
		it->len = HDR;
		break;
	case BL_TYPE_U64: case BL_TYPE_I64: case BL_TYPE_DOUBLE:
		it->len = HDR + 8;
		break;
	case BL_TYPE_STRING:
		/* n bytes and a NUL must fit: n + 1 <= avail - HDR */
		if (it->n >= avail - HDR)
			return -EMSGSIZE;
		it->len = HDR + round8((size_t)it->n + 1);
		break;
	case BL_TYPE_BLOB:
		if (it->n > avail - HDR)
			return -EMSGSIZE;
		it->len = HDR + round8(it->n);
		break;
	case BL_TYPE_OBJECT: case BL_TYPE_FD:
		it->len = OBJ_ITEM;
		break;
	case BL_TYPE_FD_ARRAY:
		if (it->n > FBINDER_MAX_FDS)
			return -EBADMSG;
		it->len = fda_item_len(it->n);
		break;
	case BL_TYPE_ARRAY:
		if (avail < ARRAY_HDR)
			return -EMSGSIZE;
		it->n = get32(it->at + 8);
		if (it->n > avail - ARRAY_HDR)
			return -EMSGSIZE;
		if (it->n % BL_PARCEL_ALIGN)
			return -EBADMSG;
		it->len = ARRAY_HDR + it->n;
		break;
	default:
		return -EBADMSG;
	}
	if (it->len > avail)
		return -EMSGSIZE;
	return 0;
}

/*
 * A descriptor array item: its two objects exactly at their listed
 * offsets, one after the other, and no other object in the item; the
 * buffer object of the descriptors' bytes (its pointer is not followed:
 * the reader knows where they are), the array object naming it as the
 * writer does; each descriptor not negative, the padding zero.
 */
static int check_fd_array(const struct bl_reader *r, const struct item *it)
{
	struct fbinder_ptr_object buf;
	struct fbinder_fda_object arr;
	size_t i = lower_bound(r, r->pos >= sizeof(struct fbinder_object) ?
				  r->pos - sizeof(struct fbinder_object) + 1 : 0);
	size_t bytes = (size_t)it->n * sizeof(int32_t);
	int32_t fd;
	uint32_t k;

	if (i + 1 >= r->offsets_count || r->offsets[i] != r->pos + HDR ||
	    r->offsets[i + 1] != r->pos + HDR + sizeof(buf) ||
	    (i + 2 < r->offsets_count && r->offsets[i + 2] < r->pos + it->len))
		return -EBADMSG;
	memcpy(&buf, it->at + HDR, sizeof(buf));
	memcpy(&arr, it->at + HDR + sizeof(buf), sizeof(arr));
	if (buf.type != FBINDER_OBJ_PTR || buf.length != bytes ||
	    arr.type != FBINDER_OBJ_FDA || arr.flags || arr.parent != i ||
	    arr.count != it->n || arr.parent_offset)
		return -EBADMSG;
	for (k = 0; k < it->n; k++) {
		memcpy(&fd, it->at + FDA_HDR + k * sizeof(fd), sizeof(fd));
		if (fd < 0)
			return -EBADMSG;
	}
	return all_zero(it->at + FDA_HDR + bytes, it->len - FDA_HDR - bytes) ?
	       0 : -EBADMSG;
}

/* Checks everything about the item peek() found: -EBADMSG if malformed. */
static int check(const struct bl_reader *r, const struct item *it)
{
	uint32_t v = it->n;
	struct fbinder_object o;
	size_t i;

	/* Only object items may hold an object; an array only in its body. */
	switch (it->type) {
	case BL_TYPE_OBJECT: case BL_TYPE_FD: case BL_TYPE_FD_ARRAY:
		break;
	case BL_TYPE_ARRAY:
		if (object_within(r, r->pos, r->pos + ARRAY_HDR))
			return -EBADMSG;
		break;
	default:
		if (object_within(r, r->pos, r->pos + it->len))
			return -EBADMSG;
	}

	switch (it->type) {
	case BL_TYPE_U8:
		return v <= UINT8_MAX ? 0 : -EBADMSG;
	case BL_TYPE_I8:
		return (int32_t)v >= INT8_MIN && (int32_t)v <= INT8_MAX ?
		       0 : -EBADMSG;
	case BL_TYPE_U16:
		return v <= UINT16_MAX ? 0 : -EBADMSG;
	case BL_TYPE_I16:
		return (int32_t)v >= INT16_MIN && (int32_t)v <= INT16_MAX ?
		       0 : -EBADMSG;
	case BL_TYPE_BOOL:
		return v <= 1 ? 0 : -EBADMSG;
	case BL_TYPE_U32: case BL_TYPE_I32:
		return 0;
	case BL_TYPE_U64: case BL_TYPE_I64: case BL_TYPE_DOUBLE:
		return v == 0 ? 0 : -EBADMSG;
	case BL_TYPE_STRING:
		if (it->at[HDR + v] != 0 ||
		    !all_zero(it->at + HDR + v + 1, it->len - HDR - v - 1) ||
		    memchr(it->at + HDR, 0, v) ||
		    !utf8_valid(it->at + HDR, v))
			return -EBADMSG;
		return 0;
	case BL_TYPE_BLOB:
		return all_zero(it->at + HDR + v, it->len - HDR - v) ?
		       0 : -EBADMSG;
	case BL_TYPE_OBJECT: case BL_TYPE_FD:
		if (v != 0)
			return -EBADMSG;
		/* exactly at a listed offset, and nothing else overlaps */
		i = lower_bound(r, r->pos >= sizeof(o) ? r->pos - sizeof(o) + 1 : 0);
		if (i >= r->offsets_count || r->offsets[i] != r->pos + HDR)
			return -EBADMSG;
		memcpy(&o, it->at + HDR, sizeof(o));
		if (o.flags)
			return -EBADMSG;
		if (it->type == BL_TYPE_FD)
			return o.type == FBINDER_OBJ_FD && o.fd >= 0 ? 0 : -EBADMSG;
		return o.type == FBINDER_OBJ_LOCAL || o.type == FBINDER_OBJ_HANDLE ||
		       o.type == FBINDER_OBJ_REGION ? 0 : -EBADMSG;
	case BL_TYPE_FD_ARRAY:
		return check_fd_array(r, it);
	case BL_TYPE_ARRAY:
		if (get32(it->at + 12) != 0 || get32(it->at + 4) > v / HDR)
			return -EBADMSG;
		return 0;
	}
	return -EBADMSG;
}

/* Finds, type-checks and validates the next item; does not consume it. */
static int next(const struct bl_reader *r, enum bl_type want, struct item *it)
{
	int ret = peek(r, it);

	if (ret)
		return ret;
	if (it->type != want)
		return -EBADMSG;
	return check(r, it);
}

static int read32(struct bl_reader *r, enum bl_type type, uint32_t *v)
{
	struct item it;
	int ret = next(r, type, &it);

	if (ret)
		return ret;
	*v = it.n;
	r->pos += it.len;
	return 0;
}

static int read64(struct bl_reader *r, enum bl_type type, uint64_t *v)
{
	struct item it;
	int ret = next(r, type, &it);

	if (ret)
		return ret;
	*v = get64(it.at + HDR);
	r->pos += it.len;
	return 0;
}

/* An integer item, read as bits wide (32: the small ones too) and narrowed. */
#define DEFINE_READ_INT(name, ctype, type, bits)			\
int bl_reader_read_##name(struct bl_reader *r, ctype *out)		\
{									\
	uint##bits##_t v;						\
	int ret = read##bits(r, type, &v);				\
									\
	if (!ret && out)						\
		*out = (ctype)(int##bits##_t)v;				\
	return ret;							\
}

DEFINE_READ_INT(u8, uint8_t, BL_TYPE_U8, 32)
DEFINE_READ_INT(i8, int8_t, BL_TYPE_I8, 32)
DEFINE_READ_INT(u16, uint16_t, BL_TYPE_U16, 32)
DEFINE_READ_INT(i16, int16_t, BL_TYPE_I16, 32)
DEFINE_READ_INT(u32, uint32_t, BL_TYPE_U32, 32)
DEFINE_READ_INT(i32, int32_t, BL_TYPE_I32, 32)
DEFINE_READ_INT(u64, uint64_t, BL_TYPE_U64, 64)
DEFINE_READ_INT(i64, int64_t, BL_TYPE_I64, 64)

int bl_reader_read_bool(struct bl_reader *r, bool *out)
{
	uint32_t v;
	int ret = read32(r, BL_TYPE_BOOL, &v);

	if (!ret && out)
		*out = v != 0;
	return ret;
}

int bl_reader_read_double(struct bl_reader *r, double *out)
{
	uint64_t v;
	int ret = read64(r, BL_TYPE_DOUBLE, &v);

	if (!ret && out)
		memcpy(out, &v, sizeof(*out));
	return ret;
}

/* A string or blob item: its bytes where they are, and their length. */
static int read_bytes(struct bl_reader *r, enum bl_type type, const void **out,
		      size_t *len)
{
	struct item it;
	int ret = next(r, type, &it);

	if (ret)
		return ret;
	if (out)
		*out = it.at + HDR;
	if (len)
		*len = it.n;
	r->pos += it.len;
	return 0;
}

int bl_reader_read_string(struct bl_reader *r, const char **out, size_t *len)
{
	const void *p;
	int ret = read_bytes(r, BL_TYPE_STRING, &p, len);

	if (!ret && out)
		*out = p;
	return ret;
}

/*
 * Equal bytes are as valid as the caller's string, so this compares where
 * bl_reader_read_string() validates: the rest of check()'s string case is
 * the terminator, the padding and no object inside.
 */
int bl_reader_expect_string(struct bl_reader *r, const char *s, size_t len)
{
	struct item it;
	int ret;

	if (!s && len)
		return -EINVAL;
	ret = peek(r, &it);
	if (ret)
		return ret;
	if (it.type != BL_TYPE_STRING || it.n != len ||
	    (len && memcmp(it.at + HDR, s, len)) || it.at[HDR + len] != 0 ||
	    !all_zero(it.at + HDR + len + 1, it.len - HDR - len - 1) ||
	    object_within(r, r->pos, r->pos + it.len))
		return -EBADMSG;
	r->pos += it.len;
	return 0;
}

int bl_reader_read_blob(struct bl_reader *r, const void **out, size_t *len)
{
	return read_bytes(r, BL_TYPE_BLOB, out, len);
}

static int read_obj(struct bl_reader *r, enum bl_type type, uint32_t kind,
		    struct fbinder_object *out)
{
	struct item it;
	struct fbinder_object o;
	int ret = next(r, type, &it);

	if (ret)
		return ret;
	memcpy(&o, it.at + HDR, sizeof(o));
	if (kind && o.type != kind)
		return -EBADMSG;
	if (out)
		*out = o;
	r->pos += it.len;
	return 0;
}

int bl_reader_read_object(struct bl_reader *r, struct fbinder_object *out)
{
	return read_obj(r, BL_TYPE_OBJECT, 0, out);
}

/* An object item of one kind: the field of it the caller wants. */
#define DEFINE_READ_OBJ(name, ctype, type, kind, field)			\
int bl_reader_read_##name(struct bl_reader *r, ctype *out)		\
{									\
	struct fbinder_object o;					\
	int ret = read_obj(r, type, kind, &o);				\
									\
	if (!ret && out)						\
		*out = o.field;						\
	return ret;							\
}

DEFINE_READ_OBJ(local, uint64_t, BL_TYPE_OBJECT, FBINDER_OBJ_LOCAL, cookie)
DEFINE_READ_OBJ(handle, uint32_t, BL_TYPE_OBJECT, FBINDER_OBJ_HANDLE, handle)
DEFINE_READ_OBJ(region, uint32_t, BL_TYPE_OBJECT, FBINDER_OBJ_REGION, handle)
DEFINE_READ_OBJ(fd, int, BL_TYPE_FD, FBINDER_OBJ_FD, fd)

int bl_reader_read_fd_array(struct bl_reader *r, int *fds, uint32_t max, uint32_t *count)
{
	struct item it;
	uint32_t k;
	int32_t fd;
	int ret;

	if (!fds && max)
		return -EINVAL;
	ret = next(r, BL_TYPE_FD_ARRAY, &it);
	if (ret)
		return ret;
	if (count)
		*count = it.n;
	if (it.n > max)
		return -ENOBUFS;
	for (k = 0; k < it.n; k++) {
		memcpy(&fd, it.at + FDA_HDR + k * sizeof(fd), sizeof(fd));
		fds[k] = fd;
	}
	r->pos += it.len;
	return 0;
}

int bl_reader_enter_array(struct bl_reader *r, struct bl_reader *sub,
			  uint32_t *count)
{
	struct item it;
	size_t body, end;
	int ret;

	if (!sub)
		return -EINVAL;
	ret = next(r, BL_TYPE_ARRAY, &it);
	if (ret)
		return ret;
	if (count)
		*count = get32(it.at + 4);
	/* in this order, so sub may be r itself (descend in place) */
	body = r->pos + ARRAY_HDR;
	end = r->pos + it.len;
	r->pos = end;
	*sub = *r;
	sub->pos = body;
	sub->end = end;
	return 0;
}

int bl_reader_peek_type(const struct bl_reader *r)
{
	struct item it;
	int ret = peek(r, &it);

	return ret ? ret : (int)it.type;
}

int bl_reader_skip(struct bl_reader *r)
{
	struct item it;
	int ret = peek(r, &it);

	if (ret)
		return ret;
	ret = check(r, &it);
	if (ret)
		return ret;
	r->pos += it.len;
	return (int)it.type;
}
