# SPDX-License-Identifier: GPL-2.0
# The kernel module's guest tests: rina_kmod_test (every genl op and
# ioctl, run in a qemu guest by scripts/vm/run-vm-tests.sh) and
# `make vm-tests`, everything a guest run needs.

# The guest's C test of every genl op and ioctl (shared libmnl client).
VMTEST_BIN := $(BUILD)/selftests/vm/rina_kmod_test
# agent_e2e.sh's injector of forged datagrams
VMFORGE_BIN := $(BUILD)/selftests/vm/rina_forge
ALL_TARGETS += $(VMTEST_BIN) $(VMFORGE_BIN)

.PHONY: vm-tests
vm-tests: $(VMTEST_BIN) $(VMFORGE_BIN) $$(KMOD_KOS) $(BIN)/rinactl \
	$(BIN)/rina-bench $(BIN)/rina-tor

$(VMFORGE_BIN): $(TOP)/selftests/vm/rina_forge.c \
		$(TOP)/include/uapi/linux/rina.h
	$(call cc-prog,$(USER_CFLAGS),$<)

# (rinactl's own rgenl.o, compiled once)
$(VMTEST_BIN): $(TOP)/selftests/vm/rina_kmod_test.c \
		$(OBJ)/user/rinactl/rgenl.o $(TOP)/user/rinactl/rgenl.h \
		$(TOP)/include/uapi/linux/rina.h $(TOP)/selftests/ktap.h
	$(call cc-prog,$(USER_CFLAGS) -I$(TOP)/user/rinactl,\
		$< $(OBJ)/user/rinactl/rgenl.o,-lmnl)

# The netlink fuzzer (guest.sh's nl_fuzz) and its attribute tables,
# generated from the YNL spec
VMFUZZ_BIN := $(BUILD)/selftests/vm/rina_nl_fuzz
VMFUZZ_SPEC := $(BUILD)/selftests/vm/rina_nl_fuzz_spec.h
ALL_TARGETS += $(VMFUZZ_BIN)
vm-tests: $(VMFUZZ_BIN)

$(VMFUZZ_SPEC): $(TOP)/selftests/vm/gen_nl_fuzz_spec.py \
		$(TOP)/Documentation/netlink/rina.yaml
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)python3 $^ $@

$(VMFUZZ_BIN): $(TOP)/selftests/vm/rina_nl_fuzz.c $(VMFUZZ_SPEC) \
		$(OBJ)/user/rinactl/rgenl.o $(TOP)/user/rinactl/rgenl.h \
		$(TOP)/include/uapi/linux/rina.h
	$(call cc-prog,$(USER_CFLAGS) -I$(BUILD)/selftests/vm \
		-I$(TOP)/user/rinactl,$< $(OBJ)/user/rinactl/rgenl.o,-lmnl)
