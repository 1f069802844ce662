#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lab-modules.sh [OUTDIR]
#
# Build every module against the headers of the exact kernel the lab boots
# (tests/lab/lab kver) and collect the .ko files in OUTDIR (default
# build/lab-modules), which `tests/lab/lab run --modules` places into the
# guests. Prints the KDIR it used on its last line.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/lab-modules}
kver=$("$root/tests/lab/lab" kver)
kdir=$("$root/scripts/headers.sh" "linux-headers-$kver")
make -C "$root" KDIR="$kdir" modules >&2
rm -rf "$out"
mkdir -p "$out"
find "$root/src" -name '*.ko' -exec cp -t "$out" {} +
echo "lab modules for $kver: $(cd "$out" && ls)" >&2
echo "$kdir"
