// SPDX-License-Identifier: GPL-2.0
/*
 * rina.ko: module entry points and the per-network-namespace state that
 * the generic netlink family, /dev/rina and the sysctls share.
 */
#include <linux/module.h>
#include <net/genetlink.h>
#include <net/netns/generic.h>

#include "rina_kmod.h"

static unsigned int rina_net_id __read_mostly;

struct rina_net *rina_pernet(const struct net *net)
{
	return net_generic(net, rina_net_id);
}

static int __net_init rina_net_init(struct net *net)
{
	struct rina_net *rn = rina_pernet(net);
	int err;

	rn->net = net;
	mutex_init(&rn->lock);
	INIT_LIST_HEAD(&rn->jobs);
	err = rina_stats_net_init(rn);
	if (err)
		return err;
	err = rina_sysctl_net_init(rn);
	if (err)
		goto err_stats;
	err = rina_agents_net_init(rn);
	if (err)
		goto err_sysctl;
	return 0;

err_sysctl:
	rina_sysctl_net_exit(rn);

err_stats:
	rina_stats_net_exit(rn);
	return err;
}

static void __net_exit rina_net_exit(struct net *net)
{
	struct rina_net *rn = rina_pernet(net);

	/*
	 * Attached fds hold a reference on their netns, so no fd can still
	 * be using this table: drop every job (also on module unload).
	 */
	mutex_lock(&rn->lock);
	rina_jobs_flush(rn);
	mutex_unlock(&rn->lock);
	rina_agents_net_exit(rn);
	rina_sysctl_net_exit(rn);
	rina_stats_net_exit(rn);
}

static struct pernet_operations rina_net_ops = {
	.init	= rina_net_init,
	.exit	= rina_net_exit,
	.id	= &rina_net_id,
	.size	= sizeof(struct rina_net),
};

static int __init rina_init(void)
{
	int err;

	err = rina_kmac_selftest();
	if (err)
		return err;
	/* the agents stop with their job, also when a netns goes */
	err = rina_agents_init();
	if (err)
		return err;
	err = register_pernet_subsys(&rina_net_ops);
	if (err)
		goto err_agents;
	err = rina_genl_init();
	if (err)
		goto err_pernet;
	err = rina_chrdev_init();
	if (err)
		goto err_genl;
	pr_info("rina: loaded (genl family %s, /dev/%s)\n", RINA_GENL_NAME,
		RINA_DEV_NAME);
	return 0;

err_genl:
	rina_genl_exit();
err_pernet:
	unregister_pernet_subsys(&rina_net_ops);
err_agents:
	rina_agents_exit();
	return err;
}

static void __exit rina_exit(void)
{
	rina_chrdev_exit();
	rina_genl_exit();
	unregister_pernet_subsys(&rina_net_ops);
	rina_agents_exit();
	WARN(rina_objs_leaked(), "rina: jobs or agents leaked at unload\n");
	pr_info("rina: unloaded\n");
}

module_init(rina_init);
module_exit(rina_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Rina: in-network aggregation for Ring-AllReduce");
MODULE_ALIAS_GENL_FAMILY(RINA_GENL_NAME);
