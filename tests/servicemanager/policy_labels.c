// SPDX-License-Identifier: MIT
/*
 * policy_labels.c - fb-servicemanager's policy rules on the caller's
 * security label ("allow UID NAME label=LABEL", label=PREFIX*): the
 * manager asks the driver for its callers' labels, and a rule with a
 * label allows exactly the callers of that label (or prefix), with its
 * uid; a rule with another label refuses; a rule without a label still
 * takes anyone of its uid.  The label is the one the services' own
 * /proc/self/attr/current shows (every process of the VM shares it).
 * Where no LSM provides labels, the manager gets an empty one, which no
 * label rule matches: the label rules refuse, the others still allow.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fbt_bl.h"
#include "fbt.h"
#include "fbt_sm.h"

/* Registers name as uid; the service's pid is kept in *pids. */
static int add_as(const char *name, uid_t uid, pid_t **pids)
{
	int ret;
	pid_t pid = fbt_sm_service_start(name, uid, &ret);

	if (pid)
		*(*pids)++ = pid;
	return ret;
}

int main(void)
{
	static const char *const args[] = { "-p", "policy", NULL };
	pid_t pids[16], *next = pids, *p, mgr;
	char label[512];
	bool have;
	FILE *f;
	int ok;

	alarm(60);
	fbt_own_label(label, sizeof(label));
	have = label[0] != '\0';
	printf("# the services' label: '%s'%s\n", label,
	       have ? "" : " (no LSM provides one: every label rule refuses)");
	f = fopen("policy", "w");
	if (!f)
		die("policy");
	/* without a label of our own, rules that would name it name another */
	fprintf(f, "allow * lbl.exact label=%s\n", have ? label : "unconfined");
	fprintf(f, "allow * lbl.prefix.* label=%.1s*\n", have ? label : "u");
	fprintf(f, "allow * lbl.other label=no_such_label_t\n");
	fprintf(f, "allow 1000 lbl.uid label=%s\n", have ? label : "unconfined");
	fprintf(f, "allow * plain.*\n");
	if (fclose(f))
		die("policy");
	mgr = fbt_sm_manager_start(args);

	ok = have ? 0 : -EPERM;
	CHECK(add_as("lbl.exact", 1000, &next) == ok, "the exact label: want %d", ok);
	CHECK(add_as("lbl.prefix.a", 1001, &next) == ok, "the label's prefix: want %d", ok);
	CHECK(add_as("lbl.other", 1000, &next) == -EPERM, "another label: refused");
	CHECK(add_as("lbl.uid", 1001, &next) == -EPERM,
	      "the label, another uid than the rule's: refused");
	CHECK(add_as("lbl.uid", 1000, &next) == ok, "the label and the rule's uid: want %d",
	      ok);
	CHECK(add_as("plain.x", 1001, &next) == 0, "a rule without a label");

	CHECK(fbt_sm_manager_stop(mgr) == 0, "manager exits 0 on SIGTERM");
	for (p = pids; p < next; p++)
		fbt_bl_kill(*p);
	return fbt_done();
}
