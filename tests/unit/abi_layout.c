// SPDX-License-Identifier: MIT
/*
 * abi_layout: the structures of uapi/linux/fastbinder.h have the sizes
 * and field offsets docs/abi.md promises, identical for 32- and 64-bit
 * processes (no compat ioctl exists).  The _Static_asserts make any layout
 * change a compile error; built with -DABI_STATIC_ONLY they need nothing but
 * the header, so the Makefile can compile them with -m32 too.
 */
#include <stddef.h>
#include <linux/fastbinder.h>

#define LAYOUT(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), \
		       #type "." #field " is not at offset " #off)
#define SIZE(type, size) \
	_Static_assert(sizeof(struct type) == (size), \
		       "sizeof(struct " #type ") is not " #size)

SIZE(fbinder_txn_data, 40);
LAYOUT(fbinder_txn_data, handle, 0);
LAYOUT(fbinder_txn_data, code, 4);
LAYOUT(fbinder_txn_data, flags, 8);
LAYOUT(fbinder_txn_data, offsets_count, 12);
LAYOUT(fbinder_txn_data, data, 16);
LAYOUT(fbinder_txn_data, data_size, 24);
LAYOUT(fbinder_txn_data, offsets, 32);

SIZE(fbinder_txn_msg, 64);
LAYOUT(fbinder_txn_msg, txn_id, 0);
LAYOUT(fbinder_txn_msg, cookie, 8);
LAYOUT(fbinder_txn_msg, code, 16);
LAYOUT(fbinder_txn_msg, flags, 20);
LAYOUT(fbinder_txn_msg, sender_pid, 24);
LAYOUT(fbinder_txn_msg, sender_euid, 28);
LAYOUT(fbinder_txn_msg, data, 32);
LAYOUT(fbinder_txn_msg, data_size, 40);
LAYOUT(fbinder_txn_msg, offsets, 48);
LAYOUT(fbinder_txn_msg, offsets_count, 56);

SIZE(fbinder_batch_msg, 24);
LAYOUT(fbinder_batch_msg, code, 0);
LAYOUT(fbinder_batch_msg, reserved, 4);
LAYOUT(fbinder_batch_msg, data, 8);
LAYOUT(fbinder_batch_msg, data_size, 16);

SIZE(fbinder_batch_send, 16);
LAYOUT(fbinder_batch_send, handle, 0);
LAYOUT(fbinder_batch_send, count, 4);
LAYOUT(fbinder_batch_send, msgs, 8);

/* the entries start at 8 on i386 too, where a __u64 aligns to 4 */
SIZE(fbinder_batch, 8);
LAYOUT(fbinder_batch, count, 0);
LAYOUT(fbinder_batch, reserved, 4);
LAYOUT(fbinder_batch, msgs, 8);

SIZE(fbinder_object, 16);
LAYOUT(fbinder_object, type, 0);
LAYOUT(fbinder_object, flags, 4);
LAYOUT(fbinder_object, cookie, 8);
LAYOUT(fbinder_object, handle, 8);
LAYOUT(fbinder_object, fd, 8);

SIZE(fbinder_write_read, 48);
LAYOUT(fbinder_write_read, write_buffer, 0);
LAYOUT(fbinder_write_read, write_size, 8);
LAYOUT(fbinder_write_read, write_consumed, 16);
LAYOUT(fbinder_write_read, read_buffer, 24);
LAYOUT(fbinder_write_read, read_size, 32);
LAYOUT(fbinder_write_read, read_consumed, 40);

SIZE(fbinder_version, 8);
LAYOUT(fbinder_version, abi_version, 0);

SIZE(fbinder_region_create, 24);
LAYOUT(fbinder_region_create, addr, 0);
LAYOUT(fbinder_region_create, size, 8);
LAYOUT(fbinder_region_create, rights, 16);
LAYOUT(fbinder_region_create, handle, 20);

SIZE(fbinder_region_narrow, 32);
LAYOUT(fbinder_region_narrow, handle, 0);
LAYOUT(fbinder_region_narrow, rights, 4);
LAYOUT(fbinder_region_narrow, offset, 8);
LAYOUT(fbinder_region_narrow, size, 16);
LAYOUT(fbinder_region_narrow, new_handle, 24);
LAYOUT(fbinder_region_narrow, reserved, 28);

SIZE(fbinder_region_info, 16);
LAYOUT(fbinder_region_info, handle, 0);
LAYOUT(fbinder_region_info, rights, 4);
LAYOUT(fbinder_region_info, size, 8);

SIZE(fbinder_iovec, 16);
LAYOUT(fbinder_iovec, base, 0);
LAYOUT(fbinder_iovec, len, 8);

SIZE(fbinder_region_copy, 32);
LAYOUT(fbinder_region_copy, handle, 0);
LAYOUT(fbinder_region_copy, iov_count, 4);
LAYOUT(fbinder_region_copy, offset, 8);
LAYOUT(fbinder_region_copy, iov, 16);
LAYOUT(fbinder_region_copy, done, 24);
SIZE(fbinder_info, 56);
LAYOUT(fbinder_info, what, 0);
LAYOUT(fbinder_info, entry_size, 12);
LAYOUT(fbinder_info, count, 16);
LAYOUT(fbinder_info, total, 20);
LAYOUT(fbinder_info, seq, 24);
LAYOUT(fbinder_info, entries, 32);
LAYOUT(fbinder_info, reserved, 40);

SIZE(fbinder_info_context, 136);
LAYOUT(fbinder_info_context, id, 0);
LAYOUT(fbinder_info_context, pid, 8);
LAYOUT(fbinder_info_context, device, 16);
LAYOUT(fbinder_info_context, threads, 48);
LAYOUT(fbinder_info_context, reserved, 84);
LAYOUT(fbinder_info_context, map_size, 88);
LAYOUT(fbinder_info_context, failed, 128);

SIZE(fbinder_info_node, 48);
LAYOUT(fbinder_info_node, ctx, 8);
LAYOUT(fbinder_info_node, owner_pid, 24);
LAYOUT(fbinder_info_node, calls, 40);

SIZE(fbinder_info_handle, 40);
LAYOUT(fbinder_info_handle, holder_pid, 8);
LAYOUT(fbinder_info_handle, node, 16);
LAYOUT(fbinder_info_handle, buffer_refs, 36);

SIZE(fbinder_info_failure, 48);
LAYOUT(fbinder_info_failure, seq, 0);
LAYOUT(fbinder_info_failure, error, 16);
LAYOUT(fbinder_info_failure, node, 32);
LAYOUT(fbinder_info_failure, reserved, 44);

#ifndef ABI_STATIC_ONLY
#include <check.h>
#include <stdlib.h>

/* The same facts at run time, so the suite counts them and shows them. */
START_TEST(test_sizes)
{
	ck_assert_uint_eq(sizeof(struct fbinder_txn_data), 40);
	ck_assert_uint_eq(sizeof(struct fbinder_txn_msg), 64);
	ck_assert_uint_eq(sizeof(struct fbinder_batch_msg), 24);
	ck_assert_uint_eq(sizeof(struct fbinder_batch_send), 16);
	ck_assert_uint_eq(sizeof(struct fbinder_batch), 8);
	ck_assert_uint_eq(FBINDER_MAX_BATCH, 256);
	ck_assert_uint_eq(sizeof(struct fbinder_object), 16);
	ck_assert_uint_eq(sizeof(struct fbinder_write_read), 48);
	ck_assert_uint_eq(sizeof(struct fbinder_version), 8);
	ck_assert_uint_eq(sizeof(struct fbinder_info), 56);
	ck_assert_uint_eq(sizeof(struct fbinder_info_context), 136);
	ck_assert_uint_eq(sizeof(struct fbinder_info_node), 48);
	ck_assert_uint_eq(sizeof(struct fbinder_info_handle), 40);
	ck_assert_uint_eq(sizeof(struct fbinder_info_failure), 48);
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
	ck_assert_uint_eq(_Alignof(struct fbinder_write_read), 8);
}
END_TEST

START_TEST(test_ioctl_numbers)
{
	/* The size is part of each number, so a layout change changes it. */
	ck_assert_uint_eq(_IOC_SIZE(FBINDER_IOC_WRITE_READ), 48);
	ck_assert_uint_eq(_IOC_SIZE(FBINDER_IOC_VERSION), 8);
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
