// SPDX-License-Identifier: MIT
/*
 * wl_region.c - the region workload: a server process holds a buffer of
 * 1, 16 or 256 MiB and the client pulls it whole into its own memory, by
 *
 *   fastbinder-region  a read-only memory region the server sent it
 *                      (FBINDER_CMD_REGION_READ: one copy, through the
 *                      server's page tables),
 *   process_vm_readv   Cross Memory Attach, the floor of one copy between
 *                      address spaces (root: it needs ptrace rights),
 *   fastbinder         the message path: a reply of that size, which lands
 *                      in the client's mapping (at most its mapping: 1 MiB
 *                      here, the others do not fit),
 *   unix-stream        a socketpair the server writes the buffer into.
 *
 * Each pull is timed on its own (the median is kept, the mean of the same
 * pulls reported beside it); under -I a guest nanosecond is one
 * instruction, so the table reads instructions per byte.
 * The first pull of each is checked byte for byte.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/fastbinder.h>

#include "bench.h"
#include "fbt_wstream.h"

enum { RG_REGION, RG_CMA, RG_MSG, RG_STREAM, RG_N };
static const char *const rg_names[RG_N] = {
	"fastbinder-region", "process_vm_readv", "fastbinder", "unix-stream",
};
static const size_t rg_sizes[] = { 1u << 20, 16u << 20, 256u << 20 };
#define RG_NSIZES	3
#define RG_MSG_MAP	(4u << 20)	/* the message path's mapping */

struct rg_result {
	bool ran, ok;
	double median_ns, mean_ns;
	int iters;
	char note[80];
};

static struct rg_result rg[RG_N][RG_NSIZES];

static unsigned char rg_byte(size_t i)
{
	return (unsigned char)(i * 131 + (i >> 16));
}

static void rg_fill(unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = rg_byte(i);
}

static bool rg_check(const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != rg_byte(i))
			return false;
	return true;
}

static int rg_open(size_t map)
{
	int fd = open("/dev/fastbinder", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die_errno("open /dev/fastbinder");
	if (mmap(NULL, map, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
		die_errno("mmap");
	return fd;
}

/* One WRITE_READ of the stream w (wlen bytes), read into r; 0 or -errno. */
static int rg_wr(int fd, const void *w, size_t wlen, void *r, size_t rlen, size_t *rdone)
{
	struct fbinder_write_read wr = {
		.write_buffer = (uintptr_t)w, .write_size = wlen,
		.read_buffer = (uintptr_t)r, .read_size = rlen,
	};

	if (ioctl(fd, FBINDER_IOC_WRITE_READ, &wr) < 0)
		return -errno;
	if (rdone)
		*rdone = wr.read_consumed;
	return 0;
}

/* ---- servers ---- */

/* The fastbinder server: handle 0; replies with the region, or the bytes. */
static void __attribute__((noreturn)) rg_fb_server(int method, unsigned char *buf,
						   size_t size, int ready)
{
	struct fbinder_context_mgr mgr = { .cookie = 0x5eed };
	struct fbinder_region_create rc = {
		.addr = (uintptr_t)buf, .size = size, .rights = FBINDER_REGION_READ,
	};
	unsigned char r[256], w[128];
	int fd = rg_open(1u << 20);
	char c = 'r';

	if (ioctl(fd, FBINDER_IOC_SET_CONTEXT_MGR, &mgr) < 0)
		die_errno("region server: SET_CONTEXT_MGR");
	if (method == RG_REGION && ioctl(fd, FBINDER_IOC_REGION_CREATE, &rc) < 0)
		die_errno("region server: REGION_CREATE");
	if (write(ready, &c, 1) != 1)
		die("ready pipe");
	for (;;) {
		struct fbinder_object obj = { .type = FBINDER_OBJ_REGION, .handle = rc.handle };
		struct fbinder_txn_data tr = { 0 };
		struct fbinder_txn_msg m;
		uint64_t off = 0;
		size_t got = 0, wlen = 0;
		uint32_t cmd;

		if (rg_wr(fd, NULL, 0, r, sizeof(r), &got) || got < 4)
			continue;
		memcpy(&cmd, r, 4);
		if (cmd != FBINDER_RET_TRANSACTION)
			continue;
		memcpy(&m, r + 4, sizeof(m));
		if (method == RG_REGION) {
			tr.data = (uintptr_t)&obj;
			tr.data_size = sizeof(obj);
			tr.offsets = (uintptr_t)&off;
			tr.offsets_count = 1;
		} else {
			tr.data = (uintptr_t)buf;
			tr.data_size = size;
		}
		wlen = fbt_put_cmd(w, wlen, FBINDER_CMD_REPLY, &tr, sizeof(tr));
		wlen = fbt_put_cmd(w, wlen, FBINDER_CMD_FREE_BUFFER, &m.data, sizeof(m.data));
		rg_wr(fd, w, wlen, NULL, 0, NULL);
	}
}

static void __attribute__((noreturn)) rg_stream_server(unsigned char *buf, size_t size,
						       int sock, int ready)
{
	char c = 'r';

	if (write(ready, &c, 1) != 1)
		die("ready pipe");
	while (read(sock, &c, 1) == 1) {
		size_t done = 0;

		while (done < size) {
			ssize_t n = write(sock, buf + done, size - done);

			if (n <= 0)
				_exit(1);
			done += (size_t)n;
		}
	}
	_exit(0);
}

/* ---- the client's pulls ---- */

struct rg_client {
	int method;
	size_t size;
	int fd;			/* fastbinder */
	uint32_t region;	/* its handle of the region */
	unsigned char *map;	/* fastbinder: the mapping */
	pid_t pid;		/* process_vm_readv: the server, and its buffer */
	uintptr_t addr;
	int sock;
};

/* A call to handle 0; the reply's message in *m (its buffer not freed). */
static int rg_call(int fd, struct fbinder_txn_msg *m)
{
	struct fbinder_txn_data tr = { .handle = 0, .code = 1 };
	unsigned char w[64], r[256];
	size_t wlen = fbt_put_cmd(w, 0, FBINDER_CMD_SEND, &tr, sizeof(tr)), got;
	uint32_t cmd;
	int ret;

	ret = rg_wr(fd, w, wlen, r, sizeof(r), &got);
	while (!ret) {
		memcpy(&cmd, r, 4);
		if (cmd == FBINDER_RET_REPLY) {
			memcpy(m, r + 4, sizeof(*m));
			return 0;
		}
		if (cmd == FBINDER_RET_FAILED)
			return -EPIPE;
		ret = rg_wr(fd, NULL, 0, r, sizeof(r), &got);
	}
	return ret;
}

static int rg_free(int fd, uint64_t data)
{
	unsigned char w[16];

	return rg_wr(fd, w, fbt_put_cmd(w, 0, FBINDER_CMD_FREE_BUFFER, &data, sizeof(data)),
		     NULL, 0, NULL);
}

/* One pull of the whole buffer into dst. */
static int rg_pull(struct rg_client *c, unsigned char *dst)
{
	struct fbinder_txn_msg m;
	int ret = 0;

	switch (c->method) {
	case RG_REGION: {
		struct fbinder_iovec v = { .base = (uintptr_t)dst, .len = c->size };
		struct fbinder_region_copy rc = {
			.handle = c->region, .iov_count = 1, .iov = (uintptr_t)&v,
		};
		unsigned char w[4 + sizeof(rc)];

		do {	/* EINTR every 16 MiB: the same command goes on */
			fbt_put_cmd(w, 0, FBINDER_CMD_REGION_READ, &rc, sizeof(rc));
			ret = rg_wr(c->fd, w, sizeof(w), NULL, 0, NULL);
			memcpy(&rc, w + 4, sizeof(rc));
		} while (ret == -EINTR);
		return ret;
	}
	case RG_CMA: {
		struct iovec l = { dst, c->size }, r = { (void *)c->addr, c->size };

		return process_vm_readv(c->pid, &l, 1, &r, 1, 0) == (ssize_t)c->size ? 0 : -errno;
	}
	case RG_MSG:
		ret = rg_call(c->fd, &m);
		if (ret)
			return ret;
		/* the bytes are in our mapping: into dst, as the others deliver */
		if (m.data_size == c->size)
			memcpy(dst, c->map + m.data, c->size);
		else
			ret = -EMSGSIZE;
		rg_free(c->fd, m.data);
		return ret;
	default: {
		size_t done = 0;
		char go = 'g';

		if (write(c->sock, &go, 1) != 1)
			return -EPIPE;
		while (done < c->size) {
			ssize_t n = read(c->sock, dst + done, c->size - done);

			if (n <= 0)
				return -EPIPE;
			done += (size_t)n;
		}
		return 0;
	}
	}
}

static int rg_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sets up the client's side of method against the server pid. */
static int rg_connect(struct rg_client *c)
{
	struct fbinder_txn_msg m;
	const struct fbinder_object *obj;
	unsigned char w[16];
	int ret;

	if (c->method != RG_REGION && c->method != RG_MSG)
		return 0;
	c->fd = open("/dev/fastbinder", O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		return -errno;
	c->map = mmap(NULL, RG_MSG_MAP, PROT_READ, MAP_PRIVATE, c->fd, 0);
	if (c->map == MAP_FAILED)
		return -errno;
	if (c->method == RG_MSG)
		return 0;
	ret = rg_call(c->fd, &m);
	if (ret)
		return ret;
	obj = (const void *)(c->map + m.data);
	if (m.offsets_count != 1 || obj->type != FBINDER_OBJ_REGION)
		return -EPROTO;
	c->region = obj->handle;
	ret = rg_wr(c->fd, w, fbt_put_cmd(w, 0, FBINDER_CMD_ACQUIRE, &c->region,
					  sizeof(c->region)), NULL, 0, NULL);
	rg_free(c->fd, m.data);
	return ret;
}

static void rg_measure(int method, int si, bool quick)
{
	struct rg_result *res = &rg[method][si];
	size_t size = rg_sizes[si];
	struct rg_client c = { .method = method, .size = size, .fd = -1, .sock = -1 };
	int iters = size >= (256u << 20) ? (quick ? 1 : 2) : size >= (16u << 20) ? (quick ? 2 : 4) :
		    (quick ? 5 : 15);
	int ready[2], sv[2] = { -1, -1 }, addr_pipe[2], i, st, ret = 0;
	double samples[16];
	unsigned char *buf, *dst;
	char c1;
	pid_t pid;

	res->ran = true;
	if (method == RG_MSG && size > RG_MSG_MAP / 2) {
		snprintf(res->note, sizeof(res->note), "does not fit a mapping");
		return;
	}
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		die_errno("mmap %zu", size);
	rg_fill(buf, size);	/* before the fork: both have the pattern to compare */
	if (pipe(ready) || pipe(addr_pipe) ||
	    (method == RG_STREAM && socketpair(AF_UNIX, SOCK_STREAM, 0, sv)))
		die_errno("pipe");
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die_errno("fork");
	if (!pid) {
		if (method == RG_STREAM)
			rg_stream_server(buf, size, sv[1], ready[1]);
		if (method == RG_CMA) {
			if (write(ready[1], "r", 1) != 1)
				_exit(1);
			for (;;)
				pause();
		}
		rg_fb_server(method, buf, size, ready[1]);
	}
	/* the client needs the buffer only to compare: give it back */
	munmap(buf, size);
	if (read(ready[0], &c1, 1) != 1) {
		snprintf(res->note, sizeof(res->note), "server died");
		goto out;
	}
	c.pid = pid;
	c.addr = (uintptr_t)buf;	/* same address in the forked server */
	c.sock = sv[0];
	ret = rg_connect(&c);
	dst = ret ? MAP_FAILED : mmap(NULL, size, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (dst == MAP_FAILED) {
		snprintf(res->note, sizeof(res->note), "set-up: %s", strerror(ret ? -ret : errno));
		goto out;
	}
	for (i = 0; i < iters && !ret; i++) {
		uint64_t t0 = now_ns();

		ret = rg_pull(&c, dst);
		samples[i] = (double)(now_ns() - t0);
		if (!ret && !i && !rg_check(dst, size))
			ret = -EBADMSG;
	}
	if (ret) {
		snprintf(res->note, sizeof(res->note), "pull: %s", strerror(-ret));
	} else {
		res->mean_ns = 0;
		for (i = 0; i < iters; i++)
			res->mean_ns += samples[i] / iters;
		qsort(samples, (size_t)iters, sizeof(samples[0]), rg_cmp);
		res->median_ns = samples[iters / 2];
		res->iters = iters;
		res->ok = true;
	}
	munmap(dst, size);
out:
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	if (c.fd >= 0)
		close(c.fd);	/* its mapping goes with the process's next munmap */
	if (c.map && c.map != MAP_FAILED)
		munmap(c.map, RG_MSG_MAP);
	close(ready[0]);
	close(ready[1]);
	close(addr_pipe[0]);
	close(addr_pipe[1]);
	if (sv[0] >= 0) {
		close(sv[0]);
		close(sv[1]);
	}
}

/* Figures per byte: instructions (icount) or ns. */
static double rg_per_byte(int m, int s)
{
	return rg[m][s].ok ? rg[m][s].median_ns / (double)rg_sizes[s] : 0;
}

int bench_region(bool icount, bool quick, const char *mode)
{
	int m, s, failed = 0;
	double r, c, u;

	if (access("/dev/fastbinder", R_OK | W_OK)) {
		printf("bench: /dev/fastbinder missing, region workload skipped\n");
		return 1;
	}
	for (s = 0; s < RG_NSIZES; s++)
		for (m = 0; m < RG_N; m++) {
			rg_measure(m, s, quick);
			if (rg[m][s].ok)
				printf("bench: region %-18s %4zu MiB: %.3f %s/byte, %.0f MB/s\n",
				       rg_names[m], rg_sizes[s] >> 20, rg_per_byte(m, s),
				       icount ? "instructions" : "ns",
				       icount ? 0 : rg_sizes[s] / rg[m][s].median_ns * 1e3);
			else
				printf("bench: region %-18s %4zu MiB: %s\n", rg_names[m],
				       rg_sizes[s] >> 20, rg[m][s].note);
			/* the message path not fitting is the point, not a failure */
			failed += !rg[m][s].ok && !(m == RG_MSG && s > 0);
			printf("BENCH-JSON {\"mode\": \"%s\", \"transport\": \"%s\", \"workload\": \"region\", "
			       "\"size\": %zu, \"clients\": 1, \"median_us\": %.2f, \"mean_us\": %.2f, "
			       "\"per_byte\": %.4f, \"mb_per_s\": %.1f, \"iterations\": %d, "
			       "\"ok\": %s%s%s%s}\n",
			       mode, rg_names[m], rg_sizes[s], rg[m][s].median_ns / 1e3,
			       rg[m][s].mean_ns / 1e3, rg_per_byte(m, s),
			       rg[m][s].ok ? rg_sizes[s] / rg[m][s].median_ns * 1e3 : 0.0,
			       rg[m][s].iters, rg[m][s].ok ? "true" : "false",
			       rg[m][s].ok ? "" : ", \"error\": \"", rg[m][s].ok ? "" : rg[m][s].note,
			       rg[m][s].ok ? "" : "\"");
		}

	printf("BENCH-TABLE-BEGIN\n");
	printf("\n### Region: the receiver pulls a buffer, %s per byte (median)\n\n",
	       icount ? "instructions" : "ns");
	printf("| size |");
	for (m = 0; m < RG_N; m++)
		printf(" %s |", rg_names[m]);
	printf(" region / process_vm_readv | region / unix-stream |\n|---|");
	for (m = 0; m < RG_N + 2; m++)
		printf("---|");
	printf("\n");
	for (s = 0; s < RG_NSIZES; s++) {
		printf("| %zu MiB |", rg_sizes[s] >> 20);
		for (m = 0; m < RG_N; m++)
			if (rg[m][s].ok)
				printf(" %.3f |", rg_per_byte(m, s));
			else
				printf(" %s |", rg[m][s].note);
		r = rg_per_byte(RG_REGION, s);
		c = rg_per_byte(RG_CMA, s);
		u = rg_per_byte(RG_STREAM, s);
		if (r > 0 && c > 0)
			printf(" %.3fx |", r / c);
		else
			printf(" - |");
		if (r > 0 && u > 0)
			printf(" %.3fx |\n", r / u);
		else
			printf(" - |\n");
	}
	r = rg_per_byte(RG_REGION, 1);
	c = rg_per_byte(RG_CMA, 1);
	u = rg_per_byte(RG_STREAM, 1);
	printf("\n| target | needed | measured | |\n|---|---|---|---|\n");
	printf("| region read 16 MiB | at most 1.05x process_vm_readv's %s per byte | %.3fx | %s |\n",
	       icount ? "instructions" : "time", c > 0 ? r / c : 0,
	       r > 0 && c > 0 ? (r <= 1.05 * c ? "**met**" : "missed") : "not measured");
	printf("| region read 16 MiB | at most half the stream socketpair's | %.3fx | %s |\n",
	       u > 0 ? r / u : 0,
	       r > 0 && u > 0 ? (r <= 0.5 * u ? "**met**" : "missed") : "not measured");
	printf("| region read 256 MiB | works (the message path cannot) | %s | %s |\n\n",
	       rg[RG_REGION][2].ok ? "ok" : rg[RG_REGION][2].note,
	       rg[RG_REGION][2].ok ? "**met**" : "missed");
	printf("BENCH-TABLE-END\n");
	return failed;
}
