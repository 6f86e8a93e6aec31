# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# tools/: rina-run (emulated cluster launcher, a bash script), mpi-bench
# (the OpenMPI MPI_Allreduce baseline, built with Debian's mpicc) and
# rina-ecn-mark (the ECN marker of rina-run --ecn, a libbpf skeleton).

MPICC	?= mpicc

$(BIN)/rina-run: $(TOP)/tools/rina-run/rina-run
	$(call msg,INSTALL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)install -m 0755 $< $@

$(BIN)/mpi-bench: $(TOP)/tools/mpi-bench/mpi-bench.c $(TOP)/user/bench/size_arg.h \
		$(TOP)/user/bench/wire_stats.h
	$(call cc-prog,-std=gnu11 -O2 -g -Wall -Wextra -Werror \
		-I$(TOP)/user/bench,$<,-lm,OMPI_CC=$(CC) $(MPICC),MPICC)

$(BIN)/rina-ecn-mark: $(TOP)/tools/rina-ecn-mark/rina-ecn-mark.c \
		$(TOP)/user/bench/rate_arg.h $(TOP)/bpf/rina_ecn_mark.h \
		$(BUILD)/include/rina_ecn_mark.skel.h
	$(call cc-prog,$(USER_CFLAGS) -I$(TOP)/user/bench -I$(TOP)/bpf,$<,\
		-lbpf -lelf -lz)

ALL_TARGETS += $(BIN)/rina-run $(BIN)/mpi-bench $(BIN)/rina-ecn-mark
