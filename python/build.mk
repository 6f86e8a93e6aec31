# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# The Python package python/rina: nothing to build (ctypes over
# librina.so.1); make install copies it where $(PYTHON) looks under
# $(PREFIX) (Debian: $(PREFIX)/lib/python3.X/dist-packages).

PYTHON ?= /usr/bin/python3
PYTHON_SITEDIR ?= $(PREFIX)/lib/python$(shell $(PYTHON) -c \
	'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || \
	echo 3)/dist-packages

.PHONY: install-python
install: install-python
install-python: all
	install -d $(DESTDIR)$(PYTHON_SITEDIR)/rina
	install -m 644 $(wildcard $(TOP)/python/rina/*.py) \
		$(DESTDIR)$(PYTHON_SITEDIR)/rina/
