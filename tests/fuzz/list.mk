# SPDX-License-Identifier: MIT
#
# tests/fuzz/list.mk - the parcel fuzzer's seed replay and the fuzzers' coverage
# of the ABI (make check), and the sources of the fuzzer itself (fuzz.mk
# builds them; they are not tests).
# One file per line, sorted: the build fails on a test file this
# list misses, on a name with no file, and on a list out of order
# (tests/tests.mk, tests/README.md).

fuzz_HOST_TESTS := \
	fuzz_parcel_seeds.sh \
	fuzz_uapi_coverage.sh \
	# (end of the list: keep it sorted)

fuzz_SOURCES := \
	fuzz_parcel.c \
	gen_parcel_corpus.c \
	replay.c \
	# (end of the list: keep it sorted)
