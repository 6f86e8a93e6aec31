# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# make deb: the Debian packages (debian/control) with dpkg-buildpackage,
# binary only, unsigned, into build/deb/ (the .debs by dh_builddeb
# --destdir, the .buildinfo and .changes named there: nothing is written
# to the directory above the tree). debian/rules reuses this tree's
# build/ and skips rina.ko, which rina-dkms builds on the target.

DEB_OUT := $(BUILD)/deb
DEB_NAME := rina_$(shell cat $(TOP)/VERSION)_$(shell dpkg --print-architecture 2>/dev/null)

.PHONY: deb
deb:
	$(Q)$(TOP)/scripts/install-deps.sh --check
	$(Q)rm -rf $(DEB_OUT) && mkdir -p $(DEB_OUT)
	$(Q)cd $(TOP) && dpkg-buildpackage -b -uc -us \
		--buildinfo-option=-u$(DEB_OUT) \
		--changes-option=-u$(DEB_OUT) \
		--buildinfo-file=$(DEB_OUT)/$(DEB_NAME).buildinfo \
		--changes-file=$(DEB_OUT)/$(DEB_NAME).changes \
		>$(DEB_OUT)/build.log 2>&1 || \
		{ tail -30 $(DEB_OUT)/build.log; \
		  echo "make deb: failed, see $(DEB_OUT)/build.log" >&2; exit 1; }
	$(Q)ls $(DEB_OUT)/*.deb
