// SPDX-License-Identifier: MIT
/*
 * fb-servicemanager - the fastbinder service manager: handle 0, the
 * directory that maps names to services (docs/servicemanager.md).
 *
 * One thread: it polls the device and a signalfd, and handles each
 * request with bl_loop_once().  Requests never block, so one thread
 * serves everyone; SIGTERM and SIGINT exit cleanly, SIGHUP reloads the
 * policy file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "binderlite.h"
#include "fbtool.h"
#include "handler.h"
#include "log.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fb-servicemanager [-p FILE] [-d DEVICE] [-v]\n"
		"The fastbinder service manager: claims handle 0 and maps names to\n"
		"services.  Runs in the foreground, logs to stderr.\n"
		"  -p, --policy FILE   who may register which names (see\n"
		"                      docs/servicemanager.md); SIGHUP reloads it.\n"
		"                      Without it any uid may register any free name.\n"
		"  -d, --device PATH   the device (default %s)\n"
		"  -v, --verbose       log every request\n"
		"  -h, --help          this text\n"
		"      --version       the release and ABI version\n"
		"Exit status: 0 after SIGTERM/SIGINT; 1 on a runtime error (another\n"
		"manager runs, no privilege to claim handle 0); 2 on bad arguments\n"
		"or policy; 3 fastbinder unusable (module not loaded, no such\n"
		"device, permission denied, another ABI).\n",
		BL_DEFAULT_DEVICE);
}

static int load_policy(const char *path, struct sm_policy *p)
{
	unsigned int line = 0;
	FILE *f = fopen(path, "re");
	int ret;

	if (!f) {
		sm_log("cannot read policy %s: %s", path, strerror(errno));
		return -errno;
	}
	memset(p, 0, sizeof(*p));
	ret = sm_policy_parse(f, p, &line);
	fclose(f);
	if (ret == -EINVAL)
		sm_log("%s:%u: not \"allow UID|* NAME|PREFIX* [label=LABEL|PREFIX*]\"",
		       path, line);
	else if (ret)
		sm_log("cannot read policy %s: %s", path, strerror(-ret));
	else
		sm_log("policy %s: %zu rules", path, p->count);
	return ret;
}

/* SIGHUP: the new policy replaces the old one only if it parses. */
static void reload_policy(const char *path, struct sm_policy *cur)
{
	struct sm_policy next;

	if (!path) {
		sm_log("SIGHUP: no policy file to reload");
		return;
	}
	if (load_policy(path, &next)) {
		sm_log("SIGHUP: keeping the previous policy");
		return;
	}
	sm_policy_free(cur);
	*cur = next;
}

/* Blocks the signals we handle and returns a signalfd for them. */
static int signals_fd(void)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

static int serve(struct bl_context *ctx, int sfd, const char *policy_path,
		 struct sm_policy *policy)
{
	struct pollfd pfd[2] = {
		{ .fd = bl_context_fd(ctx), .events = POLLIN },
		{ .fd = sfd, .events = POLLIN },
	};

	for (;;) {
		struct signalfd_siginfo si;
		int ret;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			sm_log("poll: %s", strerror(errno));
			return 1;
		}
		while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo != SIGHUP) {
				sm_log("%s: exiting", strsignal(si.ssi_signo));
				return 0;
			}
			reload_policy(policy_path, policy);
		}
		if (!(pfd[0].revents & (POLLIN | POLLERR | POLLHUP)))
			continue;
		ret = bl_loop_once(ctx, 0);
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN) {
			sm_log("device: %s", strerror(-ret));
			return 1;
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "device", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *policy_path = NULL, *device = NULL;
	struct sm_policy policy = { 0 };
	struct sm_state sm = { 0 };
	struct bl_context *ctx;
	struct bl_object *obj = NULL;
	int c, ret, sfd;

	fbtool_init("fb-servicemanager");
	opterr = 0;
	while ((c = getopt_long(argc, argv, "p:d:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			policy_path = optarg;
			break;
		case 'd':
			device = optarg;
			break;
		case 'v':
			sm_verbose = true;
			break;
		case 'h':
			usage(stdout);
			return FBTOOL_EXIT_OK;
		case 'V':
			fbtool_version();
			return FBTOOL_EXIT_OK;
		default:
			return fbtool_usage_error("unknown or incomplete option '%s'",
						  argv[optind - 1]);
		}
	}
	if (optind != argc)
		return fbtool_usage_error("unexpected argument '%s'", argv[optind]);
	if (policy_path && load_policy(policy_path, &policy))
		return FBTOOL_EXIT_USAGE;
	sm.policy = policy_path ? &policy : NULL;

	sfd = signals_fd();
	if (sfd < 0) {
		sm_log("signalfd: %s", strerror(-sfd));
		return 1;
	}
	ret = bl_context_open(device, 0, &ctx);
	if (ret)
		return fbtool_unavailable(device, -ret);
	sm_registry_init(&sm.registry, ctx);
	sm_watches_init(&sm.watches, ctx);
	sm.registry.watches = &sm.watches;
	ret = bl_object_new(ctx, sm_handle, NULL, &sm, &obj);
	/* the callers' labels, for the policy's label rules, where the driver has them */
	if (!ret && bl_context_features(ctx) & FBINDER_FEATURE_SECCTX)
		ret = bl_object_set_sender_label(obj, true);
	if (!ret)
		ret = bl_context_become_manager(ctx, obj);
	if (ret) {
		sm_log("cannot become the context manager: %s",
		       ret == -EBUSY ? "another service manager runs" :
		       ret == -EPERM ? "no privilege to claim handle 0 "
				       "(CAP_SYS_ADMIN, or the manager_uid of the module)" :
		       strerror(-ret));
		bl_object_unref(obj);
		bl_context_close(ctx);
		return 1;
	}
	sm_log("ready on %s (pid %d)", device ? device : BL_DEFAULT_DEVICE,
	       (int)getpid());

	ret = serve(ctx, sfd, policy_path, &policy);

	sm_log("%lu requests, %lu refused, %zu names at exit", sm.requests,
	       sm.refused, sm.registry.count);
	sm_registry_fini(&sm.registry);
	sm_watches_fini(&sm.watches);
	bl_object_unref(obj);
	bl_context_close(ctx);
	sm_policy_free(&policy);
	close(sfd);
	return ret;
}
