#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pack-project.sh OUT.tar: the project bench-blk's build workload builds
# in its domU (the suite's userspace unit tests with the pure driver
# code: their sources, headers and Makefiles, as git has them), for
# lib/overlay.sh and tests/lab/test-bench-build.sh.
set -e
out=$(realpath -m "$1")
cd "$(dirname "$0")/../../.."
git ls-files include src/grant-pool src/blkfront tests/unit |
	grep -E '\.[ch]$|Makefile$' | tar -cf "$out" -T -
