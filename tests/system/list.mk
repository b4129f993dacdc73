# SPDX-License-Identifier: MIT
#
# tests/system/list.mk - the shipped programs as a user runs them: the examples, the
# tools, valgrind over the user code (VM), and make install (host).
# One file per line, sorted: the build fails on a test file this
# list misses, on a name with no file, and on a list out of order
# (tests/tests.mk, tests/README.md).

system_VM_TESTS := \
	example_bulk.sh \
	example_calculator.sh \
	example_deathwatch.sh \
	example_echo.sh \
	example_threadpool.sh \
	fbinstance_cli.sh \
	fbservice_cli.sh \
	fbstat_output.sh \
	fbstat_unprivileged.c \
	tool_convention.sh \
	tracing_recipes.c \
	valgrind_user.sh \
	# (end of the list: keep it sorted)

system_HOST_TESTS := \
	install.sh \
	# (end of the list: keep it sorted)
