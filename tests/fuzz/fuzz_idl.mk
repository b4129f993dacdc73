# SPDX-License-Identifier: MIT
#
# tests/fuzz/fuzz_idl.mk - fuzz targets for the dispatch fbidl generates,
# one per test interface (tests/idl/NAME.fbidl, NAME in FUZZ_IDL_NAMES):
# tests/fuzz/fuzz_idl.c built with -DFZ_NAME.  Included by tests/tests.mk
# after fuzz.mk, whose variables it uses.
#   make fuzz-idl                   each target for FUZZ_TIME seconds (60)
#   make check                      replays tests/fuzz/corpus/idl/NAME
#                                   (fuzz_idl_seeds.sh, gcc + ASan + UBSan)
#   make fuzz-idl-corpus            regenerates the seeds (gen_idl_corpus.c)
# New inputs go to FUZZ_CORPUS/idl-NAME, crashes to build/fuzz/artifacts/.

FUZZ_IDL_NAMES	:= types versioned versioned_v1
FUZZ_IDL_SEEDS	:= tests/fuzz/corpus/idl
FUZZ_IDL_GEN	:= $(BUILD)/idl/types.c $(BUILD)/idl/versioned.c $(BUILD)/idl/versioned_v1.c
FUZZ_IDL_HDRS	:= $(FUZZ_IDL_GEN:.c=.h)
# $(call fuzz_idl_define,NAME): -DFZ_NAME
fuzz_idl_define	= -DFZ_$(shell echo $(1) | tr a-z A-Z)

FUZZ_IDL_BINS	:= $(addprefix $(FUZZ_DIR)/fuzz_idl_,$(FUZZ_IDL_NAMES))
FUZZ_IDL_REPLAY	:= $(addprefix $(FUZZ_DIR)/replay_idl_,$(FUZZ_IDL_NAMES))

.PHONY: fuzz-idl fuzz-idl-corpus
fuzz: fuzz-idl

$(FUZZ_DIR)/fuzz_idl_%: tests/fuzz/fuzz_idl.c $(FUZZ_IDL_GEN) $(FUZZ_IDL_HDRS) \
		$(BL_SRCS) $(BL_HDRS) | fuzz-deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(call fuzz_idl_define,$*) -I $(BUILD)/idl -o $@ \
		tests/fuzz/fuzz_idl.c $(FUZZ_IDL_GEN) $(BL_SRCS)

fuzz-idl: $(FUZZ_IDL_BINS)
	@mkdir -p $(FUZZ_DIR)/artifacts
	@set -e; for n in $(FUZZ_IDL_NAMES); do \
		mkdir -p $(FUZZ_CORPUS)/idl-$$n; \
		echo "  FUZZ    idl $$n ($(FUZZ_TIME) s)"; \
		$(FUZZ_ENV) $(FUZZ_DIR)/fuzz_idl_$$n -max_total_time=$(FUZZ_TIME) -timeout=10 \
		    -rss_limit_mb=2048 -print_final_stats=1 \
		    -artifact_prefix=$(FUZZ_DIR)/artifacts/idl-$$n- \
		    $(FUZZ_CORPUS)/idl-$$n $(FUZZ_IDL_SEEDS)/$$n; \
	done

$(FUZZ_DIR)/gen_idl_corpus: tests/fuzz/gen_idl_corpus.c $(FUZZ_IDL_GEN) $(FUZZ_IDL_HDRS) $(BL_A)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -O1 -I $(BUILD)/idl -o $@ $< $(BUILD)/idl/types.c \
		$(BUILD)/idl/versioned.c $(BL_A)

fuzz-idl-corpus: $(FUZZ_DIR)/gen_idl_corpus
	$< $(FUZZ_IDL_SEEDS)

# ---- make check: the seed replay ------------------------------------------
HOST_SH_DEPS	+= $(FUZZ_IDL_REPLAY)

$(FUZZ_DIR)/replay_idl_%: tests/fuzz/replay.c tests/fuzz/fuzz_idl.c $(FUZZ_IDL_GEN) \
		$(FUZZ_IDL_HDRS) $(BL_SRCS) $(BL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(FUZZ_REPLAY_CFLAGS) $(call fuzz_idl_define,$*) -I $(BUILD)/idl -o $@ \
		tests/fuzz/replay.c tests/fuzz/fuzz_idl.c $(FUZZ_IDL_GEN) $(BL_SRCS) -pthread
