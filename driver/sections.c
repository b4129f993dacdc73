// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs "sections" of the development build (sections.h): one line per
 * section, "name count cycles", summed over the CPUs; writing anything to
 * it starts the sums again from zero (do it while nothing runs: a section
 * ending meanwhile may keep a part of its sum).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>

#include "sections.h"

DEFINE_PER_CPU(struct fbinder_section_sums, fbinder_section_sums);
DEFINE_PER_CPU(struct fbinder_section_held, fbinder_section_held);

static const char *const fbinder_section_names[FBINDER_SEC_NR] = {
	[FBINDER_SEC_WRITE_READ] = "write_read",
	[FBINDER_SEC_SEND] = "send",
	[FBINDER_SEC_SEND_PREPARE] = "send_prepare",
	[FBINDER_SEC_SEND_SLOT] = "send_slot",
	[FBINDER_SEC_SEND_COPY] = "send_copy",
	[FBINDER_SEC_SEND_COMMIT] = "send_commit",
	[FBINDER_SEC_WAKE] = "wake",
	[FBINDER_SEC_FREE] = "free",
	[FBINDER_SEC_READ] = "read",
	[FBINDER_SEC_SLEEP] = "sleep",
	[FBINDER_SEC_RESCHED] = "resched",
	[FBINDER_SEC_TAKE] = "take",
	[FBINDER_SEC_DELIVER] = "deliver",
	[FBINDER_SEC_FINISH] = "finish",
	[FBINDER_SEC_HELD_DEVICE] = "held_device",
	[FBINDER_SEC_HELD_MODULE] = "held_module",
	[FBINDER_SEC_HELD_SHARED] = "held_shared",
	[FBINDER_SEC_ATOMIC_STATS] = "atomic_stats",
	[FBINDER_SEC_ATOMIC_MODULE] = "atomic_module",
	[FBINDER_SEC_ATOMIC_USER] = "atomic_user",
};

static int fbinder_sections_show(struct seq_file *m, void *unused)
{
	const struct fbinder_section_sums *sums;
	u64 count, cycles;
	int sec, cpu;

	for (sec = 0; sec < FBINDER_SEC_NR; sec++) {
		count = 0;
		cycles = 0;
		for_each_possible_cpu(cpu) {
			sums = per_cpu_ptr(&fbinder_section_sums, cpu);
			count += READ_ONCE(sums->count[sec]);
			cycles += READ_ONCE(sums->cycles[sec]);
		}
		seq_printf(m, "%s %llu %llu\n", fbinder_section_names[sec],
			   count, cycles);
	}
	return 0;
}

static int fbinder_sections_open(struct inode *inode, struct file *file)
{
	return single_open(file, fbinder_sections_show, NULL);
}

static ssize_t fbinder_sections_write(struct file *file, const char __user *buf,
				      size_t len, loff_t *ppos)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&fbinder_section_sums, cpu), 0,
		       sizeof(struct fbinder_section_sums));
	return len;
}

static const struct file_operations fbinder_sections_fops = {
	.owner = THIS_MODULE,
	.open = fbinder_sections_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = fbinder_sections_write,
	.release = single_release,
};

void fbinder_sections_debugfs(struct dentry *dir)
{
	debugfs_create_file("sections", 0644, dir, NULL, &fbinder_sections_fops);
}
