// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_NETDEV_NAPI_THREADED
 *
 * After 6.12 (Debian's 7.2 headers have it, 6.12's do not):
 * dev_set_threaded() takes an enum netdev_napi_threaded, not a bool.
 */
#include <linux/netdevice.h>

int xps_probe(struct net_device *dev);
int xps_probe(struct net_device *dev)
{
	return dev_set_threaded(dev, NETDEV_NAPI_THREADED_ENABLED);
}
