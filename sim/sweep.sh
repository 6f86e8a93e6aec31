#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# make sim: run the simulator's sweeps (sim/sweep.py) into $1.
exec /usr/bin/python3 "$(dirname "$0")/sweep.py" "$@"
