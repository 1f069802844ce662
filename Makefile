# SPDX-License-Identifier: GPL-2.0
#
# xen-pv-suite: the user's wrapper around Kbuild.
#
#   make [KDIR=<headers>]   build every module (default: the running kernel)
#   make check              everything CI runs; last line "N passed, N failed"
#   make unit               userspace unit tests (ASan + UBSan)
#   make style              checkpatch --strict on our sources
#   make sparse             sparse (C=2) on our sources, any finding fails
#   make w1                 W=1 build, any warning in our files fails
#   make matrix             build against every Debian header set we can get
#   make lab                boot the real-Xen QEMU lab with the suite loaded
#   make bench              block benchmark in the lab (never part of check)
#   make bench-qspl         qspinlock-pv overcommit benchmark in the lab
#   make clean | distclean  distclean also drops the lab and matrix caches
#
# DKMS passes KDIR (and KVER); the running kernel is only a default.

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
JOBS ?= 2
SRC := $(CURDIR)
GEN := $(SRC)/compat/generated
XPS_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/xen-pv-suite
export XPS_CACHE

KMAKE = $(MAKE) -C $(KDIR) M=$(SRC) -j$(JOBS)

.PHONY: all modules compat clean distclean deps unit style sparse w1 matrix \
	lab lab-images check bench bench-qspl help

all: modules

help:
	@sed -n "3,16p" Makefile | sed 's/^# \{0,1\}//'

$(KDIR)/Makefile:
	@echo "error: no kernel headers at $(KDIR)." >&2
	@echo "Install linux-headers-$(KVER) or pass KDIR=<headers dir>." >&2
	@exit 1

# The probes run again whenever KDIR or a probe changes.
compat: $(KDIR)/Makefile
	@if [ ! -f $(GEN)/xps_config.h ] || \
	    [ "$$(cut -d' ' -f1 $(GEN)/.kdir 2>/dev/null)" != "$(KDIR)" ] || \
	    [ -n "$$(find compat/probes scripts/compat-probe.sh -newer $(GEN)/xps_config.h)" ]; then \
		scripts/compat-probe.sh $(KDIR) $(GEN); \
	fi

modules: compat
	$(KMAKE) modules

clean:
	-[ -f $(KDIR)/Makefile ] && $(KMAKE) clean
	find . -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name 'modules.order' -o -name 'Module.symvers' \
		| grep -v '^./.git/' | xargs rm -f
	rm -rf $(GEN) build
	$(MAKE) -C tests/unit clean

distclean: clean
	rm -rf $(XPS_CACHE)

unit:
	$(MAKE) -C tests/unit check

style:
	scripts/style.sh

sparse: compat
	scripts/kbuild-check.sh sparse $(KDIR)

w1: compat
	scripts/kbuild-check.sh w1 $(KDIR)

matrix:
	scripts/matrix.sh

# Installs host packages with apt when one is missing (needs root then).
deps:
	@scripts/install-deps.sh

lab-images: deps
	tests/lab/lab images

lab: deps
	scripts/check.sh lab

check: deps
	scripts/check.sh

bench: deps
	scripts/bench/run.sh

bench-qspl: deps
	scripts/bench/run.sh qspl
