# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The shared core's C sources, named once. Read by the top Makefile
# (librina, the core library, the kernel module's dependencies), by Kbuild
# (rina.ko's objects), by sim/build.mk (rina-sim's build of the core) and
# by scripts/vm/build-kmod.sh (what it mirrors).
# Keep it plain make assignments: kbuild reads it too.
CORE_SRCS := plan.c agg.c keymap.c cc.c ctrl_auth.c \
	agent.c agent_tx.c agent_cache.c agent_agg.c agent_ctrl.c agent_tor.c
# The data-path engines that librina and the simulator host; rina.ko
# hosts only the agent, so Kbuild leaves these out.
CORE_ENGINE_SRCS := ring_member.c ring_member_tx.c ina_worker.c ina_worker_tx.c \
	engine_cfg.c
