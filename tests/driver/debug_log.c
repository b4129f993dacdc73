// SPDX-License-Identifier: MIT
/*
 * debug_log: the module parameter "debug" (writable in
 * /sys/module/fastbinder/parameters/debug) logs each failed send to the
 * kernel log; off, nothing is logged (the debugfs ring has it either way).
 */
#include "fbt_proto.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/klog.h>
#include <unistd.h>

#define PARAM "/sys/module/fastbinder/parameters/debug"

static void set_debug(const char *v)
{
	int fd = open(PARAM, O_WRONLY);

	if (fd < 0 || write(fd, v, 1) != 1)
		die("write %s", PARAM);
	close(fd);
}

/* Does the kernel log hold a line with both needles? */
static int klog_has(const char *a, const char *b)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *line, *save = NULL;
	int n, found = 0;

	if (size <= 0)
		die("klogctl size");
	buf = calloc(1, (size_t)size + 1);
	if (!buf)
		die("calloc");
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0)
		die("klogctl read");
	for (line = strtok_r(buf, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save))
		found = strstr(line, a) && strstr(line, b);
	free(buf);
	return found;
}

int main(void)
{
	struct fbt_ctx p;
	struct fbt_ret r;
	char pid[64];
	int ret;

	snprintf(pid, sizeof(pid), "send from pid %d ", (int)getpid());
	fbt_ctx_open(&p, 0);

	set_debug("1");
	/* handle 4242 does not exist: the send fails and is logged */
	ret = fbt_call(&p, 4242, 31337, NULL, 0, NULL, 0, &r, NULL, NULL);
	CHECK(ret == -ENOENT, "send to a bad handle: %s", strerror(-ret));
	CHECK(klog_has(pid, "code 31337) failed: -2"),
	      "debug=1: the failed send is in the kernel log");

	set_debug("0");
	ret = fbt_call(&p, 4242, 31338, NULL, 0, NULL, 0, &r, NULL, NULL);
	CHECK(ret == -ENOENT, "send to a bad handle: %s", strerror(-ret));
	CHECK(!klog_has(pid, "code 31338)"), "debug=0: nothing logged");

	fbt_ctx_close(&p);
	return fbt_done();
}
