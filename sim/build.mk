# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# sim/: rina-sim, the packet-level ns-3 simulation of Rina and its
# baselines (Documentation/simulator.md), and `make sim`, the sweeps that
# draw Documentation/evaluation.md's figures into build/sim/.
#
# The protocol core (core/) and the ToR model (p4/model) are compiled
# again as C for the simulator, with its larger limits: 1024 ranks, a
# ToR pass of up to 1024 elements and a pool sized for one job.

NS3_MODULES	:= ns3-core ns3-network ns3-point-to-point
NS3_OK		:= $(shell pkg-config --exists $(NS3_MODULES) 2>/dev/null && echo y)
# Debian's ns3-core.pc carries a stray "-I/usr\;"; keep -I and -D only.
NS3_CFLAGS	:= $(filter -I/usr/include% -D%,$(shell pkg-config --cflags \
	$(NS3_MODULES) 2>/dev/null))
NS3_LIBS	:= $(filter -l% -L%,$(shell pkg-config --libs $(NS3_MODULES) \
	2>/dev/null))

SIM_DEFS	:= -DRINA_MAX_RANKS=1024 -DRINA_TOR_ELEMS=1024 \
	-DRINA_TOR_POOL_SIZE=1024
# The core's sources as core/sources.mk names them (CORE_SRC_PATHS: the
# top Makefile): the agent's and the data-path engines (the simulator's
# plain ring member is an adapter of one, sim/ring_member_host.cc), the
# ToR model's and rina-p4cfg's table layout.
SIM_CSRCS	:= $(CORE_SRC_PATHS) $(TOP)/p4/cfg/p4cfg.c \
	$(wildcard $(TOP)/p4/model/*.c)
SIM_COBJS	:= $(patsubst $(TOP)/%.c,$(OBJ)/sim/%.o,$(SIM_CSRCS))
SIM_CHDRS	:= $(wildcard $(TOP)/core/*.h) $(wildcard $(TOP)/p4/model/*.h) \
	$(TOP)/p4/cfg/p4cfg.h $(TOP)/include/uapi/linux/rina.h
SIM_CCSRCS	:= $(wildcard $(TOP)/sim/*.cc)
SIM_CCOBJS	:= $(patsubst $(TOP)/%.cc,$(OBJ)/sim/%.o,$(SIM_CCSRCS))
SIM_INC		:= -I$(TOP)/include/uapi -I$(TOP)/include -I$(TOP)/core \
	-I$(TOP)/p4/model -I$(TOP)/p4/cfg
SIM_BIN		:= $(BIN)/rina-sim

.PHONY: sim

ifeq ($(NS3_OK),y)

$(OBJ)/sim/%.o: $(TOP)/%.c $(SIM_CHDRS) $(SAN_STAMP)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(USER_CFLAGS) $(SIM_DEFS) $(SIM_INC) -c $< -o $@

$(OBJ)/sim/sim/%.o: $(TOP)/sim/%.cc $(TOP)/sim/sim.h $(SIM_CHDRS) \
		$(SAN_STAMP)
	$(call msg,CXX,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)g++ -std=c++17 -O2 -g -Wall -Werror -Wno-unused-parameter \
		$(SAN_CFLAGS) $(SIM_DEFS) $(SIM_INC) $(NS3_CFLAGS) -c $< -o $@

$(SIM_BIN): $(SIM_CCOBJS) $(SIM_COBJS)
	$(call msg,LD,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)g++ $(SAN_CFLAGS) -o $@ $(filter %.o,$^) $(NS3_LIBS)

ALL_TARGETS += $(SIM_BIN)

sim: $(SIM_BIN)
	$(Q)$(TOP)/sim/sweep.sh $(BUILD)/sim

else

$(info rina-sim: skipped: pkg-config finds no ns-3 ($(NS3_MODULES)); install libns3-dev)
sim:
	@echo "rina-sim: ns-3 not found by pkg-config ($(NS3_MODULES)): install libns3-dev"

endif
