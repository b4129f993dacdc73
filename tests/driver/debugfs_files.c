// SPDX-License-Identifier: MIT
/*
 * debugfs_files: /sys/kernel/debug/fastbinder/{state,stats,failed} exist and
 * read; stats is "name value" lines with the live counts, which follow
 * contexts opening and closing; state names the processes with contexts;
 * a failed send (bad handle, too big) shows up in "failed" with its errno,
 * sender pid, target pid and code.  stats has exactly the counters
 * docs/abi.md lists, and failed the columns it documents.  The development
 * build's "sections" (driver/sections.h) is not there.
 */
#include "fbt_proto.h"

#include <stdlib.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define S_MAP		(64 * 1024)
#define CODE_BADH	0x7a11ed01u
#define CODE_BIG	0x7a11ed02u

static const char *const live[] = { "live_contexts", "live_nodes", "live_handles",
				    "live_buffers", "live_transactions" };

/* Does the line hold tok as a whole word (split on blanks and = , : ( ) [ ])? */
static bool has_token(const char *line, const char *tok)
{
	size_t n = strlen(tok);
	const char *p = line;
	static const char delim[] = " \t=,:()[]";

	while ((p = strstr(p, tok))) {
		bool left = p == line || strchr(delim, p[-1]);
		bool right = !p[n] || strchr(delim, p[n]);

		if (left && right)
			return true;
		p++;
	}
	return false;
}

static bool has_num(const char *line, long long v)
{
	char b[32];

	snprintf(b, sizeof(b), "%lld", v);
	if (has_token(line, b))
		return true;
	snprintf(b, sizeof(b), "0x%llx", v);
	return has_token(line, b);
}

/* A line of text with all of pid, code, an errno form, and the target pid. */
static bool find_failure(const char *text, pid_t from, pid_t to, __u32 code, int err,
			 const char *errname)
{
	char *copy = strdup(text), *line, *save = NULL;
	bool found = false;

	if (!copy)
		die("strdup");
	for (line = strtok_r(copy, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save))
		found = has_num(line, from) && has_num(line, to) && has_num(line, code) &&
			(has_num(line, err) || has_num(line, -err) || has_token(line, errname));
	free(copy);
	return found;
}

/* The counters docs/abi.md lists, in its order. */
static const char *const documented[] = {
	"live_contexts", "live_threads", "live_nodes", "live_handles", "live_buffers",
	"live_transactions", "live_death_links", "live_pages", "calls", "oneways", "replies",
	"failed", "dead_replies", "release_notices", "spawn_requests", "abandoned_calls",
	"live_regions", "live_region_mms",
};

/* stats has exactly the documented names, in order; failed has the documented columns. */
static void check_formats(void)
{
	char *s = fbt_slurp(FBT_DEBUGFS "/stats"), *line, *save = NULL;
	unsigned int i = 0, n = sizeof(documented) / sizeof(documented[0]);
	int lines = 0, bad = 0;

	for (line = s ? strtok_r(s, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save), i++) {
		char name[64];

		if (sscanf(line, "%63s", name) != 1 || i >= n || strcmp(name, documented[i]))
			CHECK(0, "stats line %u is \"%s\", docs/abi.md says \"%s\"", i + 1, line,
			      i < n ? documented[i] : "(no more lines)");
	}
	CHECK(i == n, "stats has %u lines, docs/abi.md lists %u counters", i, n);
	free(s);

	s = fbt_slurp(FBT_DEBUGFS "/failed");
	save = NULL;
	line = s ? strtok_r(s, "\n", &save) : NULL;
	CHECK(line && !strcmp(line, "time_ns what error from_pid to_pid node code"),
	      "failed header: \"%s\"", line ? line : "(none)");
	while ((line = strtok_r(NULL, "\n", &save))) {
		unsigned long long t, node;
		char what[16], extra[2];
		int err, from, to;
		unsigned int code;

		lines++;
		if (sscanf(line, "%llu %15s %d %d %d %llu %u %1s", &t, what, &err, &from, &to,
			   &node, &code, extra) != 7 || err >= 0 ||
		    (strcmp(what, "send") && strcmp(what, "reply")) || from <= 0 || to < 0) {
			bad++;
			printf("# failed: bad line \"%s\"\n", line);
		}
	}
	CHECK(lines > 0 && lines <= 64 && !bad, "failed: %d lines, %d not as documented", lines,
	      bad);
	free(s);
}

static int s_main(struct fbt_ctx *p, void *arg)
{
	struct fbt_ret r;

	(void)arg;
	alarm(30);
	/* Serve until the parent's quit call. */
	while (fbt_next(p, &r) == 0) {
		if (r.cmd != FBINDER_RET_TRANSACTION)
			continue;
		fbt_reply(p, &r.msg, 0, NULL, 0, NULL, 0);
		if (r.msg.code == 1)
			break;
	}
	return 0;
}

int main(void)
{
	static unsigned char big[S_MAP + 64];
	long long base, v;
	struct fbt_ctx c;
	struct fbt_ret r;
	char *s, pidtok[32];
	unsigned int i;
	pid_t spid;
	int ret;

	alarm(40);
	s = fbt_slurp(FBT_DEBUGFS "/stats");
	CHECK(s != NULL, "read %s/stats: %s", FBT_DEBUGFS, strerror(errno));
	if (!s)
		return fbt_done();
	{
		char *copy = strdup(s), *line, *save = NULL;
		int lines = 0, bad = 0;

		for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char name[64], extra[2];

			lines++;
			if (sscanf(line, "%63s %lld %1s", name, &v, extra) != 2) {
				bad++;
				printf("# stats line not \"name value\": %s\n", line);
			}
		}
		CHECK(lines > 0 && !bad, "stats: %d lines, %d not \"name value\"", lines, bad);
		free(copy);
	}
	free(s);
	for (i = 0; i < sizeof(live) / sizeof(live[0]); i++)
		CHECK(fbt_stat(live[i], &v) == 0, "stats has no %s line", live[i]);
	/* the per-step timing is the development build's only */
	CHECK(access(FBT_DEBUGFS "/sections", F_OK) < 0 && errno == ENOENT,
	      "%s/sections in the module users load", FBT_DEBUGFS);

	ret = fbt_stat("live_contexts", &base);
	fbt_ctx_open(&c, MB);
	ret |= fbt_stat("live_contexts", &v);
	CHECK(ret == 0 && v == base + 1, "live_contexts %lld after an open, was %lld", v, base);

	spid = fbt_spawn_manager(S_MAP, 0xdeb06, s_main, NULL);

	s = fbt_slurp(FBT_DEBUGFS "/state");
	CHECK(s != NULL, "read %s/state: %s", FBT_DEBUGFS, strerror(errno));
	if (s) {
		snprintf(pidtok, sizeof(pidtok), "%d", (int)getpid());
		CHECK(has_token(s, pidtok), "state does not mention this process (pid %s)", pidtok);
		snprintf(pidtok, sizeof(pidtok), "%d", (int)spid);
		CHECK(has_token(s, pidtok), "state does not mention the manager (pid %s)", pidtok);
		free(s);
	}

	/* Two failed sends, each with a code of its own. */
	ret = fbt_oneway(&c, 777, CODE_BADH, NULL, 0, NULL, 0);
	CHECK(ret == -ENOENT, "send to handle 777: %s, want ENOENT", strerror(-ret));
	ret = fbt_call(&c, 0, CODE_BIG, big, sizeof(big), NULL, 0, &r, NULL, NULL);
	CHECK(ret == -EMSGSIZE, "call bigger than the manager's buffer: %s, want EMSGSIZE",
	      strerror(-ret));

	s = fbt_slurp(FBT_DEBUGFS "/failed");
	CHECK(s != NULL, "read %s/failed: %s", FBT_DEBUGFS, strerror(errno));
	if (s) {
		CHECK(find_failure(s, getpid(), spid, CODE_BIG, EMSGSIZE, "EMSGSIZE"),
		      "no line in failed with sender %d, target %d, code %u, EMSGSIZE:\n%s",
		      (int)getpid(), (int)spid, CODE_BIG, s);
		CHECK(find_failure(s, getpid(), 0, CODE_BADH, ENOENT, "ENOENT") ||
		      strstr(s, "2047995137") || strstr(s, "7a11ed01"),
		      "the ENOENT send (code %u) is not in failed", CODE_BADH);
		free(s);
	}

	ret = fbt_call(&c, 0, 1, NULL, 0, NULL, 0, &r, NULL, NULL);
	if (!ret && r.cmd == FBINDER_RET_REPLY)
		fbt_free_buffer(&c, r.msg.data);
	CHECK(fbt_wait(spid) == 0, "manager failed");
	check_formats();
	fbt_ctx_close(&c);
	CHECK(fbt_stat("live_contexts", &v) == 0 && v == base,
	      "live_contexts %lld after closing, want %lld", v, base);
	return fbt_done();
}
