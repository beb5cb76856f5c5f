/*
 * fsprobe.c - report what a directory's filesystem offers a recorder
 * writing HDF5 there (Tests/kernel, fs-probe scenario).  busybox-static has
 * no fsync/flock applets, hence this tool.
 *
 *   fsprobe DIR...
 *
 * Prints key=value lines per DIR (prefixed with the dir's basename):
 *   fstype (statfs magic), write, fsync, fdatasync, flock, fcntl_lock,
 *   ofd_lock, o_direct, rename
 * Each value is "ok" or "ERR:<errno name/text>".  Exit status: 0 if fsync,
 * fdatasync, flock and fcntl_lock all work in every DIR, else 1.
 * Build: cc -O2 -Wall -o fsprobe fsprobe.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/vfs.h>
#include <unistd.h>

static int bad;

static void report(const char *key, const char *name, int rc, int essential)
{
	if (rc == 0)
		printf("%s_%s=ok\n", key, name);
	else {
		printf("%s_%s=ERR:%s\n", key, name, strerror(errno));
		if (essential)
			bad = 1;
	}
}

static const char *fsname(long magic)
{
	switch ((unsigned long)magic) {
	case 0x01021994: return "tmpfs";
	case 0x858458f6: return "ramfs";
	case 0xEF53: return "ext4";
	case 0x58465342: return "xfs";
	case 0x9123683E: return "btrfs";
	case 0x01021997: return "9p";
	case 0x794c7630: return "overlayfs";
	default: return "other";
	}
}

int main(int argc, char **argv)
{
	char buf[65536];
	memset(buf, 0x5a, sizeof buf);
	if (argc < 2) {
		fputs("usage: fsprobe DIR...\n", stderr);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		char path[4096], path2[4200], keybuf[256];
		const char *key;
		struct statfs sfs;
		struct flock fl;
		int fd, fd2, rc;

		snprintf(keybuf, sizeof keybuf, "%s", argv[i]);
		key = basename(keybuf);
		if (!*key || strcmp(key, "/") == 0)
			key = "root";
		if (statfs(argv[i], &sfs) == 0)
			printf("%s_fstype=%s(0x%lx)\n", key, fsname((long)sfs.f_type),
			       (unsigned long)sfs.f_type);
		snprintf(path, sizeof path, "%s/.fsprobe.%d", argv[i], (int)getpid());
		snprintf(path2, sizeof path2, "%s.renamed", path);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			printf("%s_open=ERR:%s\n", key, strerror(errno));
			bad = 1;
			continue;
		}
		rc = 0;
		for (int k = 0; k < 16 && rc == 0; k++)
			rc = write(fd, buf, sizeof buf) == (ssize_t)sizeof buf ? 0 : -1;
		report(key, "write", rc, 1);
		report(key, "fsync", fsync(fd), 1);
		report(key, "fdatasync", fdatasync(fd), 1);
		report(key, "flock", flock(fd, LOCK_EX | LOCK_NB), 1);
		flock(fd, LOCK_UN);
		memset(&fl, 0, sizeof fl);
		fl.l_type = F_WRLCK;
		fl.l_whence = SEEK_SET;
		report(key, "fcntl_lock", fcntl(fd, F_SETLK, &fl), 1);
		fl.l_type = F_UNLCK;
		fcntl(fd, F_SETLK, &fl);
		memset(&fl, 0, sizeof fl);
		fl.l_type = F_WRLCK;
		fl.l_whence = SEEK_SET;
		fd2 = open(path, O_RDWR);
		report(key, "ofd_lock", fd2 >= 0 ? fcntl(fd2, F_OFD_SETLK, &fl) : -1, 0);
		if (fd2 >= 0)
			close(fd2);
		fd2 = open(path, O_RDONLY | O_DIRECT);
		report(key, "o_direct", fd2 >= 0 ? 0 : -1, 0);
		if (fd2 >= 0)
			close(fd2);
		close(fd);
		report(key, "rename", rename(path, path2), 0);
		unlink(path2);
		unlink(path);
	}
	return bad;
}
