#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build a platform's pmemram guest image: Debian trixie (the default) or
# bookworm + the test kernel's modules + the project's Debian package for
# that suite, installed with `apt-get install ./pmemram_*.deb` + the in-guest
# harness.
#
# Usage: tests/vm/mkimage.sh [-p trixie|bookworm] KERNEL_OUT_DIR PMEMRAM_DEB
#        tests/vm/mkimage.sh [-p trixie|bookworm] --base-only
#
# Two cache levels under $PMEMRAM_CACHE/guest/:
#   base-<key>.tar         mmdebstrap of the package list below (key: suite,
#                          list + script)
#   img-SUITE-<key>.ext4   the bootable image (key: base, kernel build, the
#                          package, the harness files)
# On success the last line printed to stdout is the image path.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${PMEMRAM_CACHE:-/var/cache/pmemram}
gcache=$cache/guest
base_only=0
suite=trixie
if [ "${1:-}" = -p ]; then
	suite=${2:?usage: mkimage.sh -p trixie|bookworm ...}
	shift 2
fi
case $suite in
trixie | bookworm) ;;
*)
	echo "image: error: unknown platform '$suite' (trixie or bookworm)" >&2
	exit 1
	;;
esac
if [ "${1:-}" = --base-only ]; then
	base_only=1
else
	kout=${1:?usage: mkimage.sh KERNEL_OUT_DIR PMEMRAM_DEB}
	deb=${2:?usage: mkimage.sh KERNEL_OUT_DIR PMEMRAM_DEB}
fi
img_size=${PMEMRAM_IMAGE_SIZE:-1536M}

# Runtime needs of the guest: systemd as PID 1, real udev, the peers we test
# against (ndctl, daxctl, numactl), the libraries pmemram links to, and strace
# (ns-kill kills pmemramd at a chosen sysfs write with its fault injection).
packages=(
	systemd systemd-sysv udev dbus kmod procps util-linux
	ndctl daxctl numactl jq strace
	libdaxctl1 libndctl6 libudev1 libsystemd0 libnuma1 libjson-c5
)
# Debian 13 ships the cxl tool in a package of its own (ndctl has it on 12),
# and no longer counts e2fsprogs (mkfs.ext4 for the fsdax scenarios) as
# required.
[ "$suite" = bookworm ] || packages+=(cxl libcxl1 e2fsprogs)

log() { echo "image: $*" >&2; }
die() {
	echo "image: error: $*" >&2
	exit 1
}

mkdir -p "$gcache"
exec 9>"$gcache/lock"
flock 9

tree_hash() { (cd "$1" && tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - .) | sha256sum | cut -c1-16; }

# 1. Base system.
base_key=$( (
	printf '%s\n' "$suite" "${packages[@]}"
	sed -n '/^# BASE-BEGIN/,/^# BASE-END/p' "$0"
) | sha256sum | cut -c1-16)
base=$gcache/base-$base_key.tar
if [ ! -s "$base" ]; then
	log "mmdebstrap $suite (one time, about a minute)"
	start=$(date +%s)
	# BASE-BEGIN
	mmdebstrap --quiet --format=tar --variant=minbase --include="$(
		IFS=,
		echo "${packages[*]}"
	)" "$suite" "$base.tmp" >"$gcache/mmdebstrap.log" 2>&1 || {
		tail -20 "$gcache/mmdebstrap.log" >&2
		die "mmdebstrap failed; see $gcache/mmdebstrap.log"
	}
	# BASE-END
	mv "$base.tmp" "$base"
	log "base system in $(($(date +%s) - start))s"
fi

if [ "$base_only" = 1 ]; then
	echo "$base"
	exit 0
fi

# 2. Image.
[ -f "$kout/done" ] || die "$kout is not a finished kernel build"
[ -s "$deb" ] || die "$deb: no such package"
kkey=$(basename "$(readlink -f "$kout")")
img_key=$( (
	echo "base $base_key kernel $kkey size $img_size"
	echo "package $(sha256sum <"$deb")"
	echo "harness $(tree_hash "$here/guest")"
	sha256sum <"$0"
) | sha256sum | cut -c1-16)
img=$gcache/img-$suite-$img_key.ext4
if [ -s "$img" ]; then
	log "cached image $img_key"
	echo "$img"
	exit 0
fi

start=$(date +%s)
stage=$gcache/stage-$suite
rm -rf "$stage"
mkdir -p "$stage"
tar -C "$stage" -xf "$base"
cp -a "$kout/modules/lib/modules" "$stage/lib/"
# pmemram as a user installs it: apt resolves its dependencies from the base
# system (nothing is downloaded) and runs its maintainer scripts, which enable
# the unit; nothing starts in the chroot, where systemd does not run.
cp "$deb" "$stage/tmp/"
chroot "$stage" env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q --no-install-recommends "/tmp/${deb##*/}" \
	>"$gcache/apt-install.log" 2>&1 || {
	tail -20 "$gcache/apt-install.log" >&2
	die "apt-get install ${deb##*/} in the image failed; see $gcache/apt-install.log"
}
# The same package with a higher version, for the package-upgrade scenario.
mkdir -p "$stage/usr/lib/pmemram-test"
repack=$gcache/repack
rm -rf "$repack"
dpkg-deb -R "$deb" "$repack"
sed -i 's/^Version: .*/&+upgrade1/' "$repack/DEBIAN/control"
dpkg-deb -b -Zxz "$repack" "$stage/usr/lib/pmemram-test/pmemram-upgrade.deb" >/dev/null
mv "$stage/tmp/${deb##*/}" "$stage/usr/lib/pmemram-test/pmemram.deb"
rm -rf "$repack"
# The harness: a unit that runs the scenario named on the kernel command line.
install -D -m 0755 "$here/guest/pmemram-test-run" "$stage/usr/lib/pmemram-test/run"
gcc -O2 -Wall -Wextra -Werror -o "$stage/usr/lib/pmemram-test/pagemap-contig" \
	"$here/guest/pagemap-contig.c" || die "cannot build the guest's pagemap-contig"
gcc -O2 -Wall -Wextra -Werror -o "$stage/usr/lib/pmemram-test/dax-map" \
	"$here/guest/dax-map.c" || die "cannot build the guest's dax-map"
gcc -O2 -Wall -Wextra -Werror -o "$stage/usr/lib/pmemram-test/cache-work" \
	"$here/guest/cache-work.c" || die "cannot build the guest's cache-work"
gcc -O2 -Wall -Wextra -Werror -o "$stage/usr/lib/pmemram-test/tier-bench" \
	"$here/guest/tier-bench.c" || die "cannot build the guest's tier-bench"
gcc -O2 -Wall -Wextra -Werror -o "$stage/usr/lib/pmemram-test/pin-pages" \
	"$here/guest/pin-pages.c" || die "cannot build the guest's pin-pages"
install -D -m 0644 "$here/guest/pmemram-test.service" \
	"$stage/etc/systemd/system/pmemram-test.service"
ln -sf /etc/systemd/system/pmemram-test.service \
	"$stage/etc/systemd/system/multi-user.target.wants/pmemram-test.service"
# ttyS0 carries the kernel log to the host; a getty there would hang up writers.
ln -sf /dev/null "$stage/etc/systemd/system/serial-getty@ttyS0.service"
ln -sf /dev/null "$stage/etc/systemd/system/getty@tty1.service"
# QEMU's NVDIMMs have no SMART data: ndctl monitor exits with "no dimms to
# monitor" and would leave a failed unit in every boot.
ln -sf /dev/null "$stage/etc/systemd/system/ndctl-monitor.service"
# Every CPU cycle of the guest's boot costs wall time (one TCG thread): leave
# out what no scenario uses.  Modules the kernel lacks or no scenario needs
# (DRM, fuse, loop, device-mapper, EFI pstore), and the periodic jobs of a
# long-running system.
for unit in modprobe@drm modprobe@fuse modprobe@loop modprobe@dm_mod modprobe@efi_pstore \
	e2scrub_reap; do
	ln -sf /dev/null "$stage/etc/systemd/system/$unit.service"
done
for unit in apt-daily apt-daily-upgrade dpkg-db-backup e2scrub_all fstrim; do
	ln -sf /dev/null "$stage/etc/systemd/system/$unit.timer"
done
# Generators for disks, consoles and boot modes the guest does not have (no
# encrypted, verity or GPT-discovered volumes, no resume image, no getty:
# ttyS0's is masked above), each a program run at every boot.
mkdir -p "$stage/etc/systemd/system-generators"
for gen in cryptsetup getty gpt-auto hibernate-resume integritysetup veritysetup system-update run; do
	ln -sf /dev/null "$stage/etc/systemd/system-generators/systemd-$gen-generator"
done
ln -sf /lib/systemd/system/multi-user.target "$stage/etc/systemd/system/default.target"
echo pmemram-guest >"$stage/etc/hostname"
echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" >"$stage/etc/fstab"
sed -i 's/^root:[^:]*:/root::/' "$stage/etc/shadow"
mkdir -p "$stage/mnt/pmemram"
# Boot as an installed Debian system boots, not as a first boot: every run
# starts from a fresh overlay of the image, so the work systemd does once on
# a first boot (an empty machine ID: a random one and preset-all) or after
# /usr changed (the linker cache, the journal catalog) would be redone in
# every boot, on the guest's one TCG thread: about 8 s of a trixie boot, with
# pmemramd starting behind it.  Done here once, with the stamps that
# systemd-update-done leaves, in its format, so ConditionNeedsUpdate= is
# false.  The machine ID is fixed per image.
printf '%s' "$img_key" | md5sum | cut -c1-32 >"$stage/etc/machine-id"
chroot "$stage" ldconfig
chroot "$stage" journalctl --update-catalog
usr_ns=$(stat -c %.9Y "$stage/usr" | tr -d .)
for stamp in etc/.updated var/.updated; do
	printf '# This file was created by systemd-update-done. Its only\n# purpose is to prevent a job from running\nTIMESTAMP_NSEC=%s\n' \
		"$usr_ns" >"$stage/$stamp"
	touch -m -r "$stage/usr" "$stage/$stamp"
done

rm -f "$img.tmp"
truncate -s "$img_size" "$img.tmp"
mkfs.ext4 -q -F -L pmemram-root -d "$stage" "$img.tmp" ||
	die "mkfs.ext4 -d $stage failed"
rm -rf "$stage"
mv "$img.tmp" "$img"
# Keep the three newest images of the suite; each is 1.5 GB sparse but real
# blocks add up.
ls -1t "$gcache/img-$suite"-*.ext4 | tail -n +4 | xargs -r rm -f
log "image $img_key built in $(($(date +%s) - start))s"
echo "$img"
