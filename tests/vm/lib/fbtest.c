// SPDX-License-Identifier: MIT
/*
 * fbtest.c - helpers for the VM tests, see fbtest.h.
 */
#include "fbtest.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int fb_failures;
int fb_checks;

void fb_check_failed(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fb_failures++;
	fprintf(stdout, "not ok %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

void fb_die(const char *file, int line, const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fprintf(stdout, "fatal %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stdout, ": %s", strerror(err));
	fputc('\n', stdout);
	fflush(stdout);
	exit(1);
}

int fb_done(void)
{
	printf("%s: %d checks, %d failed\n", fb_failures ? "not ok" : "ok",
	       fb_checks, fb_failures);
	fflush(stdout);
	return fb_failures ? 1 : 0;
}

int fb_open(void)
{
	int fd = open(FB_DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("open %s", FB_DEV);
	return fd;
}

int fb_open_map(size_t map_size, void **map)
{
	int fd = fb_open();
	void *p;

	if (!map_size)
		map_size = FB_TEST_MAP_SIZE;
	p = mmap(NULL, map_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		die("mmap %zu bytes of %s", map_size, FB_DEV);
	if (map)
		*map = p;
	return fd;
}

int fb_write_read(int fd, void *wbuf, size_t wsize, size_t *wconsumed,
		  void *rbuf, size_t rsize, size_t *rconsumed)
{
	struct fb_write_read wr = {
		.write_buffer = (unsigned long)wbuf,
		.write_size = wsize,
		.read_buffer = (unsigned long)rbuf,
		.read_size = rsize,
	};
	int ret = ioctl(fd, FB_IOC_WRITE_READ, &wr) < 0 ? -errno : 0;

	if (wconsumed)
		*wconsumed = wr.write_consumed;
	if (rconsumed)
		*rconsumed = wr.read_consumed;
	return ret;
}

pid_t fb_fork(int (*fn)(void *arg), void *arg)
{
	pid_t pid;

	fflush(NULL);	/* or buffered output is printed twice */
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		_exit(fn(arg));
	return pid;
}

int fb_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}
