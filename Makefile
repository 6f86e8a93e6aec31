# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Rina top-level build: userspace, BPF, P4 model and kernel module.
#
#   make            build everything into build/
#   make check      install what is missing, build, run every test
#   make demo       run the demo allreduce on an emulated cluster
#   make bench      rina-bench side by side with its baselines, then the
#                   XDP and transport micro-benchmarks (scripts/bench_micro.sh),
#                   a job secret's cost (bench_auth.sh), INA under loss
#                   (bench_loss.sh), Rina beside an iperf3 TCP flow
#                   (bench_coexist.sh);
#                   BENCH_DDP=1: also PyTorch DDP step times and a bare
#                   dist.all_reduce sweep (~20 min,
#                   scripts/bench_ddp.sh)
#   make soak       a 2x4 cluster under mixed faults for SOAK_S seconds
#                   (default 120), every result checked (scripts/soak.py,
#                   Documentation/soak.md; root)
#   make check-vm   kernel module tests in qemu (part of make check)
#   make check-san  the whole suite's C tests under ASan+UBSan and TSan
#                   (make check runs a subset: selftests/TESTS.asan, .tsan)
#   make fuzz       every libFuzzer target for FUZZ_S seconds (default 600)
#   make SANITIZE=address,undefined  (or SANITIZE=thread): everything but
#                   the BPF objects and the kernel module built with those
#                   sanitizers, into build/ (scripts/sanitize.mk)
#   make install    binaries, library and header under $(PREFIX)
#
# Each part adds its targets from its own build.mk fragment.

TOP	:= $(CURDIR)
BUILD	:= $(TOP)/build
BIN	:= $(BUILD)/bin
LIBDIR	:= $(BUILD)/lib
OBJ	:= $(BUILD)/obj
PREFIX	?= /usr/local

CC	:= gcc
CLANG	?= clang
ifeq ($(V),1)
Q	:=
msg	:=
else
Q	:= @
msg	= @printf '  %-8s %s\n' "$(1)" "$(patsubst $(TOP)/%,%,$(2))";
endif

# Recipes every fragment uses, as $(call NAME,ARGS) in a rule:
#   cc-obj FLAGS		compile $< into the object $@
#   cc-prog FLAGS,INPUTS,LIBS[,COMPILER,LABEL]
#				compile and link INPUTS into the program $@
#   clang-fuzz FLAGS,INPUTS	a libFuzzer + ASan/UBSan program from sources
#   ld-prog LIBS		link the objects and archives among $^ into $@
#   ar-lib			archive $^ into the static library $@
#   bpf-obj FLAGS		compile the BPF program $< into $@ with clang
#   gen-skel NAME		bpftool's libbpf skeleton of $< into $@
define cc-obj
$(call msg,CC,$@)
$(Q)mkdir -p $(@D)
$(Q)$(CC) $(1) -c $< -o $@
endef

define cc-prog
$(call msg,$(or $(5),CC),$@)
$(Q)mkdir -p $(@D)
$(Q)$(or $(4),$(CC)) $(1) $(2) -o $@ $(3)
endef

define clang-fuzz
$(call msg,CLANG,$@)
$(Q)mkdir -p $(@D)
$(Q)$(CLANG) -fsanitize=fuzzer,address,undefined $(1) $(2) -o $@
endef

define ld-prog
$(call msg,LD,$@)
$(Q)mkdir -p $(@D)
$(Q)$(CC) $(SAN_CFLAGS) -o $@ $(filter %.o %.a,$^) $(1)
endef

define ar-lib
$(call msg,AR,$@)
$(Q)mkdir -p $(@D)
$(Q)rm -f $@ && ar rcs $@ $^
endef

define bpf-obj
$(call msg,BPF,$@)
$(Q)mkdir -p $(@D)
$(Q)$(CLANG) $(1) -c $< -o $@
endef

define gen-skel
$(call msg,GEN-SKEL,$@)
$(Q)mkdir -p $(@D)
$(Q)bpftool gen skeleton $< name $(1) > $@
endef

COMMON_CFLAGS := -std=gnu11 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
	-I$(TOP)/include/uapi -I$(TOP)/include -I$(TOP)/core -I$(BUILD)/include
# SAN_CFLAGS (empty unless SANITIZE=...), SAN_STAMP: scripts/sanitize.mk
include $(TOP)/scripts/sanitize.mk
USER_CFLAGS := -O2 $(COMMON_CFLAGS) $(SAN_CFLAGS)
# for what must stay unsanitized: LD_PRELOAD shims, programs of the
# qemu guest
NOSAN_CFLAGS := -O2 $(COMMON_CFLAGS)
USER_LDLIBS := -lpthread

ALL_TARGETS :=

.DELETE_ON_ERROR:
.PHONY: all deps check check-host check-vm check-san fuzz san-build demo \
	bench soak install clean
.DEFAULT_GOAL := all

# A plain build needs no root: it only checks that the tools are there
# (one line naming the package to install when one is not); installing
# packages is what deps, check, demo and bench do.
all:
	$(Q)$(TOP)/scripts/install-deps.sh --check
	$(Q)$(MAKE) --no-print-directory build-all

deps:
	$(Q)$(TOP)/scripts/install-deps.sh

# The shared core's sources (also read by Kbuild and build-kmod.sh).
include $(TOP)/core/sources.mk
CORE_SRC_PATHS := $(addprefix $(TOP)/core/,$(CORE_SRCS) $(CORE_ENGINE_SRCS))

# What one part builds and others link or build into, named here so that
# no fragment depends on the order the fragments are read in. A fragment
# that names another's lists in a prerequisite writes $$(NAME): the
# second expansion happens after every fragment is read.
LIBRINA_A	:= $(LIBDIR)/librina.a
LIBRINA_SO	:= $(LIBDIR)/librina.so.1
RINA_LDLIBS	:= -lxdp -lbpf -lelf -lz -lmnl -lsodium -lm -lpthread
# what librina_core.a needs (secret.c: libsodium)
CORE_LDLIBS	:= -lsodium
# the core and the job-file parser, compiled once (user/build.mk) and
# linked by every program that needs them
LIBRINA_CORE_A	:= $(LIBDIR)/librina_core.a
TOR_MODEL_LIB	:= $(LIBDIR)/librina_tor_model.a
BPF_SKELS	:= $(BUILD)/include/rina_xdp.skel.h \
		   $(BUILD)/include/rina_ecn_mark.skel.h
SELFTEST_BIN	:= $(BUILD)/selftests
TOR_TEST_DIR	:= $(SELFTEST_BIN)/tor

.SECONDEXPANSION:

# Each part's fragment, then each test directory's (selftests/*/).
include $(sort $(wildcard $(TOP)/*/build.mk)) \
	$(sort $(wildcard $(TOP)/selftests/*/build.mk))

build-all: $(ALL_TARGETS)

# Whatever SANITIZE changes is rebuilt when it changes: every C object's
# rule names $(SAN_STAMP) too, and so does every program and library
# here (not the BPF objects, P4 outputs, scripts or the kernel module).
$(filter-out $(BUILD)/kmod/% $(BUILD)/bpf/% $(BUILD)/include/% \
	$(BUILD)/tor/% $(BUILD)/p4/% $(BUILD)/python/% $(BIN)/rina-run \
	$(BIN)/rina-tor-bmv2 $(BIN)/mpi-bench p4-json-skip tofino,\
	$(ALL_TARGETS)): \
	$(SAN_STAMP)

check: deps
	$(Q)$(MAKE) --no-print-directory build-all
	$(Q)$(TOP)/selftests/run_tests.sh

# What a sanitizer run builds (scripts/san_suite.sh, into build-asan/ or
# build-tsan/): everything but the kernel module, the simulator, the
# Python extension, the MPI baseline, the libFuzzer targets (built with
# their own sanitizers) and the P4 programs' builds (p4c's output, the
# same under any SANITIZE; minutes of p4c).
san-build: $$(filter-out $$(KMOD_KOS) $$(SIM_BIN) $$(RINA_C10D_STAMP) \
	$$(BIN)/mpi-bench %/fuzz_hdr %/fuzz_rx %/fuzz_jobgen %/fuzz_tor \
	%/fuzz_tor_ctrl \
	$$(P4_JSON) tofino,$$(ALL_TARGETS))

# make check runs a subset under each sanitizer (selftests/TESTS.asan and
# TESTS.tsan, listed in selftests/TESTS); this, every test that can run
# under one (selftests/san/skip names the rest, with why).
check-san: deps
	$(Q)$(TOP)/selftests/scripts/san_suite.sh asan $(TOP)/selftests/TESTS; \
	a=$$?; $(TOP)/selftests/scripts/san_suite.sh tsan \
		$(TOP)/selftests/TESTS && exit $$a

# Every libFuzzer target for FUZZ_S seconds each (CI: 20 s, in TESTS).
FUZZ_S ?= 600
fuzz:
	$(Q)$(MAKE) --no-print-directory $(SELFTEST_BIN)/fuzz_hdr \
		$(SELFTEST_BIN)/fuzz_rx $(SELFTEST_BIN)/fuzz_jobgen \
		$(TOR_TEST_DIR)/fuzz_tor $(TOR_TEST_DIR)/fuzz_tor_ctrl
	$(Q)rc=0; \
	$(TOP)/selftests/core/fuzz.sh $(FUZZ_S) || rc=1; \
	$(TOP)/selftests/scripts/fuzz_run.sh $(SELFTEST_BIN)/fuzz_rx \
		$(TOP)/selftests/core/corpus/fuzz_rx $(FUZZ_S) || rc=1; \
	$(TOP)/selftests/scripts/fuzz_run.sh $(SELFTEST_BIN)/fuzz_jobgen \
		$(TOP)/selftests/core/corpus/fuzz_jobgen $(FUZZ_S) || rc=1; \
	$(TOP)/selftests/tor/fuzz.sh $(FUZZ_S) || rc=1; \
	$(TOP)/selftests/scripts/fuzz_run.sh $(TOR_TEST_DIR)/fuzz_tor_ctrl \
		$(TOP)/selftests/tor/corpus/fuzz_tor_ctrl $(FUZZ_S) || rc=1; \
	exit $$rc

# The demo, the benches and the soak run no Tofino: TOFINO=0 spares them
# its compile (p4/build.mk).
demo: deps
	$(Q)$(MAKE) --no-print-directory TOFINO=0 build-all
	$(Q)$(TOP)/scripts/demo.sh

bench: deps
	$(Q)$(MAKE) --no-print-directory TOFINO=0 build-all
	$(Q)$(TOP)/scripts/bench.sh
	$(Q)$(TOP)/scripts/bench_micro.sh
	$(Q)$(TOP)/scripts/bench_auth.sh
	$(Q)$(TOP)/scripts/bench_loss.sh
	$(Q)$(TOP)/scripts/bench_coexist.sh
	$(Q)if [ "$${BENCH_DDP:-0}" = 1 ]; then $(TOP)/scripts/bench_ddp.sh; fi

SOAK_S ?= 120
soak: deps
	$(Q)$(MAKE) --no-print-directory TOFINO=0 build-all
	$(Q)$(TOP)/scripts/soak.py --seconds $(SOAK_S)

clean:
	$(Q)rm -rf $(BUILD)
