#!/bin/sh
# Scenario ft-symlink-dirs: with fs.protected_symlinks=0 the kernel follows
# any link, so root writing /tmp/LINK/out.h5 would write into the folder
# behind another user's link. forcetrace applies the rule itself, to every
# component of the path: another user's link in the sticky /tmp is refused
# (naming the link and its owner) and nothing appears behind it; root's own
# link in /tmp, and another user's link in a folder that is not sticky, are
# followed. check_ft_symlink_dirs.py reads back what was written.
. "$FT_LIB"
ft_require su sysctl ln stat
ft_need_forcetrace

OTHER=4242
grep -q "^ftother:" /etc/passwd || echo "ftother:x:$OTHER:$OTHER:another user:/tmp:/bin/sh" >>/etc/passwd
grep -q "^ftother:" /etc/group || echo "ftother:x:$OTHER:" >>/etc/group
as_other() { su -s /bin/sh ftother -c "$1"; }

sysctl -w fs.protected_symlinks=0 >/dev/null || ft_fail "sysctl -w fs.protected_symlinks=0 failed"
trap 'sysctl -w fs.protected_symlinks=1 >/dev/null 2>&1' EXIT
[ "$(cat /proc/sys/fs/protected_symlinks)" = 0 ] || ft_fail "fs.protected_symlinks is not 0"
chmod 1777 /tmp
[ "$(stat -c %a /tmp)" = 1777 ] || ft_fail "/tmp is not sticky and world-writable: $(stat -c %a /tmp)"

forcetrace simulate --presses 3 --seed 1 -o /root/in.evemu >"$OUT/simulate.out" 2>&1 || ft_fail "simulate failed: $(cat "$OUT/simulate.out")"

# The other user's folder, and their link to it in /tmp.
BEHIND=/home/ftother
mkdir -p "$BEHIND" && chown "$OTHER:$OTHER" "$BEHIND" && chmod 755 "$BEHIND"
as_other "ln -s $BEHIND /tmp/LINK" || ft_fail "ftother could not make /tmp/LINK"
[ "$(stat -c %u /tmp/LINK)" = "$OTHER" ] || ft_fail "/tmp/LINK is not owned by uid $OTHER"
# The attack is live: with the sysctl off, the kernel lets root through the link.
echo probe >/tmp/LINK/probe 2>/dev/null || ft_fail "the kernel refused root's write through /tmp/LINK: the sysctl is not in effect"
rm -f "$BEHIND/probe"

ft_step refused
forcetrace import /root/in.evemu -o /tmp/LINK/out.h5 >"$OUT/refused.out" 2>"$OUT/refused.err"
echo $? >"$OUT/refused.rc"
forcetrace import /root/in.evemu -o /tmp/LINK/out.h5 --force >/dev/null 2>"$OUT/refused-force.err"
echo $? >"$OUT/refused-force.rc"
ls -A "$BEHIND" >"$OUT/behind-after-refusal"
[ "$(cat "$OUT/refused.rc")" = 1 ] || ft_fail "import through /tmp/LINK exited $(cat "$OUT/refused.rc"), not 1: $(cat "$OUT/refused.err")"
[ "$(cat "$OUT/refused-force.rc")" = 1 ] || ft_fail "import --force through /tmp/LINK exited $(cat "$OUT/refused-force.rc"), not 1"
grep -qF "symbolic link (/tmp/LINK) owned by another user (uid $OTHER)" "$OUT/refused.err" || ft_fail "the error does not name the link and its owner: $(cat "$OUT/refused.err")"
[ ! -s "$OUT/behind-after-refusal" ] || ft_fail "files appeared behind the link: $(cat "$OUT/behind-after-refusal")"

ft_step followed
# Root's own link in the sticky /tmp.
ln -s "$BEHIND" /tmp/MINE
forcetrace import /root/in.evemu -o /tmp/MINE/mine.h5 >/dev/null 2>"$OUT/mine.err" || ft_fail "import through root's own link failed: $(cat "$OUT/mine.err")"
# The other user's link in their own folder, which is not sticky.
THEIRS=/home/ftother-links
mkdir -p "$THEIRS" && chown "$OTHER:$OTHER" "$THEIRS" && chmod 755 "$THEIRS"
as_other "ln -s $BEHIND $THEIRS/LINK" || ft_fail "ftother could not make $THEIRS/LINK"
forcetrace import /root/in.evemu -o "$THEIRS/LINK/theirs.h5" >/dev/null 2>"$OUT/theirs.err" || ft_fail "import through a link in a folder that is not sticky failed: $(cat "$OUT/theirs.err")"
ls -A "$BEHIND" | sort >"$OUT/behind-after-follow"
cp "$BEHIND/mine.h5" "$BEHIND/theirs.h5" "$OUT/" || ft_fail "the outputs are not behind the links: $(cat "$OUT/behind-after-follow")"
ft_assert_hdf5 "$OUT/mine.h5"
ft_assert_hdf5 "$OUT/theirs.h5"
exit 0
