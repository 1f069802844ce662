# SPDX-License-Identifier: GPL-2.0
#
# xen-pv-suite: the user's wrapper around Kbuild.
#
#   make [KDIR=<headers>]   build every module (default: the running kernel)
#   make check              everything CI runs; last line "N passed, N failed"
#   make check-full         make check, the lab boots past CI's 90 minutes
#                           (netpairs, netback-stock, smoke) and the longer
#                           reload loops and lifecycle steps
#   make unit               userspace unit tests (ASan + UBSan)
#   make fuzz               the libFuzzer targets, FUZZ_SECS (600) each; what
#                           adds coverage joins tests/fuzz/corpus/
#   make style              checkpatch --strict on our sources
#   make sparse             sparse (C=2) on our sources, any finding fails
#   make w1                 W=1 build, any warning in our files fails
#   make matrix             build against every Debian header set we can get
#   make lab                boot the real-Xen QEMU lab with the suite loaded
#   make lab-arm64          the arm64 lab: guests with 4, 16 and 64 KB pages
#   make bench              block benchmark in the lab (never part of check)
#   make bench-qspl         qspinlock-pv overcommit benchmark in the lab
#   make bench-arm64        64 KB-page guest: grant memory and throughput,
#                           stock blkfront vs ours (the arm64 lab)
#   make bench-net          1 to 4 guest pairs at once (seed 004): stock
#                           netfront+netback vs ours, with and without
#                           persistent grants (bench-netpairs: the same)
#   make bench-netfront     the frontends alone on one domU, both on the
#                           stock netback: iperf3 TCP both ways, UDP 64 B
#   make hostile-stock      the lab's hostile-blk, hostile-nf and
#                           hostile-nb cases against Debian's
#                           xen-blkfront, xen-netfront and xen-netback,
#                           for comparison (not a gate)
#   make soak               xen-blkfront-64k and the net pair through 50
#                           save/restores, 20 live migrations, 20
#                           detach/attach cycles and 100 reloads with fio
#                           verify and net transfers running, and seven
#                           more guests moved in turn from the reloads on,
#                           in one lab boot (hours); the table:
#                           build/soak-ours/soak.md
#   make soak-stock         the same loops with Debian's drivers (no
#                           reloads): the reference row
#   make bench-tables       every report and plot of doc/bench-data/ again
#                           from its committed raw samples
#   make dist               build/dist/xen-pv-suite-<VERSION>.tar.gz (the
#                           source the .deb and .rpm packages build from)
#   make packages           the .deb and both .rpm packages from that tarball
#   make install-src DESTDIR=D  the DKMS source tree into D/usr/src/
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

# One source of truth for the version: VERSION.  make dist stamps it into
# dkms.conf and the rpm specs; debian/changelog must agree (checked).
VERSION := $(shell cat $(SRC)/VERSION)
DIST := xen-pv-suite-$(VERSION)
# What DKMS builds from: the packages install exactly this under /usr/src.
DKMS_FILES = Kbuild Makefile VERSION LICENSE dkms.conf compat/compat.h \
	scripts/compat-probe.sh $(wildcard compat/probes/*.c) \
	$(wildcard include/xen-pv-suite/*.h) \
	$(filter-out %.mod.c,$(wildcard src/*/Kbuild src/*/*.c src/*/*.h))

.PHONY: all modules compat clean distclean deps unit fuzz style sparse w1 matrix \
	lab lab-arm64 lab-images check check-full bench bench-qspl bench-arm64 bench-net bench-netpairs bench-netfront bench-tables hostile-stock soak soak-stock help dist packages install-src

all: modules

help:
	@awk 'NR >= 3 { if (NR > 4 && /^#$$/) exit; sub(/^# ?/, ""); print }' Makefile

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
	$(MAKE) -C tests/fuzz clean

distclean: clean
	rm -rf $(XPS_CACHE)

unit:
	$(MAKE) -C tests/unit check

fuzz:
	$(MAKE) -C tests/fuzz fuzz FUZZ_SECS=$(or $(FUZZ_SECS),600)

style:
	scripts/style.sh

sparse: compat
	scripts/kbuild-check.sh sparse $(KDIR)

w1: compat
	scripts/kbuild-check.sh w1 $(KDIR)

matrix:
	scripts/matrix.sh

install-src:
	@for f in $(DKMS_FILES); do \
		install -D -m 0644 $$f $(DESTDIR)/usr/src/$(DIST)/$$f || exit 1; \
	done
	chmod 0755 $(DESTDIR)/usr/src/$(DIST)/scripts/compat-probe.sh
	sed -i 's/#MODULE_VERSION#/$(VERSION)/' $(DESTDIR)/usr/src/$(DIST)/dkms.conf

dist:
	scripts/dist.sh build/dist

packages: dist
	scripts/packages.sh build/dist

# Installs host packages with apt when one is missing (needs root then).
deps:
	@scripts/install-deps.sh

lab-images: deps
	tests/lab/lab images

lab: deps
	scripts/check.sh lab

lab-arm64: deps
	scripts/check.sh arm64

hostile-stock: deps
	scripts/check.sh hostile-stock

check: deps
	scripts/check.sh

# the lifecycle loops of issue #16 (hours): xen-blkfront-64k, or the stock
# driver as the reference; the table goes to build/soak-*/soak.md
soak: deps
	scripts/soak.sh ours

soak-stock: deps
	scripts/soak.sh stock

# make check and the lab boot past CI's budget (netback-stock)
check-full: deps
	scripts/check.sh full

bench: deps
	scripts/bench/run.sh

bench-qspl: deps
	scripts/bench/run.sh qspl

bench-arm64: deps
	scripts/bench/run.sh arm64

bench-net bench-netpairs: deps
	scripts/bench/run.sh netpairs

bench-netfront: deps
	scripts/bench/run.sh net

# Debian's python3 has python3-matplotlib (install-deps); pyenv's may not.
bench-tables: deps
	$(or $(wildcard /usr/bin/python3),python3) scripts/bench/tables.py
