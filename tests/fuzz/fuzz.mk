# SPDX-License-Identifier: MIT
#
# tests/fuzz/fuzz.mk - fuzz targets (libFuzzer, clang) for libbinderlite.
#
# Included by tests/tests.mk:
#   make fuzz                       # every target of FUZZ_TARGETS, FUZZ_TIME
#                                   # seconds each (60), starting from the
#                                   # committed seeds and FUZZ_CORPUS
#   make fuzz FUZZ_TIME=600
#   make fuzz FUZZ_CORPUS=DIR       # keep the grown corpus in DIR/<target>
#                                   # (CI: FBINDER_CACHE_DIR/fuzz-corpus)
#   make fuzz-parcel                # one target
#   make check                      # replays the seed corpus (seconds): below
#   make fuzz-regress               # replay the seeds with the libFuzzer build
#   make fuzz-corpus                # regenerate the parcel seeds
# `fuzz` fails on any crash, sanitizer report (ASan, UBSan) or timeout, and
# prints libFuzzer's final statistics (executions, coverage: the "DONE cov:"
# line) of each target.  New inputs go to FUZZ_CORPUS/<target> (default
# build/fuzz/corpus; the committed seeds in tests/fuzz/corpus/<target> stay as
# they are); a crashing input is saved in build/fuzz/artifacts/, and belongs
# in tests/fuzz/corpus/<target> once fixed.  Needs clang and
# libclang-rt-14-dev: the fuzz-deps step installs them (scripts/deps.sh
# fuzz; SKIP_DEPS=1 skips it).
#
# A target is tests/fuzz/fuzz_<name>.c (LLVMFuzzerTestOneInput) compiled
# with libbinderlite's sources, seeds in tests/fuzz/corpus/<name>; add its
# name to FUZZ_TARGETS.
#
# make check: tests/fuzz/fuzz_parcel_seeds.sh, one host shell test (one
# pass or one failure in the summary line; listed in list.mk), runs the same
# target once on each seed, built with gcc, ASan and UBSan and the small
# main of replay.c instead of libFuzzer (build/fuzz/replay_parcel), so
# make check needs no clang.

FUZZ_CC		?= clang
FUZZ_TIME	?= 60
FUZZ_TARGETS	:= parcel
FUZZ_DIR	:= build/fuzz
FUZZ_CORPUS	?= $(FUZZ_DIR)/corpus
FUZZ_CFLAGS	:= $(USER_CFLAGS) -O1 -fsanitize=fuzzer,address,undefined \
		   -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_PARCEL	:= $(FUZZ_DIR)/fuzz_parcel
FUZZ_SEEDS	:= tests/fuzz/corpus/parcel
FUZZ_ENV	:= ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 \
		   UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

.PHONY: fuzz fuzz-build fuzz-deps fuzz-regress fuzz-corpus fuzz-replay \
	$(addprefix fuzz-,$(FUZZ_TARGETS))

fuzz: $(addprefix fuzz-,$(FUZZ_TARGETS))

fuzz-build: $(addprefix $(FUZZ_DIR)/fuzz_,$(FUZZ_TARGETS))

# clang and libFuzzer's runtime (no kernel headers needed here)
fuzz-deps:
	@$(if $(SKIP_DEPS),true,scripts/deps.sh -k none fuzz)

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/parcel_input.h \
		$(BL_SRCS) $(BL_HDRS) | fuzz-deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(BL_SRCS)

# The grown corpus first, then the seeds: libFuzzer adds new inputs to the
# first directory only.  Every input of both is run before fuzzing starts,
# so a cached corpus is replayed against the current code.  A corpus grown
# past FUZZ_CORPUS_MAX inputs is first merged down to the inputs that add
# coverage, so a cache that every CI run feeds stays small.
FUZZ_CORPUS_MAX	?= 4000

$(addprefix fuzz-,$(FUZZ_TARGETS)): fuzz-%: $(FUZZ_DIR)/fuzz_%
	@mkdir -p $(FUZZ_CORPUS)/$* $(FUZZ_DIR)/artifacts
	@if [ "$$(ls $(FUZZ_CORPUS)/$* | wc -l)" -gt $(FUZZ_CORPUS_MAX) ]; then \
		rm -rf $(FUZZ_CORPUS)/$*.merged && mkdir $(FUZZ_CORPUS)/$*.merged && \
		$(FUZZ_ENV) $< -merge=1 $(FUZZ_CORPUS)/$*.merged $(FUZZ_CORPUS)/$* \
			>$(FUZZ_DIR)/merge-$*.log 2>&1 && \
		rm -rf $(FUZZ_CORPUS)/$* && mv $(FUZZ_CORPUS)/$*.merged $(FUZZ_CORPUS)/$*; \
	fi
	@echo "fuzz-$*: $(FUZZ_TIME) s from $$(ls $(FUZZ_CORPUS)/$* | wc -l) corpus inputs" \
	     "and $$(ls tests/fuzz/corpus/$* | wc -l) seeds"
	$(FUZZ_ENV) $< -max_total_time=$(FUZZ_TIME) -timeout=10 \
	    -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_DIR)/artifacts/ \
	    $(FUZZ_CORPUS)/$* tests/fuzz/corpus/$*

fuzz-regress: $(FUZZ_PARCEL)
	$(FUZZ_ENV) $(FUZZ_PARCEL) -runs=0 $(FUZZ_SEEDS)

$(FUZZ_DIR)/gen_parcel_corpus: tests/fuzz/gen_parcel_corpus.c \
		tests/fuzz/parcel_input.h $(BL_A)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -O1 -o $@ $< $(BL_A)

fuzz-corpus: $(FUZZ_DIR)/gen_parcel_corpus
	@mkdir -p $(FUZZ_SEEDS)
	$< $(FUZZ_SEEDS)

# ---- make check: the seed replay ------------------------------------------
FUZZ_REPLAY	:= $(FUZZ_DIR)/replay_parcel
# gcc 12 (not clang) takes the malloc'ed data fuzz_parcel.c hands to
# bl_reader_init for maybe-uninitialized when it is 0 bytes long: a false
# positive, not an error here.
FUZZ_REPLAY_CFLAGS := $(USER_CFLAGS) -Wno-maybe-uninitialized -O1 \
		   -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer

HOST_SH_DEPS	+= $(FUZZ_REPLAY)

$(FUZZ_REPLAY): tests/fuzz/replay.c tests/fuzz/fuzz_parcel.c tests/fuzz/parcel_input.h \
		$(BL_SRCS) $(BL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(FUZZ_REPLAY_CFLAGS) -o $@ tests/fuzz/replay.c tests/fuzz/fuzz_parcel.c \
		$(BL_SRCS) -pthread

fuzz-replay: $(FUZZ_REPLAY)
	bash tests/fuzz/fuzz_parcel_seeds.sh
