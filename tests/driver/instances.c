// SPDX-License-Identifier: MIT
/*
 * instances: fastbinderfs makes devices at run time, each its own world.
 *
 * As root: two mounts, devices made in them with FBINDER_CTL_ADD (the
 * same name in both); each device is a character device of the module's
 * own major, mode 0666, with its own context manager: a message to
 * handle 0 reaches the manager of the sender's device only, a handle
 * number of one means nothing in another, a claim on one leaves the
 * others free.  Malformed requests fail with the documented errno
 * (EINVAL, EEXIST, ENOTTY, ENOSPC past FBINDER_FS_MAX_INSTANCES), and the
 * mount makes nothing else (mknod, creat, unlinking the control file).
 * Removal with contexts open: unlink takes the name at once, the old
 * contexts go on in the old device, nobody new can open it (not even
 * through /proc/self/fd), the same name makes a new device, and the old
 * one leaves debugfs state with its last context.  A mount pins the
 * module (refcnt), umount of a busy mount is EBUSY, a lazy one leaves its
 * open contexts working, and everything goes with them.
 *
 * Unprivileged (uid 65534, children): mounting is EPERM, the control file
 * cannot be opened (EACCES), a control descriptor root opened gives
 * nothing (EPERM), unlinking a device is EACCES, claiming handle 0 of a
 * root's device is EPERM.  In a user namespace of its own the same user
 * mounts its own fastbinderfs, makes a device, opens it and claims its
 * handle 0 (the namespace's CAP_SYS_ADMIN), while root's mount still
 * refuses it everything (skipped where user namespaces are not allowed).
 */
#define _GNU_SOURCE
#include "fbt_proto.h"

#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MB		(1024 * 1024)
#define MNT_A		"mnt-a"
#define MNT_B		"mnt-b"
#define MNT_C		"mnt-c"
#define MNT_U		"mnt-u"
#define CTL(m)		m "/" FBINDER_FS_CONTROL

static int add(const char *ctl, const char *name, struct fbinder_instance *out)
{
	struct fbinder_instance req = { 0 };
	int fd = open(ctl, O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	memcpy(req.name, name, strnlen(name, sizeof(req.name)));
	ret = ioctl(fd, FBINDER_CTL_ADD, &req) ? -errno : 0;
	close(fd);
	if (out)
		*out = req;
	return ret;
}

static int add_fd(int fd, const char *name)
{
	struct fbinder_instance req = { 0 };

	snprintf(req.name, sizeof(req.name), "%s", name);
	return ioctl(fd, FBINDER_CTL_ADD, &req) ? -errno : 0;
}

static int open_on(struct fbt_ctx *p, const char *path)
{
	void *m;

	memset(p, 0, sizeof(*p));
	p->fd = open(path, O_RDWR | O_CLOEXEC);
	if (p->fd < 0)
		return -errno;
	m = mmap(NULL, MB, PROT_READ, MAP_PRIVATE, p->fd, 0);
	if (m == MAP_FAILED)
		die("mmap %s", path);
	p->map = m;
	p->map_size = MB;
	return 0;
}

static int send_to(struct fbt_ctx *p, __u32 handle, const char *text)
{
	return fbt_oneway(p, handle, 1, text, strlen(text), NULL, 0);
}

static void expect_msg(struct fbt_ctx *p, __u64 cookie, const char *text, const char *who)
{
	struct fbt_ret r;
	int ret = fbt_try_next(p, &r);

	CHECK(ret == 0 && r.cmd == FBINDER_RET_TRANSACTION && r.msg.cookie == cookie &&
	      r.msg.data_size == strlen(text) && !memcmp(fbt_data(p, &r.msg), text, strlen(text)),
	      "%s: %s %s cookie 0x%llx, want \"%s\" for 0x%llx", who, strerror(-ret),
	      fbt_ret_name(r.cmd), (unsigned long long)r.msg.cookie, text,
	      (unsigned long long)cookie);
	if (ret == 0 && r.cmd == FBINDER_RET_TRANSACTION)
		fbt_free_buffer(p, r.msg.data);
}

static void expect_nothing(struct fbt_ctx *p, const char *who)
{
	struct fbt_ret r;
	int ret = fbt_try_next(p, &r);

	CHECK(ret == -EAGAIN, "%s: %s %s, want nothing", who, strerror(-ret), fbt_ret_name(r.cmd));
}

/* How many "device <name> " lines debugfs state has. */
static int state_count(const char *name)
{
	char *s = fbt_slurp(FBT_DEBUGFS "/state"), key[64], *p;
	int n = 0;

	if (!s)
		die("debugfs state");
	snprintf(key, sizeof(key), "device %s context-manager", name);
	for (p = strstr(s, key); p; p = strstr(p + 1, key))
		if (p == s || p[-1] == '\n')
			n++;
	free(s);
	return n;
}

static long long refcnt(void)
{
	return fbt_read_number("/sys/module/fastbinder/refcnt");
}

static void do_mount(const char *dir)
{
	if (mkdir(dir, 0777) && errno != EEXIST)
		die("mkdir %s", dir);
	chmod(dir, 0777);
	if (mount("none", dir, FBINDER_FS_TYPE, 0, NULL))
		die("mount %s on %s", FBINDER_FS_TYPE, dir);
}

static void test_layout(void)
{
	struct fbinder_instance a1, a2, b1;
	struct stat st, sa, sb;
	struct statfs sf;
	char name[40];
	int ret;

	CHECK(statfs(MNT_A, &sf) == 0 && sf.f_type == FBINDER_FS_MAGIC,
	      "statfs f_type %#lx, want %#x", (unsigned long)sf.f_type, FBINDER_FS_MAGIC);
	CHECK(stat(CTL(MNT_A), &st) == 0 && S_ISREG(st.st_mode) &&
	      (st.st_mode & 07777) == 0600 && st.st_uid == 0,
	      "control file: mode %o uid %u", st.st_mode, st.st_uid);
	CHECK(stat(MNT_A, &st) == 0 && (st.st_mode & 07777) == 0755 && st.st_uid == 0,
	      "mount root: mode %o uid %u", st.st_mode, st.st_uid);

	CHECK(add(CTL(MNT_A), "one", &a1) == 0, "add one to " MNT_A);
	CHECK(add(CTL(MNT_A), "two", &a2) == 0, "add two to " MNT_A);
	CHECK(add(CTL(MNT_B), "one", &b1) == 0, "add one to " MNT_B " (the same name)");
	CHECK(stat(MNT_A "/one", &sa) == 0 && stat(MNT_B "/one", &sb) == 0 &&
	      S_ISCHR(sa.st_mode) && S_ISCHR(sb.st_mode) && (sa.st_mode & 07777) == 0666,
	      "devices: modes %o and %o", sa.st_mode, sb.st_mode);
	CHECK(major(sa.st_rdev) == a1.major && minor(sa.st_rdev) == a1.minor &&
	      major(sb.st_rdev) == b1.major && minor(sb.st_rdev) == b1.minor &&
	      a1.major != 10 && a1.major == b1.major && a1.minor != b1.minor &&
	      a1.minor != a2.minor,
	      "device numbers %u:%u (said %u:%u), %u:%u (said %u:%u), two %u:%u",
	      major(sa.st_rdev), minor(sa.st_rdev), a1.major, a1.minor,
	      major(sb.st_rdev), minor(sb.st_rdev), b1.major, b1.minor, a2.major, a2.minor);
	CHECK(state_count("one") == 2 && state_count("two") == 1,
	      "debugfs state: %d devices one, %d two", state_count("one"), state_count("two"));

	/* names and requests */
	ret = add(CTL(MNT_A), "one", NULL);
	CHECK(ret == -EEXIST, "one again: %s, want EEXIST", strerror(-ret));
	ret = add(CTL(MNT_A), FBINDER_FS_CONTROL, NULL);
	CHECK(ret == -EEXIST, "the control file's name: %s, want EEXIST", strerror(-ret));
	{
		static const char *const bad[] = { "", ".", "..", "a/b", "/", "one/" };
		unsigned int i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			ret = add(CTL(MNT_A), bad[i], NULL);
			CHECK(ret == -EINVAL, "name \"%s\": %s, want EINVAL", bad[i],
			      strerror(-ret));
		}
	}
	memset(name, 'x', sizeof(name));
	ret = add(CTL(MNT_A), name, NULL);	/* 32 bytes, no NUL */
	CHECK(ret == -EINVAL, "a name of 32 bytes: %s, want EINVAL", strerror(-ret));
	name[31] = 0;
	ret = add(CTL(MNT_A), name, NULL);
	CHECK(ret == 0, "a name of 31 bytes: %s", strerror(-ret));
	CHECK(unlink(MNT_A "/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx") == 0, "unlink the long one: %s",
	      strerror(errno));
	{
		struct fbinder_instance req = { .name = "flags", .flags = 1 };
		int fd = open(CTL(MNT_A), O_RDWR | O_CLOEXEC);

		CHECK(ioctl(fd, FBINDER_CTL_ADD, &req) < 0 && errno == EINVAL,
		      "flags 1: %s, want EINVAL", strerror(errno));
		req.flags = 0;
		req.reserved = 1;
		CHECK(ioctl(fd, FBINDER_CTL_ADD, &req) < 0 && errno == EINVAL,
		      "reserved 1: %s, want EINVAL", strerror(errno));
		CHECK(ioctl(fd, FBINDER_IOC_VERSION, &req) < 0 && errno == ENOTTY,
		      "another command on the control file: %s, want ENOTTY", strerror(errno));
		CHECK(ioctl(fd, FBINDER_CTL_ADD, NULL) < 0 && errno == EFAULT,
		      "FBINDER_CTL_ADD from NULL: %s, want EFAULT", strerror(errno));
		close(fd);
	}
	CHECK(access(MNT_A "/flags", F_OK) < 0, "a refused request made a device");

	/* nothing else is made or removed here */
	CHECK(mknod(MNT_A "/node", S_IFCHR | 0666, makedev(a1.major, a1.minor)) < 0 &&
	      errno == EPERM, "mknod in the mount: %s, want EPERM", strerror(errno));
	CHECK(open(MNT_A "/file", O_CREAT | O_RDWR | O_CLOEXEC, 0600) < 0 && errno == EACCES,
	      "creat in the mount: %s, want EACCES", strerror(errno));
	CHECK(mkdir(MNT_A "/dir", 0700) < 0 && errno == EPERM,
	      "mkdir in the mount: %s, want EPERM", strerror(errno));
	CHECK(rename(MNT_A "/one", MNT_A "/uno") < 0, "rename in the mount succeeded");
	CHECK(unlink(CTL(MNT_A)) < 0 && errno == EPERM,
	      "unlink of the control file: %s, want EPERM", strerror(errno));
	/* a node of the same number elsewhere reaches nothing */
	CHECK(mknod("copy", S_IFCHR | 0666, makedev(a1.major, a1.minor)) == 0, "mknod copy");
	CHECK(open("copy", O_RDWR | O_CLOEXEC) < 0 && errno == ENXIO,
	      "open of a copy of one's node outside the mount: %s, want ENXIO", strerror(errno));
	unlink("copy");
	CHECK(mount("none", MNT_U, FBINDER_FS_TYPE, 0, "max=3") < 0 && errno == EINVAL,
	      "a mount option: %s, want EINVAL", strerror(errno));
	printf("# two mounts, devices one and two; names and requests checked\n");
}

/* FBINDER_FS_MAX_INSTANCES in one mount; an unlinked unused one frees its place. */
static void test_cap(void)
{
	char name[16];
	int i, ret;

	do_mount(MNT_C);
	for (i = 0; i < FBINDER_FS_MAX_INSTANCES; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		ret = add(CTL(MNT_C), name, NULL);
		if (ret) {
			CHECK(0, "device %d of %d: %s", i, FBINDER_FS_MAX_INSTANCES,
			      strerror(-ret));
			break;
		}
	}
	ret = add(CTL(MNT_C), "more", NULL);
	CHECK(ret == -ENOSPC, "device %d: %s, want ENOSPC", FBINDER_FS_MAX_INSTANCES + 1,
	      strerror(-ret));
	CHECK(unlink(MNT_C "/n7") == 0, "unlink n7");
	ret = add(CTL(MNT_C), "more", NULL);
	CHECK(ret == 0, "a device after an unlink at the cap: %s", strerror(-ret));
	CHECK(state_count("n0") == 1 && state_count("more") == 1, "debugfs lacks n0 or more");
	CHECK(umount(MNT_C) == 0, "umount " MNT_C ": %s", strerror(errno));
	CHECK(state_count("n0") == 0 && state_count("more") == 0,
	      "devices of " MNT_C " left in debugfs state after umount");
	printf("# %d devices in a mount, then ENOSPC\n", FBINDER_FS_MAX_INSTANCES);
}

/* Each device its own world. */
static void test_isolation(void)
{
	static struct fbt_ctx ma1, ca1, ma2, ca2, cb1, mb1;
	struct fbinder_object obj;
	struct fbt_ret r;
	__u64 off = 0;
	__u32 h = 0;
	int ret;

	CHECK(open_on(&ma1, MNT_A "/one") == 0 && open_on(&ca1, MNT_A "/one") == 0 &&
	      open_on(&ma2, MNT_A "/two") == 0 && open_on(&ca2, MNT_A "/two") == 0 &&
	      open_on(&cb1, MNT_B "/one") == 0 && open_on(&mb1, MNT_B "/one") == 0,
	      "open the devices");
	ret = send_to(&cb1, 0, "nobody");
	CHECK(ret == -ENOENT, "handle 0 on B/one before any claim: %s", strerror(-ret));
	/* it takes descriptors: one of B/one must be refused for itself */
	CHECK(fbt_set_mgr_flags(ma1.fd, 0xa1, FBINDER_OBJF_ACCEPTS_FDS) == 0, "claim A/one");
	ret = send_to(&cb1, 0, "nobody");
	CHECK(ret == -ENOENT, "handle 0 on B/one with A/one's claimed: %s, want ENOENT",
	      strerror(-ret));
	ret = send_to(&ca2, 0, "nobody");
	CHECK(ret == -ENOENT, "handle 0 on A/two with A/one's claimed: %s, want ENOENT",
	      strerror(-ret));
	CHECK(fbt_set_mgr(ma2.fd, 0xa2) == 0 && fbt_set_mgr(mb1.fd, 0xb1) == 0,
	      "claims on A/two and B/one");
	CHECK(send_to(&ca1, 0, "to a1") == 0 && send_to(&ca2, 0, "to a2") == 0 &&
	      send_to(&cb1, 0, "to b1") == 0, "sends to handle 0");
	expect_msg(&ma1, 0xa1, "to a1", "manager of A/one");
	expect_msg(&ma2, 0xa2, "to a2", "manager of A/two");
	expect_msg(&mb1, 0xb1, "to b1", "manager of B/one");
	expect_nothing(&ma1, "manager of A/one");
	expect_nothing(&mb1, "manager of B/one");

	/* a handle on B/one: its number means nothing on A/one */
	obj = (struct fbinder_object){ .type = FBINDER_OBJ_LOCAL, .cookie = 0xcb };
	CHECK(fbt_oneway(&cb1, 0, 2, &obj, sizeof(obj), &off, 1) == 0, "cb1 sends an object");
	ret = fbt_try_next(&mb1, &r);
	CHECK(ret == 0 && r.cmd == FBINDER_RET_TRANSACTION && r.msg.offsets_count == 1,
	      "mb1: %s %s", strerror(-ret), fbt_ret_name(r.cmd));
	if (ret == 0 && r.cmd == FBINDER_RET_TRANSACTION) {
		h = fbt_obj(&mb1, &r.msg, 0)->handle;
		CHECK(fbt_acquire(&mb1, h) == 0, "mb1: acquire");
		fbt_free_buffer(&mb1, r.msg.data);
	}
	CHECK(h && send_to(&mb1, h, "back") == 0, "mb1 -> cb1 through handle %u", h);
	expect_msg(&cb1, 0xcb, "back", "cb1");
	ret = send_to(&ma1, h, "cross");
	CHECK(ret == -ENOENT, "handle %u of B/one used on A/one: %s, want ENOENT", h,
	      strerror(-ret));
	obj = (struct fbinder_object){ .type = FBINDER_OBJ_FD, .fd = cb1.fd };
	ret = fbt_oneway(&ca1, 0, 2, &obj, sizeof(obj), &off, 1);
	CHECK(ret == -EINVAL, "a descriptor of B/one in a message on A/one: %s, want EINVAL",
	      strerror(-ret));
	expect_nothing(&ma1, "manager of A/one after refused sends");

	fbt_ctx_close(&ma1);
	fbt_ctx_close(&ca1);
	fbt_ctx_close(&ma2);
	fbt_ctx_close(&ca2);
	fbt_ctx_close(&cb1);
	fbt_ctx_close(&mb1);
	printf("# three devices, three managers, nothing crosses\n");
}

/* unlink with contexts open; umount busy, lazy, plain. */
static void test_removal(void)
{
	static struct fbt_ctx m, c, n;
	char path[64];
	int ret;

	CHECK(open_on(&m, MNT_A "/two") == 0 && open_on(&c, MNT_A "/two") == 0, "open two");
	CHECK(fbt_set_mgr(m.fd, 0x77) == 0, "claim two");
	CHECK(unlink(MNT_A "/two") == 0, "unlink two with contexts open: %s", strerror(errno));
	CHECK(access(MNT_A "/two", F_OK) < 0 && errno == ENOENT, "two's name is still there");
	CHECK(send_to(&c, 0, "after unlink") == 0, "a send in the unlinked device");
	expect_msg(&m, 0x77, "after unlink", "manager of the unlinked two");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", c.fd);
	ret = open(path, O_RDWR | O_CLOEXEC);
	CHECK(ret < 0 && errno == ENOENT, "open of the unlinked device through %s: %s, want ENOENT",
	      path, ret < 0 ? strerror(errno) : "success");
	if (ret >= 0)
		close(ret);

	/* the name again: a new device, without a manager */
	CHECK(add(CTL(MNT_A), "two", NULL) == 0, "add two again");
	CHECK(state_count("two") == 2, "debugfs state: %d devices two, want the old and new",
	      state_count("two"));
	CHECK(open_on(&n, MNT_A "/two") == 0, "open the new two");
	ret = send_to(&n, 0, "new");
	CHECK(ret == -ENOENT, "handle 0 on the new two: %s, want ENOENT", strerror(-ret));
	expect_nothing(&m, "manager of the old two");

	ret = umount(MNT_A);
	CHECK(ret < 0 && errno == EBUSY, "umount with devices open: %s, want EBUSY",
	      ret ? strerror(errno) : "success");
	fbt_ctx_close(&n);
	fbt_ctx_close(&c);
	CHECK(state_count("two") == 2, "the old two went while its manager is open");
	fbt_ctx_close(&m);
	CHECK(state_count("two") == 1, "debugfs state: %d devices two after the old one's last "
	      "close, want 1", state_count("two"));

	/* lazy: the mount goes, an open context stays usable */
	CHECK(open_on(&m, MNT_B "/one") == 0 && open_on(&c, MNT_B "/one") == 0, "open B/one");
	CHECK(fbt_set_mgr(m.fd, 0xb2) == 0, "claim B/one");
	CHECK(umount2(MNT_B, MNT_DETACH) == 0, "lazy umount of " MNT_B ": %s", strerror(errno));
	CHECK(send_to(&c, 0, "detached") == 0, "a send after the lazy umount");
	expect_msg(&m, 0xb2, "detached", "manager of the detached B/one");
	CHECK(state_count("one") == 2, "debugfs state: %d devices one", state_count("one"));
	fbt_ctx_close(&c);
	fbt_ctx_close(&m);
	CHECK(state_count("one") == 1, "B/one is left after its mount and contexts went");
	printf("# unlink and umount with contexts open\n");
}

/* uid 65534, no capability. */
static int nobody(void *arg)
{
	int ctl_fd = *(int *)arg, ret;
	struct fbt_ctx c;

	fbt_become_nobody();
	ret = mount("none", MNT_U, FBINDER_FS_TYPE, 0, NULL);
	CHECK(ret < 0 && errno == EPERM, "nobody mounts: %s, want EPERM",
	      ret ? strerror(errno) : "success");
	ret = add(CTL(MNT_A), "mine", NULL);
	CHECK(ret == -EACCES, "nobody opens the control file: %s, want EACCES", strerror(-ret));
	ret = add_fd(ctl_fd, "mine");
	CHECK(ret == -EPERM, "nobody through root's control descriptor: %s, want EPERM",
	      strerror(-ret));
	CHECK(access(MNT_A "/mine", F_OK) < 0, "nobody made a device");
	ret = unlink(MNT_A "/one");
	CHECK(ret < 0 && errno == EACCES, "nobody unlinks one: %s, want EACCES",
	      ret ? strerror(errno) : "success");
	CHECK(open_on(&c, MNT_A "/fresh") == 0, "nobody opens fresh (mode 0666)");
	ret = fbt_set_mgr(c.fd, 0xbad);
	CHECK(ret == -EPERM, "nobody claims fresh's handle 0: %s, want EPERM", strerror(-ret));
	fbt_ctx_close(&c);
	return fbt_done();
}

static int write_map(const char *file, const char *text)
{
	int ret = fbt_write_file(file, text);

	if (ret)
		fprintf(stderr, "# %s: %s\n", file, strerror(-ret));
	return ret;
}

/* uid 65534 in a user namespace of its own, where it is root. */
static int userns(void *arg)
{
	int ctl_fd = *(int *)arg, ret, fd;
	struct fbinder_instance req = { .name = "u1" };
	struct fbt_ctx c, c2;
	struct stat st;

	fbt_become_nobody();
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
		fbt_skip("unshare(CLONE_NEWUSER): %s", strerror(errno));
		return fbt_done();
	}
	if (write_map("/proc/self/setgroups", "deny") ||
	    write_map("/proc/self/uid_map", "0 65534 1") ||
	    write_map("/proc/self/gid_map", "0 65534 1"))
		die("user namespace maps");
	ret = mount("none", MNT_U, FBINDER_FS_TYPE, 0, NULL);
	CHECK(ret == 0, "mount in a user namespace: %s", ret ? strerror(errno) : "");
	if (ret)
		return fbt_done();
	CHECK(stat(CTL(MNT_U), &st) == 0 && st.st_uid == 0, "its control file's owner %u",
	      st.st_uid);
	fd = open(CTL(MNT_U), O_RDWR | O_CLOEXEC);
	CHECK(fd >= 0 && ioctl(fd, FBINDER_CTL_ADD, &req) == 0,
	      "a device in its own mount: %s", strerror(errno));
	close(fd);
	/* SB_I_NODEV cleared: its own node opens */
	CHECK(open_on(&c, MNT_U "/u1") == 0, "open of its own device: %s", strerror(errno));
	CHECK(fbt_set_mgr(c.fd, 0x11) == 0, "claim of its own device's handle 0");
	CHECK(open_on(&c2, MNT_U "/u1") == 0 && send_to(&c2, 0, "ns") == 0, "send in it");
	expect_msg(&c, 0x11, "ns", "the namespace's manager");
	/* root's mount is not its own */
	ret = add_fd(ctl_fd, "mine");
	CHECK(ret == -EPERM, "namespace root through root's control descriptor: %s, want EPERM",
	      strerror(-ret));
	ret = unlink(MNT_A "/one");
	CHECK(ret < 0 && (errno == EACCES || errno == EPERM),
	      "namespace root unlinks root's one: %s, want EACCES",
	      ret ? strerror(errno) : "success");
	fbt_ctx_close(&c2);
	CHECK(open_on(&c2, MNT_A "/fresh") == 0, "namespace root opens root's fresh");
	ret = fbt_set_mgr(c2.fd, 0xbad);
	CHECK(ret == -EPERM, "namespace root claims root's fresh's handle 0: %s, want EPERM",
	      strerror(-ret));
	ret = send_to(&c2, 0, "x");
	CHECK(ret == -ENOENT, "handle 0 of root's fresh from the namespace: %s, want ENOENT",
	      strerror(-ret));
	fbt_ctx_close(&c2);
	fbt_ctx_close(&c);
	CHECK(umount(MNT_U) == 0, "umount in the namespace: %s", strerror(errno));
	return fbt_done();
}

int main(void)
{
	long long base, mounted;
	int ctl_fd, st;

	alarm(50);
	base = refcnt();
	do_mount(MNT_A);
	do_mount(MNT_B);
	if (mkdir(MNT_U, 0777) || chmod(MNT_U, 0777) || chmod(".", 0755))
		die("mkdir " MNT_U);
	mounted = refcnt();
	CHECK(mounted == base + 2, "module refcnt %lld with two mounts, %lld before", mounted,
	      base);

	test_layout();
	test_cap();
	test_isolation();

	CHECK(add(CTL(MNT_A), "fresh", NULL) == 0, "add fresh");
	ctl_fd = open(CTL(MNT_A), O_RDWR | O_CLOEXEC);
	if (ctl_fd < 0)
		die("open " CTL(MNT_A));
	fbt_wait_ok(fbt_fork(nobody, &ctl_fd));
	st = fbt_wait(fbt_fork(userns, &ctl_fd));
	CHECK(st == 0 || st == FBT_SKIP, "the user-namespace child: status %d", st);
	if (st == FBT_SKIP)
		fbt_skip("no user namespace for uid 65534");
	close(ctl_fd);

	test_removal();
	CHECK(umount(MNT_A) == 0, "umount " MNT_A ": %s", strerror(errno));
	CHECK(state_count("one") == 0 && state_count("two") == 0,
	      "devices left in debugfs state after the umounts");
	CHECK(refcnt() == base, "module refcnt %lld after the umounts, %lld before", refcnt(),
	      base);
	CHECK(fbt_wait_live_zero(3000) == 0, "live counts did not return to zero");
	return fbt_done();
}
