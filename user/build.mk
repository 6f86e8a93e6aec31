# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# librina, rinactl and rina-bench. user/common holds what the ToR tools
# (p4/) share with them: the job-file parser and the job secret.

# xdp_fallback.c stands in only while the AF_XDP transport is absent
USER_COMMON_SRCS := $(wildcard $(TOP)/user/common/*.c)
LIBRINA_SRCS := $(wildcard $(TOP)/user/lib/*.c) $(USER_COMMON_SRCS) \
	$(CORE_SRC_PATHS)
ifneq ($(wildcard $(TOP)/user/lib/xdp_transport.c),)
LIBRINA_SRCS := $(filter-out %/xdp_fallback.c,$(LIBRINA_SRCS))
endif
LIBRINA_OBJS := $(patsubst $(TOP)/%.c,$(OBJ)/%.o,$(LIBRINA_SRCS)) \
	$(OBJ)/core/agg_avx2.o
LIBRINA_PIC_OBJS := $(LIBRINA_OBJS:.o=.pic.o)
# LIBRINA_A, LIBRINA_SO, LIBRINA_CORE_A and RINA_LDLIBS: top Makefile

LIB_CFLAGS := -O3 $(COMMON_CFLAGS) $(SAN_CFLAGS) -I$(TOP)/user/include \
	-I$(TOP)/user/lib -I$(TOP)/user/common

LIBRINA_CORE_OBJS := $(patsubst $(TOP)/%.c,$(OBJ)/%.o,$(CORE_SRC_PATHS) \
	$(USER_COMMON_SRCS))

RINACTL_SRCS := $(wildcard $(TOP)/user/rinactl/*.c)
RINACTL_OBJS := $(patsubst $(TOP)/%.c,$(OBJ)/%.o,$(RINACTL_SRCS))

ALL_TARGETS += $(LIBRINA_CORE_A) $(LIBRINA_A) $(LIBRINA_SO) $(BIN)/rinactl $(BIN)/rina-bench

$(OBJ)/user/%.o: $(TOP)/user/%.c $(SAN_STAMP) | $(BPF_SKELS)
	$(call cc-obj,$(LIB_CFLAGS) -MMD -MP)

$(OBJ)/user/%.pic.o: $(TOP)/user/%.c $(SAN_STAMP) | $(BPF_SKELS)
	$(call cc-obj,$(LIB_CFLAGS) -fPIC -MMD -MP)

$(OBJ)/core/%.o: $(TOP)/core/%.c $(SAN_STAMP)
	$(call cc-obj,$(LIB_CFLAGS) -MMD -MP)

$(OBJ)/core/%.pic.o: $(TOP)/core/%.c $(SAN_STAMP)
	$(call cc-obj,$(LIB_CFLAGS) -fPIC -MMD -MP)

# The same reference loops, vectorised for AVX2 (chosen at run time).
AVX2_FLAGS := -mavx2 '-DRINA_AGG_NAME(x)=x\#\#_avx2'
$(OBJ)/core/agg_avx2.o: $(TOP)/core/agg.c $(SAN_STAMP)
	$(call cc-obj,$(LIB_CFLAGS) $(AVX2_FLAGS) -MMD -MP)

$(OBJ)/core/agg_avx2.pic.o: $(TOP)/core/agg.c $(SAN_STAMP)
	$(call cc-obj,$(LIB_CFLAGS) $(AVX2_FLAGS) -fPIC -MMD -MP)

$(LIBRINA_A): $(LIBRINA_OBJS)
	$(call ar-lib)

$(LIBRINA_CORE_A): $(LIBRINA_CORE_OBJS)
	$(call ar-lib)

$(LIBRINA_SO): $(LIBRINA_PIC_OBJS) $(TOP)/user/lib/librina.map
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(SAN_CFLAGS) -shared -Wl,-soname,librina.so.1 \
		-Wl,--version-script=$(TOP)/user/lib/librina.map -o $@ \
		$(LIBRINA_PIC_OBJS) $(RINA_LDLIBS)
	$(Q)ln -sf librina.so.1 $(LIBDIR)/librina.so

$(BIN)/rinactl: $(RINACTL_OBJS) $(LIBRINA_A)
	$(call ld-prog,$(RINA_LDLIBS))

$(BIN)/rina-bench: $(OBJ)/user/bench/rina-bench.o $(LIBRINA_A)
	$(call ld-prog,$(RINA_LDLIBS))

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib \
		$(DESTDIR)$(PREFIX)/include/linux
	install -m 755 $(wildcard $(BIN)/*) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(LIBRINA_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIBRINA_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf librina.so.1 $(DESTDIR)$(PREFIX)/lib/librina.so
	install -m 644 $(TOP)/user/include/rina.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(TOP)/include/uapi/linux/rina.h \
		$(DESTDIR)$(PREFIX)/include/linux/
	-ldconfig

# librina.so's objects too: without theirs, a changed header left the
# shared library built from stale objects (and Python's bindings, which
# load it, read a communicator of another layout)
-include $(LIBRINA_OBJS:.o=.d) $(LIBRINA_PIC_OBJS:.o=.d) \
	$(RINACTL_OBJS:.o=.d) $(OBJ)/user/bench/rina-bench.d

ALL_TARGETS += $(BIN)/rina-train-demo
$(BIN)/rina-train-demo: $(OBJ)/user/examples/rina-train-demo.o $(LIBRINA_A)
	$(call ld-prog,$(RINA_LDLIBS))
