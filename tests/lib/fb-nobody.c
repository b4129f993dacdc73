// SPDX-License-Identifier: MIT
/*
 * fb-nobody COMMAND [ARG...] - run COMMAND as the adversary of
 * docs/security.md (fbt_become_nobody(): uid/gid 65534, no capabilities,
 * RLIMIT_RTPRIO and RLIMIT_NICE 0, no_new_privs).  The VM suite runs every
 * test through it unless the test is listed as needing root
 * (VM_ROOT_TESTS in tests/tests.mk).
 */
#include <stdio.h>
#include <unistd.h>

#include "fbt.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: fb-nobody COMMAND [ARG...]\n");
		return 2;
	}
	fbt_become_nobody();
	execvp(argv[1], argv + 1);
	die("exec %s", argv[1]);
}
