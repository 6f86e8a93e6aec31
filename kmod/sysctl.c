// SPDX-License-Identifier: GPL-2.0
/*
 * net.rina.* sysctls, one set per network namespace, with ranges.
 * The defaults a job takes when its JOB_ADD request leaves them out.
 */
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/version.h>
#include <net/net_namespace.h>

#include "rina_kmod.h"

/* 6.11 made the table argument of proc handlers const. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define RINA_CTL_CONST const
#else
#define RINA_CTL_CONST
#endif

static int rina_timeout_min = 10, rina_timeout_max = 3600000;
static int rina_rto_min = 50, rina_rto_max = 10000000;
static int rina_window_min = RINA_MIN_WINDOW, rina_window_max = RINA_MAX_WINDOW;
static int rina_elems_min = 1, rina_elems_max = RINA_MAX_ELEMS;
static int rina_fallback_min = RINA_FALLBACK_ABORT;
static int rina_fallback_max = RINA_FALLBACK_RING;
static int rina_debug_min, rina_debug_max = 3;

static const struct rina_sysctl_vals rina_sysctl_defaults = {
	.timeout_ms	= 10000,
	.rto_us		= 2000,
	.default_window	= 64,
	.default_elems	= 256,
	.fallback	= RINA_FALLBACK_SOFTWARE,
	.debug		= 0,
};

/* proc_dointvec_minmax, and the value must be a power of two. */
static int rina_proc_pow2(RINA_CTL_CONST struct ctl_table *table, int write,
			  void *buffer, size_t *lenp, loff_t *ppos)
{
	struct ctl_table tmp = *table;
	int val = READ_ONCE(*(int *)table->data);
	int err;

	tmp.data = &val;
	err = proc_dointvec_minmax(&tmp, write, buffer, lenp, ppos);
	if (err || !write)
		return err;
	if (val & (val - 1))
		return -EINVAL;
	WRITE_ONCE(*(int *)table->data, val);
	return 0;
}

#define RINA_CTL(_name, _field, _handler, _min, _max) {			\
	.procname	= _name,					\
	.data		= (void *)offsetof(struct rina_sysctl_vals, _field), \
	.maxlen		= sizeof(int),					\
	.mode		= 0644,						\
	.proc_handler	= _handler,					\
	.extra1		= &(_min),					\
	.extra2		= &(_max),					\
}

/* .data holds the field offset; rina_sysctl_net_init() rebases it. */
static struct ctl_table rina_sysctl_template[] = {
	RINA_CTL(RINA_SYSCTL_TIMEOUT_MS, timeout_ms, proc_dointvec_minmax,
		 rina_timeout_min, rina_timeout_max),
	RINA_CTL(RINA_SYSCTL_RTO_US, rto_us, proc_dointvec_minmax,
		 rina_rto_min, rina_rto_max),
	RINA_CTL(RINA_SYSCTL_DEFAULT_WINDOW, default_window, rina_proc_pow2,
		 rina_window_min, rina_window_max),
	RINA_CTL(RINA_SYSCTL_DEFAULT_ELEMS, default_elems,
		 proc_dointvec_minmax, rina_elems_min, rina_elems_max),
	RINA_CTL(RINA_SYSCTL_FALLBACK, fallback, proc_dointvec_minmax,
		 rina_fallback_min, rina_fallback_max),
	RINA_CTL(RINA_SYSCTL_DEBUG, debug, proc_dointvec_minmax,
		 rina_debug_min, rina_debug_max),
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
	{ }	/* 6.1 needs the sentinel; 6.6+ takes a size instead */
#endif
};

#define RINA_N_SYSCTL	6

int rina_sysctl_net_init(struct rina_net *rn)
{
	struct ctl_table *tbl;
	int i;

	BUILD_BUG_ON(ARRAY_SIZE(rina_sysctl_template) <
		     RINA_N_SYSCTL);
	rn->sysctl = rina_sysctl_defaults;
	tbl = kmemdup(rina_sysctl_template, sizeof(rina_sysctl_template),
		      GFP_KERNEL);
	if (!tbl)
		return -ENOMEM;
	for (i = 0; i < RINA_N_SYSCTL; i++)
		tbl[i].data = (char *)&rn->sysctl + (uintptr_t)tbl[i].data;
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
	rn->sysctl_hdr = register_net_sysctl(rn->net, "net/rina", tbl);
#else
	rn->sysctl_hdr = register_net_sysctl_sz(rn->net, "net/rina", tbl,
						RINA_N_SYSCTL);
#endif
	if (!rn->sysctl_hdr) {
		kfree(tbl);
		return -ENOMEM;
	}
	rn->sysctl_tbl = tbl;
	return 0;
}

void rina_sysctl_net_exit(struct rina_net *rn)
{
	unregister_net_sysctl_table(rn->sysctl_hdr);
	kfree(rn->sysctl_tbl);
}
