# SPDX-License-Identifier: GPL-2.0
# rina.ko for every Debian cloud kernel whose headers are installed
# (scripts/vm/kernels.sh resolves them from the meta packages), built
# warning-free at W=1 and sparse-clean (C=1), plus `make check-vm`. The
# guest's test program: selftests/vm/build.mk.

KMOD_KVERS := $(shell $(TOP)/scripts/vm/kernels.sh headers 2>/dev/null)
KMOD_SRCS := $(wildcard $(TOP)/kmod/*.c $(TOP)/kmod/*.h) \
	$(CORE_SRC_PATHS) $(TOP)/core/sources.mk $(wildcard $(TOP)/core/*.h) \
	$(TOP)/include/uapi/linux/rina.h $(TOP)/Kbuild
KMOD_KOS := $(foreach k,$(KMOD_KVERS),$(BUILD)/kmod/$(k)/rina.ko)

ALL_TARGETS += $(KMOD_KOS)

.PHONY: kmod
kmod: $(KMOD_KOS)

$(BUILD)/kmod/%/rina.ko: $(KMOD_SRCS) $(TOP)/scripts/vm/build-kmod.sh
	$(call msg,KMOD,$@)
	$(Q)$(TOP)/scripts/vm/build-kmod.sh $* $(BUILD)/kmod/$*

check-vm: deps
	$(Q)$(MAKE) --no-print-directory build-all
	$(Q)$(TOP)/scripts/vm/run-vm-tests.sh
