# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Host unit tests of the shared core and librina (KTAP binaries), and the
# header-parser fuzz target.

# SELFTEST_BIN (build/selftests): top Makefile. The test directories'
# own fragments: selftests/*/build.mk.
SELFTEST_CORE := $(SELFTEST_BIN)/test_core $(SELFTEST_BIN)/test_jobfile \
	$(SELFTEST_BIN)/test_agent $(SELFTEST_BIN)/test_cc \
	$(SELFTEST_BIN)/test_ctrl_auth $(SELFTEST_BIN)/test_ring_member \
	$(SELFTEST_BIN)/test_engine_cfg $(SELFTEST_BIN)/test_nodelist \
	$(SELFTEST_BIN)/test_ina_worker
SELFTEST_LIB := $(SELFTEST_BIN)/test_allreduce $(SELFTEST_BIN)/test_async \
	$(SELFTEST_BIN)/test_sysctl_dflt
ALL_TARGETS += $(SELFTEST_CORE) $(SELFTEST_LIB) $(SELFTEST_BIN)/fuzz_hdr

TEST_CFLAGS := -O2 $(COMMON_CFLAGS) $(SAN_CFLAGS) -I$(TOP)/user/include \
	-I$(TOP)/user/lib -I$(TOP)/user/common

$(SELFTEST_BIN)/test_%: $(TOP)/selftests/core/test_%.c $(LIBRINA_A) \
		$(TOP)/selftests/ktap.h
	$(call cc-prog,$(TEST_CFLAGS),$< $(LIBRINA_A),$(RINA_LDLIBS))

$(SELFTEST_BIN)/test_%: $(TOP)/selftests/lib/test_%.c $(LIBRINA_A) \
		$(TOP)/selftests/ktap.h
	$(call cc-prog,$(TEST_CFLAGS),$< $(LIBRINA_A),$(RINA_LDLIBS))

# One rank of selftests/net/test_lifecycle.sh (run under rina-run).
ALL_TARGETS += $(SELFTEST_BIN)/lifecycle
$(SELFTEST_BIN)/lifecycle: $(TOP)/selftests/lib/lifecycle.c $(LIBRINA_A)
	$(call cc-prog,$(TEST_CFLAGS),$< $(LIBRINA_A),$(RINA_LDLIBS))

# libFuzzer target for the one header validator and the job-file parser;
# built from source with clang's sanitizers, which must instrument every
# object, instead of linking librina_core.a.
$(SELFTEST_BIN)/fuzz_hdr: $(TOP)/selftests/core/fuzz_hdr.c \
		$(TOP)/core/wire.h $(TOP)/user/common/jobfile.c \
		$(TOP)/core/plan.c $(TOP)/user/common/secret.c
	$(call clang-fuzz,-g -O1 -I$(TOP)/include/uapi -I$(TOP)/core \
		-I$(TOP)/user/common -I$(TOP)/user/include -D_GNU_SOURCE,\
		$< $(TOP)/user/common/jobfile.c $(TOP)/core/plan.c \
		$(TOP)/user/common/secret.c $(CORE_LDLIBS))

# libFuzzer target for what librina receives: every payload type into
# the agent core and a ring member, control messages with and without a
# valid MAC (selftests/core/fuzz_rx.c); the whole core from source.
ALL_TARGETS += $(SELFTEST_BIN)/fuzz_rx
$(SELFTEST_BIN)/fuzz_rx: $(TOP)/selftests/core/fuzz_rx.c $(CORE_SRC_PATHS) \
		$(wildcard $(TOP)/core/*.h) $(TOP)/user/common/secret.c
	$(call clang-fuzz,$(COMMON_CFLAGS) -O1 -I$(TOP)/user/common \
		-fno-sanitize-recover=undefined,$(filter %.c,$^) \
		$(CORE_LDLIBS))

# An on-path corrupter preloaded into one rank by
# selftests/net/test_bench_check.sh.
ALL_TARGETS += $(SELFTEST_BIN)/rx_corrupt.so
$(SELFTEST_BIN)/rx_corrupt.so: $(TOP)/selftests/net/rx_corrupt.c \
		$(TOP)/selftests/net/rx_shim.h
	$(call cc-prog,-O2 -fPIC -shared $(COMMON_CFLAGS),$<,-ldl)

# Loses one chunk's results from an INA ToR, preloaded into a rack's
# ranks by selftests/net/test_tor_failover.sh.
ALL_TARGETS += $(SELFTEST_BIN)/rx_drop.so
$(SELFTEST_BIN)/rx_drop.so: $(TOP)/selftests/net/rx_drop.c \
		$(TOP)/selftests/net/rx_shim.h
	$(call cc-prog,-O2 -fPIC -shared $(COMMON_CFLAGS),$<,-ldl)

# Kills an INA ToR at a fixed point of a call, preloaded into a rank of
# its rack by selftests/net/test_tor_failover.sh.
ALL_TARGETS += $(SELFTEST_BIN)/rx_kill.so
$(SELFTEST_BIN)/rx_kill.so: $(TOP)/selftests/net/rx_kill.c \
		$(TOP)/selftests/net/rx_shim.h
	$(call cc-prog,-O2 -fPIC -shared $(COMMON_CFLAGS),$<,-ldl)

# The send order of one rank's ring data, preloaded by
# selftests/net/test_shaped.sh.
ALL_TARGETS += $(SELFTEST_BIN)/tx_log.so
$(SELFTEST_BIN)/tx_log.so: $(TOP)/selftests/net/tx_log.c
	$(call cc-prog,-O2 -fPIC -shared $(COMMON_CFLAGS),$<,-ldl)

# A bounded flood of forged data at one port, for
# selftests/net/flood_bench.sh (issue 49).
ALL_TARGETS += $(SELFTEST_BIN)/flood
$(SELFTEST_BIN)/flood: $(TOP)/selftests/net/flood.c
	$(call cc-prog,-O2 $(COMMON_CFLAGS),$<)

# Reorders received datagrams, preloaded into every rank by the soak
# (scripts/soak.py).
ALL_TARGETS += $(SELFTEST_BIN)/rx_reorder.so
$(SELFTEST_BIN)/rx_reorder.so: $(TOP)/selftests/net/rx_reorder.c \
		$(TOP)/selftests/net/rx_shim.h
	$(call cc-prog,-O2 -fPIC -shared $(COMMON_CFLAGS),$<,-ldl)

# libFuzzer target for rinactl job gen's input parsers: Slurm host
# lists, hostfile and rack-map lines, SLURM_TASKS_PER_NODE
# (selftests/core/fuzz_jobgen.c), from source like fuzz_hdr.
ALL_TARGETS += $(SELFTEST_BIN)/fuzz_jobgen
FUZZ_JOBGEN_SRCS := $(TOP)/selftests/core/fuzz_jobgen.c \
	$(TOP)/user/common/nodelist.c $(TOP)/user/common/hostfile.c
$(SELFTEST_BIN)/fuzz_jobgen: $(FUZZ_JOBGEN_SRCS) \
		$(TOP)/user/common/nodelist.h $(TOP)/user/common/hostfile.h
	$(call clang-fuzz,$(COMMON_CFLAGS) -O1 -I$(TOP)/user/common \
		-fno-sanitize-recover=undefined,$(FUZZ_JOBGEN_SRCS))
