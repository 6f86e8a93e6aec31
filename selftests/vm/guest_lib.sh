# SPDX-License-Identifier: GPL-2.0
# Helpers of the guest's shell tests (busybox sh), sourced after ktap.sh.

# milliseconds since boot (busybox date may lack %N)
now_ms() {
	read -r up _ < /proc/uptime
	echo $(( ${up%.*} * 1000 + 10 * $(echo "${up#*.}" | sed 's/^0//') ))
}
