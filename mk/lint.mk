# SPDX-License-Identifier: MIT
#
# make lint: checkpatch --strict (driver/, uapi/), sparse (C=2, every
# installed Debian kernel) and cppcheck (user space).  tools/lint.sh says how;
# its last line is "lint: N findings" and it fails when N > 0.
.PHONY: lint
lint:
	@tools/lint.sh $(KERNEL)
