# SPDX-License-Identifier: GPL-2.0
# The BPF selftests: C programs built against the rina_xdp and
# rina_ecn_mark skeletons and libbpf/libxdp (bpf/build.mk builds the
# programs and their skeletons).

BPFTEST_DIR	:= $(BUILD)/selftests/bpf
BPFTEST_CFLAGS	:= $(USER_CFLAGS) -I$(TOP)/bpf -I$(TOP)/user/lib
BPFTEST_PROGS	:= $(BPFTEST_DIR)/test_xdp_prog $(BPFTEST_DIR)/bench_xdp_prog

$(BPFTEST_DIR)/test_xdp_prog: $(TOP)/selftests/bpf/test_xdp_prog.c \
		$(TOP)/selftests/bpf/pkt.h $(TOP)/selftests/ktap.h $(BPF_SKELS)
	$(call cc-prog,$(BPFTEST_CFLAGS),$<,-lbpf -lelf -lz)

$(BPFTEST_DIR)/bench_xdp_prog: $(TOP)/selftests/bpf/bench_xdp_prog.c \
		$(TOP)/selftests/bpf/pkt.h $(TOP)/selftests/ktap.h $(BPF_SKELS)
	$(call cc-prog,$(BPFTEST_CFLAGS),$<,-lbpf -lelf -lz)

$(BPFTEST_DIR)/test_ecn_mark: $(TOP)/selftests/bpf/test_ecn_mark.c \
		$(TOP)/selftests/bpf/pkt.h $(TOP)/selftests/ktap.h \
		$(TOP)/bpf/rina_ecn_mark.h $(BPF_SKELS)
	$(call cc-prog,$(BPFTEST_CFLAGS),$<,-lbpf -lelf -lz)

BPFTEST_PROGS	+= $(BPFTEST_DIR)/test_ecn_mark

# (librina's own xdp_transport.o: the transport under test, compiled once)
$(BPFTEST_DIR)/test_xsk_transport: $(TOP)/selftests/bpf/test_xsk_transport.c \
		$(OBJ)/user/lib/xdp_transport.o $(TOP)/user/lib/xdp_transport.h \
		$(TOP)/user/lib/transport.h $(TOP)/bpf/rina_xdp.h \
		$(TOP)/selftests/ktap.h
	$(call cc-prog,$(BPFTEST_CFLAGS),$< $(OBJ)/user/lib/xdp_transport.o,\
		-lxdp -lbpf -lelf -lz -lpthread)

BPFTEST_PROGS	+= $(BPFTEST_DIR)/test_xsk_transport

ALL_TARGETS += $(BPFTEST_PROGS)

# Transport bench: links librina (both transports).
$(BPFTEST_DIR)/bench_transport: $(TOP)/selftests/bpf/bench_transport.c \
		$(TOP)/selftests/ktap.h $(LIBRINA_A)
	$(call cc-prog,$(BPFTEST_CFLAGS),$< $(LIBRINA_A),\
		$(RINA_LDLIBS))

ALL_TARGETS += $(BPFTEST_DIR)/bench_transport
