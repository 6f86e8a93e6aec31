# SPDX-License-Identifier: GPL-2.0
# Host XDP program: bpf/rina_xdp.bpf.c -> build/bpf/rina_xdp.bpf.o ->
# build/include/rina_xdp.skel.h (bpftool gen skeleton), plus the BPF
# selftests in selftests/bpf/.

BPF_ARCH_INC	:= /usr/include/$(shell $(CC) -dumpmachine)
BPF_CFLAGS	:= -target bpf -O2 -g -Wall -Werror \
	-I$(TOP)/include/uapi -I$(TOP)/core -I$(TOP)/bpf -I$(BPF_ARCH_INC)
BPF_OBJ		:= $(BUILD)/bpf/rina_xdp.bpf.o
BPF_SKELS	:= $(BUILD)/include/rina_xdp.skel.h

$(BPF_OBJ): $(TOP)/bpf/rina_xdp.bpf.c $(TOP)/bpf/rina_xdp.h \
		$(TOP)/core/wire.h $(TOP)/include/uapi/linux/rina.h
	$(call bpf-obj,$(BPF_CFLAGS))

$(BUILD)/include/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(call gen-skel,$*)

# Selftests: C programs built against the skeleton and libbpf/libxdp.
BPFTEST_DIR	:= $(BUILD)/selftests/bpf
BPFTEST_CFLAGS	:= $(USER_CFLAGS) -I$(TOP)/bpf -I$(TOP)/user/lib
BPFTEST_PROGS	:= $(BPFTEST_DIR)/test_xdp_prog $(BPFTEST_DIR)/bench_xdp_prog

$(BPFTEST_DIR)/test_xdp_prog: $(TOP)/selftests/bpf/test_xdp_prog.c \
		$(TOP)/selftests/bpf/pkt.h $(BPF_SKELS)
	$(call cc-prog,$(BPFTEST_CFLAGS),$<,-lbpf -lelf -lz)

$(BPFTEST_DIR)/bench_xdp_prog: $(TOP)/selftests/bpf/bench_xdp_prog.c \
		$(TOP)/selftests/bpf/pkt.h $(BPF_SKELS)
	$(call cc-prog,$(BPFTEST_CFLAGS),$<,-lbpf -lelf -lz)

$(BPFTEST_DIR)/test_xsk_transport: $(TOP)/selftests/bpf/test_xsk_transport.c \
		$(TOP)/user/lib/xdp_transport.c $(TOP)/user/lib/xdp_transport.h \
		$(TOP)/user/lib/transport.h $(TOP)/bpf/rina_xdp.h
	$(call cc-prog,$(BPFTEST_CFLAGS),$< $(TOP)/user/lib/xdp_transport.c,\
		-lxdp -lbpf -lelf -lz -lpthread)

BPFTEST_PROGS	+= $(BPFTEST_DIR)/test_xsk_transport

ALL_TARGETS += $(BPF_OBJ) $(BPF_SKELS) $(BPFTEST_PROGS)

# Transport bench: links librina (both transports).
$(BPFTEST_DIR)/bench_transport: $(TOP)/selftests/bpf/bench_transport.c \
		$(LIBDIR)/librina.a
	$(call cc-prog,$(BPFTEST_CFLAGS),$< $(LIBDIR)/librina.a,\
		-lxdp -lbpf -lelf -lz -lmnl -lm -lpthread)

ALL_TARGETS += $(BPFTEST_DIR)/bench_transport
