# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# tools/: rina-run (emulated cluster launcher, a bash script) and mpi-bench
# (the OpenMPI MPI_Allreduce baseline, built with Debian's mpicc).

MPICC	?= mpicc

$(BIN)/rina-run: $(TOP)/tools/rina-run/rina-run
	$(call msg,INSTALL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)install -m 0755 $< $@

$(BIN)/mpi-bench: $(TOP)/tools/mpi-bench/mpi-bench.c $(TOP)/user/bench/size_arg.h \
		$(TOP)/user/bench/wire_stats.h
	$(call cc-prog,-std=gnu11 -O2 -g -Wall -Wextra -Werror \
		-I$(TOP)/user/bench,$<,-lm,OMPI_CC=$(CC) $(MPICC),MPICC)

ALL_TARGETS += $(BIN)/rina-run $(BIN)/mpi-bench
