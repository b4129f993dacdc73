// SPDX-License-Identifier: MIT
/*
 * idl_versions.c - two versions of one stable interface
 * (tests/idl/versioned_v1.fbidl and versioned.fbidl, the same descriptor,
 * version 2 appending a method), as uid 65534: a version 2 client of a
 * version 1 server learns the server's version and hash, calls the method
 * both have, and gets -EOPNOTSUPP for the one the server lacks; a
 * version 1 client of a version 2 server works unchanged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fbt.h"
#include "fbt_bl.h"
#include "versioned.h"
#include "versioned_v1.h"

static int32_t v1_first(void *self, int32_t x, int32_t *result,
			const struct bl_call_info *info)
{
	(void)self; (void)info;
	*result = x + 1;
	return 0;
}

static int32_t v2_first(void *self, int32_t x, int32_t *result,
			const struct bl_call_info *info)
{
	(void)self; (void)info;
	*result = x + 2;
	return 0;
}

static int32_t v2_second(void *self, int32_t x, int32_t *result,
			 const struct bl_call_info *info)
{
	(void)self; (void)info;
	*result = x * 2;
	return 0;
}

static const struct versioned_v1_ops v1_ops = { .first = v1_first };
static const struct versioned_ops v2_ops = { .first = v2_first, .second = v2_second };

static int svc_main(void *arg)
{
	struct bl_context *ctx = fbt_bl_open();
	struct bl_object *o1, *o2;
	int ret;

	(void)arg;
	ret = versioned_v1_export(ctx, &v1_ops, NULL, NULL, &o1);
	if (!ret)
		ret = bl_sm_add(ctx, "test.idl.v1", o1);
	if (!ret)
		ret = versioned_export(ctx, &v2_ops, NULL, NULL, &o2);
	if (!ret)
		ret = bl_sm_add(ctx, "test.idl.v2", o2);
	if (ret)
		die("service: %s", strerror(-ret));
	bl_object_unref(o1);
	bl_object_unref(o2);
	bl_loop(ctx);
	return 0;
}

static int client(void *arg)
{
	struct bl_context *ctx;
	struct versioned_proxy new_to_old;
	struct versioned_v1_proxy old_to_new;
	pid_t svc;
	int32_t v = 0, r = 0;
	char *hash = NULL;

	(void)arg;
	svc = fbt_fork(svc_main, NULL);
	ctx = fbt_bl_open();
	if (versioned_proxy_get(ctx, "test.idl.v1", 5000, &new_to_old) ||
	    versioned_v1_proxy_get(ctx, "test.idl.v2", 5000, &old_to_new))
		die("no service");

	CHECK(!strcmp(VERSIONED_DESCRIPTOR, VERSIONED_V1_DESCRIPTOR),
	      "one descriptor for both versions");
	CHECK(strcmp(VERSIONED_HASH, VERSIONED_V1_HASH) != 0,
	      "different hashes (%s, %s)", VERSIONED_HASH, VERSIONED_V1_HASH);
	CHECK(versioned_get_interface_version(&new_to_old, &v) == 0 && v == 1,
	      "a version 2 client sees the old server's version: %d", v);
	CHECK(versioned_get_interface_hash(&new_to_old, &hash) == 0 && hash &&
	      !strcmp(hash, VERSIONED_V1_HASH), "and its hash: %s", hash ? hash : "");
	free(hash);
	CHECK(versioned_first(&new_to_old, 5, &r) == 0 && r == 6,
	      "the method both have: %d", r);
	r = 77;
	CHECK(versioned_second(&new_to_old, 5, &r) == -EOPNOTSUPP && r == 77,
	      "the method the old server lacks: -EOPNOTSUPP");

	CHECK(versioned_v1_get_interface_version(&old_to_new, &v) == 0 && v == 2,
	      "a version 1 client sees version %d", v);
	CHECK(versioned_v1_first(&old_to_new, 5, &r) == 0 && r == 7,
	      "and calls the new server as before: %d", r);

	versioned_proxy_release(&new_to_old);
	versioned_v1_proxy_release(&old_to_new);
	bl_context_close(ctx);
	fbt_bl_kill(svc);
	return fbt_done();
}

int main(void)
{
	pid_t mgr = fbt_bl_manager_start();
	int st = fbt_run_as_nobody(client, NULL);

	fbt_bl_kill(mgr);
	CHECK(st == 0, "the versions, as uid 65534: status %d", st);
	return fbt_done();
}
