// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: the receive-buffer allocator.
 *
 * Every context maps one read-only buffer; senders copy messages straight
 * from their own memory into a slot of the receiver's buffer, and the
 * receiver frees the slot when done.  This file hands out those slots and
 * the pages behind them.
 *
 * Slots
 * =====
 * The mapping is tiled by slots (struct fbinder_buffer), kept in address order
 * on alloc->buffers.  Each slot is either free, in free_tree (ordered by
 * size, then offset), or allocated, in allocated_tree (ordered by offset).
 * Slot sizes are multiples of 8: a message's data is padded to 8 bytes and
 * followed by its offsets array, and a slot is at least 8 bytes long, so
 * every allocated slot covers at least one byte of some page.
 *
 * fbinder_alloc_new() takes the smallest free slot that fits (best fit; among
 * equal sizes the lowest offset), cuts the request from its front and
 * returns the rest to free_tree.  fbinder_alloc_free() merges the slot with a
 * free neighbour on either side, so two free slots are never adjacent and
 * the free slots are exactly the gaps between allocated ones.
 *
 * One exception, for the flow of small messages: the last slot freed, when
 * small, is not merged but kept whole as alloc->cached (still in
 * allocated_tree, marked free, counted in no slot total, its pages still
 * in use), and the next request of exactly its size takes it back as it
 * is.  Any other request or free first merges it like any free slot, so
 * outside that reuse the slots are exactly as described above (see
 * FBINDER_SLOT_CACHE_MAX).
 *
 * A burst of queued messages fills allocated_tree with thousands of slots,
 * each cut after the last: a new slot is linked next to the slot before
 * it (fbinder_allocated_insert()), and a free first tries the slot after
 * the last one taken (take_hint), so neither walks the tree from its root.
 *
 * Oneway messages may hold at most half of the mapping (free_oneway_space),
 * so a flood of them cannot starve synchronous calls.  (How much of that
 * one sender may take is the transaction layer's business: txn.c.)
 *
 * Pages
 * =====
 * Nothing is allocated at mmap time but the bookkeeping: an idle context
 * holds no page of its buffer.  alloc->pages[] has one struct fbinder_page per
 * page of the mapping, in one of three states:
 *
 *   absent     page == NULL: no slot has needed it since the last reclaim;
 *   in use     page set, not on the lru: some allocated slot covers it;
 *   cached     page set, on its context's lru: no slot covers it any more.
 *
 * fbinder_alloc_new() makes every page of the new slot "in use", allocating
 * zeroed pages for absent ones and taking cached ones off the lru.  When a
 * free leaves a page covered by no allocated slot (it lies wholly inside
 * the merged free slot), the page goes on the lru instead of being freed:
 * it stays mapped in user space, so the next message that lands there costs
 * neither an allocation nor a page fault.  A shrinker empties the lru under
 * memory pressure, unmapping each page from user space before freeing it.
 * A cached page that a slot takes again stays on the lru, marked in_use,
 * and is cached again by clearing the mark: a flow of messages through the
 * same pages then costs no lru lock and no list operation per page (they
 * were a tenth of a 64 KiB round trip).  The shrinker drops an in-use page
 * from the lru when it meets one; fbinder_cached_pages counts cached pages
 * only.
 *
 * Each context has its own lru, under its own alloc->lock, which every path
 * that caches or uses a page holds anyway: two contexts' pages share no
 * lock and no cache line, and the count is per CPU, summed only by the
 * shrinker's count.  The shrinker finds the lrus through fbinder_allocs, a
 * list of the mapped contexts' allocators that only mmap, the context's
 * end and the shrinker itself change; it visits them in turn, each at most
 * once a call, oldest page first within each.
 *
 * User space sees a page through the fault handler, which maps a page that
 * is present (in use or cached) with vm_insert_page() and sends SIGBUS for
 * an absent one.  It maps the page while holding alloc->lock, so it cannot
 * interleave with the shrinker's zap-and-free of the same page (a fault
 * that looked a page up and mapped it after dropping the lock could map a
 * page the shrinker had just freed from our point of view).
 *
 * Copies into and out of an allocated slot (fbinder_alloc_copy_from_user(),
 * fbinder_alloc_read(), fbinder_alloc_write()) run without alloc->lock: a slot's
 * pages stay "in use" for as long as it is allocated, and its size never
 * changes, so nothing they touch can change under them.  A user copy may
 * fault, even on a fastbinder mapping, so no alloc->lock is held across it.
 *
 * Locking
 * =======
 *   mm->mmap_lock (or the per-VMA lock)
 *     alloc->lock            mutex, one per context: the slots, trees,
 *                            pages[] and lru of that context, vma, mapped
 *       fbinder_allocs_lock  spinlock, global: fbinder_allocs (not taken
 *                            per message: mmap, end, shrinker)
 *
 * Charges
 * =======
 * The pages and slot structs of a buffer belong to its receiver, whoever's
 * send made them exist: they are charged to the memory cgroup of the
 * process that mapped the buffer, taken at mmap the way a socket keeps the
 * cgroup it was created in, and counted against that process's user (its
 * euid at mmap) in fbinder_user.pages, which module parameter max_user_pages
 * caps, as pipe-user-pages-soft caps pipe buffers.  Both cover cached pages
 * too: the shrinker may take those back under pressure, but it is not
 * memory-cgroup aware and skips an mm it cannot trylock, so they are held
 * memory until it does.  A send that would take the user past the cap
 * first frees the receiver's own cached pages, then fails with -EDQUOT; a
 * reply may go a quarter beyond the cap, so that others filling a user's
 * buffers cannot keep the replies to its own calls out.  Past half the
 * cap, freed pages are released at once instead of cached, so one
 * context's cache cannot crowd out the user's other contexts.  Slot
 * structs count as a page per FBINDER_SLOTS_PER_PAGE allocated slots; the
 * first of those pages from the context's first message to its end, so a
 * flow of single messages does not charge and uncharge it every time.
 * The same record counts, in sent, the bytes of slots the user's messages
 * hold in other users' buffers (txn.c charges them with the fair share),
 * against half of max_user_pages: one sender cannot take a receiving user
 * to its cap.
 *
 * The fault handler and vma close run with the mmap lock held and take
 * alloc->lock; fbinder_alloc_mmap() likewise.  The shrinker goes the other way
 * and therefore only ever trylocks: with fbinder_allocs_lock held it tries
 * alloc->lock of a context, drops fbinder_allocs_lock, then tries the mmap
 * lock (read) of the owner's mm to zap each page, skipping the context
 * when either is busy.  Allocating a page or a slot struct under alloc->lock may
 * enter reclaim
 * and so our shrinker: it fails to trylock our own lock and moves on.
 *
 * alloc->vma only says which vma is the live mapping, for the fault
 * handler and close (which get the vma from the mm); it is compared, never
 * dereferenced.  munmap() takes the vma out of the tree, then frees its
 * page tables and the vma itself with the mmap lock only held for reading,
 * so the shrinker and the unmap at a context's end (a CLONE_VM sibling
 * may be unmapping), holding it for reading too, could meet a vma that is
 * being torn down: they look the vma up in the mm instead
 * (fbinder_vma_lookup()), which finds only vmas still in the tree, as
 * binder does since 1da52815d5f1.
 *
 * A context's fbinder_alloc lives inside memory that is freed soon after
 * fbinder_alloc_release().  The shrinker only reaches an fbinder_alloc through
 * fbinder_allocs, keeps it only while its lru has a page (which
 * fbinder_alloc_release() empties under alloc->lock, for good) and releases
 * alloc->lock while holding fbinder_allocs_lock; fbinder_alloc_release() ends by
 * taking the allocator off fbinder_allocs under that lock, after which no
 * shrinker can touch it again.
 */
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/highmem.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/shrinker.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include "alloc.h"
#include "compat.h"
#include "stats.h"

unsigned long fbinder_max_map_size = SZ_16M;
module_param_named(max_map_size, fbinder_max_map_size, ulong, 0644);
MODULE_PARM_DESC(max_map_size,
		 "Largest receive buffer a context may map, in bytes (default 16 MiB)");

unsigned long fbinder_max_user_pages = 16384;
module_param_named(max_user_pages, fbinder_max_user_pages, ulong, 0644);
MODULE_PARM_DESC(max_user_pages,
		 "Buffer pages, in use or cached, the contexts of one user may hold; replies may use a quarter more; one user's messages in other users' buffers may hold half (default 16384, 64 MiB of 4 KiB pages; 0: no limit)");

/* Larger requests are refused before any arithmetic could overflow. */
#define FBINDER_ALLOC_MAX_REQUEST	(SIZE_MAX / 4)

/*
 * Charged to the receiver's cgroup by a sender's thread: a sender must not
 * set off the OOM killer there, so a failed charge fails the send instead.
 */
#define FBINDER_PAGE_GFP	(GFP_KERNEL_ACCOUNT | __GFP_HIGHMEM | __GFP_ZERO | \
			 __GFP_RETRY_MAYFAIL | __GFP_NOWARN)
#define FBINDER_SLOT_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

static LIST_HEAD(fbinder_allocs);	/* the shrinker's walk */
static DEFINE_SPINLOCK(fbinder_allocs_lock);
static unsigned long fbinder_nr_allocs;	/* on fbinder_allocs */
static DEFINE_PER_CPU(long, fbinder_cached_pages);	/* summed: the shrinker's count */
static struct shrinker *fbinder_shrinker;

static DEFINE_HASHTABLE(fbinder_users, 6);
static DEFINE_SPINLOCK(fbinder_users_lock);	/* fbinder_users, fbinder_user.refs */

static bool fbinder_reclaim_page(struct fbinder_alloc *alloc, struct fbinder_page *p);

/* ---- users -------------------------------------------------------------- */

/* With fbinder_users_lock held. */
static struct fbinder_user *fbinder_user_find(kuid_t uid)
{
	struct fbinder_user *u;

	lockdep_assert_held(&fbinder_users_lock);
	hash_for_each_possible(fbinder_users, u, entry, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			return u;
	return NULL;
}

/* The record of uid, counted (fbinder_user_put()); NULL without memory. */
struct fbinder_user *fbinder_user_get(kuid_t uid)
{
	struct fbinder_user *u, *new = NULL;

	for (;;) {
		spin_lock(&fbinder_users_lock);
		u = fbinder_user_find(uid);
		if (u) {
			refcount_inc(&u->refs);
		} else if (new) {
			hash_add(fbinder_users, &new->entry, __kuid_val(uid));
			u = new;
			new = NULL;
		}
		spin_unlock(&fbinder_users_lock);
		kfree(new);
		if (u)
			return u;
		new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
		if (!new)
			return NULL;
		new->uid = uid;
		refcount_set(&new->refs, 1);
		atomic_long_set(&new->pages, 0);
		atomic_long_set(&new->sent, 0);
	}
}

/* Takes fbinder_users_lock: may be called under the device lock. */
void fbinder_user_put(struct fbinder_user *u)
{
	bool last;

	if (!u)
		return;
	spin_lock(&fbinder_users_lock);
	last = refcount_dec_and_test(&u->refs);
	if (last)
		hash_del(&u->entry);
	spin_unlock(&fbinder_users_lock);
	if (!last)
		return;
	WARN_ON(atomic_long_read(&u->pages) || atomic_long_read(&u->sent));
	kfree(u);
}

/*
 * Charges bytes of a message's slot to its sending user; false, charging
 * nothing, when its messages would then hold more than half of
 * max_user_pages in all buffers together: one sender cannot take a
 * receiving user to its cap, whatever it sends to how many contexts.
 */
bool fbinder_user_charge_sent(struct fbinder_user *u, size_t bytes)
{
	unsigned long max = READ_ONCE(fbinder_max_user_pages);
	unsigned long limit = max / 2 * PAGE_SIZE;

	if (max / 2 > ULONG_MAX / PAGE_SIZE)
		limit = ULONG_MAX;
	if (!max) {
		atomic_long_add(bytes, &u->sent);
		return true;
	}
	if (atomic_long_add_return(bytes, &u->sent) <= limit)
		return true;
	atomic_long_sub(bytes, &u->sent);
	return false;
}

void fbinder_user_uncharge_sent(struct fbinder_user *u, size_t bytes)
{
	atomic_long_sub(bytes, &u->sent);
}

/*
 * Charges n pages to the mapping's user; false, charging nothing, when that
 * would take it past max_user_pages (a quarter more for a reply).
 */
static bool fbinder_user_charge(struct fbinder_alloc *alloc, long n, bool reply)
{
	unsigned long max = READ_ONCE(fbinder_max_user_pages), limit = max;
	struct fbinder_user *u = alloc->user;

	if (!u || !max)
		return true;
	if (reply)
		limit += min(max / 4, ULONG_MAX - max);
	if (atomic_long_add_return(n, &u->pages) <= limit)
		return true;
	atomic_long_sub(n, &u->pages);
	return false;
}

static void fbinder_user_uncharge(struct fbinder_alloc *alloc, long n)
{
	if (alloc->user)
		atomic_long_sub(n, &alloc->user->pages);
}

/* Past half its cap, a user's freed pages are released, not cached. */
static bool fbinder_user_may_cache(struct fbinder_alloc *alloc)
{
	unsigned long max = READ_ONCE(fbinder_max_user_pages);

	return !alloc->user || !max ||
	       atomic_long_read(&alloc->user->pages) <= max / 2;
}

/* ---- slots -------------------------------------------------------------- */

#define fbinder_slot_of(n)	rb_entry((n), struct fbinder_buffer, rb_node)

/* free_tree: by size, then offset */
static bool fbinder_free_less(struct rb_node *a, const struct rb_node *b)
{
	const struct fbinder_buffer *x = fbinder_slot_of(a), *y = fbinder_slot_of(b);

	return x->size < y->size ||
	       (x->size == y->size && x->offset < y->offset);
}

/* allocated_tree: by offset */
static bool fbinder_allocated_less(struct rb_node *a, const struct rb_node *b)
{
	return fbinder_slot_of(a)->offset < fbinder_slot_of(b)->offset;
}

static int fbinder_allocated_cmp(const void *offset, const struct rb_node *n)
{
	u64 off = *(const u64 *)offset;

	if (off < fbinder_slot_of(n)->offset)
		return -1;
	return off > fbinder_slot_of(n)->offset;
}

/* A free slot of at least *size bytes matches. */
static int fbinder_fits_cmp(const void *size, const struct rb_node *n)
{
	return fbinder_slot_of(n)->size < *(const size_t *)size;
}

static void fbinder_free_tree_insert(struct fbinder_alloc *alloc, struct fbinder_buffer *new)
{
	rb_add(&new->rb_node, &alloc->free_tree, fbinder_free_less);
}

/* The smallest free slot of at least size bytes, lowest offset first. */
static struct fbinder_buffer *fbinder_best_fit(struct fbinder_alloc *alloc, size_t size)
{
	struct rb_node *n = rb_find_first(&size, &alloc->free_tree,
					  fbinder_fits_cmp);

	return n ? fbinder_slot_of(n) : NULL;
}

static struct fbinder_buffer *fbinder_prev_slot(struct fbinder_alloc *alloc,
						struct fbinder_buffer *buf)
{
	if (list_is_first(&buf->entry, &alloc->buffers))
		return NULL;
	return list_prev_entry(buf, entry);
}

static struct fbinder_buffer *fbinder_next_slot(struct fbinder_alloc *alloc,
						struct fbinder_buffer *buf)
{
	if (list_is_last(&buf->entry, &alloc->buffers))
		return NULL;
	return list_next_entry(buf, entry);
}

/*
 * Links buf, just cut from a free slot, into allocated_tree right after the
 * slot before it in the mapping, its predecessor in the tree: free slots
 * have no free neighbour and the cached slot was merged before the cut, so
 * that slot is allocated.  In a queue of thousands of messages, each cut
 * from the end of the last, that is the tree's last node: no walk down from
 * the root, a dozen levels a message.
 */
static void fbinder_allocated_insert(struct fbinder_alloc *alloc,
				     struct fbinder_buffer *buf)
{
	struct fbinder_buffer *prev = fbinder_prev_slot(alloc, buf);
	struct rb_node *parent, **link;

	if (!prev || WARN_ON_ONCE(prev->free)) {
		rb_add(&buf->rb_node, &alloc->allocated_tree, fbinder_allocated_less);
		return;
	}
	/* the leftmost node of prev's right subtree, or prev itself */
	parent = &prev->rb_node;
	link = &parent->rb_right;
	while (*link) {
		parent = *link;
		link = &parent->rb_left;
	}
	rb_link_node(&buf->rb_node, parent, link);
	rb_insert_color(&buf->rb_node, &alloc->allocated_tree);
}

/*
 * Slot structures: a message splits a free slot and its free merges two, so
 * a flow of messages would allocate and free one struct per message.  A
 * few spares kept per context make that no slab work in the steady state,
 * without a lock of their own; a burst of queued messages needs more, and
 * those wait in the pool of the CPU that freed them (slot_pool.c) instead
 * of going back to the slab.
 */
#define FBINDER_SPARE_SLOTS		64

static struct fbinder_buffer *fbinder_slot_get(struct fbinder_alloc *alloc)
{
	struct fbinder_spare *s = alloc->spare;
	struct fbinder_buffer *buf;

	lockdep_assert_held(&alloc->lock);
	if (s) {
		alloc->spare = s->next;
		alloc->nr_spare--;
		buf = container_of(s, struct fbinder_buffer, spare);
	} else {
		buf = fbinder_slot_pool_take();
		if (!buf)
			return kzalloc(sizeof(*buf), FBINDER_SLOT_GFP);
	}
	memset(buf, 0, sizeof(*buf));
	return buf;
}

static void fbinder_slot_put(struct fbinder_alloc *alloc, struct fbinder_buffer *buf)
{
	lockdep_assert_held(&alloc->lock);
	if (alloc->take_hint == buf)
		alloc->take_hint = NULL;
	if (alloc->nr_spare >= FBINDER_SPARE_SLOTS) {
		if (!fbinder_slot_pool_put(buf))
			kfree(buf);
		return;
	}
	buf->spare.next = alloc->spare;
	alloc->spare = &buf->spare;
	alloc->nr_spare++;
}

/* ---- pages -------------------------------------------------------------- */

/* On the lru: cached, or in use again and not taken off it yet. */
static bool fbinder_page_listed(struct fbinder_page *p)
{
	return !list_empty(&p->lru);
}

static bool fbinder_page_cached(struct fbinder_page *p)
{
	return fbinder_page_listed(p) && !p->in_use;
}

/*
 * Frees the cached pages of alloc, to make room under its user's cap; those
 * it cannot free now stay cached.  Bounded by the mapping's pages.
 */
static void fbinder_reclaim_own(struct fbinder_alloc *alloc)
{
	size_t i, nr_pages = alloc->size >> PAGE_SHIFT;
	struct fbinder_page *p;

	lockdep_assert_held(&alloc->lock);
	for (i = 0; i < nr_pages; i++) {
		p = &alloc->pages[i];
		if (!fbinder_page_cached(p))
			continue;
		if (fbinder_reclaim_page(alloc, p)) {
			list_del_init(&p->lru);
			this_cpu_dec(fbinder_cached_pages);
		}
		cond_resched();
	}
}

/*
 * Makes the pages under [start, end) of the mapping "in use".  On failure
 * the pages it changed stay resident; the caller hands them back with
 * fbinder_pages_unuse().
 */
static int fbinder_pages_use(struct fbinder_alloc *alloc, size_t start, size_t end,
			     bool reply)
{
	size_t i, first = start >> PAGE_SHIFT, last = (end - 1) >> PAGE_SHIFT;
	struct fbinder_page *p;

	lockdep_assert_held(&alloc->lock);
	for (i = first; i <= last; i++) {
		p = &alloc->pages[i];
		if (p->page) {
			/* a cached page stays on the lru, in use (top of file) */
			if (fbinder_page_cached(p))
				this_cpu_dec(fbinder_cached_pages);
			p->in_use = true;
			continue;
		}
		if (!fbinder_user_charge(alloc, 1, reply)) {
			fbinder_reclaim_own(alloc);
			if (!fbinder_user_charge(alloc, 1, reply))
				return -EDQUOT;
		}
		p->page = alloc_page(FBINDER_PAGE_GFP);
		if (!p->page) {
			fbinder_user_uncharge(alloc, 1);
			return -ENOMEM;
		}
		p->in_use = true;
		alloc->pages_resident++;
		fbinder_stat_inc(FBINDER_STAT_LIVE_PAGES);
	}
	return 0;
}

/* fbinder_pages_unuse() past half the user's cap: frees what it can now. */
static void fbinder_pages_release(struct fbinder_alloc *alloc, size_t first,
				  size_t last)
{
	struct fbinder_page *p;
	size_t i;

	for (i = first; i < last; i++) {
		p = &alloc->pages[i];
		if (!p->page || !p->in_use)
			continue;
		p->in_use = false;
		if (fbinder_reclaim_page(alloc, p)) {
			list_del_init(&p->lru);
			continue;
		}
		/* cached after all: the owner's mm is busy */
		if (!fbinder_page_listed(p))
			list_add_tail(&p->lru, &alloc->lru);
		this_cpu_inc(fbinder_cached_pages);
	}
}

/*
 * A slot that covered [start, end) is now part of the free gap [lo, hi)
 * (a free slot, or the cached slot with its free neighbours): the pages it
 * touched that lie wholly inside the gap are used by no slot any more and
 * go on the lru.  Pages partly outside it are shared with an allocated
 * neighbour (gaps are never adjacent) and stay in use.
 */
static void fbinder_pages_unuse(struct fbinder_alloc *alloc, size_t start, size_t end,
				size_t lo, size_t hi)
{
	size_t first = max(start >> PAGE_SHIFT, PAGE_ALIGN(lo) >> PAGE_SHIFT);
	size_t last = min(DIV_ROUND_UP(end, PAGE_SIZE), hi >> PAGE_SHIFT);
	struct fbinder_page *p;
	size_t i;

	lockdep_assert_held(&alloc->lock);
	if (first >= last)
		return;
	if (!fbinder_user_may_cache(alloc)) {
		fbinder_pages_release(alloc, first, last);
		return;
	}
	for (i = first; i < last; i++) {
		p = &alloc->pages[i];
		if (!p->page || !p->in_use)
			continue;
		p->in_use = false;
		this_cpu_inc(fbinder_cached_pages);
		if (!fbinder_page_listed(p))
			list_add_tail(&p->lru, &alloc->lru);
	}
}

/* ---- setup and teardown ------------------------------------------------- */

void fbinder_alloc_init(struct fbinder_alloc *alloc)
{
	memset(alloc, 0, sizeof(*alloc));
	mutex_init(&alloc->lock);
	INIT_LIST_HEAD(&alloc->buffers);
	INIT_LIST_HEAD(&alloc->lru);
	INIT_LIST_HEAD(&alloc->shrink_entry);
	alloc->free_tree = RB_ROOT;
	alloc->allocated_tree = RB_ROOT;
}

/* One free slot over size bytes, and a page table with no page in it. */
static int fbinder_alloc_setup(struct fbinder_alloc *alloc, size_t size)
{
	size_t i, nr_pages = size >> PAGE_SHIFT;
	struct fbinder_buffer *buf;

	lockdep_assert_held(&alloc->lock);
	buf = kzalloc(sizeof(*buf), GFP_KERNEL_ACCOUNT);
	if (!buf)
		return -ENOMEM;
	alloc->pages = kvcalloc(nr_pages, sizeof(*alloc->pages),
				GFP_KERNEL_ACCOUNT);
	if (!alloc->pages) {
		kfree(buf);
		return -ENOMEM;
	}
	for (i = 0; i < nr_pages; i++)
		INIT_LIST_HEAD(&alloc->pages[i].lru);
	spin_lock(&fbinder_allocs_lock);
	list_add_tail(&alloc->shrink_entry, &fbinder_allocs);
	fbinder_nr_allocs++;
	spin_unlock(&fbinder_allocs_lock);
	buf->free = 1;
	buf->size = size;
	list_add(&buf->entry, &alloc->buffers);
	fbinder_free_tree_insert(alloc, buf);
	alloc->size = size;
	alloc->free_oneway_space = size / 2;
	alloc->mapped = true;
	return 0;
}

#ifdef CONFIG_FASTBINDER_SELFTEST
int fbinder_alloc_setup_unmapped(struct fbinder_alloc *alloc, size_t size)
{
	int ret;

	if (!size || !PAGE_ALIGNED(size))
		return -EINVAL;
	mutex_lock(&alloc->lock);
	ret = alloc->size ? -EBUSY : fbinder_alloc_setup(alloc, size);
	mutex_unlock(&alloc->lock);
	return ret;
}
#endif

static const struct vm_operations_struct fbinder_vm_ops;

/*
 * Our vma at addr of mm, if it is still in mm's tree: munmap() takes a
 * vma out of the tree, then frees its page tables and calls ->close with
 * the mmap lock only held for reading, so alloc->vma may name a vma that
 * is being torn down (binder's 1da52815d5f1).  mmap lock held (read).
 */
static struct vm_area_struct *fbinder_vma_lookup(struct fbinder_alloc *alloc,
						 struct mm_struct *mm,
						 unsigned long addr)
{
	struct vm_area_struct *vma;

	mmap_assert_locked(mm);
	vma = vma_lookup(mm, addr);
	if (vma && (vma->vm_ops != &fbinder_vm_ops ||
		    vma->vm_private_data != alloc))
		return NULL;
	return vma;
}

/*
 * Normally the mapping is gone before the buffer: it holds the file, and an
 * exiting owner unmaps before it closes its descriptors.  But a context ends
 * with its owner, and an mm can outlive that (shared with another process
 * by CLONE_VM, or held a moment by someone reading it): take the pages out
 * of such a mapping first, so that no page of a freed buffer stays mapped.
 * This may run in a sender's thread, which must not wait on that mm, so the
 * mmap lock is only tried, like the shrinker does: when it is busy, the
 * pages already mapped stay mapped (each mapping holds its own reference)
 * until that mm unmaps them, seen by that mm's processes only.
 */
static void fbinder_alloc_unmap(struct fbinder_alloc *alloc)
{
	struct vm_area_struct *vma = NULL;
	struct mm_struct *mm = NULL;
	bool locked;

	mutex_lock(&alloc->lock);
	alloc->mapped = false;
	/* an mm on its way out is torn down, with our pages, by its owner */
	if (alloc->vma && mmget_not_zero(alloc->mm))
		mm = alloc->mm;
	mutex_unlock(&alloc->lock);
	if (!mm)
		return;
	locked = mmap_read_trylock(mm);
	mutex_lock(&alloc->lock);
	/*
	 * Not alloc->vma itself: a CLONE_VM sibling's munmap() may have
	 * taken it out of the tree and be freeing its page tables, with only
	 * the read lock held, before its close clears alloc->vma.
	 */
	if (locked && alloc->vma)
		vma = fbinder_vma_lookup(alloc, mm, alloc->user_base);
	if (vma)
		fbinder_zap_range(vma, alloc->user_base, alloc->size);
	/* later faults find the vma is not ours any more: SIGBUS */
	alloc->vma = NULL;
	mutex_unlock(&alloc->lock);
	if (locked)
		mmap_read_unlock(mm);
	/* the last user's teardown of that mm is not ours to run either */
	mmput_async(mm);
}

void fbinder_alloc_release(struct fbinder_alloc *alloc)
{
	struct fbinder_buffer *buf, *tmp;
	struct mm_struct *mm;
	size_t i, freed = 0;

	fbinder_alloc_unmap(alloc);
	mutex_lock(&alloc->lock);
	alloc->vma = NULL;
	alloc->mapped = false;
	if (alloc->pages) {
		for (i = 0; i < alloc->size >> PAGE_SHIFT; i++) {
			if (fbinder_page_cached(&alloc->pages[i]))
				this_cpu_dec(fbinder_cached_pages);
			list_del_init(&alloc->pages[i].lru);
		}
		for (i = 0; i < alloc->size >> PAGE_SHIFT; i++) {
			alloc->pages[i].in_use = false;
			if (alloc->pages[i].page) {
				__free_page(alloc->pages[i].page);
				alloc->pages[i].page = NULL;
				alloc->pages_resident--;
				freed++;
			}
		}
		fbinder_stat_sub(FBINDER_STAT_LIVE_PAGES, freed);
		freed += alloc->slot_pages;
		alloc->slot_pages = 0;
		alloc->nr_slots = 0;
		kvfree(alloc->pages);
		alloc->pages = NULL;
	}
	list_for_each_entry_safe(buf, tmp, &alloc->buffers, entry) {
		list_del(&buf->entry);
		kfree(buf);
	}
	while (alloc->spare) {
		buf = container_of(alloc->spare, struct fbinder_buffer, spare);
		alloc->spare = buf->spare.next;
		kfree(buf);
	}
	alloc->nr_spare = 0;
	alloc->cached = NULL;
	alloc->take_hint = NULL;
	alloc->free_tree = RB_ROOT;
	alloc->allocated_tree = RB_ROOT;
	alloc->size = 0;
	alloc->free_oneway_space = 0;
	alloc->mapped_once = true;	/* no new buffer after this */
	mm = alloc->mm;
	alloc->mm = NULL;
	fbinder_user_uncharge(alloc, freed);
	mutex_unlock(&alloc->lock);

	/* a shrinker that still held alloc->lock let go of it under this lock */
	spin_lock(&fbinder_allocs_lock);
	if (!list_empty(&alloc->shrink_entry)) {
		list_del_init(&alloc->shrink_entry);
		fbinder_nr_allocs--;
	}
	spin_unlock(&fbinder_allocs_lock);
	if (mm)
		mmdrop(mm);
	fbinder_user_put(alloc->user);
	alloc->user = NULL;
	mem_cgroup_put(alloc->memcg);
	alloc->memcg = NULL;
}

/* ---- the mapping -------------------------------------------------------- */

static vm_fault_t fbinder_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct fbinder_alloc *alloc = vma->vm_private_data;
	unsigned long index = (vmf->address - vma->vm_start) >> PAGE_SHIFT;
	vm_fault_t ret = VM_FAULT_SIGBUS;
	int err;

	mutex_lock(&alloc->lock);
	if (alloc->vma == vma && index < alloc->size >> PAGE_SHIFT &&
	    alloc->pages[index].page) {
		err = vm_insert_page(vma, vmf->address & PAGE_MASK,
				     alloc->pages[index].page);
		/* -EBUSY: a racing fault mapped it first */
		if (!err || err == -EBUSY)
			ret = VM_FAULT_NOPAGE;
		else if (err == -ENOMEM)
			ret = VM_FAULT_OOM;
	}
	mutex_unlock(&alloc->lock);
	return ret;
}

static void fbinder_vm_close(struct vm_area_struct *vma)
{
	struct fbinder_alloc *alloc = vma->vm_private_data;

	mutex_lock(&alloc->lock);
	/* not a copy that a refused mremap() is taking down again */
	if (alloc->vma == vma) {
		alloc->vma = NULL;
		alloc->mapped = false;
	}
	mutex_unlock(&alloc->lock);
}

/* The mapping is one piece at one place: no partial unmap, no move. */
static int fbinder_vm_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static int fbinder_vm_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

static const struct vm_operations_struct fbinder_vm_ops = {
	.close = fbinder_vm_close,
	.may_split = fbinder_vm_may_split,
	.mremap = fbinder_vm_mremap,
	.fault = fbinder_vm_fault,
};

int fbinder_alloc_mmap(struct fbinder_alloc *alloc, struct vm_area_struct *vma)
{
	size_t size = vma->vm_end - vma->vm_start;
	struct fbinder_user *user;
	int ret;

	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	if (vma->vm_pgoff || !size || !PAGE_ALIGNED(size) ||
	    size > READ_ONCE(fbinder_max_map_size))
		return -EINVAL;
	user = fbinder_user_get(current_euid());
	if (!user)
		return -ENOMEM;

	mutex_lock(&alloc->lock);
	if (alloc->mapped_once) {
		ret = -EBUSY;
		goto out;
	}
	ret = fbinder_alloc_setup(alloc, size);
	if (ret)
		goto out;
	alloc->user = user;
	user = NULL;
	alloc->memcg = get_mem_cgroup_from_mm(vma->vm_mm);
	alloc->mapped_once = true;
	alloc->vma = vma;
	alloc->user_base = vma->vm_start;
	alloc->mm = vma->vm_mm;
	mmgrab(alloc->mm);
	/*
	 * VM_DONTCOPY keeps the mapping out of a child at fork, and VM_IO
	 * keeps it so: madvise(MADV_DOFORK) refuses to clear VM_DONTCOPY on
	 * a VM_IO vma (EINVAL, 6.1 and 6.12 alike), and a child never sees
	 * the messages that land here later.  VM_IO also keeps
	 * get_user_pages() off the pages (O_DIRECT, vmsplice,
	 * process_vm_readv, /proc/pid/mem and ptrace peeks fail), which
	 * suits a buffer only its owner reads; mlock() and core dumps
	 * skipped the mapping already (VM_DONTEXPAND, VM_DONTDUMP), and
	 * vm_insert_page() and the zap are unaffected.
	 */
	fbinder_vm_flags_mod(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP |
			     VM_MIXEDMAP | VM_IO, VM_MAYWRITE);
	vma->vm_ops = &fbinder_vm_ops;
	vma->vm_private_data = alloc;
out:
	mutex_unlock(&alloc->lock);
	fbinder_user_put(user);
	return ret;
}

/* ---- slots: allocate and free ------------------------------------------- */

/*
 * Merges a slot that left allocated_tree's users (freed or cached) with
 * its free neighbours into one free slot, and hands back the pages it
 * covered that lie wholly inside that free slot now (fbinder_pages_unuse()).
 */
static void fbinder_slot_merge_alocked(struct fbinder_alloc *alloc,
				       struct fbinder_buffer *buf)
{
	size_t start = buf->offset, end = buf->offset + buf->size;
	struct fbinder_buffer *prev, *next;

	lockdep_assert_held(&alloc->lock);
	rb_erase(&buf->rb_node, &alloc->allocated_tree);
	next = fbinder_next_slot(alloc, buf);
	if (next && next->free) {
		rb_erase(&next->rb_node, &alloc->free_tree);
		list_del(&next->entry);
		buf->size += next->size;
		fbinder_slot_put(alloc, next);
	}
	prev = fbinder_prev_slot(alloc, buf);
	if (prev && prev->free) {
		rb_erase(&prev->rb_node, &alloc->free_tree);
		list_del(&buf->entry);
		prev->size += buf->size;
		fbinder_slot_put(alloc, buf);
		buf = prev;
	}
	fbinder_free_tree_insert(alloc, buf);
	fbinder_pages_unuse(alloc, start, end, buf->offset, buf->offset + buf->size);
}

/*
 * The cached slot becomes a free slot like any other, and the pages it
 * kept in use are handed back as at any free.
 */
static void fbinder_cache_flush_alocked(struct fbinder_alloc *alloc)
{
	struct fbinder_buffer *buf = alloc->cached;

	lockdep_assert_held(&alloc->lock);
	if (!buf)
		return;
	alloc->cached = NULL;
	fbinder_slot_merge_alocked(alloc, buf);
}

struct fbinder_buffer *fbinder_alloc_new(struct fbinder_alloc *alloc, size_t data_size,
					 size_t offsets_size, bool oneway, bool reply)
{
	struct fbinder_buffer *buf, *rest = NULL;
	struct mem_cgroup *old_memcg;
	bool slot_page = false, hit;
	size_t size;
	int ret;

	if (data_size > FBINDER_ALLOC_MAX_REQUEST ||
	    offsets_size > FBINDER_ALLOC_MAX_REQUEST)
		return ERR_PTR(-EMSGSIZE);
	size = fbinder_alloc_slot_size(data_size, offsets_size);

	mutex_lock(&alloc->lock);
	/* what we allocate here is the receiver's: charge its cgroup */
	old_memcg = set_active_memcg(alloc->memcg);
	if (!alloc->mapped) {
		ret = -ESRCH;
		goto err;
	}
	if (size > alloc->size || (oneway && size > alloc->size / 2)) {
		ret = -EMSGSIZE;
		goto err;
	}
	if (oneway && size > alloc->free_oneway_space) {
		ret = -ENOSPC;
		goto err;
	}
	/* the slot the last free kept, when it is the size asked for */
	buf = alloc->cached;
	hit = buf && buf->size == size;
	if (!hit) {
		fbinder_cache_flush_alocked(alloc);
		buf = fbinder_best_fit(alloc, size);
		if (!buf) {
			ret = -ENOSPC;
			goto err;
		}
	}
	if (alloc->nr_slots == alloc->slot_pages * FBINDER_SLOTS_PER_PAGE) {
		if (!fbinder_user_charge(alloc, 1, reply)) {
			ret = -EDQUOT;
			goto err;
		}
		slot_page = true;
	}
	if (hit) {
		/* its pages are still in use */
		alloc->cached = NULL;
		goto take;
	}
	/* the tail of the slot we cut from, if any is left */
	if (buf->size > size) {
		rest = fbinder_slot_get(alloc);
		if (!rest) {
			ret = -ENOMEM;
			goto err;
		}
	}
	ret = fbinder_pages_use(alloc, buf->offset, buf->offset + size, reply);
	if (ret) {
		fbinder_pages_unuse(alloc, buf->offset, buf->offset + size,
				    buf->offset, buf->offset + buf->size);
		goto err;
	}

	rb_erase(&buf->rb_node, &alloc->free_tree);
	if (rest) {
		rest->free = 1;
		rest->offset = buf->offset + size;
		rest->size = buf->size - size;
		list_add(&rest->entry, &buf->entry);
		fbinder_free_tree_insert(alloc, rest);
	}
	buf->size = size;
	fbinder_allocated_insert(alloc, buf);
take:
	buf->free = 0;
	buf->oneway = oneway;
	buf->user_owned = false;
	if (oneway)
		alloc->free_oneway_space -= size;
	alloc->nr_slots++;
	alloc->slot_pages += slot_page;
	set_active_memcg(old_memcg);
	mutex_unlock(&alloc->lock);
	return buf;

err:
	if (rest)
		fbinder_slot_put(alloc, rest);
	if (slot_page)
		fbinder_user_uncharge(alloc, 1);
	set_active_memcg(old_memcg);
	mutex_unlock(&alloc->lock);
	return ERR_PTR(ret);
}

/*
 * A freed slot of at most this size is kept whole as the context's cached
 * slot: the next message of its size takes it back as it is, and a flow of
 * small messages then neither cuts a slot from a free one nor merges it
 * back (six rbtree operations a message).  Only one slot is cached, and
 * any other allocation or free first merges it like any free slot, so
 * best fit and the gaps are exactly as without the cache otherwise.  Its
 * pages stay in use until that merge, at most two, out of the shrinker's
 * reach like a pipe's spare page: the hit costs no page bookkeeping either
 * way.  A send that misses merges it first, so a send short of its user's
 * pages can take them back (fbinder_reclaim_own()); past half the user's
 * cap nothing is cached.
 */
#define FBINDER_SLOT_CACHE_MAX		SZ_4K

static void fbinder_alloc_free_alocked(struct fbinder_alloc *alloc,
				       struct fbinder_buffer *buf)
{
	lockdep_assert_held(&alloc->lock);
	if (WARN_ON(buf->free))
		return;
	fbinder_cache_flush_alocked(alloc);
	/* the first slot page stays charged (Charges, top of file) */
	alloc->nr_slots--;
	if (alloc->slot_pages > 1 &&
	    alloc->nr_slots == (alloc->slot_pages - 1) * FBINDER_SLOTS_PER_PAGE) {
		fbinder_user_uncharge(alloc, 1);
		alloc->slot_pages--;
	}
	if (buf->oneway)
		alloc->free_oneway_space += buf->size;
	buf->free = 1;
	buf->oneway = 0;
	buf->user_owned = false;
	buf->data_size = 0;
	buf->offsets_size = 0;
	buf->txn = NULL;
	buf->target_node = NULL;
	buf->fds = NULL;
	buf->nr_fds = 0;
	buf->sender = NULL;

	/* the user's pages are cached too, or none are (fbinder_pages_unuse()) */
	if (buf->size <= FBINDER_SLOT_CACHE_MAX && fbinder_user_may_cache(alloc)) {
		/*
		 * Stays in allocated_tree, free (no one may use or take it),
		 * its pages in use.
		 */
		alloc->cached = buf;
		return;
	}
	fbinder_slot_merge_alocked(alloc, buf);
}

void fbinder_alloc_free(struct fbinder_alloc *alloc, struct fbinder_buffer *buf)
{
	fbinder_alloc_free_batch(alloc, &buf, 1);
}

void fbinder_alloc_free_batch(struct fbinder_alloc *alloc, struct fbinder_buffer **bufs,
			      u32 n)
{
	u32 i;

	mutex_lock(&alloc->lock);
	for (i = 0; i < n; i++)
		fbinder_alloc_free_alocked(alloc, bufs[i]);
	mutex_unlock(&alloc->lock);
}

/* ---- delivered slots ---------------------------------------------------- */

void fbinder_alloc_deliver(struct fbinder_alloc *alloc, struct fbinder_buffer **bufs, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		/* pairs with the take's acquire: it sees the finished buffer */
		smp_store_release(&bufs[i]->user_owned, true);
}

/*
 * The allocated slot at user_offset, if user space owns it.  A slot the
 * next free likely names is tried before the tree: after a burst's slot the
 * one that follows it (receivers free in the order messages came), else the
 * same one, which a flow of messages of one size reuses whole (the cached
 * slot).  Any slot on the list that is not free is the allocated one at its
 * offset; take_hint leaves with its struct (fbinder_slot_put()).
 */
static struct fbinder_buffer *fbinder_take_user_alocked(struct fbinder_alloc *alloc,
							u64 user_offset)
{
	struct fbinder_buffer *buf = alloc->take_hint, *next;
	struct rb_node *n;

	lockdep_assert_held(&alloc->lock);
	if (!buf || buf->free || buf->offset != user_offset) {
		n = rb_find(&user_offset, &alloc->allocated_tree,
			    fbinder_allocated_cmp);
		if (!n)
			return NULL;
		buf = fbinder_slot_of(n);
	}
	/* pairs with fbinder_alloc_deliver() */
	if (!smp_load_acquire(&buf->user_owned))
		return NULL;
	buf->user_owned = false;
	/* a burst's next slot; or this one, reused whole by a flow (cached) */
	next = fbinder_next_slot(alloc, buf);
	alloc->take_hint = next && !next->free ? next : buf;
	return buf;
}

u32 fbinder_alloc_take_user(struct fbinder_alloc *alloc, const u64 *offsets, u32 n,
			    struct fbinder_buffer **bufs, bool free_bare, bool *freed)
{
	struct fbinder_buffer *buf;
	u32 nr, i;

	mutex_lock(&alloc->lock);
	for (nr = 0; nr < n; nr++) {
		buf = fbinder_take_user_alocked(alloc, offsets[nr]);
		if (!buf)
			break;
		bufs[nr] = buf;
		free_bare &= fbinder_buffer_bare(buf);
	}
	*freed = free_bare && nr;
	if (*freed)
		for (i = 0; i < nr; i++)
			fbinder_alloc_free_alocked(alloc, bufs[i]);
	mutex_unlock(&alloc->lock);
	return nr;
}

/* ---- for the context's end and debugfs ---------------------------------- */

void fbinder_alloc_for_each(struct fbinder_alloc *alloc,
			    void (*fn)(struct fbinder_buffer *buf, void *arg), void *arg)
{
	struct rb_node *rb;

	mutex_lock(&alloc->lock);
	for (rb = rb_first(&alloc->allocated_tree); rb; rb = rb_next(rb))
		if (!fbinder_slot_of(rb)->free)	/* not the cached slot */
			fn(fbinder_slot_of(rb), arg);
	mutex_unlock(&alloc->lock);
}

void fbinder_alloc_usage(struct fbinder_alloc *alloc, struct fbinder_alloc_usage *usage)
{
	mutex_lock(&alloc->lock);
	usage->size = alloc->size;
	usage->pages_resident = alloc->pages_resident;
	usage->slots = alloc->nr_slots;
	usage->uid = alloc->user ? alloc->user->uid : INVALID_UID;
	usage->user_pages = alloc->user ?
			    atomic_long_read(&alloc->user->pages) : 0;
	mutex_unlock(&alloc->lock);
}

/* ---- copies ------------------------------------------------------------- */

static int fbinder_check_range(struct fbinder_buffer *buf, size_t offset, size_t len)
{
	if (buf->free || offset > buf->size || len > buf->size - offset)
		return -EINVAL;
	return 0;
}

enum fbinder_copy_op {
	FBINDER_COPY_FROM_USER,	/* into the slot from user memory */
	FBINDER_COPY_IN,		/* into the slot from kernel memory */
	FBINDER_COPY_OUT,		/* out of the slot into kernel memory */
	FBINDER_COPY_ZERO,		/* zeroes in the slot */
};

/*
 * The one page walk behind every copy into or out of a slot: len bytes at
 * offset in buf, a page at a time, as op says: read from ufrom (user
 * memory) or from, written into to; the pointers op does not use are NULL.
 *
 * User memory is read through an iov_iter, not with copy_from_user() per
 * page: that would run the hardened-usercopy check of its kernel
 * destination on every page, pages that are the slot's own, and the check
 * cost about a tenth of a 64 KiB round trip (docs/performance.md).
 */
static int fbinder_alloc_copy(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
			      size_t offset, size_t len, enum fbinder_copy_op op,
			      struct iov_iter *ufrom, const void *from, void *to)
{
	size_t pos, in_page, n, done;
	struct page *page;
	int ret;

	ret = fbinder_check_range(buf, offset, len);
	if (ret)
		return ret;
	for (done = 0; done < len; done += n) {
		pos = buf->offset + offset + done;
		in_page = offset_in_page(pos);
		n = min_t(size_t, len - done, PAGE_SIZE - in_page);
		page = alloc->pages[pos >> PAGE_SHIFT].page;
		switch (op) {
		case FBINDER_COPY_FROM_USER:
			if (copy_page_from_iter(page, in_page, n, ufrom) != n)
				return -EFAULT;
			break;
		case FBINDER_COPY_IN:
			memcpy_to_page(page, in_page, from + done, n);
			break;
		case FBINDER_COPY_OUT:
			memcpy_from_page(to + done, page, in_page, n);
			break;
		case FBINDER_COPY_ZERO:
			memzero_page(page, in_page, n);
			break;
		}
	}
	return 0;
}

int fbinder_alloc_copy_from_user(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
				 size_t offset, const void __user *from, size_t len)
{
	struct iov_iter iter;

	iov_iter_ubuf(&iter, ITER_SOURCE, (void __user *)from, len);
	return fbinder_alloc_copy_from_iter(alloc, buf, offset, &iter, len);
}

int fbinder_alloc_copy_from_iter(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
				 size_t offset, struct iov_iter *from, size_t len)
{
	size_t end, pad;
	void *kaddr;
	int ret;

	ret = fbinder_alloc_copy(alloc, buf, offset, len, FBINDER_COPY_FROM_USER, from,
				 NULL, NULL);
	if (ret)
		return ret;
	/*
	 * The padding: inside the slot (its size is a multiple of 8), and in
	 * the page of the last byte copied (a page boundary is aligned).
	 */
	end = buf->offset + offset + len;
	pad = ALIGN(end, sizeof(u64)) - end;
	if (pad) {
		kaddr = kmap_local_page(alloc->pages[end >> PAGE_SHIFT].page);
		memset(kaddr + offset_in_page(end), 0, pad);
		kunmap_local(kaddr);
	}
	return 0;
}

int fbinder_alloc_read(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
		       size_t offset, void *to, size_t len)
{
	return fbinder_alloc_copy(alloc, buf, offset, len, FBINDER_COPY_OUT, NULL, NULL,
				  to);
}

int fbinder_alloc_write(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
			size_t offset, const void *from, size_t len)
{
	return fbinder_alloc_copy(alloc, buf, offset, len, FBINDER_COPY_IN, NULL, from,
				  NULL);
}

int fbinder_alloc_clear(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
			size_t offset, size_t len)
{
	return fbinder_alloc_copy(alloc, buf, offset, len, FBINDER_COPY_ZERO, NULL, NULL,
				  NULL);
}

/* ---- the shrinker ------------------------------------------------------- */

static unsigned long fbinder_shrink_count(struct shrinker *s,
					  struct shrink_control *sc)
{
	long count = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		count += per_cpu(fbinder_cached_pages, cpu);
	return count > 0 ? count : SHRINK_EMPTY;
}

/*
 * Frees the page p of alloc, whose lock the caller holds and which it took
 * off the lru.  Returns false, leaving the page alone, when it is mapped
 * and the owner's mm cannot be locked right now.
 */
static bool fbinder_reclaim_page(struct fbinder_alloc *alloc, struct fbinder_page *p)
{
	unsigned long addr = alloc->user_base + (p - alloc->pages) * PAGE_SIZE;
	struct vm_area_struct *vma;
	struct mm_struct *mm;

	lockdep_assert_held(&alloc->lock);
	if (alloc->vma) {
		/* an exiting mm is torn down (with our pages) by its owner */
		mm = alloc->mm;
		if (!mmget_not_zero(mm))
			return false;
		if (!mmap_read_trylock(mm)) {
			mmput_async(mm);
			return false;
		}
		/*
		 * Not found: munmap() took it out and zaps it (the page
		 * lives on until then: the mapping holds a reference).
		 * Another vma there cannot be while ours is not closed, but
		 * if it were, the page would stay.
		 */
		vma = vma_lookup(mm, addr);
		if (vma && !fbinder_vma_lookup(alloc, mm, addr)) {
			mmap_read_unlock(mm);
			mmput_async(mm);
			return false;
		}
		if (vma)
			fbinder_zap_range(vma, addr, PAGE_SIZE);
		mmap_read_unlock(mm);
		mmput_async(mm);
	}
	__free_page(p->page);
	p->page = NULL;
	alloc->pages_resident--;
	fbinder_user_uncharge(alloc, 1);
	fbinder_stat_dec(FBINDER_STAT_LIVE_PAGES);
	return true;
}

/*
 * Frees up to nr of alloc's cached pages, oldest first, with alloc->lock
 * held; in-use pages met on the way leave the lru.  Adds the pages looked
 * at to *scanned, returns those freed.  Stops at a page it cannot free:
 * the owner's mm is busy, and the next would fail the same way.
 */
static unsigned long fbinder_shrink_alloc(struct fbinder_alloc *alloc, unsigned long nr,
					  unsigned long *scanned)
{
	unsigned long freed = 0;
	struct fbinder_page *p;

	lockdep_assert_held(&alloc->lock);
	while (nr--) {
		p = list_first_entry_or_null(&alloc->lru, struct fbinder_page, lru);
		if (!p)
			break;
		(*scanned)++;
		if (!p->in_use) {
			if (!fbinder_reclaim_page(alloc, p))
				break;
			this_cpu_dec(fbinder_cached_pages);
			freed++;
		}
		list_del_init(&p->lru);
		cond_resched();
	}
	return freed;
}

static unsigned long fbinder_shrink_scan(struct shrinker *s,
					 struct shrink_control *sc)
{
	unsigned long scanned = 0, freed = 0, visits;
	struct fbinder_alloc *alloc;

	spin_lock(&fbinder_allocs_lock);
	/* each context about once, in turn: the visited go to the back */
	for (visits = fbinder_nr_allocs; visits && scanned < sc->nr_to_scan; visits--) {
		/* contexts may end while the lock is dropped */
		if (list_empty(&fbinder_allocs))
			break;
		alloc = list_first_entry(&fbinder_allocs, struct fbinder_alloc,
					 shrink_entry);
		list_move_tail(&alloc->shrink_entry, &fbinder_allocs);
		/*
		 * A release that emptied the lru may be about to free alloc
		 * once it gets this lock: only a context whose lru still has
		 * a page is kept past it (see the top of the file).
		 */
		if (!list_empty(&alloc->lru) && mutex_trylock(&alloc->lock)) {
			if (!list_empty(&alloc->lru)) {
				spin_unlock(&fbinder_allocs_lock);
				freed += fbinder_shrink_alloc(alloc,
							      sc->nr_to_scan - scanned,
							      &scanned);
				spin_lock(&fbinder_allocs_lock);
			}
			mutex_unlock(&alloc->lock);
		}
	}
	spin_unlock(&fbinder_allocs_lock);
	return freed;
}

/* ---- module-wide -------------------------------------------------------- */

int fbinder_alloc_global_init(void)
{
	int ret;

	fbinder_shrinker = fbinder_shrinker_create("fastbinder-pages", fbinder_shrink_count,
						   fbinder_shrink_scan, NULL);
	if (!fbinder_shrinker)
		return -ENOMEM;
	ret = fbinder_slot_pool_init();
	if (ret) {
		fbinder_slot_pool_exit();	/* what it set up */
		fbinder_shrinker_destroy(fbinder_shrinker);
		fbinder_shrinker = NULL;
	}
	return ret;
}

void fbinder_alloc_global_exit(void)
{
	fbinder_slot_pool_exit();
	fbinder_shrinker_destroy(fbinder_shrinker);
	fbinder_shrinker = NULL;
	/* every context has been released */
	WARN_ON(!list_empty(&fbinder_allocs));
}
