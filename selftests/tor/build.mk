# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The ToR's tests: the model's packet-vector runner and fuzzer, the ring
# emulation through the model (core's engines as its hosts), the P4/C
# constant lock-step check, rina-tor's control protocol on the model
# (tor_control_test), and the
# replay and control clients that test_rina_tor.sh drives against
# rina-tor (p4/build.mk builds the model, p4cfg.o and rina-tor).

$(TOR_TEST_DIR)/tor_vectors: $(TOP)/selftests/tor/tor_vectors.c \
		$(TOP)/selftests/tor/vec_hex.h $(TOP)/selftests/ktap.h \
		$(TOR_MODEL_LIB) $$(TOR_MODEL_HDRS)
	$(call cc-prog,$(TOR_CFLAGS),$< $(TOR_MODEL_LIB))

ALL_TARGETS += $(TOR_TEST_DIR)/tor_vectors

# libFuzzer + ASan/UBSan build of the whole model from source: the
# sanitizers must instrument every object, so this one recompiles the
# sources with clang instead of linking the libraries.
$(TOR_TEST_DIR)/fuzz_tor: $(TOP)/selftests/tor/fuzz_tor.c $$(TOR_MODEL_SRCS) \
		$$(TOR_MODEL_HDRS)
	$(call clang-fuzz,$(COMMON_CFLAGS) -O1 -I$(TOP)/p4/model \
		-fno-sanitize-recover=undefined,$< $(TOR_MODEL_SRCS))

ALL_TARGETS += $(TOR_TEST_DIR)/fuzz_tor

# libFuzzer target for rina-tor's control protocol (tor_control.c and
# tor_jobs.c over the model), every part from source like fuzz_tor.
TOR_CTRL_FUZZ_SRCS := $(TOP)/selftests/tor/fuzz_tor_ctrl.c \
	$(TOP)/p4/tor/tor_control.c $(TOP)/p4/tor/tor_jobs.c \
	$(TOP)/p4/cfg/p4cfg.c $(wildcard $(TOP)/p4/model/*.c) \
	$(addprefix $(TOP)/core/,plan.c agg.c ctrl_auth.c) \
	$(wildcard $(TOP)/user/common/*.c)
$(TOR_TEST_DIR)/fuzz_tor_ctrl: $(TOR_CTRL_FUZZ_SRCS) $(TOP)/p4/tor/tor.h \
		$$(TOR_MODEL_HDRS)
	$(call clang-fuzz,$(COMMON_CFLAGS) -O1 -I$(TOP)/p4/model \
		-I$(TOP)/p4/tor -I$(TOP)/p4/cfg -I$(TOP)/user/common \
		-fno-sanitize-recover=undefined,$(TOR_CTRL_FUZZ_SRCS) \
		$(CORE_LDLIBS))

ALL_TARGETS += $(TOR_TEST_DIR)/fuzz_tor_ctrl

# rina-tor's control protocol on the model, without a network: its two
# parts from source under ASan and UBSan, the libraries as built (in a
# make SANITIZE=... build, under that build's sanitizers: TOR_CFLAGS).
TOR_CTRL_SAN	:= $(if $(SAN_CFLAGS),,-fsanitize=address,undefined \
	-fno-sanitize-recover=undefined)
$(TOR_TEST_DIR)/tor_control_test: $(TOP)/selftests/tor/tor_control_test.c \
		$(TOP)/p4/tor/tor_control.c $(TOP)/p4/tor/tor_jobs.c \
		$(TOP)/p4/tor/tor.h $$(P4CFG_OBJ) $(TOR_MODEL_LIB) \
		$(LIBRINA_CORE_A) $$(TOR_MODEL_HDRS) $(TOP)/selftests/ktap.h
	$(call cc-prog,$(TOR_CFLAGS) -O1 $(TOR_CTRL_SAN) -I$(TOP)/p4/tor \
		-I$(TOP)/p4/cfg -I$(TOP)/user/common,$(filter %.c,$^) \
		$(P4CFG_OBJ) $(TOR_MODEL_LIB) $(LIBRINA_CORE_A),$(CORE_LDLIBS))

ALL_TARGETS += $(TOR_TEST_DIR)/tor_control_test

# The ring through the model, its ranks running core's engines and agent
# from librina_core.a, which core/sources.mk's lists build.
$(TOR_TEST_DIR)/tor_ring: $(TOP)/selftests/tor/tor_ring.c \
		$(TOP)/selftests/tor/tor_ring_hosts.c \
		$(TOP)/selftests/tor/tor_ring_net.c \
		$(TOP)/selftests/tor/tor_ring.h $$(P4CFG_OBJ) \
		$(TOR_MODEL_LIB) $(LIBRINA_CORE_A) $$(TOR_MODEL_HDRS) \
		$(TOP)/p4/cfg/p4cfg.h $(wildcard $(TOP)/core/*.h) \
		$(TOP)/selftests/ktap.h
	$(call cc-prog,$(TOR_CFLAGS) -I$(TOP)/p4/cfg,\
		$(filter %.c,$^) $(P4CFG_OBJ) $(TOR_MODEL_LIB) \
		$(LIBRINA_CORE_A),$(CORE_LDLIBS))

ALL_TARGETS += $(TOR_TEST_DIR)/tor_ring

$(TOR_TEST_DIR)/p4_lockstep: $(TOP)/selftests/tor/p4_lockstep.c \
		$(TOP)/selftests/ktap.h $$(TOR_MODEL_HDRS)
	$(call cc-prog,$(TOR_CFLAGS),$<,-ljansson)

ALL_TARGETS += $(TOR_TEST_DIR)/p4_lockstep

$(TOR_TEST_DIR)/tor_replay: $(TOP)/selftests/tor/tor_replay.c \
		$(TOP)/selftests/tor/vec_hex.h $(TOP)/selftests/ktap.h
	$(call cc-prog,$(USER_CFLAGS),$<)

ALL_TARGETS += $(TOR_TEST_DIR)/tor_replay

$(TOR_TEST_DIR)/tor_ctrl: $(TOP)/selftests/tor/tor_ctrl.c $(LIBRINA_CORE_A) \
		$(TOP)/core/plan.h $(TOP)/user/common/jobfile.h \
		$(TOP)/user/common/secret.h $(TOP)/core/ctrl_auth.h
	$(call cc-prog,$(USER_CFLAGS) -I$(TOP)/user/common,\
		$< $(LIBRINA_CORE_A),$(CORE_LDLIBS))

ALL_TARGETS += $(TOR_TEST_DIR)/tor_ctrl
