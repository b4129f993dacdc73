// SPDX-License-Identifier: MIT
/*
 * call_label.c - the sender's security label through libbinderlite: a
 * handler of an object that asked for it (bl_object_set_sender_label())
 * finds the caller's label in bl_call_info.sender_label, as the caller's
 * /proc/self/attr/current shows it ("" with its size 0 where no LSM
 * provides one), on a call and on a oneway message; a handler of an
 * object that did not ask finds NULL on both; asking after the object was
 * sent is -EBUSY, and asking on a context whose driver does not deliver
 * labels (its features set here as a driver from before
 * FBINDER_FEATURE_SECCTX reports them) is -EOPNOTSUPP.  The service and the
 * caller run as uid 65534, the in-test manager as root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fbt_bl.h"
#include "fbt.h"
/* the context's features (static library) */
#include "../../libbinderlite/internal.h"

#define SVC_YES		"test.label.yes"
#define SVC_NO		"test.label.no"
#define M_WHO		1	/* -> i32 1 if a label came, string: the label */
#define M_ONEWAY	2	/* oneway: the next M_WHO tells if this one had one */

static int oneway_labelled = -1;	/* the service's: the last oneway's */

static int32_t handler(struct bl_object *obj, uint32_t code, struct bl_reader *request,
		       struct bl_parcel *reply, const struct bl_call_info *info)
{
	const char *label = info->sender_label;

	(void)obj;
	(void)request;
	if (code == M_ONEWAY) {
		oneway_labelled = label != NULL;
		return 0;
	}
	if (code != M_WHO || !reply)
		return -EOPNOTSUPP;
	/* the size says where the NUL is */
	if (label && strlen(label) != info->sender_label_size)
		return -EBADMSG;
	bl_parcel_write_i32(reply, label != NULL);
	bl_parcel_write_i32(reply, oneway_labelled);
	return bl_parcel_write_string(reply, label ? label : "");
}

static int svc_main(void *arg)
{
	struct bl_object *yes, *no;
	struct bl_context *ctx;
	int ret;

	(void)arg;
	fbt_become_nobody();
	ctx = fbt_bl_open();
	/* killed when done: what fails here shows as the client's failure */
	if (bl_object_new(ctx, handler, NULL, NULL, &yes) ||
	    bl_object_new(ctx, handler, NULL, NULL, &no))
		die("bl_object_new");
	ret = bl_object_set_sender_label(yes, true);
	if (ret)
		die("bl_object_set_sender_label: %s", strerror(-ret));
	if (bl_sm_add(ctx, SVC_YES, yes) || bl_sm_add(ctx, SVC_NO, no))
		die("bl_sm_add");
	bl_object_unref(yes);
	bl_object_unref(no);
	return bl_loop(ctx) ? 1 : 0;
}

/* Calls name's M_WHO: whether a label came, and which. */
static void who(struct bl_context *ctx, uint32_t h, const char *name, int *got,
		int *oneway, char *label, size_t n)
{
	struct bl_reply r;
	const char *s;
	size_t len;
	int32_t g = -1, o = -1;
	int ret;

	label[0] = '\0';
	ret = bl_call(ctx, h, M_WHO, NULL, &r, 5000);
	CHECK(ret == 0 && r.status == 0, "%s: call %d, status %d", name, ret,
	      ret ? 0 : r.status);
	if (ret)
		return;
	if (!r.status && !bl_reader_read_i32(&r.reader, &g) &&
	    !bl_reader_read_i32(&r.reader, &o) &&
	    !bl_reader_read_string(&r.reader, &s, &len))
		snprintf(label, n, "%s", s);
	*got = g;
	*oneway = o;
	bl_reply_fini(&r);
}

static int client_main(void *arg)
{
	char own[512], label[512];
	struct bl_context *ctx;
	struct bl_object *obj;
	uint32_t yes, no;
	int got, oneway, ret;
	uint64_t features;

	(void)arg;
	fbt_own_label(own, sizeof(own));
	printf("# the caller's label: '%s'%s\n", own,
	       own[0] ? "" : " (no LSM provides one: an empty label expected)");
	ctx = fbt_bl_open();
	if (bl_sm_get(ctx, SVC_YES, 5000, &yes) || bl_sm_get(ctx, SVC_NO, 5000, &no))
		die("bl_sm_get");

	got = oneway = -1;
	who(ctx, yes, SVC_YES, &got, &oneway, label, sizeof(label));
	CHECK(got == 1 && !strcmp(label, own),
	      "object that asked: label %s '%s', want '%s'", got == 1 ? "" : "missing",
	      label, own);
	CHECK(bl_send_oneway(ctx, yes, M_ONEWAY, NULL) == 0, "oneway");
	who(ctx, yes, SVC_YES, &got, &oneway, label, sizeof(label));
	CHECK(oneway == 1, "the oneway message to the object that asked: label %d",
	      oneway);
	who(ctx, no, SVC_NO, &got, &oneway, label, sizeof(label));
	CHECK(got == 0, "object that did not ask: a label came ('%s')", label);
	CHECK(bl_send_oneway(ctx, no, M_ONEWAY, NULL) == 0, "oneway");
	who(ctx, no, SVC_NO, &got, &oneway, label, sizeof(label));
	CHECK(oneway == 0, "the oneway message to the object that did not ask: label %d",
	      oneway);

	CHECK(bl_context_features(ctx) & FBINDER_FEATURE_SECCTX,
	      "the driver has no FBINDER_FEATURE_SECCTX");
	/* once sent, the node is made: too late to ask */
	if (bl_object_new(ctx, handler, NULL, NULL, &obj))
		die("bl_object_new");
	CHECK(bl_sm_add(ctx, "test.label.sent", obj) == 0, "bl_sm_add");
	ret = bl_object_set_sender_label(obj, true);
	CHECK(ret == -EBUSY, "asked after the object was sent: %d, want -EBUSY", ret);
	bl_object_unref(obj);

	/* as with a driver from before the feature */
	features = ctx->features;
	ctx->features = FBINDER_FEATURES_V4;
	if (bl_object_new(ctx, handler, NULL, NULL, &obj))
		die("bl_object_new");
	CHECK(bl_object_set_sender_label(obj, true) == -EOPNOTSUPP,
	      "a driver without FBINDER_FEATURE_SECCTX: want -EOPNOTSUPP");
	CHECK(bl_object_set_sender_label(obj, false) == 0, "not asking is always fine");
	ctx->features = features;
	bl_object_unref(obj);
	bl_handle_release(ctx, yes);
	bl_handle_release(ctx, no);
	bl_context_close(ctx);
	return fbt_failures ? 1 : 0;
}

int main(void)
{
	pid_t mgr, svc;

	alarm(60);
	mgr = fbt_bl_manager_start();
	svc = fbt_fork(svc_main, NULL);
	CHECK(fbt_run_as_nobody(client_main, NULL) == 0, "client");
	fbt_bl_kill(svc);
	fbt_bl_kill(mgr);
	return fbt_done();
}
