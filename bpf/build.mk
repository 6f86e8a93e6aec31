# SPDX-License-Identifier: GPL-2.0
# Host XDP program: bpf/rina_xdp.bpf.c -> build/bpf/rina_xdp.bpf.o ->
# build/include/rina_xdp.skel.h (bpftool gen skeleton); the emulated
# bottleneck's ECN marker, bpf/rina_ecn_mark.bpf.c, the same way. Their
# selftests: selftests/bpf/build.mk.

BPF_ARCH_INC	:= /usr/include/$(shell $(CC) -dumpmachine)
BPF_CFLAGS	:= -target bpf -O2 -g -Wall -Werror \
	-I$(TOP)/include/uapi -I$(TOP)/core -I$(TOP)/bpf -I$(BPF_ARCH_INC)
BPF_OBJ		:= $(BUILD)/bpf/rina_xdp.bpf.o
BPF_ECN_OBJ	:= $(BUILD)/bpf/rina_ecn_mark.bpf.o
# BPF_SKELS (build/include/rina_xdp.skel.h): top Makefile

$(BPF_OBJ): $(TOP)/bpf/rina_xdp.bpf.c $(TOP)/bpf/rina_xdp.h \
		$(TOP)/core/wire.h $(TOP)/include/uapi/linux/rina.h
	$(call bpf-obj,$(BPF_CFLAGS))

$(BPF_ECN_OBJ): $(TOP)/bpf/rina_ecn_mark.bpf.c $(TOP)/bpf/rina_ecn_mark.h
	$(call bpf-obj,$(BPF_CFLAGS))

$(BUILD)/include/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(call gen-skel,$*)

ALL_TARGETS += $(BPF_OBJ) $(BPF_ECN_OBJ) $(BPF_SKELS)
