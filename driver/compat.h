/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel version differences, in one place.
 *
 * fastbinder builds from one tree against Debian 12's 6.1, 6.1-rt and 6.12
 * kernels.  Where an interface changed between them, a small fbinder_ helper
 * here hides the difference behind FBINDER_KERNEL_AT_LEAST() (LINUX_VERSION_CODE),
 * so the rest of the driver never needs an #if.  Each helper says which release changed what.
 * Only symbols that both kernels export may be used.
 */
#ifndef _FBINDER_COMPAT_H
#define _FBINDER_COMPAT_H

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/security.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/version.h>

/*
 * True when building against release a.b.c or later.  checkpatch flags
 * LINUX_VERSION_CODE (and reads it as a constant on the left of a
 * comparison): right for code merged into one kernel, but this module
 * builds out of tree against several, and this is the one place that
 * asks.  scripts/lint.sh accepts those two findings in this file only.
 */
#define FBINDER_KERNEL_AT_LEAST(a, b, c) \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(a, b, c))

/*
 * 6.3 made vma->vm_flags read-only behind vm_flags_{set,clear,mod}(),
 * which also assert the mmap lock is held for writing.
 */
static inline void fbinder_vm_flags_mod(struct vm_area_struct *vma,
					vm_flags_t set, vm_flags_t clear)
{
#if FBINDER_KERNEL_AT_LEAST(6, 3, 0)
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/*
 * Unmap user pages of a range of one vma.  6.1 exports zap_page_range();
 * 6.3 removed it and exported zap_page_range_single() instead.  The caller
 * holds the mmap lock (read is enough).
 */
static inline void fbinder_zap_range(struct vm_area_struct *vma,
				     unsigned long addr, unsigned long size)
{
#if FBINDER_KERNEL_AT_LEAST(6, 3, 0)
	zap_page_range_single(vma, addr, size, NULL);
#else
	zap_page_range(vma, addr, size);
#endif
}

/*
 * Shrinkers: up to 6.6 the caller owns the struct and calls
 * register_shrinker(); from 6.7 the core allocates it (shrinker_alloc(),
 * shrinker_register(), shrinker_free()) and it carries private_data.  Both
 * sides here allocate, so the caller only keeps a pointer, and both keep
 * private for the callbacks (fbinder_shrinker_private()).  Returns NULL on
 * failure.
 */
#if !FBINDER_KERNEL_AT_LEAST(6, 7, 0)
struct fbinder_shrinker {
	struct shrinker s;		/* first: freed as the whole */
	void *private;
};
#endif

static inline struct shrinker *
fbinder_shrinker_create(const char *name,
			unsigned long (*count)(struct shrinker *,
					       struct shrink_control *),
			unsigned long (*scan)(struct shrinker *,
					      struct shrink_control *),
			void *private)
{
	struct shrinker *s;

#if FBINDER_KERNEL_AT_LEAST(6, 7, 0)
	s = shrinker_alloc(0, "%s", name);
	if (!s)
		return NULL;
	s->private_data = private;
#else
	struct fbinder_shrinker *fs = kzalloc(sizeof(*fs), GFP_KERNEL);

	if (!fs)
		return NULL;
	fs->private = private;
	s = &fs->s;
#endif
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = DEFAULT_SEEKS;
#if FBINDER_KERNEL_AT_LEAST(6, 7, 0)
	shrinker_register(s);
#else
	if (register_shrinker(s, "%s", name)) {
		kfree(fs);
		return NULL;
	}
#endif
	return s;
}

static inline void *fbinder_shrinker_private(struct shrinker *s)
{
#if FBINDER_KERNEL_AT_LEAST(6, 7, 0)
	return s->private_data;
#else
	return container_of(s, struct fbinder_shrinker, s)->private;
#endif
}

static inline void fbinder_shrinker_destroy(struct shrinker *s)
{
	if (!s)
		return;
#if FBINDER_KERNEL_AT_LEAST(6, 7, 0)
	shrinker_free(s);
#else
	unregister_shrinker(s);
	kfree(container_of(s, struct fbinder_shrinker, s));
#endif
}

/*
 * Pin pages of another address space (a region's owner's): 6.5 dropped
 * the vmas argument of pin_user_pages_remote().  The caller holds the
 * mmap lock for reading; *locked says whether it still does.
 */
static inline long fbinder_pin_user_pages_remote(struct mm_struct *mm,
						 unsigned long start,
						 unsigned long nr_pages,
						 unsigned int gup_flags,
						 struct page **pages, int *locked)
{
#if FBINDER_KERNEL_AT_LEAST(6, 5, 0)
	return pin_user_pages_remote(mm, start, nr_pages, gup_flags, pages,
				     locked);
#else
	return pin_user_pages_remote(mm, start, nr_pages, gup_flags, pages,
				     NULL, locked);
#endif
}

#if !FBINDER_KERNEL_AT_LEAST(6, 2, 0)
/*
 * For fbinder_pin_remote_interruptible() on 6.1: faults in the page at
 * addr of mm (mmap lock held for reading) so that any signal ends a wait
 * in the fault (FAULT_FLAG_INTERRUPTIBLE, what 6.2's FOLL_INTERRUPTIBLE
 * asks for), as the pin's own fault would, vma checks included.  0 with
 * *locked cleared when the fault let go of the lock.
 */
static inline int fbinder_fault_in_remote(struct mm_struct *mm,
					  unsigned long addr, bool write,
					  int *locked)
{
	unsigned int flags = FAULT_FLAG_ALLOW_RETRY | FAULT_FLAG_KILLABLE |
			     FAULT_FLAG_INTERRUPTIBLE | FAULT_FLAG_REMOTE;
	vm_flags_t need = write ? VM_WRITE : VM_READ;
	struct vm_area_struct *vma;
	vm_fault_t ret;

	if (write)
		flags |= FAULT_FLAG_WRITE;
	vma = vma_lookup(mm, addr);
	if (!vma || !(vma->vm_flags & need) ||
	    vma->vm_flags & (VM_IO | VM_PFNMAP))
		return -EFAULT;
	ret = handle_mm_fault(vma, addr, flags, NULL);
	if (ret & (VM_FAULT_RETRY | VM_FAULT_COMPLETED)) {
		*locked = 0;
		return 0;
	}
	if (ret & VM_FAULT_OOM)
		return -ENOMEM;
	return ret & VM_FAULT_ERROR ? -EFAULT : 0;
}
#endif

/*
 * fbinder_pin_user_pages_remote() (write access with FOLL_WRITE), where
 * any signal, not only a fatal one, ends a wait in a fault of the owner's
 * (userfaultfd, a FUSE file): -EINTR then, or the pages pinned before.
 * 6.2 added FOLL_INTERRUPTIBLE for it; on 6.1 the pin never waits
 * (FOLL_NOWAIT: 0 pages when it would) and the missing page is faulted in
 * here, interruptibly, before the pin is tried again.
 */
static inline long fbinder_pin_remote_interruptible(struct mm_struct *mm,
						    unsigned long start,
						    unsigned long nr_pages,
						    unsigned int gup_flags,
						    struct page **pages,
						    int *locked)
{
#if FBINDER_KERNEL_AT_LEAST(6, 2, 0)
	return fbinder_pin_user_pages_remote(mm, start, nr_pages,
					     gup_flags | FOLL_INTERRUPTIBLE,
					     pages, locked);
#else
	long got;
	int err;

	for (;;) {
		if (signal_pending(current))
			return -EINTR;
		if (!*locked) {
			if (mmap_read_lock_killable(mm))
				return -EINTR;
			*locked = 1;
		}
		got = fbinder_pin_user_pages_remote(mm, start, nr_pages,
						    gup_flags | FOLL_NOWAIT,
						    pages, locked);
		if (got || !*locked)
			return got;
		err = fbinder_fault_in_remote(mm, start, gup_flags & FOLL_WRITE,
					      locked);
		if (err)
			return err;
		cond_resched();
	}
#endif
}

/*
 * The wait queue woken when a process exits: the one pidfd's poll sleeps
 * on, in struct pid (no function hands it out; pidfd_poll() reads it the
 * same way).  Both kernels wake a thread group's pid from
 * do_notify_parent() once the whole group is dead; 6.9 and later also wake
 * it when its leader thread exits before the others (PIDFD_THREAD), so a
 * waiter checks what it finds.
 */
static inline wait_queue_head_t *fbinder_pid_exit_wq(struct pid *pid)
{
	return &pid->wait_pidfd;
}

/*
 * A new inode's times: 6.7 made them private behind accessors and added
 * simple_inode_init_ts() to set all three to now.
 */
static inline void fbinder_inode_init_ts(struct inode *inode)
{
#if FBINDER_KERNEL_AT_LEAST(6, 7, 0)
	simple_inode_init_ts(inode);
#else
	struct timespec64 now = current_time(inode);

	inode->i_atime = now;
	inode->i_mtime = now;
	inode->i_ctime = now;
#endif
}

/*
 * The security label of the calling task's subjective credentials, as the
 * LSM that provides labels writes it, allocated by it (*len bytes, a NUL
 * among them or not): give it back with fbinder_secctx_release().
 * -EOPNOTSUPP when no LSM provides labels.  6.1 and 6.12 export the same
 * two calls with the same signatures: security_current_getsecid_subj(),
 * then security_secid_to_secctx().  Not security_cred_getsecid(): AppArmor
 * (Debian's default) implements only the current_getsecid_subj hook, so
 * the cred one gives it secid 0.  Later kernels pass a struct lsm_prop
 * and a struct lsm_context instead of the secid and the string: their
 * helper goes here when the driver builds for them.
 */
static inline int fbinder_secctx_get(char **label, u32 *len)
{
	u32 secid;

	security_current_getsecid_subj(&secid);
	return security_secid_to_secctx(secid, label, len);
}

static inline void fbinder_secctx_release(char *label, u32 len)
{
	security_release_secctx(label, len);
}

#endif /* _FBINDER_COMPAT_H */
