/*
 * evreader.c - tiny evdev reader for the live-kernel tests (Tests/kernel).
 *
 *   evreader count DEV [--grab] [--duration-ms N]
 *       Open DEV (optionally EVIOCGRAB it), read events until N ms passed
 *       (default 10000), SIGINT/SIGTERM, or the device vanishes (ENODEV).
 *       Prints one line:  events=E syn_reports=S dropped=D enodev=0|1 grabbed=0|1
 *       (events excludes SYN_REPORT/SYN_DROPPED).  Exit 0, or 2 on errors.
 *
 *   evreader probe-grab DEV
 *       Exit 0 if another client holds an EVIOCGRAB on DEV (our grab fails
 *       with EBUSY), 1 if nobody does (our grab succeeded and is released
 *       at once), 2 on other errors.  Used to wait until a recorder's
 *       --grab is really in effect.
 *
 * Build: cc -O2 -Wall -o evreader evreader.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int usage(void)
{
	fputs("usage: evreader count DEV [--grab] [--duration-ms N]\n"
	      "       evreader probe-grab DEV\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	int fd;
	if (argc < 3)
		return usage();
	if (strcmp(argv[1], "probe-grab") == 0) {
		fd = open(argv[2], O_RDONLY | O_NONBLOCK);
		if (fd < 0) {
			perror(argv[2]);
			return 2;
		}
		if (ioctl(fd, EVIOCGRAB, (void *)1) == 0) {
			ioctl(fd, EVIOCGRAB, (void *)0);
			close(fd);
			return 1;
		}
		if (errno == EBUSY) {
			close(fd);
			return 0;
		}
		perror("EVIOCGRAB");
		return 2;
	}
	if (strcmp(argv[1], "count") != 0)
		return usage();

	int grab = 0;
	long duration = 10000;
	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--grab") == 0)
			grab = 1;
		else if (strcmp(argv[i], "--duration-ms") == 0 && i + 1 < argc)
			duration = atol(argv[++i]);
		else
			return usage();
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	fd = open(argv[2], O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		perror(argv[2]);
		return 2;
	}
	if (grab && ioctl(fd, EVIOCGRAB, (void *)1) != 0) {
		perror("EVIOCGRAB");
		return 2;
	}
	/* Announce the grab: a prober must not try EVIOCGRAB itself before
	 * this line, or its momentary grab makes ours fail with EBUSY. */
	if (grab) {
		printf("GRAB-HELD\n");
		fflush(stdout);
	}
	long events = 0, syns = 0, dropped = 0;
	int enodev = 0;
	long long end = now_ms() + duration;
	while (!stop) {
		long long left = end - now_ms();
		struct pollfd p = { fd, POLLIN, 0 };
		struct input_event ev[64];
		ssize_t n;
		if (left <= 0)
			break;
		if (poll(&p, 1, left > 100 ? 100 : (int)left) < 0) {
			if (errno == EINTR)
				continue;
			perror("poll");
			return 2;
		}
		if (p.revents & (POLLERR | POLLHUP | POLLNVAL)) {
			enodev = 1;
			break;
		}
		if (!(p.revents & POLLIN))
			continue;
		n = read(fd, ev, sizeof ev);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			if (errno == ENODEV) {
				enodev = 1;
				break;
			}
			perror("read");
			return 2;
		}
		for (size_t i = 0; i < (size_t)n / sizeof ev[0]; i++) {
			if (ev[i].type == EV_SYN && ev[i].code == SYN_REPORT)
				syns++;
			else if (ev[i].type == EV_SYN && ev[i].code == SYN_DROPPED)
				dropped++;
			else
				events++;
		}
	}
	printf("events=%ld syn_reports=%ld dropped=%ld enodev=%d grabbed=%d\n", events, syns, dropped,
	       enodev, grab);
	return 0;
}
