# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# Man pages: Documentation/man/NAME.SECTION.scd -> build/man/NAME.SECTION
# with scdoc (Debian's scdoc: small, man-only, no runtime), tidied by
# tidy.awk so that `mandoc -Tlint -W warning` is clean (the man_pages
# test). `make man` builds them; `make install` puts them under
# $(PREFIX)/share/man. Not part of a plain make: scdoc is a package of
# its own (scripts/install-deps.sh installs it).

MAN_SRCS	:= $(wildcard $(TOP)/Documentation/man/*.scd)
MAN_PAGES	:= $(patsubst $(TOP)/Documentation/man/%.scd,$(BUILD)/man/%, \
	$(MAN_SRCS))
# the date in each page's title line: the last commit's (reproducible),
# or dpkg-buildpackage's from debian/changelog
SOURCE_DATE_EPOCH ?= $(shell git -C $(TOP) log -1 --format=%ct 2>/dev/null)
export SOURCE_DATE_EPOCH

.PHONY: man install-man
man: $(MAN_PAGES)

$(BUILD)/man/%: $(TOP)/Documentation/man/%.scd $(TOP)/Documentation/man/tidy.awk
	$(call msg,SCDOC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)scdoc <$< >$@.roff
	$(Q)awk -f $(TOP)/Documentation/man/tidy.awk $@.roff >$@.tmp
	$(Q)rm -f $@.roff && mv $@.tmp $@

install: install-man
install-man: man
	for p in $(MAN_PAGES); do s=$${p##*.}; \
		install -d $(DESTDIR)$(PREFIX)/share/man/man$$s && \
		install -m 644 $$p $(DESTDIR)$(PREFIX)/share/man/man$$s/ || \
		exit 1; done
