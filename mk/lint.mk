# SPDX-License-Identifier: MIT
#
# make lint: checkpatch --strict (driver/, uapi/), sparse (C=2, every
# installed Debian kernel), cppcheck (user space) and the documents against
# the code (scripts/doc-check.py).  scripts/lint.sh says how;
# its last line is "lint: N findings" and it fails when N > 0.
.PHONY: lint
# deps-lint: sparse, cppcheck, linux-source-6.1 and all three kernels'
# headers (sparse runs on every kernel whose headers are installed).
lint: deps-lint
	@DEV_BUILD_ARGS='$(DEV_BUILD_ARGS)' scripts/lint.sh $(KERNEL)
