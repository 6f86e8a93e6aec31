# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# p4/: the C model of the INA ToR (librina_tor_model.a), its packet-vector
# runner and fuzzer (selftests/tor/), and rina-p4cfg, the generator of the
# behavioural model's runtime commands for a job and rack.

TOR_MODEL_SRCS	:= $(wildcard $(TOP)/p4/model/*.c) $(TOP)/core/agg.c
TOR_MODEL_HDRS	:= $(wildcard $(TOP)/p4/model/*.h) $(TOP)/core/slot.h \
	$(TOP)/core/wire.h $(TOP)/core/agg.h $(TOP)/include/uapi/linux/rina.h
# the model's own objects, and core/agg.o as librina builds it (the model
# library stays self-contained for whoever links it)
TOR_MODEL_OBJS	:= $(patsubst $(TOP)/%.c,$(OBJ)/p4model/%.o,\
	$(filter $(TOP)/p4/%,$(TOR_MODEL_SRCS))) $(OBJ)/core/agg.o
TOR_MODEL_LIB	:= $(LIBDIR)/librina_tor_model.a
TOR_CFLAGS	:= $(USER_CFLAGS) -I$(TOP)/p4/model
TOR_TEST_DIR	:= $(BUILD)/selftests/tor

$(OBJ)/p4model/%.o: $(TOP)/%.c $(TOR_MODEL_HDRS)
	$(call cc-obj,$(TOR_CFLAGS))

$(TOR_MODEL_LIB): $(TOR_MODEL_OBJS)
	$(call ar-lib)

$(TOR_TEST_DIR)/tor_vectors: $(TOP)/selftests/tor/tor_vectors.c \
		$(TOP)/selftests/tor/vec_hex.h \
		$(TOR_MODEL_LIB) $(TOR_MODEL_HDRS)
	$(call cc-prog,$(TOR_CFLAGS),$< $(TOR_MODEL_LIB))

# libFuzzer + ASan/UBSan build of the whole model from source: the
# sanitizers must instrument every object, so this one recompiles the
# sources with clang instead of linking the libraries.
$(TOR_TEST_DIR)/fuzz_tor: $(TOP)/selftests/tor/fuzz_tor.c $(TOR_MODEL_SRCS) \
		$(TOR_MODEL_HDRS)
	$(call clang-fuzz,$(COMMON_CFLAGS) -O1 -I$(TOP)/p4/model \
		-fno-sanitize-recover=undefined,$< $(TOR_MODEL_SRCS))

# p4cfg.o: the command generator, linked by rina-p4cfg, rina-tor and
# tor_ring; plan.o and jobfile.o come from librina_core.a.
P4CFG_OBJ	:= $(OBJ)/p4/cfg/p4cfg.o

$(OBJ)/p4/cfg/%.o: $(TOP)/p4/cfg/%.c
	$(call cc-obj,$(TOR_CFLAGS) -I$(TOP)/user/lib -MMD -MP)

-include $(P4CFG_OBJ:.o=.d) $(OBJ)/p4/cfg/rina-p4cfg.d

$(BIN)/rina-p4cfg: $(OBJ)/p4/cfg/rina-p4cfg.o $(P4CFG_OBJ) $(LIBRINA_CORE_A)
	$(call ld-prog)

ALL_TARGETS += $(TOR_MODEL_LIB) $(TOR_TEST_DIR)/tor_vectors \
	$(TOR_TEST_DIR)/fuzz_tor $(BIN)/rina-p4cfg

$(TOR_TEST_DIR)/tor_ring: $(TOP)/selftests/tor/tor_ring.c $(P4CFG_OBJ) \
		$(TOR_MODEL_LIB) $(LIBRINA_CORE_A) $(TOR_MODEL_HDRS) \
		$(TOP)/p4/cfg/p4cfg.h $(TOP)/core/schedule.h $(TOP)/core/plan.h
	$(call cc-prog,$(TOR_CFLAGS) -I$(TOP)/p4/cfg,\
		$< $(P4CFG_OBJ) $(TOR_MODEL_LIB) $(LIBRINA_CORE_A))

ALL_TARGETS += $(TOR_TEST_DIR)/tor_ring

$(TOR_TEST_DIR)/p4_lockstep: $(TOP)/selftests/tor/p4_lockstep.c $(TOR_MODEL_HDRS)
	$(call cc-prog,$(TOR_CFLAGS),$<)

ALL_TARGETS += $(TOR_TEST_DIR)/p4_lockstep

# rina-tor: the software ToR (AF_PACKET + tc datapath around the model).
# rina-run starts build/bin/rina-tor (or $RINA_TOR) for every INA rack.
RINA_TOR_BIN	:= $(BIN)/rina-tor
RINA_TOR_TC_OBJ	:= $(BUILD)/tor/rina_tor_tc.bpf.o
RINA_TOR_TC_SKEL := $(BUILD)/include/rina_tor_tc.skel.h

$(RINA_TOR_TC_OBJ): $(TOP)/p4/tor/rina_tor_tc.bpf.c
	$(call bpf-obj,-target bpf -O2 -g -Wall -Werror \
		-I/usr/include/$(shell $(CC) -dumpmachine))

$(RINA_TOR_TC_SKEL): $(RINA_TOR_TC_OBJ)
	$(call gen-skel,rina_tor_tc)

$(RINA_TOR_BIN): $(TOP)/p4/tor/rina-tor.c $(P4CFG_OBJ) $(TOR_MODEL_LIB) \
		$(LIBRINA_CORE_A) $(TOR_MODEL_HDRS) $(TOP)/p4/cfg/p4cfg.h \
		$(TOP)/user/lib/jobfile.h $(RINA_TOR_TC_SKEL)
	$(call cc-prog,$(TOR_CFLAGS) -I$(TOP)/p4/cfg -I$(TOP)/user/lib,\
		$< $(P4CFG_OBJ) $(TOR_MODEL_LIB) $(LIBRINA_CORE_A),\
		-lbpf -lelf -lz)

ALL_TARGETS += $(RINA_TOR_BIN)

$(TOR_TEST_DIR)/tor_replay: $(TOP)/selftests/tor/tor_replay.c \
		$(TOP)/selftests/tor/vec_hex.h
	$(call cc-prog,$(USER_CFLAGS),$<)

ALL_TARGETS += $(TOR_TEST_DIR)/tor_replay

$(TOR_TEST_DIR)/tor_ctrl: $(TOP)/selftests/tor/tor_ctrl.c $(LIBRINA_CORE_A) \
		$(TOP)/core/plan.h $(TOP)/user/lib/jobfile.h
	$(call cc-prog,$(USER_CFLAGS) -I$(TOP)/user/lib,$< $(LIBRINA_CORE_A))

ALL_TARGETS += $(TOR_TEST_DIR)/tor_ctrl
