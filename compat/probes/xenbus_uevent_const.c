// SPDX-License-Identifier: GPL-2.0
/*
 * HAVE_XENBUS_UEVENT_CONST
 *
 * 6.3: struct xenbus_driver's uevent callback takes a const struct
 * xenbus_device (the driver core made uevent callbacks const).
 */
#include <xen/xenbus.h>

static int xps_uevent(const struct xenbus_device *dev,
		      struct kobj_uevent_env *env)
{
	return 0;
}

unsigned int xps_probe(void);
unsigned int xps_probe(void)
{
	struct xenbus_driver drv = { .uevent = xps_uevent };

	return !!drv.uevent;
}
