/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The receive-buffer allocator: one per context, managing the context's
 * read-only mapping.  Pure slot bookkeeping (best fit, coalescing) plus
 * lazily populated pages that stay cached after use until a shrinker takes
 * them back.  See alloc.c for the design comment.
 */
#ifndef _FBINDER_ALLOC_H
#define _FBINDER_ALLOC_H

#include <linux/align.h>
#include <linux/compiler.h>
#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/uidgid.h>

#include "spare_pool.h"

struct fbinder_txn;
struct fbinder_node;
struct fbinder_buffer_fd;
struct iov_iter;
struct fbinder_sender;
struct mem_cgroup;

/*
 * A slot in the mapping.  Slots tile the mapping in address order (the
 * buffers list); a free slot sits in free_tree (ordered by size, then
 * address), an allocated one in allocated_tree (ordered by address), and
 * so does the one cached slot, marked free (alloc.c).
 */
struct fbinder_buffer {
	union {
		struct list_head entry;	/* alloc->buffers, address order */
		struct fbinder_spare spare;	/* a spare (alloc.c, slot_pool.c) */
	};
	struct rb_node rb_node;		/* free_tree or allocated_tree */
	size_t offset;			/* of the slot in the mapping */
	size_t size;			/* of the slot, a multiple of 8 */
	unsigned free:1;
	unsigned oneway:1;		/* charged to the oneway share */
	/*
	 * Delivered: user space may free it.  Set without alloc->lock
	 * (fbinder_alloc_deliver(), a release), read and cleared under it.
	 */
	bool user_owned;

	/*
	 * Set and used by the transaction layer only: txn, target_node and
	 * sender under the context lock (fbinder_ctx.lock) of the buffer's
	 * context; the others are written by the sender
	 * until its commit makes the message visible, then only read, except
	 * fds, which the thread delivering the message consumes (fd.c).
	 */
	size_t data_size;
	size_t offsets_size;		/* bytes, after ALIGN(data_size, 8) */
	struct fbinder_txn *txn;	/* in flight, or NULL */
	struct fbinder_node *target_node;	/* node it was sent to, or NULL */
	struct fbinder_buffer_fd *fds;	/* files to install on delivery */
	u32 nr_fds;
	struct fbinder_sender *sender;	/* whose share it counts in, or NULL */
};

/* One page of the mapping. */
struct fbinder_page {
	struct page *page;		/* NULL until a slot needs it */
	/* on its context's lru while unused, and in use until the shrinker meets it */
	struct list_head lru;
	bool in_use;			/* an allocated slot covers it */
};

/*
 * The buffer pages of one user's contexts, against module parameter
 * max_user_pages (alloc.c), and the bytes of slots its messages hold in
 * everyone's buffers, against half of it (fbinder_user_charge_sent()).
 * One per euid with a mapped context or a sender record.
 */
struct fbinder_user {
	struct hlist_node entry;	/* fbinder_users */
	kuid_t uid;
	refcount_t refs;		/* its mapped contexts and sender records */
	atomic_long_t pages;		/* resident pages, slot bookkeeping */
	atomic_long_t sent;		/* bytes of its messages' unfreed slots */
};

struct fbinder_user *fbinder_user_get(kuid_t uid);
void fbinder_user_put(struct fbinder_user *u);
bool fbinder_user_charge_sent(struct fbinder_user *u, size_t bytes);
void fbinder_user_uncharge_sent(struct fbinder_user *u, size_t bytes);

struct fbinder_alloc {
	struct mutex lock;		/* everything below */
	struct vm_area_struct *vma;	/* the live mapping, compared only */
	struct mm_struct *mm;		/* mmgrab()ed at mmap, for reclaim */
	unsigned long user_base;	/* vma->vm_start */
	size_t size;			/* bytes mapped, 0 before mmap */
	struct fbinder_page *pages;		/* size / PAGE_SIZE entries */
	struct list_head lru;		/* pages cached (or in use again), oldest first */
	/* on fbinder_allocs from setup to release, under fbinder_allocs_lock */
	struct list_head shrink_entry;
	struct list_head buffers;
	struct rb_root free_tree;
	struct rb_root allocated_tree;
	size_t free_oneway_space;	/* left of the oneway share */
	size_t pages_resident;		/* pages with a struct page */
	size_t nr_slots;		/* allocated slots */
	size_t slot_pages;		/* charged for slot structs, see below */
	struct fbinder_user *user;		/* whose pages these are, from mmap */
	struct mem_cgroup *memcg;	/* charged for them, from mmap */
	struct fbinder_buffer *cached;	/* freed, kept whole for reuse, or NULL */
	struct fbinder_buffer *take_hint;	/* on buffers: the next free's, likely */
	struct fbinder_spare *spare;	/* unused slot structs, a stack */
	u32 nr_spare;
	bool mapped;			/* slots may be handed out */
	bool mapped_once;		/* a second mmap is refused */
};

/*
 * An allocated slot and the free one after it, in pages of the user's cap:
 * a context is charged a page per this many slots, and the first page from
 * its first slot to its end (alloc.c, Charges).
 */
#define FBINDER_SLOTS_PER_PAGE	(PAGE_SIZE / (2 * sizeof(struct fbinder_buffer)))

void fbinder_alloc_init(struct fbinder_alloc *alloc);

/*
 * Called from the file's mmap: refuses writable mappings (-EPERM), a second
 * mapping (-EBUSY) and sizes over fbinder_max_map_size or not page multiples, or
 * a nonzero offset (-EINVAL); clears VM_MAYWRITE so mprotect(PROT_WRITE)
 * fails; refuses partial munmap/mprotect and mremap; installs the fault
 * handler.  No page is allocated here.
 */
int fbinder_alloc_mmap(struct fbinder_alloc *alloc, struct vm_area_struct *vma);

/*
 * The context ended: unmaps pages a mapping still shows (its mm outlived
 * the owner), frees every slot and page.  No copy into a slot may be in
 * progress; mmap is refused from then on.
 */
void fbinder_alloc_release(struct fbinder_alloc *alloc);

/* The slot fbinder_alloc_new() takes for a message (data padded to 8 bytes). */
static inline size_t fbinder_alloc_slot_size(size_t data_size, size_t offsets_size)
{
	return max_t(size_t, ALIGN(data_size, sizeof(u64)) +
			     ALIGN(offsets_size, sizeof(u64)), sizeof(u64));
}

/*
 * Reserves a slot for data_size bytes followed by offsets_size bytes (the
 * data part is padded to 8 bytes), best fit, populating its pages.  New
 * pages and slot structs are charged to the memory cgroup and the user of
 * the mapping (not the caller's); a reply may use the user's reserve above
 * max_user_pages.  Errors: -ESRCH no mapping, -EMSGSIZE larger than the
 * mapping (or than the oneway share when oneway), -ENOSPC no free slot big
 * enough or oneway share used up, -EDQUOT the mapping's user holds
 * max_user_pages, -ENOMEM.
 */
struct fbinder_buffer *fbinder_alloc_new(struct fbinder_alloc *alloc, size_t data_size,
					 size_t offsets_size, bool oneway, bool reply);

/* Returns a slot; coalesces with free neighbours; pages no slot uses go on
 * the lru.
 */
void fbinder_alloc_free(struct fbinder_alloc *alloc, struct fbinder_buffer *buf);
/* The same for n slots, under one hold of alloc->lock. */
void fbinder_alloc_free_batch(struct fbinder_alloc *alloc, struct fbinder_buffer **bufs,
			      u32 n);

/*
 * Delivered slots: user space may free them from now on (each once, by
 * the offset of its data: fbinder_alloc_take_user()).  Takes no lock: no
 * one else writes the mark before user space may free the slot, and the
 * release orders what the transaction layer wrote before it for the free
 * that takes the slot.
 */
void fbinder_alloc_deliver(struct fbinder_alloc *alloc, struct fbinder_buffer **bufs, u32 n);

/*
 * For user space's frees: the delivered slots whose data start at
 * offsets[0..n), in order, stopping at the first offset that names none,
 * into bufs[0..returned).  Each is taken from user space (a second free
 * of it finds nothing).  Returns how many were taken.  With free_bare,
 * when every slot taken is bare (fbinder_buffer_bare()), they are freed
 * too, in the same hold of alloc->lock, and *freed is set: bufs[] then
 * points at nothing.
 */
u32 fbinder_alloc_take_user(struct fbinder_alloc *alloc, const u64 *offsets, u32 n,
			    struct fbinder_buffer **bufs, bool free_bare, bool *freed);

/*
 * A delivered slot that holds nothing of the transaction layer: no
 * objects, no files, no sender's share and no node.  Every call and oneway
 * message has a node, so no call waits on it either and no oneway message
 * waits for it (a reply is such a slot).  Read under alloc->lock alone:
 * once delivered, only the free that took the slot from user space changes
 * the node and the sender, and a call's txn link, the one field cleared by
 * others, is not read when the node says it is not a reply.
 */
static inline bool fbinder_buffer_bare(const struct fbinder_buffer *buf)
{
	return !buf->offsets_size && !buf->fds && !buf->sender &&
	       !buf->target_node && !buf->txn;
}

/*
 * Calls fn for every allocated slot, in address order, under alloc->lock:
 * fn may not take it, nor a spinlock of internal.h.
 */
void fbinder_alloc_for_each(struct fbinder_alloc *alloc,
			    void (*fn)(struct fbinder_buffer *buf, void *arg), void *arg);

/* For fbinder_alloc_for_each()'s fn: was the slot delivered, not freed yet? */
static inline bool fbinder_alloc_delivered(const struct fbinder_buffer *buf)
{
	return READ_ONCE(buf->user_owned);
}

/* What debugfs shows of a buffer. */
struct fbinder_alloc_usage {
	size_t size;			/* bytes mapped */
	size_t pages_resident;		/* pages with a struct page */
	kuid_t uid;			/* the mapping's user, or invalid */
	long user_pages;		/* that user's pages, all contexts */
	size_t slots;			/* allocated slots */
};

void fbinder_alloc_usage(struct fbinder_alloc *alloc, struct fbinder_alloc_usage *usage);

/* The size of the mapping, 0 before mmap; read without the lock. */
static inline size_t fbinder_alloc_size(struct fbinder_alloc *alloc)
{
	return READ_ONCE(alloc->size);
}

/*
 * Copies into or out of a slot; offset is relative to the slot's start.
 * Called without alloc->lock: the slot's pages cannot go away while it is
 * allocated.  -EFAULT on a bad user pointer, -EINVAL out of the slot.
 * fbinder_alloc_copy_from_user() also zeroes the slot from the end of what
 * it copied to the next 8-byte boundary: padding after data must not show
 * what the slot held before.
 */
int fbinder_alloc_copy_from_user(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
				 size_t offset, const void __user *from, size_t len);
/* The same, the next len bytes of from, which it advances. */
int fbinder_alloc_copy_from_iter(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
				 size_t offset, struct iov_iter *from, size_t len);
int fbinder_alloc_read(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
		       size_t offset, void *to, size_t len);
int fbinder_alloc_write(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
			size_t offset, const void *from, size_t len);
/* Zeroes len bytes of the slot from offset. */
int fbinder_alloc_clear(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
			size_t offset, size_t len);

/* Module-wide: the page lru and its shrinker. */
int fbinder_alloc_global_init(void);
void fbinder_alloc_global_exit(void);

/* slot_pool.c: the slot structs a burst leaves behind, for the next one. */
struct fbinder_buffer *fbinder_slot_pool_take(void);
bool fbinder_slot_pool_put(struct fbinder_buffer *buf);
unsigned long fbinder_slot_pool_count(void);
int fbinder_slot_pool_init(void);
void fbinder_slot_pool_exit(void);

extern unsigned long fbinder_max_map_size;	/* module parameter, bytes */
extern unsigned long fbinder_max_user_pages;	/* module parameter, pages */

#ifdef CONFIG_FASTBINDER_SELFTEST
int fbinder_alloc_selftest(void);
/* For the self-test: size bytes of slots and pages, with no mapping. */
int fbinder_alloc_setup_unmapped(struct fbinder_alloc *alloc, size_t size);
#endif

#endif /* _FBINDER_ALLOC_H */
