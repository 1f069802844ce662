// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_ETHTOOL_RXFH_PARAM
 *
 * 6.8: ethtool's get_rxfh/set_rxfh take a struct ethtool_rxfh_param
 * (and set_rxfh a netlink_ext_ack); before, indir, key and hfunc were
 * separate arguments.
 */
#include <linux/ethtool.h>

unsigned int xps_probe(void);
unsigned int xps_probe(void)
{
	struct ethtool_rxfh_param p = { .hfunc = ETH_RSS_HASH_TOP };

	return p.hfunc;
}
