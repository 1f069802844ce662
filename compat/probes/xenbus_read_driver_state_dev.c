// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_XENBUS_READ_DRIVER_STATE_DEV
 *
 * After 6.12 (Debian's 7.2 headers have it, 6.12's do not):
 * xenbus_read_driver_state() takes the xenbus_device besides the path
 * it reads.
 */
#include <xen/xenbus.h>

enum xenbus_state xps_probe(const struct xenbus_device *dev);
enum xenbus_state xps_probe(const struct xenbus_device *dev)
{
	return xenbus_read_driver_state(dev, dev->otherend);
}
