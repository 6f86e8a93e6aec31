# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Host unit tests of the shared core and librina (KTAP binaries), and the
# header-parser fuzz target.

SELFTEST_BIN := $(BUILD)/selftests
SELFTEST_CORE := $(SELFTEST_BIN)/test_core $(SELFTEST_BIN)/test_jobfile \
	$(SELFTEST_BIN)/test_agent $(SELFTEST_BIN)/test_cc
SELFTEST_LIB := $(SELFTEST_BIN)/test_allreduce
ALL_TARGETS += $(SELFTEST_CORE) $(SELFTEST_LIB) $(SELFTEST_BIN)/fuzz_hdr

# (this fragment is read before user/build.mk: name librina by its path)
TEST_CFLAGS := -O2 $(COMMON_CFLAGS) -I$(TOP)/user/include -I$(TOP)/user/lib

$(SELFTEST_BIN)/test_%: $(TOP)/selftests/core/test_%.c $(LIBDIR)/librina.a \
		$(TOP)/selftests/ktap.h
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(TEST_CFLAGS) -o $@ $< $(LIBDIR)/librina.a $(RINA_LDLIBS)

$(SELFTEST_BIN)/test_%: $(TOP)/selftests/lib/test_%.c $(LIBDIR)/librina.a \
		$(TOP)/selftests/ktap.h
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(TEST_CFLAGS) -o $@ $< $(LIBDIR)/librina.a $(RINA_LDLIBS)

# libFuzzer target for the one header validator and the job-file parser
$(SELFTEST_BIN)/fuzz_hdr: $(TOP)/selftests/core/fuzz_hdr.c \
		$(TOP)/core/wire.h $(TOP)/user/lib/jobfile.c $(TOP)/core/plan.c
	$(call msg,CLANG,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined \
		-I$(TOP)/include/uapi -I$(TOP)/core -I$(TOP)/user/lib \
		-I$(TOP)/user/include -D_GNU_SOURCE -o $@ $< \
		$(TOP)/user/lib/jobfile.c $(TOP)/core/plan.c
