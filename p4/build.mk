# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# p4/: the C model of the INA ToR (librina_tor_model.a), rina-p4cfg, the
# generator of the behavioural model's runtime commands for a job and
# rack, and rina-tor. Their tests: selftests/tor/build.mk.

TOR_MODEL_SRCS	:= $(wildcard $(TOP)/p4/model/*.c) $(TOP)/core/agg.c
TOR_MODEL_HDRS	:= $(wildcard $(TOP)/p4/model/*.h) $(TOP)/core/slot.h \
	$(TOP)/core/wire.h $(TOP)/core/agg.h $(TOP)/include/uapi/linux/rina.h
# the model's own objects, and core/agg.o as librina builds it (the model
# library stays self-contained for whoever links it)
TOR_MODEL_OBJS	:= $(patsubst $(TOP)/%.c,$(OBJ)/p4model/%.o,\
	$(filter $(TOP)/p4/%,$(TOR_MODEL_SRCS))) $(OBJ)/core/agg.o
# TOR_MODEL_LIB (build/lib/librina_tor_model.a), TOR_TEST_DIR: top Makefile
TOR_CFLAGS	:= $(USER_CFLAGS) -I$(TOP)/p4/model

$(OBJ)/p4model/%.o: $(TOP)/%.c $(TOR_MODEL_HDRS)
	$(call cc-obj,$(TOR_CFLAGS))

$(TOR_MODEL_LIB): $(TOR_MODEL_OBJS)
	$(call ar-lib)

# p4cfg.o: the command generator, linked by rina-p4cfg, rina-tor and
# tor_ring; plan.o and jobfile.o come from librina_core.a.
P4CFG_OBJ	:= $(OBJ)/p4/cfg/p4cfg.o

$(OBJ)/p4/cfg/%.o: $(TOP)/p4/cfg/%.c
	$(call cc-obj,$(TOR_CFLAGS) -I$(TOP)/user/lib -MMD -MP)

-include $(P4CFG_OBJ:.o=.d) $(OBJ)/p4/cfg/rina-p4cfg.d

$(BIN)/rina-p4cfg: $(OBJ)/p4/cfg/rina-p4cfg.o $(P4CFG_OBJ) $(LIBRINA_CORE_A)
	$(call ld-prog)

ALL_TARGETS += $(TOR_MODEL_LIB) $(BIN)/rina-p4cfg

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

