// SPDX-License-Identifier: GPL-2.0
/*
 * fastbinder: file descriptors in messages.
 *
 * A send takes a reference on each file (xlate.c), of an FBINDER_OBJ_FD
 * object or of an FBINDER_OBJ_FDA array alike; the buffer keeps them
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
#include <linux/string.h>

#include "internal.h"

void fbinder_buffer_put_fds(struct fbinder_buffer_fd *fds, u32 nr)
{
	while (nr--)
		fput(fds[nr].file);
	kvfree(fds);
}

/*
 * Takes a reference on the file of the sender's descriptor fd: -EBADF for
 * none, -EINVAL for a fastbinder context (contexts inside each other's
 * buffers could keep each other alive).
 */
int fbinder_fd_take(int fd, struct file **file)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	if (fbinder_is_fastbinder_file(f)) {
		fput(f);
		return -EINVAL;
	}
	*file = f;
	return 0;
}

/*
 * Takes the files of an fd array of count descriptors at pos of the slot
 * (the sender's numbers, copied with the data: read once, from the copy)
 * into fds from *nr on, the caller having room for count more, and sets
 * each descriptor's place to -1 until the delivery writes the receiver's.
 * On an error the files taken so far are in fds[..*nr] for the caller to put.
 */
int fbinder_fds_take_array(struct fbinder_alloc *alloc, struct fbinder_buffer *buf,
			   u64 pos, u32 count, bool cloexec,
			   struct fbinder_buffer_fd *fds, u32 *nr)
{
	s32 chunk[32];
	u32 i, j, n;
	int ret;

	for (i = 0; i < count; i += n) {
		n = min_t(u32, count - i, ARRAY_SIZE(chunk));
		ret = fbinder_alloc_read(alloc, buf, pos, chunk, n * sizeof(s32));
		if (ret)
			return ret;
		for (j = 0; j < n; j++) {
			ret = fbinder_fd_take(chunk[j], &fds[*nr].file);
			if (ret)
				return ret;
			fds[*nr].offset = pos + j * sizeof(s32);
			fds[*nr].cloexec = cloexec;
			(*nr)++;
		}
		memset(chunk, 0xff, n * sizeof(s32));
		ret = fbinder_alloc_write(alloc, buf, pos, chunk, n * sizeof(s32));
		if (ret)
			return ret;
		pos += n * sizeof(s32);
	}
	return 0;
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
		ret = fbinder_alloc_write(alloc, buf, buf->fds[i].offset, &fd,
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
