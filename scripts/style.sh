#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# style.sh: checkpatch --strict on every C file we ship, and no CamelCase
# identifier of our own (the kernel's XenbusState* names are allowed).
#
# checkpatch.pl ships only inside Debian's linux-source tarball, so it is
# extracted once (with spelling.txt and const_structs.checkpatch, which it
# reads from beside itself) into the cache, keyed by the package version.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${XPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xen-pv-suite}
tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$tarball" ]; then
	echo "FAIL: style/checkpatch linux-source-6.1 is not installed (apt-get install linux-source-6.1)"
	exit 1
fi
pkg=$(dpkg -S "$tarball" 2>/dev/null | cut -d: -f1 || basename "$tarball" .tar.xz)
ver=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null || echo unknown)
top=$(basename "$tarball" .tar.xz)
dir="$cache/checkpatch/$pkg-$ver"
if [ ! -x "$dir/$top/scripts/checkpatch.pl" ]; then
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" "$top/scripts/checkpatch.pl" \
		"$top/scripts/spelling.txt" "$top/scripts/const_structs.checkpatch"
fi
cp=$dir/$top/scripts/checkpatch.pl

cd "$root"
mapfile -t files < <(git ls-files -co --exclude-standard -- \
	'src/*.[ch]' 'include/*.h' 'compat/*.[ch]' 'tests/unit/*.[ch]' 'tests/fuzz/*.[ch]' | sort)
fail=0
for f in "${files[@]}"; do
	[ -f "$f" ] || continue
	# The userspace unit tests are held to kernel style too, minus
	# what only makes sense inside the kernel: the shim re-creates the
	# kernel's own list macros and fixed-width typedefs (which reuse
	# their arguments exactly as the kernel's do), and the harness's
	# assertion macros return from the test on failure by design.  The
	# fuzz targets likewise (libFuzzer's entry point takes uint8_t).
	extra=()
	# shellcheck disable=SC2054 # one comma-separated --ignore list
	case "$f" in
	tests/unit/*|tests/fuzz/*) extra=(--ignore PREFER_KERNEL_TYPES,SPLIT_STRING,EMBEDDED_FUNCTION_NAME,AVOID_EXTERNS,MACRO_ARG_REUSE,MACRO_ARG_PRECEDENCE,MACRO_WITH_FLOW_CONTROL,NEW_TYPEDEFS,PREFER_DEFINED_ATTRIBUTE_MACRO) ;;
	esac
	# --no-tree cannot see the kernel's own CamelCase names (enum
	# xenbus_state's XenbusState*), so checkpatch's CAMELCASE check is
	# off and ours below allows those names only.
	if ! out=$("$cp" --no-tree --strict --quiet --show-types --ignore CAMELCASE \
		"${extra[@]}" -f "$f" 2>&1); then
		echo "$out"
		echo "FAIL: style/checkpatch $f"
		fail=1
	fi
	# CamelCase identifiers outside comments and strings (and libFuzzer's
	# entry point, a name it looks for)
	camel=$(sed -e 's://.*$::' -e 's/"[^"]*"//g' "$f" |
		grep -v '^[[:space:]]*\*' | grep -v '^[[:space:]]*/\*' |
		grep -oE '\b[A-Za-z_][A-Za-z0-9_]*[a-z][A-Z][A-Za-z0-9_]*\b' |
		grep -vE '^(XenbusState[A-Z][A-Za-z]*|LLVMFuzzerTestOneInput)$' | sort -u | tr '\n' ' ' || true)
	if [ -n "$camel" ]; then
		echo "FAIL: style/camelcase $f: $camel"
		fail=1
	fi
done
[ $fail -eq 0 ] && echo "PASS: style/checkpatch (${#files[@]} files)"

# The shell scripts: every *.sh and every tracked file with a shell
# shebang, at shellcheck's warning level (.shellcheckrc: sourced files
# are found at run time).  The lab's sourced fragments say which shell
# they are written for (# shellcheck shell=sh or bash).
if ! command -v shellcheck >/dev/null; then
	echo "FAIL: style/shellcheck shellcheck is not installed (apt-get install shellcheck)"
	exit 1
fi
mapfile -t sh < <(git ls-files -co --exclude-standard | while read -r f; do
	[ -f "$f" ] || continue
	case "$f" in
	*.sh) echo "$f" ;;
	*) head -n 1 "$f" | grep -qE '^#!.*\b(ba|da)?sh\b' && echo "$f" ;;
	esac
done | sort -u)
if out=$(shellcheck -S warning -x -f gcc "${sh[@]}" 2>&1); then
	echo "PASS: style/shellcheck (${#sh[@]} scripts)"
else
	echo "$out"
	echo "FAIL: style/shellcheck"
	fail=1
fi

# make help prints the Makefile's header, every "make" entry of it (a
# fixed line range cut the last entry off once the header grew)
want=$(awk 'NR > 4 && /^#$/ { exit } /^#   make /' Makefile | tail -n 1 | sed 's/^# *//')
got=$(make -s help | grep '^  make ' | tail -n 1 | sed 's/^ *//')
if [ -n "$want" ] && [ "$want" = "$got" ]; then
	echo "PASS: style/make-help (ends with '$want')"
else
	echo "FAIL: style/make-help its last entry is '$got', the Makefile header's '$want'"
	fail=1
fi
exit $fail
