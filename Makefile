# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Rina top-level build: userspace, BPF, P4 model and kernel module.
#
#   make            build everything into build/
#   make check      install what is missing, build, run every test
#   make demo       run the demo allreduce on an emulated cluster
#   make bench      rina-bench side by side with its baselines
#   make check-vm   kernel module tests in qemu (part of make check)
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

COMMON_CFLAGS := -std=gnu11 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
	-I$(TOP)/include/uapi -I$(TOP)/include -I$(TOP)/core -I$(BUILD)/include
USER_CFLAGS := -O2 $(COMMON_CFLAGS)
USER_LDLIBS := -lpthread

ALL_TARGETS :=

.DELETE_ON_ERROR:
.PHONY: all deps check check-host check-vm demo bench install clean
.DEFAULT_GOAL := all

# A plain build needs no root: it only checks that the tools are there
# (one line naming the package to install when one is not); installing
# packages is what deps, check, demo and bench do.
all:
	$(Q)$(TOP)/scripts/install-deps.sh --check
	$(Q)$(MAKE) --no-print-directory build-all

deps:
	$(Q)$(TOP)/scripts/install-deps.sh

include $(sort $(wildcard $(TOP)/*/build.mk))

build-all: $(ALL_TARGETS)

check: deps
	$(Q)$(MAKE) --no-print-directory build-all
	$(Q)$(TOP)/selftests/run_tests.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory build-all
	$(Q)$(TOP)/scripts/demo.sh

bench: deps
	$(Q)$(TOP)/scripts/install-deps.sh --bench
	$(Q)$(MAKE) --no-print-directory build-all
	$(Q)$(TOP)/scripts/bench.sh

clean:
	$(Q)rm -rf $(BUILD)
