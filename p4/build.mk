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

$(OBJ)/p4model/%.o: $(TOP)/%.c $(TOR_MODEL_HDRS) $(SAN_STAMP)
	$(call cc-obj,$(TOR_CFLAGS))

$(TOR_MODEL_LIB): $(TOR_MODEL_OBJS)
	$(call ar-lib)

# p4cfg.o: the command generator, linked by rina-p4cfg, rina-tor and
# tor_ring; plan.o and jobfile.o come from librina_core.a (jobfile.h and
# secret.h: user/common, shared with librina).
P4CFG_OBJ	:= $(OBJ)/p4/cfg/p4cfg.o

$(OBJ)/p4/cfg/%.o: $(TOP)/p4/cfg/%.c $(SAN_STAMP)
	$(call cc-obj,$(TOR_CFLAGS) -I$(TOP)/user/common -MMD -MP)

-include $(P4CFG_OBJ:.o=.d) $(OBJ)/p4/cfg/rina-p4cfg.d

$(BIN)/rina-p4cfg: $(OBJ)/p4/cfg/rina-p4cfg.o $(P4CFG_OBJ) $(LIBRINA_CORE_A)
	$(call ld-prog,$(CORE_LDLIBS))

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

# its parts (p4/tor/tor.h): main, datapath, control, jobs, stats
RINA_TOR_OBJS	:= $(patsubst $(TOP)/%.c,$(OBJ)/%.o,$(wildcard \
	$(TOP)/p4/tor/rina-tor.c $(TOP)/p4/tor/tor_*.c))

# the datapath includes the tc program's skeleton, made first
$(RINA_TOR_OBJS): $(RINA_TOR_TC_SKEL)
$(OBJ)/p4/tor/%.o: $(TOP)/p4/tor/%.c $(SAN_STAMP)
	$(call cc-obj,$(TOR_CFLAGS) -I$(TOP)/p4/cfg -I$(TOP)/user/common \
		-MMD -MP)

-include $(RINA_TOR_OBJS:.o=.d)

$(RINA_TOR_BIN): $(RINA_TOR_OBJS) $(P4CFG_OBJ) $(TOR_MODEL_LIB) \
		$(LIBRINA_CORE_A)
	$(call ld-prog,-lbpf -lelf -lz $(CORE_LDLIBS))

ALL_TARGETS += $(RINA_TOR_BIN)

# The P4 program compiled for bmv2 (simple_switch): build/p4/rina_tor.json
# and its P4Info, once per change of a .p4 file. The compiler is $(P4C),
# else p4c-bm2-ss on PATH, else /opt/p4tools/bin (../shared/p4tools);
# without one the build says so in one line and the bmv2 tests skip.
# The compiler's output is kept in rina_tor.p4c.log: the tor_p4c test
# fails on any warning in it.
ifndef P4C
P4C		:= $(or $(shell command -v p4c-bm2-ss 2>/dev/null), \
	$(wildcard /opt/p4tools/bin/p4c-bm2-ss))
endif
P4C_FOUND	:= $(if $(strip $(P4C)),$(shell command -v $(P4C) 2>/dev/null))
P4_SRCS		:= $(wildcard $(TOP)/p4/*.p4)
P4_JSON		:= $(BUILD)/p4/rina_tor.json
P4_INFO		:= $(BUILD)/p4/rina_tor.p4info.txtpb

ifneq ($(P4C_FOUND),)
$(P4_JSON): $(P4_SRCS)
	$(call msg,P4C,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(P4C) --std p4-16 --arch v1model -o $@.tmp \
		--p4runtime-files $(P4_INFO) $(TOP)/p4/rina_tor.p4 \
		>$(BUILD)/p4/rina_tor.p4c.log 2>&1 || \
		{ cat $(BUILD)/p4/rina_tor.p4c.log; rm -f $@.tmp; exit 1; }
	$(Q)cat $(BUILD)/p4/rina_tor.p4c.log
	$(Q)echo "$(P4C)" >$(BUILD)/p4/rina_tor.p4c
	$(Q)mv $@.tmp $@

ALL_TARGETS += $(P4_JSON)
else
.PHONY: p4-json-skip
p4-json-skip:
	@echo "  SKIP     build/p4/rina_tor.json: no P4 compiler" \
		"($(or $(P4C),p4c-bm2-ss) not found): set P4C= or PATH," \
		"or run ../shared/p4tools/install.sh"

ALL_TARGETS += p4-json-skip
endif

# rina-tor-bmv2: the control plane of a bmv2 ToR (rina-run --tor bmv2), a
# Python program beside its module (p4/bmv2/): build/bin holds a link.
$(BIN)/rina-tor-bmv2: $(TOP)/p4/bmv2/rina-tor-bmv2 $(TOP)/p4/bmv2/rina_bmv2.py \
		$(TOP)/p4/bmv2/rina_ctrl_auth.py
	$(call msg,LN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)ln -sf $< $@

ALL_TARGETS += $(BIN)/rina-tor-bmv2

# make install: rina-tor-bmv2 reads its Python modules beside it and
# p4/model/configuration.h, p4/configuration.p4 and core/wire.h from the
# tree it runs from (counter names), so it is installed as that part of
# the tree under $(PREFIX)/lib/rina, linked from $(PREFIX)/bin; the
# compiled program goes to $(PREFIX)/share/rina/p4 (its default there).
TOR_LIBDIR := $(PREFIX)/lib/rina
.PHONY: install-tor
install: install-tor
install-tor: all
	install -d $(DESTDIR)$(TOR_LIBDIR)/p4/bmv2 \
		$(DESTDIR)$(TOR_LIBDIR)/p4/model $(DESTDIR)$(TOR_LIBDIR)/core \
		$(DESTDIR)$(PREFIX)/share/rina/p4 $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(TOP)/p4/bmv2/rina-tor-bmv2 \
		$(DESTDIR)$(TOR_LIBDIR)/p4/bmv2/
	install -m 644 $(TOP)/p4/bmv2/*.py $(DESTDIR)$(TOR_LIBDIR)/p4/bmv2/
	install -m 644 $(TOP)/p4/model/configuration.h \
		$(DESTDIR)$(TOR_LIBDIR)/p4/model/
	install -m 644 $(TOP)/p4/configuration.p4 $(DESTDIR)$(TOR_LIBDIR)/p4/
	install -m 644 $(TOP)/core/wire.h $(DESTDIR)$(TOR_LIBDIR)/core/
	ln -sf ../lib/rina/p4/bmv2/rina-tor-bmv2 \
		$(DESTDIR)$(PREFIX)/bin/rina-tor-bmv2
	for f in $(P4_JSON) $(P4_INFO); do [ ! -e "$$f" ] || \
		install -m 644 "$$f" $(DESTDIR)$(PREFIX)/share/rina/p4/; done

# The TNA (Tofino 1) version of the program, p4/tna/, compiled by the open
# Tofino compiler (../shared/p4tools-tofino: a driver named p4c beside
# p4c-barefoot). The compiler is $(P4C_TOFINO), else the p4c next to
# p4c-barefoot on PATH (the bmv2 tree has a p4c too), else
# /opt/p4tools-tofino/bin/p4c. A plain make builds it when the compiler
# is there and says it skipped it when not; TOFINO=0 leaves it out (a
# compile takes 6-9 minutes of one core, once per change of a source).
# make tofino builds build/p4/tna/ (tofino.bin, context.json, bfrt.json,
# the resource logs in pipe/logs/), make tofino-report prints the
# resource report and writes it into Documentation/tofino.md. Without a
# compiler both say "skipped"; the test (tor_tofino) asserts on
# build/p4/tna through make tofino, so a check compiles it once.
TOFINO		?= 1
ifndef P4C_TOFINO
P4C_TOFINO	:= $(or $(shell d=$$(command -v p4c-barefoot 2>/dev/null) && \
	[ -x "$${d%/*}/p4c" ] && echo "$${d%/*}/p4c"), \
	$(wildcard /opt/p4tools-tofino/bin/p4c))
endif
P4C_TOFINO_FOUND := $(if $(strip $(P4C_TOFINO)),\
	$(shell command -v $(P4C_TOFINO) 2>/dev/null))
TNA_SRCS	:= $(wildcard $(TOP)/p4/tna/*.p4) $(TOP)/p4/configuration.p4 \
	$(TOP)/p4/headers.p4 $(TOP)/p4/repeat.p4
TNA_OUT		:= $(BUILD)/p4/tna
TNA_LOG		:= $(TNA_OUT)/p4c.log
TNA_REPORT	:= $(TOP)/p4/tna/resources.py

.PHONY: tofino tofino-report
ifneq ($(strip $(P4C_TOFINO_FOUND)),)
# The compile, once per change of a source: p4c-barefoot's and bfas's
# output in p4c.log, the exit status in p4c.rc (the resource logs are
# written even when the assembler refuses a program that does not fit).
$(TNA_LOG): $(TNA_SRCS)
	$(call msg,P4C-TNA,$(TNA_OUT))
	$(Q)rm -rf $(TNA_OUT) && mkdir -p $(TNA_OUT)
	$(Q)$(P4C_TOFINO) --target tofino --arch tna -g -o $(TNA_OUT) \
		$(TOP)/p4/tna/rina_tor_tna.p4 >$@.tmp 2>&1; \
		echo $$? >$(TNA_OUT)/p4c.rc; mv $@.tmp $@

# tofino fails unless the program compiled and assembled (tofino.bin)
tofino: $(TNA_LOG)
	$(Q)if [ "$$(cat $(TNA_OUT)/p4c.rc)" != 0 ] || \
	    [ ! -s $(TNA_OUT)/pipe/tofino.bin ]; then \
		grep -E 'error' $(TNA_LOG) | head -20; \
		echo "tofino: $(TNA_OUT): no binary (see $(TNA_LOG))"; \
		exit 1; \
	fi

tofino-report: $(TNA_LOG)
	$(Q)python3 $(TNA_REPORT) --doc $(TOP)/Documentation/tofino.md \
		$(TNA_OUT)
else
tofino tofino-report:
	@echo "  SKIP     $@: skipped: no Tofino P4 compiler" \
		"($(or $(P4C_TOFINO),p4c beside p4c-barefoot) not found):" \
		"set P4C_TOFINO= or PATH, or run" \
		"../shared/p4tools-tofino/install.sh"
endif

ifneq ($(TOFINO),0)
ALL_TARGETS += tofino
endif
