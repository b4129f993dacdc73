// SPDX-License-Identifier: MIT
/*
 * tracing_recipes: the recipes of docs/tracing.md, run as written there
 * (the shell blocks after each "<!-- recipe: NAME -->", read from the
 * page the suite puts in the VM), on a workload of known shape: the client
 * C calls the manager M (code 12), whose handler calls back into an
 * object of C (code 13); C makes 5 more calls; the flooder F sends 40
 * oneway messages.  Recipe 1 given code 12's txn prints exactly that
 * chain: both calls' send, delivery, reply and the reply's delivery, and
 * nothing of the other calls or the flood.  Recipe 2's histogram has the
 * manager's node with every call's latency counted.  Recipe 3's first
 * entry is F with its 40 messages, and F's failed send is counted.
 */
#include "fbt_proto.h"

#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define PAGE		"/fb/files/tracing.md"	/* docs/tracing.md (tests/tests.mk) */
#define MB		(1024 * 1024)
#define S_MAP		(256 * 1024)
#define CODE_PLAIN	10
#define CODE_OUTER	12
#define CODE_INNER	13
#define CODE_FLOOD	14
#define CODE_QUIT	15
#define C_COOKIE	0xc0c0
#define FLOOD		40
#define OUT		"/tmp/recipe.out"

/* The block of recipe name, in a file to run; dies if the page has none. */
static void recipe(const char *name, const char *path)
{
	char *page = fbt_slurp(PAGE), marker[64], *p, *end;
	FILE *f;

	if (!page)
		die("read " PAGE);
	snprintf(marker, sizeof(marker), "<!-- recipe: %s -->\n```sh\n", name);
	p = strstr(page, marker);
	if (!p)
		die("no recipe %s in " PAGE, name);
	p += strlen(marker);
	end = strstr(p, "\n```");
	if (!end)
		die("recipe %s not closed", name);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%.*s\n", (int)(end - p), p) < 0 || fclose(f))
		die("write %s", path);
	free(page);
}

/* Runs recipe name with env (NAME=value or ""), output in OUT; its status. */
static int run(const char *name, const char *env)
{
	char cmd[256];

	recipe(name, "/tmp/recipe.sh");
	snprintf(cmd, sizeof(cmd), "%s sh -e /tmp/recipe.sh >" OUT " 2>&1", env);
	return fbt_run(cmd, NULL, 0);
}

/* M: replies with the call's txn id; code 12 calls back into its object. */
static int m_main(struct fbt_ctx *p, void *arg)
{
	struct fbt_ret r, inner;

	(void)arg;
	alarm(60);
	while (fbt_next(p, &r) == 0) {
		if (r.cmd != FBINDER_RET_TRANSACTION)
			continue;
		if (r.msg.flags & FBINDER_TXN_ONEWAY) {
			fbt_free_buffer(p, r.msg.data);
			continue;
		}
		if (r.msg.code == CODE_OUTER) {
			const struct fbinder_object *o = fbt_obj(p, &r.msg, 0);

			if (!fbt_call(p, o->handle, CODE_INNER, NULL, 0, NULL, 0, &inner,
				      NULL, NULL) && inner.cmd == FBINDER_RET_REPLY)
				fbt_free_buffer(p, inner.msg.data);
		}
		fbt_reply(p, &r.msg, 0, &r.msg.txn_id, sizeof(r.msg.txn_id), NULL, 0);
		if (r.msg.code == CODE_QUIT)
			break;
	}
	return 0;
}

static int c_nested(struct fbt_ctx *p, const struct fbt_ret *r, void *arg)
{
	(void)arg;
	return fbt_reply(p, &r->msg, 0, NULL, 0, NULL, 0);
}

/* A call to handle 0; returns its txn id as the manager saw it. */
static __u64 call(struct fbt_ctx *c, __u32 code, const void *data, size_t size,
		  const __u64 *offs, size_t n)
{
	struct fbt_ret r;
	__u64 id = 0;
	int ret = fbt_call(c, 0, code, data, size, offs, n, &r, c_nested, NULL);

	CHECK(ret == 0 && r.cmd == FBINDER_RET_REPLY, "call %u: %d", code, ret);
	if (!ret && r.cmd == FBINDER_RET_REPLY) {
		memcpy(&id, fbt_data(c, &r.msg), sizeof(id));
		fbt_free_buffer(c, r.msg.data);
	}
	return id;
}

static int flooder(void *arg)
{
	struct fbt_ctx f;
	int i, ok = 0;

	(void)arg;
	fbt_ctx_open(&f, MB);
	for (i = 0; i < FLOOD; i++)
		ok += fbt_oneway(&f, 0, CODE_FLOOD, "flood", 5, NULL, 0) == 0;
	ok += fbt_oneway(&f, 999, CODE_FLOOD, NULL, 0, NULL, 0) == -ENOENT;
	fbt_ctx_close(&f);
	return ok == FLOOD + 1 ? 0 : 1;
}

/* How many lines of out hold all of the words. */
static int count_lines(const char *out, const char *w1, const char *w2)
{
	char *copy = strdup(out), *line, *save = NULL;
	int n = 0;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		n += strstr(line, w1) && (!w2 || strstr(line, w2));
	free(copy);
	return n;
}

#define HIST_FILE	"/sys/kernel/tracing/events/fastbinder/fastbinder_send/hist"

int main(void)
{
	struct fbinder_object obj = { .type = FBINDER_OBJ_LOCAL, .cookie = C_COOKIE };
	char env[64], w1[64], w2[64];
	__u64 off = 0, outer, inner = 0;
	unsigned long long hits = 0, h;
	char *out, *line, *save = NULL;
	pid_t m, fl;
	struct fbt_ctx c;
	int i, rc, hist;

	alarm(90);
	CHECK(run("start", "") == 0, "recipe start failed");
	/*
	 * Recipes 2 and 3 are histograms (CONFIG_HIST_TRIGGERS): Debian's
	 * kernels have them, make check-debug's kernel does not.  There they
	 * are reported skipped, and the test ends skipped if nothing failed.
	 */
	hist = access(HIST_FILE, F_OK) == 0;
	if (hist) {
		CHECK(run("latency", "") == 0, "recipe latency failed: %s", fbt_slurp(OUT));
		CHECK(run("flood", "") == 0, "recipe flood failed: %s", fbt_slurp(OUT));
	} else {
		fbt_skip("no %s: this kernel has no hist triggers, recipes 2 and 3 cannot run",
			 HIST_FILE);
	}

	m = fbt_spawn_manager(S_MAP, 0x4ec, m_main, NULL);
	fbt_ctx_open(&c, MB);
	outer = call(&c, CODE_OUTER, &obj, sizeof(obj), &off, 1);
	for (i = 0; i < 5; i++)
		call(&c, CODE_PLAIN, NULL, 0, NULL, 0);
	fl = fbt_fork(flooder, NULL);
	fbt_wait_ok(fl);

	/* 1: the chain of code 12 */
	snprintf(env, sizeof(env), "TXN=%llu", (unsigned long long)outer);
	rc = run("chain", env);
	out = fbt_slurp(OUT);
	printf("# recipe chain, %s:\n%s", env, out ? out : "");
	CHECK(rc == 0 && out, "recipe chain: exit %d", rc);
	if (out) {
		snprintf(w1, sizeof(w1), "txn=%llu ", (unsigned long long)outer);
		CHECK(count_lines(out, "fastbinder_send:", w1) == 1 &&
		      count_lines(out, "fastbinder_received:", w1) == 2 &&
		      count_lines(out, "fastbinder_reply:", w1) == 1,
		      "the chain lacks code 12's send, delivery, reply or reply's delivery");
		for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			if (strstr(line, "fastbinder_send:") && strstr(line, " code=13 "))
				sscanf(strstr(line, "txn="), "txn=%llu", (unsigned long long *)&inner);
		free(out);
		out = fbt_slurp(OUT);
		snprintf(w2, sizeof(w2), "txn=%llu ", (unsigned long long)inner);
		CHECK(inner && count_lines(out, "fastbinder_send:", w2) == 1 &&
		      count_lines(out, "fastbinder_received:", w2) == 2 &&
		      count_lines(out, "fastbinder_reply:", w2) == 1,
		      "the chain lacks the nested call (code 13, txn %llu)",
		      (unsigned long long)inner);
		CHECK(count_lines(out, "fastbinder_", NULL) == 8,
		      "the chain has %d lines, want 8 (two calls, four events each)",
		      count_lines(out, "fastbinder_", NULL));
		free(out);
	}

	call(&c, CODE_QUIT, NULL, 0, NULL, 0);
	CHECK(fbt_wait(m) == 0, "manager failed");

	if (!hist)
		goto out;

	/* 2: every call's latency, on the manager's node (7 calls) */
	rc = run("latency-show", "");
	out = fbt_slurp(OUT);
	printf("# recipe latency-show:\n%s", out ? out : "");
	save = NULL;
	for (line = out ? strtok_r(out, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *hc = strstr(line, "hitcount:");

		if (strstr(line, "lat: ~ 2^") && hc && sscanf(hc, "hitcount: %llu", &h) == 1)
			hits += h;
	}
	/* the 7 calls of C, and M's nested one into C */
	CHECK(rc == 0 && hits == 8, "recipe latency-show: exit %d, %llu calls counted, want 8",
	      rc, hits);
	free(out);

	/* 3: the flooder first, with its 40 messages; its failure counted */
	rc = run("flood-show", "");
	out = fbt_slurp(OUT);
	printf("# recipe flood-show:\n%s", out ? out : "");
	{
		const char *first = out ? strstr(out, "{ node:") : NULL;
		const char *fail = out ? strstr(out, "{ from_pid:") : NULL;
		unsigned long long node;
		int pid = 0, fpid = 0;

		h = 0;
		if (first)
			sscanf(first, "{ node: %llu, from_pid: %d } hitcount: %llu", &node, &pid, &h);
		CHECK(rc == 0 && pid == fl && h == FLOOD,
		      "recipe flood-show: exit %d, the first entry is pid %d with %llu, want %d with %d",
		      rc, pid, h, (int)fl, FLOOD);
		if (fail)
			sscanf(fail, "{ from_pid: %d,", &fpid);
		CHECK(fpid == fl, "the flooder's failed send is not the first failure entry (%d)",
		      fpid);
	}
	free(out);

out:
	fbt_ctx_close(&c);
	fbt_run("echo 0 >/sys/kernel/tracing/events/fastbinder/enable", NULL, 0);
	unlink(OUT);
	return fbt_done();
}
