# SPDX-License-Identifier: MIT
#
# tests/fuzz/fuzz.mk - fuzz targets (libFuzzer, clang) for libbinderlite.
#
# Include it from the top-level Makefile, or run it alone from the repo top:
#   make -f tests/fuzz/fuzz.mk fuzz                 # FUZZ_TIME seconds (60)
#   make -f tests/fuzz/fuzz.mk fuzz FUZZ_TIME=600
#   make -f tests/fuzz/fuzz.mk fuzz-regress         # replay the seed corpus
#   make -f tests/fuzz/fuzz.mk fuzz-corpus          # regenerate the seeds
# `fuzz` fails on any crash, sanitizer report (ASan, UBSan) or timeout.
# New inputs go to build/fuzz/corpus/parcel (the committed seeds in
# tests/fuzz/corpus/parcel stay as they are); a crashing input is saved in
# build/fuzz/artifacts/.  Needs clang and libclang-rt-14-dev: the fuzz-deps
# step installs the latter with apt-get when run as root.

ifeq ($(notdir $(firstword $(MAKEFILE_LIST))),fuzz.mk)
.DEFAULT_GOAL := fuzz
endif

ifndef BL_A
include libbinderlite/lib.mk
endif

FUZZ_CC		?= clang
FUZZ_TIME	?= 60
FUZZ_DIR	:= build/fuzz
FUZZ_CFLAGS	:= -std=c11 -Wall -Wextra -Werror -O1 -g \
		   -fsanitize=fuzzer,address,undefined \
		   -fno-sanitize-recover=all -fno-omit-frame-pointer \
		   -I uapi -I libbinderlite/include
FUZZ_PARCEL	:= $(FUZZ_DIR)/fuzz_parcel
FUZZ_SEEDS	:= tests/fuzz/corpus/parcel
FUZZ_ENV	:= ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 \
		   UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

.PHONY: fuzz fuzz-parcel fuzz-build fuzz-deps fuzz-regress fuzz-corpus

fuzz: fuzz-parcel

fuzz-build: $(FUZZ_PARCEL)

fuzz-deps:
	@tests/fuzz/ensure-deps.sh

$(FUZZ_DIR)/.deps-ok: tests/fuzz/ensure-deps.sh
	@mkdir -p $(@D)
	FUZZ_CC=$(FUZZ_CC) tests/fuzz/ensure-deps.sh
	@touch $@

$(FUZZ_PARCEL): tests/fuzz/fuzz_parcel.c tests/fuzz/parcel_input.h \
		$(BL_SRCS) $(BL_HDRS) $(FUZZ_DIR)/.deps-ok
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_parcel.c $(BL_SRCS)

fuzz-parcel: $(FUZZ_PARCEL)
	@mkdir -p $(FUZZ_DIR)/corpus/parcel $(FUZZ_DIR)/artifacts
	$(FUZZ_ENV) $(FUZZ_PARCEL) -max_total_time=$(FUZZ_TIME) -timeout=10 \
	    -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_DIR)/artifacts/ \
	    $(FUZZ_DIR)/corpus/parcel $(FUZZ_SEEDS)

fuzz-regress: $(FUZZ_PARCEL)
	$(FUZZ_ENV) $(FUZZ_PARCEL) -runs=0 $(FUZZ_SEEDS)

$(FUZZ_DIR)/gen_parcel_corpus: tests/fuzz/gen_parcel_corpus.c \
		tests/fuzz/parcel_input.h $(BL_A)
	@mkdir -p $(@D)
	$(CC) -std=c11 -Wall -Wextra -Werror -O1 -g -I uapi \
	    -I libbinderlite/include -o $@ $< $(BL_A)

fuzz-corpus: $(FUZZ_DIR)/gen_parcel_corpus
	@mkdir -p $(FUZZ_SEEDS)
	$< $(FUZZ_SEEDS)
