# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# make SANITIZE=LIST: the sanitizers every userspace C object and program
# is built with (LIST as for gcc's -fsanitize=: address,undefined or
# thread), and the stamp that rebuilds them when LIST changes.
#
# $(SAN_STAMP) holds the flags the objects in $(BUILD) were compiled
# with. It is rewritten, while the Makefile is read, only when they
# differ, and every object and program depends on it: a build with another
# SANITIZE value never links objects compiled without it (the kernel's
# .cmd files do the same per object).

SANITIZE	?=
comma		:= ,
SAN_LIST	:= $(subst $(comma), ,$(SANITIZE))

ifneq ($(filter-out address undefined thread leak,$(SAN_LIST)),)
$(error SANITIZE=$(SANITIZE): unknown sanitizer \
	$(filter-out address undefined thread leak,$(SAN_LIST)) \
	(address, undefined, thread, leak))
endif
ifneq ($(and $(filter thread,$(SAN_LIST)),$(filter address leak,$(SAN_LIST))),)
$(error SANITIZE=$(SANITIZE): thread cannot be combined with address or leak)
endif

# every report fatal (-fno-sanitize-recover): a test that trips one fails
SAN_CFLAGS	:= $(if $(SAN_LIST),-fsanitize=$(SANITIZE) \
	-fno-sanitize-recover=all -fno-omit-frame-pointer)

SAN_STAMP	:= $(BUILD)/sanitize.flags
ifneq ($(wildcard $(SAN_STAMP)),)
SAN_OLD		:= $(file <$(SAN_STAMP))
else
SAN_OLD		:= none
endif
ifneq ($(SAN_OLD),$(strip $(SAN_CFLAGS)))
$(shell mkdir -p $(BUILD) && printf '%s\n' '$(strip $(SAN_CFLAGS))' \
	>$(SAN_STAMP))
endif
