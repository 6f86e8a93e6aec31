# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The Python package python/rina: ctypes over librina.so.1, nothing to
# build; and rina_c10d, the C++ extension behind the torch.distributed
# backend "rina" (python/csrc), built into build/python with
# torch.utils.cpp_extension when torch's C++ headers are there
# (libtorch-dev, pybind11-dev), skipped with a message otherwise.
# make install copies both where $(PYTHON) looks under $(PREFIX)
# (Debian: $(PREFIX)/lib/python3.X/dist-packages).

PYTHON ?= /usr/bin/python3
PYTHON_SITEDIR ?= $(PREFIX)/lib/python$(shell $(PYTHON) -c \
	'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || \
	echo 3)/dist-packages

PY_BUILD := $(BUILD)/python
# a stamp (the module's name carries the interpreter's suffix), made
# only when the module was built: a skipped build is tried again
RINA_C10D_STAMP := $(PY_BUILD)/rina_c10d.stamp
ALL_TARGETS += $(RINA_C10D_STAMP)

$(RINA_C10D_STAMP): $(TOP)/python/csrc/rina_c10d.cpp \
		$(TOP)/python/csrc/build.py $(TOP)/user/include/rina.h \
		$$(LIBRINA_SO)
	$(call msg,CXX-EXT,$(PY_BUILD)/rina_c10d)
	$(Q)mkdir -p $(PY_BUILD)
	$(Q)rm -f $(PY_BUILD)/rina_c10d*.so
	$(Q)rc=0; $(PYTHON) $(TOP)/python/csrc/build.py $< \
		$(TOP)/user/include $(LIBDIR) $(PY_BUILD) \
		$(OBJ)/python/rina_c10d >$(PY_BUILD)/build.log 2>&1 || rc=$$?; \
	if [ $$rc -eq 3 ]; then sed 's/^/  /' $(PY_BUILD)/build.log; \
	elif [ $$rc -ne 0 ]; then cat $(PY_BUILD)/build.log; exit 1; \
	else touch $@; fi

.PHONY: install-python
install: install-python
install-python: all
	install -d $(DESTDIR)$(PYTHON_SITEDIR)/rina
	install -m 644 $(wildcard $(TOP)/python/rina/*.py) \
		$(DESTDIR)$(PYTHON_SITEDIR)/rina/
	for f in $(PY_BUILD)/rina_c10d*.so; do [ ! -e "$$f" ] || \
		install -m 755 "$$f" $(DESTDIR)$(PYTHON_SITEDIR)/; done
