#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# packages.sh OUTDIR [TARBALL]: `make packages`. From the `make dist`
# tarball (default OUTDIR/xen-pv-suite-<VERSION>.tar.gz) build, with the
# distributions' own tools (DKMS 3.0.10 has no mkdeb/mkrpm):
#   OUTDIR/deb/  xen-pv-suite-dkms_<v>_all.deb and the source package
#                (dpkg-buildpackage), checked with lintian
#   OUTDIR/rpm/  xen-pv-suite-dkms-<v>-1.noarch.rpm and, in the kmodtool
#                style, kmod-xen-pv-suite-<kver>-<v>-1.<arch>.rpm for the
#                lab's kernel (XPS_KMOD_KERNELS, KDIR per release from
#                XPS_KMOD_KBUILD_FMT), checked with rpmlint (rpm/rpmlint.toml
#                says which generic findings are accepted and why)
# Prints PASS:/FAIL: lines; exits non-zero on any failure.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(cat "$root/VERSION")
tarball=${2:-$out/xen-pv-suite-$version.tar.gz}
[ -f "$tarball" ] || { echo "FAIL: pkg/tarball $tarball missing (make dist)"; exit 1; }
version=$(basename "$tarball" .tar.gz)
version=${version#xen-pv-suite-}
kernels=${XPS_KMOD_KERNELS:-$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sed 's|.*/linux-headers-||' | head -n 1)}
kfmt=${XPS_KMOD_KBUILD_FMT:-/usr/src/linux-headers-%s}
rc=0
pass() { echo "PASS: pkg/$*"; }
fail() { echo "FAIL: pkg/$*"; rc=1; }

# The modules DKMS builds for a kernel whose .config is $1: dkms.conf is
# shell, which DKMS sources with kernelver, kernel_source_dir and
# kernel_config set.
# shellcheck disable=SC2034 # read by the sourced dkms.conf
dkms_modules() {
	(kernelver=x kernel_source_dir=x kernel_config=$1
	 # shellcheck disable=SC1090
	 . <(tar -xzOf "$tarball" "xen-pv-suite-$version/dkms.conf")
	 echo "${BUILT_MODULE_NAME[*]}")
}
cfgd=$(mktemp -d)
echo 'CONFIG_XEN_BACKEND=y' >"$cfgd/dom0"
echo '# CONFIG_XEN_BACKEND is not set' >"$cfgd/guest"
m0=$(dkms_modules "$cfgd/dom0") mg=$(dkms_modules "$cfgd/guest")
rm -rf "$cfgd"
if [[ " $m0 " = *" xen-netback-pgnt "* && " $mg " != *" xen-netback-pgnt "* &&
      $(wc -w <<<"$mg") -eq $(($(wc -w <<<"$m0") - 1)) ]]; then
	pass "dkms-conf backend kernel: $m0; guest-only kernel: $mg"
else
	fail "dkms-conf backend kernel: $m0; guest-only kernel: $mg (want xen-netback-pgnt only on the first)"
fi

# ---- Debian ----
deb=$out/deb
rm -rf "$deb"; mkdir -p "$deb"
tar -C "$deb" -xzf "$tarball"
src=$deb/xen-pv-suite-$version
if (cd "$src" && dpkg-buildpackage -us -uc -tc >"$deb/build.log" 2>&1); then
	pass "deb/build $(cd "$deb" && basename -a ./*.deb)"
else
	fail "deb/build $(tail -n 5 "$deb/build.log" | tr '\n' ' ' | cut -c1-300)"
fi
if ls "$deb"/*.changes >/dev/null 2>&1; then
	# --fail-on warning: errors and warnings fail; info and pedantic are
	# printed only.  Overrides, each with its reason: debian/*.lintian-overrides.
	if lintian --fail-on error,warning --info "$deb"/*.changes >"$deb/lintian.log" 2>&1; then
		pass "deb/lintian $(grep -c '^[EW]:' "$deb/lintian.log") errors or warnings, $(grep -c '^I:' "$deb/lintian.log") info"
	else
		fail "deb/lintian $(grep '^[EW]:' "$deb/lintian.log" | head -n 4 | tr '\n' ' ' | cut -c1-400)"
	fi
fi

# ---- RPM ----
rpmd=$out/rpm
rm -rf "$rpmd"; mkdir -p "$rpmd"/{SOURCES,SPECS,BUILD,RPMS,SRPMS,BUILDROOT}
cp "$tarball" "$rpmd/SOURCES/"
tar -C "$rpmd/SPECS" -xzf "$tarball" --strip-components=2 \
	"xen-pv-suite-$version/rpm/xen-pv-suite-dkms.spec" "xen-pv-suite-$version/rpm/xen-pv-suite-kmod.spec"
rpmargs=(--define "_topdir $rpmd" --define "_build_id_links none" --nodeps)
if rpmbuild -ba "${rpmargs[@]}" "$rpmd/SPECS/xen-pv-suite-dkms.spec" >"$rpmd/dkms-build.log" 2>&1; then
	pass "rpm/dkms $(cd "$rpmd" && basename -a RPMS/noarch/xen-pv-suite-dkms-*.rpm)"
else
	fail "rpm/dkms $(tail -n 5 "$rpmd/dkms-build.log" | tr '\n' ' ' | cut -c1-300)"
fi
if [ -z "$kernels" ]; then
	fail "rpm/kmod no kernel build tree for the kmod package"
elif rpmbuild -ba "${rpmargs[@]}" --define "kernels $kernels" --define "kbuild_fmt $kfmt" \
	"$rpmd/SPECS/xen-pv-suite-kmod.spec" >"$rpmd/kmod-build.log" 2>&1; then
	# every module DKMS installs, in each kernel's package
	# shellcheck disable=SC2059 # kfmt is a printf format, as in the spec
	want=$(dkms_modules "$(printf "$kfmt" "${kernels%% *}")/.config" | wc -w)
	n=0 ko=0
	for r in "$rpmd"/RPMS/*/kmod-xen-pv-suite-*.rpm; do
		c=$(rpm -qlp "$r" 2>/dev/null | grep -c '\.ko$')
		[ "$c" -eq 0 ] || n=$((n + 1)) ko=$((ko + c))
	done
	if [ "$n" -ge 1 ] && [ "$want" -ge 1 ] && [ "$ko" -eq $((want * n)) ]; then
		pass "rpm/kmod $n kernel package(s) for $kernels, $ko modules"
	else
		fail "rpm/kmod $n kernel package(s), $ko modules (want $want each, as dkms.conf)"
	fi
else
	fail "rpm/kmod $(grep -iE 'error' "$rpmd/kmod-build.log" | head -n 3 | tr '\n' ' ' | cut -c1-300)"
fi
if ls "$rpmd"/RPMS/*/*.rpm >/dev/null 2>&1; then
	if rpmlint --config "$root/rpm/rpmlint.toml" "$rpmd"/RPMS/*/*.rpm "$rpmd"/SRPMS/*.rpm \
		>"$rpmd/rpmlint.log" 2>&1; then
		pass "rpm/rpmlint $(tail -n 1 "$rpmd/rpmlint.log")"
	else
		fail "rpm/rpmlint $(grep -E ': [EW]: ' "$rpmd/rpmlint.log" | head -n 4 | tr '\n' ' ' | cut -c1-400)"
	fi
fi
exit $rc
