#!/bin/sh
# Scenario fs-probe: records what the guest's filesystems offer a recorder
# writing HDF5 (fsync for --flush-ms, flock/fcntl locks for HDF5's file
# locking) using fsprobe (fsprobe.c).  Results: $OUT/fs.txt (key=value).
# Fails if fsync, fdatasync, flock or fcntl locks fail on / /out or /tmp.
. "$FT_LIB"
ft_require fsprobe
{
	echo "rootfs_mount=$(awk '$2 == "/" {print $3; exit}' /proc/mounts)"
	echo "mem_total_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)"
	echo "nproc=$(grep -c ^processor /proc/cpuinfo)"
	fsprobe / /out /tmp
	echo "fsprobe_rc=$?"
} >"$OUT/fs.txt" 2>&1
cat "$OUT/fs.txt"
grep -q '^fsprobe_rc=0$' "$OUT/fs.txt" || ft_fail "fsync/flock/fcntl locking failed: $(grep ERR "$OUT/fs.txt")"
exit 0
