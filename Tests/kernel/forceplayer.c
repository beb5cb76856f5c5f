/*
 * forceplayer.c - a hand pressing a pen onto a scale, for forcetrace's
 * force scenario (Tests/kernel/guest-ft-force.sh).
 *
 * Creates a uinput pen (BTN_TOOL_PEN, BTN_TOUCH, ABS_X/Y, ABS_PRESSURE
 * 0..4095, INPUT_PROP_DIRECT) and a scale, and plays a scripted force curve
 * into both: the pen's pressure follows the force at once, the scale
 * reports it --lag-ms late every --scale-ms.  The script is the one
 * docs/ANALYSIS.md ("Force") states and ForceScript in the Swift sources
 * plays: presses alternating 250 g and 500 g, each a 2 s ramp, a 1 s hold,
 * a 1.5 s release and a 1 s rest, after a 1 s lead; the pen active from
 * 8 g, at its maximum from 400 g, along ((F - 8) / 392)^0.7, and on the
 * release reading the force 15 g heavier (less below 5 g), never above the
 * pressure it held.
 *
 *   forceplayer --hid     [options]  the scale is a USB HID scale made with
 *                                    /dev/uhid (the Scales page, report 3:
 *                                    status, unit, Data Scaling, 16-bit Data
 *                                    Weight in 0.1 g); its hidraw node goes
 *                                    to --scale-file
 *   forceplayer --serial  [options]  the scale writes A&D-style lines
 *                                    ("ST,+00123.45  g") to a pty; the slave's
 *                                    path goes to --scale-file
 *
 * Options:
 *   --presses N          presses (default 4)
 *   --lag-ms N           the scale's lag (default 150)
 *   --scale-ms N         the scale's reading interval (default 93)
 *   --pen-file FILE      write the pen's event node here once created
 *   --scale-file FILE    write the scale's node here once created
 *   --unplug-scale-ms N  destroy the HID scale (or close the pty) N ms after the start
 *   --unstable           serial: mark readings "US" while the force moves (else all "ST")
 *   --overload-g G       report an overload (HID status 6 / serial "OL") above G grams
 *   --expect FILE        the script's figures as JSON, for the checker
 * It waits for SIGUSR1 (at most 30 s) before the first frame, and stays
 * 2 s after the last.
 *
 * Build: cc -O2 -Wall -o forceplayer forceplayer.c $(pkg-config --cflags --libs libevdev)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libevdev/libevdev-uinput.h>
#include <libevdev/libevdev.h>
#include <linux/uhid.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

static const double activation_g = 8, saturation_g = 400, gamma_ = 0.7, hysteresis_g = 15;
static const double low_peak_g = 250, peak_g = 500;
static const long long lead_us = 1000000, ramp_up_us = 2000000, hold_us = 1000000, ramp_down_us = 1500000, rest_us = 1000000;
static const int axis_max = 4095;

static volatile sig_atomic_t got_go;
static void on_go(int sig) { (void)sig; got_go = 1; }

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "forceplayer: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void sleep_until(long long t_us)
{
	long long left = t_us - now_us();
	if (left > 0) usleep((useconds_t)left);
}

/* The force at t (since the start) and, through *releasing and *peak, the phase. */
static double force_at(long long t, int presses, int *releasing, double *peak)
{
	long long cycle = ramp_up_us + hold_us + ramp_down_us + rest_us;
	*releasing = 0;
	*peak = 0;
	t -= lead_us;
	if (t < 0 || t >= presses * cycle) return 0;
	long long phase = t % cycle;
	*peak = (t / cycle) % 2 == 0 ? low_peak_g : peak_g;
	if (phase < ramp_up_us) return *peak * (double)phase / ramp_up_us;
	if (phase < ramp_up_us + hold_us) return *peak;
	if (phase < ramp_up_us + hold_us + ramp_down_us) {
		*releasing = 1;
		return *peak * (1 - (double)(phase - ramp_up_us - hold_us) / ramp_down_us);
	}
	return 0;
}

static int curve(double felt)
{
	if (felt < activation_g) return 0;
	double fraction = (felt - activation_g) / (saturation_g - activation_g);
	if (fraction > 1) fraction = 1;
	int p = (int)lround(pow(fraction, gamma_) * axis_max);
	return p < 1 ? 1 : p;
}

static int pressure_for(double grams, int releasing, double peak)
{
	if (!releasing) return curve(grams);
	double h = hysteresis_g * (grams < 5 ? (grams > 0 ? grams / 5 : 0) : 1);
	int held = curve(peak), now = curve(grams + h);
	return now < held ? now : held;
}

static void write_file(const char *path, const char *text)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f || fprintf(f, "%s\n", text) < 0 || fclose(f) != 0) die("cannot write %s", tmp);
	if (rename(tmp, path) != 0) die("cannot rename %s: %s", tmp, strerror(errno));
}

/* ---- the HID scale ---- */

static const unsigned char scale_descriptor[] = {
	0x05, 0x8D,       /* Usage Page (Scales) */
	0x09, 0x20,       /* Usage (Scale Device) */
	0xA1, 0x01,       /* Collection (Application) */
	0x09, 0x32,       /*   Usage (Scale Data Report) */
	0xA1, 0x02,       /*   Collection (Logical) */
	0x85, 0x03,       /*     Report ID (3) */
	0x75, 0x08, 0x95, 0x01,
	0x15, 0x01, 0x25, 0x08, 0x19, 0x71, 0x29, 0x78, 0x81, 0x00, /* Scale Status selectors 0x71..0x78 */
	0x25, 0x0C, 0x19, 0x51, 0x29, 0x5C, 0x81, 0x00,             /* Weight Unit selectors 0x51..0x5C */
	0x15, 0x81, 0x25, 0x7F, 0x09, 0x41, 0x81, 0x02,             /* Data Scaling, signed byte */
	0x75, 0x10, 0x15, 0x00, 0x27, 0xFF, 0xFF, 0x00, 0x00, 0x09, 0x40, 0x81, 0x02, /* Data Weight, 16 bits */
	0xC0, 0xC0,
};

static int uhid_fd = -1;

static void uhid_write(struct uhid_event *ev)
{
	if (write(uhid_fd, ev, sizeof *ev) != (ssize_t)sizeof *ev) die("uhid write: %s", strerror(errno));
}

static void hid_create(void)
{
	uhid_fd = open("/dev/uhid", O_RDWR | O_CLOEXEC);
	if (uhid_fd < 0) die("/dev/uhid: %s", strerror(errno));
	struct uhid_event ev;
	memset(&ev, 0, sizeof ev);
	ev.type = UHID_CREATE2;
	snprintf((char *)ev.u.create2.name, sizeof ev.u.create2.name, "forcetrace-test-scale");
	ev.u.create2.rd_size = sizeof scale_descriptor;
	ev.u.create2.bus = 0x03;
	ev.u.create2.vendor = 0x1d6b;
	ev.u.create2.product = 0x7f10;
	memcpy(ev.u.create2.rd_data, scale_descriptor, sizeof scale_descriptor);
	uhid_write(&ev);
}

/* The hidraw node whose HID_NAME is ours, waited for up to 10 s. */
static void hid_node(char *out, size_t size)
{
	for (int attempt = 0; attempt < 200; attempt++) {
		DIR *dir = opendir("/sys/class/hidraw");
		struct dirent *entry;
		while (dir && (entry = readdir(dir))) {
			if (strncmp(entry->d_name, "hidraw", 6) != 0) continue;
			char path[512], line[512];
			snprintf(path, sizeof path, "/sys/class/hidraw/%s/device/uevent", entry->d_name);
			FILE *f = fopen(path, "r");
			int ours = 0;
			while (f && fgets(line, sizeof line, f))
				if (strstr(line, "HID_NAME=forcetrace-test-scale")) ours = 1;
			if (f) fclose(f);
			if (ours) {
				snprintf(out, size, "/dev/%s", entry->d_name);
				if (access(out, R_OK) == 0) { closedir(dir); return; }
			}
		}
		if (dir) closedir(dir);
		usleep(50000);
	}
	die("no hidraw node for the uhid scale after 10 s");
}

static void hid_report(double grams, int overload, int moving)
{
	struct uhid_event ev;
	memset(&ev, 0, sizeof ev);
	ev.type = UHID_INPUT2;
	long tenths = lround(grams * 10);
	if (tenths < 0) tenths = 0;
	if (tenths > 65535) tenths = 65535;
	unsigned char *d = ev.u.input2.data;
	d[0] = 3;
	d[1] = overload ? 6 : moving ? 3 : (tenths == 0 ? 2 : 4);
	d[2] = 2;           /* gram */
	d[3] = (unsigned char)(signed char)-1;
	d[4] = tenths & 0xFF;
	d[5] = (tenths >> 8) & 0xFF;
	ev.u.input2.size = 6;
	uhid_write(&ev);
}

static void hid_destroy(void)
{
	struct uhid_event ev;
	memset(&ev, 0, sizeof ev);
	ev.type = UHID_DESTROY;
	uhid_write(&ev);
	close(uhid_fd);
	uhid_fd = -1;
}

int main(int argc, char **argv)
{
	int hid = 0, serial = 0, presses = 4, unstable = 0;
	long lag_ms = 150, scale_ms = 93, unplug_ms = -1;
	double overload_g = -1;
	const char *pen_file = NULL, *scale_file = NULL, *expect = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--hid")) hid = 1;
		else if (!strcmp(a, "--serial")) serial = 1;
		else if (!strcmp(a, "--unstable")) unstable = 1;
		else if (v && !strcmp(a, "--presses")) presses = atoi(argv[++i]);
		else if (v && !strcmp(a, "--lag-ms")) lag_ms = atol(argv[++i]);
		else if (v && !strcmp(a, "--scale-ms")) scale_ms = atol(argv[++i]);
		else if (v && !strcmp(a, "--unplug-scale-ms")) unplug_ms = atol(argv[++i]);
		else if (v && !strcmp(a, "--overload-g")) overload_g = atof(argv[++i]);
		else if (v && !strcmp(a, "--pen-file")) pen_file = argv[++i];
		else if (v && !strcmp(a, "--scale-file")) scale_file = argv[++i];
		else if (v && !strcmp(a, "--expect")) expect = argv[++i];
		else die("unknown argument %s", a);
	}
	if (hid == serial) die("give --hid or --serial");
	if (presses < 1 || scale_ms < 1 || lag_ms < 0) die("bad --presses, --scale-ms or --lag-ms");

	/* The pen. */
	struct libevdev *dev = libevdev_new();
	libevdev_set_name(dev, "forcetrace-test-forcepen");
	libevdev_set_id_bustype(dev, 0x03);
	libevdev_set_id_vendor(dev, 0x1d6b);
	libevdev_set_id_product(dev, 0x7f11);
	libevdev_enable_property(dev, INPUT_PROP_DIRECT);
	libevdev_enable_event_code(dev, EV_KEY, BTN_TOOL_PEN, NULL);
	libevdev_enable_event_code(dev, EV_KEY, BTN_TOUCH, NULL);
	struct input_absinfo abs = { .minimum = 0, .maximum = 20000, .resolution = 100 };
	libevdev_enable_event_code(dev, EV_ABS, ABS_X, &abs);
	abs.maximum = 12000;
	libevdev_enable_event_code(dev, EV_ABS, ABS_Y, &abs);
	struct input_absinfo pressure = { .minimum = 0, .maximum = axis_max };
	libevdev_enable_event_code(dev, EV_ABS, ABS_PRESSURE, &pressure);
	struct libevdev_uinput *uidev;
	int rc = libevdev_uinput_create_from_device(dev, LIBEVDEV_UINPUT_OPEN_MANAGED, &uidev);
	if (rc < 0) die("uinput: %s", strerror(-rc));
	if (pen_file) write_file(pen_file, libevdev_uinput_get_devnode(uidev));

	/* The scale. */
	int pty = -1;
	char node[512];
	if (hid) {
		hid_create();
		hid_node(node, sizeof node);
	} else {
		pty = posix_openpt(O_RDWR | O_NOCTTY);
		if (pty < 0 || grantpt(pty) != 0 || unlockpt(pty) != 0) die("pty: %s", strerror(errno));
		snprintf(node, sizeof node, "%s", ptsname(pty));
	}
	if (scale_file) write_file(scale_file, node);
	if (expect) {
		char text[1024];
		snprintf(text, sizeof text,
			 "{\"activation_g\":%g,\"saturation_g\":%g,\"gamma\":%g,\"hysteresis_g\":%g,\"low_peak_g\":%g,\"peak_g\":%g,"
			 "\"axis_max\":%d,\"lag_ms\":%ld,\"scale_ms\":%ld,\"presses\":%d,\"ramp_up_ms\":%lld,\"ramp_down_ms\":%lld}",
			 activation_g, saturation_g, gamma_, hysteresis_g, low_peak_g, peak_g, axis_max, lag_ms, scale_ms, presses,
			 ramp_up_us / 1000, ramp_down_us / 1000);
		write_file(expect, text);
	}

	signal(SIGUSR1, on_go);
	for (int i = 0; i < 3000 && !got_go; i++) usleep(10000);

	long long cycle = ramp_up_us + hold_us + ramp_down_us + rest_us;
	long long duration = lead_us + presses * cycle;
	long long start = now_us(), next_pen = 0, next_scale = scale_ms * 500;
	int last = -1, unplugged = 0;
	libevdev_uinput_write_event(uidev, EV_KEY, BTN_TOOL_PEN, 1);
	libevdev_uinput_write_event(uidev, EV_ABS, ABS_X, 10000);
	libevdev_uinput_write_event(uidev, EV_ABS, ABS_Y, 6000);
	libevdev_uinput_write_event(uidev, EV_SYN, SYN_REPORT, 0);
	while (next_pen < duration || next_scale < duration) {
		long long t = next_pen < next_scale ? next_pen : next_scale;
		sleep_until(start + t);
		/* What is sent is the force at the moment it is sent: a slow guest's late wake-up delays
		 * the report, not the truth it carries. */
		long long actual = now_us() - start;
		if (unplug_ms >= 0 && !unplugged && t >= unplug_ms * 1000) {
			if (hid) hid_destroy(); else close(pty);
			unplugged = 1;
		}
		int releasing;
		double peak;
		if (t == next_pen) {
			double grams = force_at(actual, presses, &releasing, &peak);
			int p = pressure_for(grams, releasing, peak);
			if (p != last) {
				if ((p > 0) != (last > 0)) libevdev_uinput_write_event(uidev, EV_KEY, BTN_TOUCH, p > 0);
				libevdev_uinput_write_event(uidev, EV_ABS, ABS_PRESSURE, p);
				libevdev_uinput_write_event(uidev, EV_SYN, SYN_REPORT, 0);
				last = p;
			}
			next_pen += 5000;
		}
		if (t == next_scale) {
			double grams = force_at(actual - lag_ms * 1000, presses, &releasing, &peak);
			double before = force_at(actual - lag_ms * 1000 - scale_ms * 1000, presses, &releasing, &peak);
			int moving = fabs(grams - before) > 0.1;
			int over = overload_g >= 0 && grams > overload_g;
			if (!unplugged) {
				if (hid) {
					hid_report(grams, over, moving);
				} else {
					char line[64];
					if (over) snprintf(line, sizeof line, "OL,+999999.9  g\r\n");
					else snprintf(line, sizeof line, "%s,+%09.2f  g\r\n", unstable && moving ? "US" : "ST", grams);
					if (write(pty, line, strlen(line)) < 0 && errno != EAGAIN && errno != EIO) die("pty write: %s", strerror(errno));
				}
			}
			next_scale += scale_ms * 1000;
		}
	}
	libevdev_uinput_write_event(uidev, EV_KEY, BTN_TOOL_PEN, 0);
	libevdev_uinput_write_event(uidev, EV_SYN, SYN_REPORT, 0);
	sleep(2);
	if (hid && !unplugged) hid_destroy();
	libevdev_uinput_destroy(uidev);
	libevdev_free(dev);
	return 0;
}
