// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: file descriptors in messages.
 *
 * A send takes a reference on each file (txn.c); the buffer keeps them
 * until the receiver reads the message.  Delivery then happens in two
 * steps so it is all or nothing: reserve a descriptor for every file, and
 * install them only once the return reached user space.  A message whose
 * descriptors cannot be reserved (the table is full) is not delivered at
 * all (protocol.c, fbinder_undeliverable()).  A buffer freed before delivery
 * drops its files.
 */
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/stddef.h>

#include "internal.h"

void fbinder_buffer_put_fds(struct fbinder_buffer_fd *fds, u32 nr)
{
	while (nr--)
		fput(fds[nr].file);
	kvfree(fds);
}

void fbinder_fds_unreserve(int *fdnums, u32 nr)
{
	while (nr--)
		put_unused_fd(fdnums[nr]);
	kfree(fdnums);
}

/*
 * Reserves descriptors for the buffer's files in the calling process and
 * writes their numbers into the message.  *fdnums is NULL when the buffer
 * carries none.
 */
int fbinder_fds_reserve(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
			int **fdnums)
{
	u32 i;
	int fd, ret;

	*fdnums = NULL;
	if (!buf->nr_fds)
		return 0;
	*fdnums = kmalloc_array(buf->nr_fds, sizeof(int), GFP_KERNEL_ACCOUNT);
	if (!*fdnums)
		return -ENOMEM;
	for (i = 0; i < buf->nr_fds; i++) {
		fd = get_unused_fd_flags(buf->fds[i].cloexec ? O_CLOEXEC : 0);
		if (fd < 0) {
			ret = fd;
			goto err;
		}
		(*fdnums)[i] = fd;
		ret = fbinder_alloc_write(alloc, buf, buf->fds[i].offset +
					  offsetof(struct fbinder_object, fd), &fd,
					  sizeof(fd));
		if (ret) {
			i++;
			goto err;
		}
	}
	return 0;
err:
	fbinder_fds_unreserve(*fdnums, i);
	*fdnums = NULL;
	return ret;
}

/* The message reached user space: its files become its descriptors. */
void fbinder_fds_install(struct fbinder_buffer *buf, int *fdnums)
{
	u32 i;

	if (!fdnums)
		return;
	for (i = 0; i < buf->nr_fds; i++)
		fd_install(fdnums[i], buf->fds[i].file);
	kvfree(buf->fds);
	buf->fds = NULL;
	buf->nr_fds = 0;
	kfree(fdnums);
}
