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

ALL_TARGETS += $(LIBRINA_CORE_A) $(LIBRINA_A) $(LIBRINA_SO) $(BIN)/rinactl $(BIN)/rina-bench \
	$(BIN)/rina-soak

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

# rinactl -V prints the release named once, in the top VERSION file
RINA_RELEASE := $(shell cat $(TOP)/VERSION)
$(OBJ)/user/rinactl/rinactl.o: $(TOP)/VERSION
$(OBJ)/user/rinactl/rinactl.o: private LIB_CFLAGS += \
	-DRINA_RELEASE='"$(RINA_RELEASE)"'

$(BIN)/rinactl: $(RINACTL_OBJS) $(LIBRINA_A)
	$(call ld-prog,$(RINA_LDLIBS))

$(BIN)/rina-bench: $(OBJ)/user/bench/rina-bench.o $(LIBRINA_A)
	$(call ld-prog,$(RINA_LDLIBS))

$(BIN)/rina-soak: $(OBJ)/user/bench/rina-soak.o $(LIBRINA_A)
	$(call ld-prog,$(RINA_LDLIBS))

# LIBINSTDIR: where the library goes (Debian: /usr/lib/<multiarch>);
# rina.pc is written for PREFIX and LIBINSTDIR at install time
LIBINSTDIR ?= $(PREFIX)/lib
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBINSTDIR)/pkgconfig \
		$(DESTDIR)$(PREFIX)/include/linux
	# build/bin as built (a shell glob: make's wildcard would be read
	# before the build); rina-tor-bmv2 is p4/build.mk's (install-tor)
	for f in $(BIN)/*; do case $$f in */rina-tor-bmv2) ;; \
		*) install -m 755 "$$f" $(DESTDIR)$(PREFIX)/bin/ || exit 1 ;; \
		esac; done
	install -m 644 $(LIBRINA_A) $(DESTDIR)$(LIBINSTDIR)/
	install -m 755 $(LIBRINA_SO) $(DESTDIR)$(LIBINSTDIR)/
	ln -sf librina.so.1 $(DESTDIR)$(LIBINSTDIR)/librina.so
	install -m 644 $(TOP)/user/include/rina.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(TOP)/include/uapi/linux/rina.h \
		$(DESTDIR)$(PREFIX)/include/linux/
	sed -e '/^#/d' -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBINSTDIR)|' \
		-e 's|@VERSION@|$(RINA_RELEASE)|' \
		-e 's|@LIBS_PRIVATE@|$(RINA_LDLIBS)|' $(TOP)/user/rina.pc.in \
		>$(DESTDIR)$(LIBINSTDIR)/pkgconfig/rina.pc
	@# a staged install (DESTDIR, packages) leaves the host's cache alone
	[ -n "$(DESTDIR)" ] || ldconfig || true

# librina.so's objects too: without theirs, a changed header left the
# shared library built from stale objects (and Python's bindings, which
# load it, read a communicator of another layout)
-include $(LIBRINA_OBJS:.o=.d) $(LIBRINA_PIC_OBJS:.o=.d) \
	$(RINACTL_OBJS:.o=.d) $(OBJ)/user/bench/rina-bench.d

ALL_TARGETS += $(BIN)/rina-train-demo
$(BIN)/rina-train-demo: $(OBJ)/user/examples/rina-train-demo.o $(LIBRINA_A)
	$(call ld-prog,$(RINA_LDLIBS))
