// SPDX-License-Identifier: MIT
/*
 * spare_transactions: the transactions of a burst of oneway messages are
 * kept for the next burst once delivered (debugfs state's
 * "spare-transactions" counts at least the burst), and memory pressure
 * takes them back (drop_caches runs the module's shrinker: the count falls
 * to near zero).  The burst: N oneway messages queued to one node while its
 * owner does not read, then read in order, intact, and freed.  Sender and
 * receiver run as uid 65534; root reads debugfs and drops the caches.
 */
#include "fbt_proto.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MGR_COOKIE	0x5a4e0ULL
#define N_MSGS		1000		/* well above the old cap of 128 */
#define C_SEQ		9
#define LEFT_MAX	64		/* spares left after the shrinker */

static int go_pipe[2];			/* root -> receiver: the burst is queued */

static int recv_main(struct fbt_ctx *p, void *arg)
{
	__u32 expect = 0, seq;
	char go;

	(void)arg;
	alarm(60);
	close(go_pipe[1]);
	if (read(go_pipe[0], &go, 1) != 1)
		die("R: no go");
	while (expect < N_MSGS) {
		struct fbt_w frees;
		struct fbt_ret r;
		int ret;

		ret = fbt_wr(p, NULL, NULL, true);
		if (ret) {
			errno = -ret;
			die("R: read");
		}
		fbt_w_reset(&frees);
		while (p->qlen) {
			fbt_next(p, &r);
			if (r.cmd != FBINDER_RET_TRANSACTION) {
				CHECK(0, "R got %s", fbt_ret_name(r.cmd));
				return 1;
			}
			memcpy(&seq, fbt_data(p, &r.msg), sizeof(seq));
			CHECK(r.msg.code == C_SEQ && r.msg.data_size == sizeof(seq) &&
			      seq == expect, "R: code %u size %llu seq %u, want seq %u",
			      r.msg.code, (unsigned long long)r.msg.data_size, seq, expect);
			if (seq != expect)
				return 1;
			expect++;
			fbt_w_free(&frees, r.msg.data);
		}
		ret = fbt_wr(p, &frees, NULL, false);
		CHECK(ret == 0, "R: free: %s", strerror(-ret));
	}
	return fbt_child_status();
}

static int send_main(void *arg)
{
	struct fbt_ctx c;
	__u32 i;
	int ret, failed = 0;

	(void)arg;
	fbt_become_nobody();
	fbt_ctx_open(&c, MB);
	for (i = 0; i < N_MSGS; i++) {
		ret = fbt_oneway(&c, 0, C_SEQ, &i, sizeof(i), NULL, 0);
		if (ret && !failed++)
			CHECK(0, "oneway %u: %s", i, strerror(-ret));
	}
	fbt_ctx_close(&c);
	return failed ? 1 : fbt_child_status();
}

/* "spare-transactions" of device fastbinder in debugfs state, or -1. */
static long long spares(void)
{
	const char *key = "spare-transactions ";
	char *s = fbt_slurp(FBT_DEBUGFS "/state"), *p;
	long long v = -1;

	p = s ? strstr(s, "device fastbinder ") : NULL;
	p = p ? strstr(p, key) : NULL;
	if (p)
		v = strtoll(p + strlen(key), NULL, 10);
	free(s);
	return v;
}

int main(void)
{
	long long before, after;
	pid_t rpid, spid;
	int fd;

	alarm(90);
	if (pipe(go_pipe))
		die("pipe");
	rpid = fbt_spawn_manager_ex(MB, MGR_COOKIE, FBT_MGR_NOBODY, recv_main, NULL);
	close(go_pipe[0]);

	spid = fbt_fork(send_main, NULL);
	CHECK(fbt_wait(spid) == 0, "the sender's %d oneways did not all go", N_MSGS);
	if (write(go_pipe[1], "g", 1) != 1)
		die("go");
	close(go_pipe[1]);
	CHECK(fbt_wait(rpid) == 0, "the receiver did not get all %d in order", N_MSGS);

	/* delivered and freed: every one of them is a spare now */
	before = spares();
	printf("# spare transactions after the burst: %lld\n", before);
	CHECK(before >= N_MSGS, "%lld spare transactions after a burst of %d, want at least %d",
	      before, N_MSGS, N_MSGS);

	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	CHECK(fd >= 0 && write(fd, "2", 1) == 1, "drop_caches: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	after = spares();
	printf("# spare transactions after drop_caches: %lld\n", after);
	CHECK(after >= 0 && after <= LEFT_MAX,
	      "%lld spare transactions after the shrinker, want at most %d", after, LEFT_MAX);
	return fbt_done();
}
