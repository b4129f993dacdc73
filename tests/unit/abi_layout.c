// SPDX-License-Identifier: MIT
/*
 * abi_layout: the structures of uapi/linux/fastbinder.h have the sizes
 * and field offsets docs/abi.md promises, identical for 32- and 64-bit
 * processes (no compat ioctl exists).  The table below makes any layout
 * change a compile error; built with -DABI_STATIC_ONLY it needs nothing but
 * the header, so the Makefile can compile it with -m32 too.
 */
#include <stddef.h>
#include <linux/fastbinder.h>

/*
 * One row per structure: its size and the offsets of its fields.  Each
 * number is checked at compile time (a wrong one is an array of negative
 * size: the error names the row), so -DABI_STATIC_ONLY -m32 checks the
 * 32-bit layout with nothing but the header; the test below reads the
 * same table at run time.
 */
#define CHECKED(cond, value)	((value) + 0 * sizeof(char[(cond) ? 1 : -1]))
#define STR(x)			STR_(x)
#define STR_(x)			#x
/* T is the structure of the row (defined before it) */
#define AT(field, off)		{ #field, CHECKED(offsetof(struct T, field) == (off), off) }
#define LAYOUT(size, ...) \
	{ "struct " STR(T), CHECKED(sizeof(struct T) == (size), size), { __VA_ARGS__ } }

struct abi_layout {
	const char *name;
	size_t size;
	struct {
		const char *name;
		size_t offset;
	} fields[12];
};

/* not static: the -m32 build uses nothing else and must not warn */
extern const struct abi_layout abi_layouts[];
const struct abi_layout abi_layouts[] = {
#define T fbinder_txn_data
	LAYOUT(40, AT(handle, 0), AT(code, 4), AT(flags, 8), AT(offsets_count, 12),
	       AT(data, 16), AT(data_size, 24), AT(offsets, 32)),
#undef T
#define T fbinder_txn_msg
	LAYOUT(64, AT(txn_id, 0), AT(cookie, 8), AT(code, 16), AT(flags, 20),
	       AT(sender_pid, 24), AT(sender_euid, 28), AT(data, 32), AT(data_size, 40),
	       AT(offsets, 48), AT(offsets_count, 56)),
#undef T
#define T fbinder_batch_msg
	LAYOUT(24, AT(code, 0), AT(reserved, 4), AT(data, 8), AT(data_size, 16)),
#undef T
#define T fbinder_batch_send
	LAYOUT(16, AT(handle, 0), AT(count, 4), AT(msgs, 8)),
#undef T
	/* the entries start at 8 on i386 too, where a __u64 aligns to 4 */
#define T fbinder_batch
	LAYOUT(8, AT(count, 0), AT(reserved, 4), AT(msgs, 8)),
#undef T
#define T fbinder_secctx
	LAYOUT(8, AT(size, 0), AT(reserved, 4)),
#undef T
#define T fbinder_object
	LAYOUT(16, AT(type, 0), AT(flags, 4), AT(cookie, 8), AT(handle, 8), AT(fd, 8)),
#undef T
#define T fbinder_write_read
	LAYOUT(48, AT(write_buffer, 0), AT(write_size, 8), AT(write_consumed, 16),
	       AT(read_buffer, 24), AT(read_size, 32), AT(read_consumed, 40)),
#undef T
#define T fbinder_version
	LAYOUT(16, AT(abi_version, 0), AT(min_abi_version, 4), AT(features, 8)),
#undef T
#define T fbinder_region_create
	LAYOUT(24, AT(addr, 0), AT(size, 8), AT(rights, 16), AT(handle, 20)),
#undef T
#define T fbinder_region_narrow
	LAYOUT(32, AT(handle, 0), AT(rights, 4), AT(offset, 8), AT(size, 16),
	       AT(new_handle, 24), AT(reserved, 28)),
#undef T
#define T fbinder_region_info
	LAYOUT(16, AT(handle, 0), AT(rights, 4), AT(size, 8)),
#undef T
#define T fbinder_iovec
	LAYOUT(16, AT(base, 0), AT(len, 8)),
#undef T
#define T fbinder_region_copy
	LAYOUT(32, AT(handle, 0), AT(iov_count, 4), AT(offset, 8), AT(iov, 16), AT(done, 24)),
#undef T
#define T fbinder_txn_sg
	LAYOUT(40, AT(handle, 0), AT(code, 4), AT(flags, 8), AT(offsets_count, 12),
	       AT(iov, 16), AT(iov_count, 24), AT(reserved, 28), AT(offsets, 32)),
#undef T
	/* the same 16 bytes as struct fbinder_object, length in place of flags */
#define T fbinder_ptr_object
	LAYOUT(16, AT(type, 0), AT(length, 4), AT(ptr, 8)),
#undef T
	/* the same 16 bytes too: the parent's index and flags in flags' place */
#define T fbinder_fda_object
	LAYOUT(16, AT(type, 0), AT(flags, 4), AT(parent, 6), AT(count, 8),
	       AT(parent_offset, 12)),
#undef T
#define T fbinder_info
	LAYOUT(56, AT(what, 0), AT(entry_size, 12), AT(count, 16), AT(total, 20), AT(seq, 24),
	       AT(entries, 32), AT(reserved, 40)),
#undef T
#define T fbinder_info_context
	LAYOUT(136, AT(id, 0), AT(pid, 8), AT(device, 16), AT(threads, 48), AT(flags, 84),
	       AT(map_size, 88), AT(failed, 128)),
#undef T
#define T fbinder_info_node
	LAYOUT(48, AT(ctx, 8), AT(owner_pid, 24), AT(calls, 40)),
#undef T
#define T fbinder_info_handle
	LAYOUT(40, AT(holder_pid, 8), AT(node, 16), AT(buffer_refs, 36)),
#undef T
#define T fbinder_info_failure
	LAYOUT(48, AT(seq, 0), AT(error, 16), AT(node, 32), AT(reserved, 44)),
#undef T
#define T fbinder_instance
	LAYOUT(48, AT(name, 0), AT(major, 32), AT(minor, 36), AT(flags, 40), AT(reserved, 44)),
#undef T
#define T fbinder_freeze
	LAYOUT(16, AT(pid, 0), AT(enable, 4), AT(timeout_ms, 8), AT(reserved, 12)),
#undef T
#define T fbinder_frozen_info
	LAYOUT(16, AT(pid, 0), AT(flags, 4), AT(queued, 8), AT(reserved, 12)),
#undef T
};
const size_t abi_layout_count = sizeof(abi_layouts) / sizeof(abi_layouts[0]);

#ifndef ABI_STATIC_ONLY
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

/* The table at run time, so the suite counts the structures and shows them. */
START_TEST(test_sizes)
{
	size_t fields = 0;

	ck_assert_uint_eq(abi_layout_count, 25);
	for (size_t i = 0; i < abi_layout_count; i++) {
		const struct abi_layout *l = &abi_layouts[i];

		ck_assert_msg(l->size % 8 == 0, "%s: %zu bytes, not a multiple of 8",
			      l->name, l->size);
		for (size_t f = 0; f < 12 && l->fields[f].name; f++, fields++)
			/* <=: a flexible array member starts at the end */
			ck_assert_msg(l->fields[f].offset <= l->size, "%s.%s at %zu, past its end",
				      l->name, l->fields[f].name, l->fields[f].offset);
	}
	printf("abi_layout: %zu structures, %zu field offsets\n", abi_layout_count, fields);
	ck_assert_uint_eq(FBINDER_MAX_BATCH, 256);
}
END_TEST

START_TEST(test_alignment)
{
	/* 8-byte alignment: arrays of them pack the same on i386 and x86_64. */
	ck_assert_uint_eq(_Alignof(struct fbinder_txn_data), 8);
	ck_assert_uint_eq(_Alignof(struct fbinder_txn_msg), 8);
	ck_assert_uint_eq(_Alignof(struct fbinder_object), 8);
	ck_assert_uint_eq(_Alignof(struct fbinder_batch_msg), 8);
	ck_assert_uint_eq(_Alignof(struct fbinder_batch_send), 8);
	ck_assert_uint_eq(_Alignof(struct fbinder_txn_sg), 8);
	ck_assert_uint_eq(_Alignof(struct fbinder_ptr_object), 8);
	ck_assert_uint_eq(_Alignof(struct fbinder_write_read), 8);
}
END_TEST

START_TEST(test_ioctl_numbers)
{
	/* The size is part of each number, so a layout change changes it. */
	ck_assert_uint_eq(_IOC_SIZE(FBINDER_IOC_WRITE_READ), 48);
	ck_assert_uint_eq(_IOC_SIZE(FBINDER_IOC_VERSION), 16);
	ck_assert_uint_eq(_IOC_SIZE(FBINDER_IOC_VERSION_V4), 8);
	ck_assert_uint_eq(_IOC_NR(FBINDER_IOC_VERSION_V4), _IOC_NR(FBINDER_IOC_VERSION));
	ck_assert_uint_eq(_IOC_SIZE(FBINDER_IOC_INFO), 56);
	ck_assert_uint_eq(_IOC_SIZE(FBINDER_CMD_SEND), 40);
	ck_assert_uint_eq(_IOC_SIZE(FBINDER_CMD_SEND_BATCH), 16);
	ck_assert_uint_eq(_IOC_SIZE(FBINDER_RET_TRANSACTION), 64);
	ck_assert_uint_eq(_IOC_SIZE(FBINDER_CMD_REGION_READ), 32);
	ck_assert_uint_eq(_IOC_SIZE(FBINDER_CMD_REGION_WRITE), 32);
	ck_assert_uint_eq(_IOC_SIZE(FBINDER_IOC_REGION_CREATE), 24);
	ck_assert_uint_eq(_IOC_SIZE(FBINDER_IOC_REGION_NARROW), 32);
	ck_assert_uint_eq(_IOC_SIZE(FBINDER_IOC_REGION_INFO), 16);
	ck_assert_uint_eq(_IOC_SIZE(FBINDER_IOC_REGION_REVOKE), 4);
	ck_assert_uint_eq(_IOC_TYPE(FBINDER_IOC_VERSION), FBINDER_IOC_MAGIC);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("abi_layout");
	TCase *tc = tcase_create("layout");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_alignment);
	tcase_add_test(tc, test_ioctl_numbers);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
#endif
