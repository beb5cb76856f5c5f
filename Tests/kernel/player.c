/*
 * player.c - deterministic uinput touchscreen player for forcetrace's
 * live-kernel tests (Tests/kernel).
 *
 * Creates a virtual multitouch (protocol B) touchscreen through libevdev's
 * uinput API and plays one of a few scripted gestures into it.  Every frame
 * that is sent is also written to an "expect" file (JSON lines) so that a
 * host-side checker can compare a recording against what was played.
 *
 *   player script          [options]   scripted gesture (ramp, move, 2nd finger)
 *   player flood N         [options]   N frames of pressure changes, no sleep
 *   player unplug-after-ms N [options] touch, then destroy the device mid-contact
 *   player type TEXT       [options]   a finger presses harder while TEXT (a-z)
 *                                      is typed on the same device (needs --keys)
 *   player calibrate app|touchpad ROUNDS [options]
 *                                      a person doing forcetrace calibrate's
 *                                      protocol ROUNDS times (see mode_calibrate)
 *   player levels SEED     [options]   a person doing forcetrace levels --levels 2-4
 *                                      --trials 10 --seed SEED (see mode_levels)
 *   player calibrate pen ROUNDS --pen [--pen-curve X1,Y1,X2,Y2] [--pen-range LO..HI]
 *                                      the pen protocol on a pen (mode_calibrate_pen)
 *
 * Options (all modes):
 *   --start-delay-ms N  wait N ms after creating the device before frame 0
 *                       (gives a recorder time to open it); default 1000
 *   --wait-signal       start playing as soon as SIGUSR1 arrives instead;
 *                       --start-delay-ms (default then 30000) becomes a
 *                       timeout after which it plays anyway, with a warning
 *   --hold-ms N         keep the device alive N ms after the last frame
 *                       (script default 500, flood default 2000)
 *   --frame-us N        pause between frames (script/unplug default 10000,
 *                       flood default 0)
 *   --expect FILE       write the expected frames as JSON lines
 *   --devnode-file FILE write the device node path (atomically) once created
 *   --no-lift           flood: do not lift the finger after the hold; the
 *                       device is destroyed with the contact still down
 *   --name NAME         device name (default "forcetrace-test-touch")
 *   --id BUS:VENDOR:PRODUCT  the device's ids, hex (default 6:1d6b:7f01, BUS_VIRTUAL)
 *   --touchpad          INPUT_PROP_POINTER and BTN_LEFT instead of INPUT_PROP_DIRECT
 *   --pressurepad N     with --touchpad: a pressure pad, INPUT_PROP_PRESSUREPAD and
 *                       the pressure axes at N units per gram (their resolution)
 *   --keys              also KEY_A..KEY_Z with EV_MSC/MSC_SCAN (AT set 1 scancodes),
 *                       like a laptop whose keyboard and touchpad share a node
 *   --pen               a pen instead: BTN_TOOL_PEN, BTN_TOUCH, ABS_X/Y and
 *                       ABS_PRESSURE 0..4095, INPUT_PROP_DIRECT, no slots
 *
 * Build: cc -O2 -Wall -o player player.c $(pkg-config --cflags --libs libevdev)
 *
 * Expect file format (one JSON object per line):
 *   {"type":"device","name":...,"devnode":...,"mode":...,"slots":2}
 *   {"type":"frame","frame":i,"phase":"ramp","t_us":...,
 *    "slots":[{"slot":0,"tid":100,"x":1000,"y":2000,"p":16},
 *             {"slot":1,"tid":-1,"x":0,"y":0,"p":0}],
 *    "btn_touch":1,"tool":"finger","abs_x":1000,"abs_y":2000,"abs_p":16,
 *    "events":[[3,58,16],[3,24,16],[0,0,0]]}
 *   {"type":"hold",...}   flood only: the DOWN state held for --hold-ms
 *   {"type":"end","frames":N,"unplugged":false,"final":{...same as frame...}}
 * Mode calibrate adds {"type":"trial","index":i,"class":...,"peak":P,
 * "flaw":null|"two-fingers"|"too-short","first_frame":F} before each trial's frames.
 * Mode levels adds {"type":"trial","index":i,"count":N,"level":L,"held":H,
 * "flaw":...,"first_frame":F} before each trial's frames.
 * Key frames (mode type) are "frame" records too, with "key":CODE,
 * "scan":SCANCODE, "key_value":0|1 added; their slots are unchanged.
 * For a slot whose tid is -1 the x/y/p values are the stale values the kernel
 * still holds for that slot; checkers should ignore them.  "t_us" is the
 * CLOCK_MONOTONIC time of the SYN_REPORT relative to frame 0 (informational).
 * Every frame changes at least one value, so the kernel forwards every frame
 * (it drops a SYN_REPORT with no changed values before it).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/input.h>
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>

#define NSLOTS 2
#define AXIS_MAX 4095
#define AXIS_RES 40 /* units per mm */
#define PRESSURE_MAX 255
#define MAX_EVENTS_PER_FRAME 32

struct slot_state {
	int tid; /* -1 = no contact */
	int x, y, p;
};

struct state {
	struct slot_state s[NSLOTS];
};

/* What the kernel currently holds (used to emit deltas only). */
struct emitted {
	struct state st;
	int cur_slot;
	int btn_touch, tool_finger, tool_doubletap, tool_pen;
	int abs_x, abs_y, abs_p;
};

static struct libevdev_uinput *uidev;
static struct emitted em;
static FILE *expect_fp;
static int frame_no;
static struct timespec t0;
static int t0_set;
static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t got_go;
static int opt_touchpad, opt_keys, opt_pen;
/* --pressurepad N: INPUT_PROP_PRESSUREPAD and pressure at N units per gram (0: off) */
static int opt_pressurepad;
#ifndef INPUT_PROP_PRESSUREPAD
#define INPUT_PROP_PRESSUREPAD 0x07 /* linux/input-event-codes.h from Linux 6.16 */
#endif
static int opt_pen_curve[4] = { 40, 10, 80, 60 }, opt_pen_lo = 300, opt_pen_hi = 3700;
#define PEN_PRESSURE_MAX 4095

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("player: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void sleep_us(long long us)
{
	struct timespec ts;
	if (us <= 0)
		return;
	ts.tv_sec = us / 1000000LL;
	ts.tv_nsec = (us % 1000000LL) * 1000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR && !got_signal)
		;
}

static void on_signal(int sig)
{
	(void)sig;
	got_signal = 1;
}

static void on_go(int sig)
{
	(void)sig;
	got_go = 1;
}

/* ---- device ---------------------------------------------------------- */

static void enable_abs(struct libevdev *dev, unsigned code, int min, int max, int res)
{
	struct input_absinfo ai;
	memset(&ai, 0, sizeof ai);
	ai.minimum = min;
	ai.maximum = max;
	ai.resolution = res;
	ai.fuzz = 0; /* fuzz would make the kernel alter our values */
	ai.flat = 0;
	if (libevdev_enable_event_code(dev, EV_ABS, code, &ai) != 0)
		die("cannot enable abs code %u", code);
}

/* KEY_* code of a lower-case letter; for letters it equals the AT set 1
 * scancode, which is what the player sends as MSC_SCAN. */
static int letter_key(char c)
{
	static const int keys[26] = {
		KEY_A, KEY_B, KEY_C, KEY_D, KEY_E, KEY_F, KEY_G, KEY_H, KEY_I,
		KEY_J, KEY_K, KEY_L, KEY_M, KEY_N, KEY_O, KEY_P, KEY_Q, KEY_R,
		KEY_S, KEY_T, KEY_U, KEY_V, KEY_W, KEY_X, KEY_Y, KEY_Z,
	};
	if (c < 'a' || c > 'z')
		die("type: only a-z can be typed, not '%c'", c);
	return keys[c - 'a'];
}

/* --id; the defaults are arbitrary test ids */
static unsigned opt_bus = BUS_VIRTUAL, opt_vendor = 0x1d6b, opt_product = 0x7f01;

static void create_device(const char *name)
{
	struct libevdev *dev = libevdev_new();
	int rc;

	if (!dev)
		die("libevdev_new failed");
	libevdev_set_name(dev, name);
	libevdev_set_id_bustype(dev, opt_bus);
	libevdev_set_id_vendor(dev, opt_vendor);
	libevdev_set_id_product(dev, opt_product);
	libevdev_set_id_version(dev, 1);
	if (opt_pen) {
		libevdev_enable_property(dev, INPUT_PROP_DIRECT);
		libevdev_enable_event_type(dev, EV_SYN);
		libevdev_enable_event_type(dev, EV_KEY);
		libevdev_enable_event_code(dev, EV_KEY, BTN_TOOL_PEN, NULL);
		libevdev_enable_event_code(dev, EV_KEY, BTN_TOUCH, NULL);
		libevdev_enable_event_type(dev, EV_ABS);
		enable_abs(dev, ABS_X, 0, 20000, 100);
		enable_abs(dev, ABS_Y, 0, 12000, 100);
		enable_abs(dev, ABS_PRESSURE, 0, PEN_PRESSURE_MAX, 0);
		goto create;
	}
	if (opt_touchpad) {
		libevdev_enable_property(dev, INPUT_PROP_POINTER);
		libevdev_enable_property(dev, INPUT_PROP_BUTTONPAD);
		if (opt_pressurepad && libevdev_enable_property(dev, INPUT_PROP_PRESSUREPAD) != 0)
			die("cannot set INPUT_PROP_PRESSUREPAD");
	} else {
		libevdev_enable_property(dev, INPUT_PROP_DIRECT);
	}

	libevdev_enable_event_type(dev, EV_SYN);
	libevdev_enable_event_type(dev, EV_KEY);
	if (opt_touchpad)
		libevdev_enable_event_code(dev, EV_KEY, BTN_LEFT, NULL);
	if (opt_keys) {
		for (const char *c = "abcdefghijklmnopqrstuvwxyz"; *c; c++)
			libevdev_enable_event_code(dev, EV_KEY, letter_key(*c), NULL);
		libevdev_enable_event_type(dev, EV_MSC);
		libevdev_enable_event_code(dev, EV_MSC, MSC_SCAN, NULL);
	}
	libevdev_enable_event_code(dev, EV_KEY, BTN_TOUCH, NULL);
	libevdev_enable_event_code(dev, EV_KEY, BTN_TOOL_FINGER, NULL);
	libevdev_enable_event_code(dev, EV_KEY, BTN_TOOL_DOUBLETAP, NULL);

	libevdev_enable_event_type(dev, EV_ABS);
	enable_abs(dev, ABS_X, 0, AXIS_MAX, AXIS_RES);
	enable_abs(dev, ABS_Y, 0, AXIS_MAX, AXIS_RES);
	enable_abs(dev, ABS_PRESSURE, 0, PRESSURE_MAX, opt_pressurepad);
	enable_abs(dev, ABS_MT_SLOT, 0, NSLOTS - 1, 0);
	enable_abs(dev, ABS_MT_TRACKING_ID, 0, 65535, 0);
	enable_abs(dev, ABS_MT_POSITION_X, 0, AXIS_MAX, AXIS_RES);
	enable_abs(dev, ABS_MT_POSITION_Y, 0, AXIS_MAX, AXIS_RES);
	enable_abs(dev, ABS_MT_PRESSURE, 0, PRESSURE_MAX, opt_pressurepad);

create:
	rc = libevdev_uinput_create_from_device(dev, LIBEVDEV_UINPUT_OPEN_MANAGED, &uidev);
	libevdev_free(dev);
	if (rc != 0)
		die("libevdev_uinput_create_from_device: %s (is uinput loaded, /dev/uinput present?)",
		    strerror(-rc));

	memset(&em, 0, sizeof em);
	for (int i = 0; i < NSLOTS; i++)
		em.st.s[i].tid = -1; /* kernel initialises all slots to -1 */
	em.cur_slot = 0;
}

/* Fallback when libevdev cannot tell: scan sysfs for our name. */
static char *find_devnode_by_name(const char *name)
{
	DIR *d = opendir("/sys/class/input");
	struct dirent *de;
	char path[512], buf[256];
	char *found = NULL;

	if (!d)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		FILE *f;
		if (strncmp(de->d_name, "event", 5) != 0)
			continue;
		snprintf(path, sizeof path, "/sys/class/input/%s/device/name", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof buf, f)) {
			buf[strcspn(buf, "\n")] = 0;
			if (strcmp(buf, name) == 0 && !found) {
				if (asprintf(&found, "/dev/input/%s", de->d_name) < 0)
					found = NULL;
			}
		}
		fclose(f);
	}
	closedir(d);
	return found;
}

static void write_devnode_file(const char *file, const char *node)
{
	char tmp[4096];
	FILE *f;
	snprintf(tmp, sizeof tmp, "%s.tmp", file);
	f = fopen(tmp, "w");
	if (!f)
		die("cannot write %s: %s", tmp, strerror(errno));
	fprintf(f, "%s\n", node);
	if (fclose(f) != 0 || rename(tmp, file) != 0)
		die("cannot write %s: %s", file, strerror(errno));
}

/* ---- frames ---------------------------------------------------------- */

struct evbuf {
	int n;
	int ev[MAX_EVENTS_PER_FRAME][3];
};

/*
 * Batching: between batch_begin() and batch_end() the frames' events are
 * queued and reach the kernel in one write(2), so they get timestamps
 * microseconds apart whatever the load. A trial meant to be too short (one
 * frame, then the lift) is sent so: written frame by frame, a host that
 * descheduled the guest between the two stretched it past calibrate's
 * 30 ms minimum, and the session took it for the wanted class.
 */
#define MAX_BATCH 256
static struct input_event batch[MAX_BATCH];
static int batch_n = -1; /* -1: not batching */

static void batch_begin(void)
{
	batch_n = 0;
}

static void batch_end(void)
{
	size_t size = (size_t)batch_n * sizeof batch[0];
	ssize_t written = write(libevdev_uinput_get_fd(uidev), batch, size);
	if (written != (ssize_t)size)
		die("uinput batch write failed: %s", written < 0 ? strerror(errno) : "short write");
	batch_n = -1;
}

static void put(struct evbuf *b, int type, int code, int value)
{
	int rc = 0;
	if (b->n >= MAX_EVENTS_PER_FRAME)
		die("too many events in one frame");
	if (batch_n >= 0) {
		if (batch_n >= MAX_BATCH)
			die("too many events in one batch");
		memset(&batch[batch_n], 0, sizeof batch[0]);
		batch[batch_n].type = type;
		batch[batch_n].code = code;
		batch[batch_n].value = value;
		batch_n++;
	} else {
		rc = libevdev_uinput_write_event(uidev, type, code, value);
	}
	if (rc != 0)
		die("uinput write failed: %s", strerror(-rc));
	b->ev[b->n][0] = type;
	b->ev[b->n][1] = code;
	b->ev[b->n][2] = value;
	b->n++;
}

static void json_slots(FILE *f, const struct state *st)
{
	fputs("\"slots\":[", f);
	for (int i = 0; i < NSLOTS; i++)
		fprintf(f, "%s{\"slot\":%d,\"tid\":%d,\"x\":%d,\"y\":%d,\"p\":%d}", i ? "," : "", i,
			st->s[i].tid, st->s[i].x, st->s[i].y, st->s[i].p);
	fputs("]", f);
}

static const char *tool_name(void)
{
	if (em.tool_pen)
		return "pen";
	if (em.tool_doubletap)
		return "doubletap";
	if (em.tool_finger)
		return "finger";
	return "none";
}

static void json_pointer(FILE *f)
{
	fprintf(f, "\"btn_touch\":%d,\"tool\":\"%s\",\"abs_x\":%d,\"abs_y\":%d,\"abs_p\":%d",
		em.btn_touch, tool_name(), em.abs_x, em.abs_y, em.abs_p);
}

static void end_frame(struct evbuf *bp, const char *phase, const char *extra);

/*
 * Send one frame: protocol-B deltas from the last emitted state to `want`,
 * then tool/touch keys and legacy pointer emulation (following the lowest
 * active slot, which in every script here is also the oldest contact),
 * then SYN_REPORT.
 */

static void send_frame(const struct state *want, const char *phase)
{
	struct evbuf b = { 0 };
	int count = 0, ptr = -1;
	for (int i = 0; i < NSLOTS; i++) {
		const struct slot_state *w = &want->s[i];
		struct slot_state *h = &em.st.s[i];
		int changed;

		if (w->tid == -1)
			changed = h->tid != -1;
		else
			changed = w->tid != h->tid || w->x != h->x || w->y != h->y || w->p != h->p;
		if (!changed)
			continue;
		if (em.cur_slot != i) {
			put(&b, EV_ABS, ABS_MT_SLOT, i);
			em.cur_slot = i;
		}
		if (w->tid != h->tid) {
			put(&b, EV_ABS, ABS_MT_TRACKING_ID, w->tid);
			h->tid = w->tid;
		}
		if (w->tid == -1)
			continue; /* lift: nothing else */
		if (w->x != h->x) {
			put(&b, EV_ABS, ABS_MT_POSITION_X, w->x);
			h->x = w->x;
		}
		if (w->y != h->y) {
			put(&b, EV_ABS, ABS_MT_POSITION_Y, w->y);
			h->y = w->y;
		}
		if (w->p != h->p) {
			put(&b, EV_ABS, ABS_MT_PRESSURE, w->p);
			h->p = w->p;
		}
	}

	for (int i = 0; i < NSLOTS; i++) {
		if (em.st.s[i].tid != -1) {
			count++;
			if (ptr < 0)
				ptr = i;
		}
	}
	{
		int finger = count == 1, dbl = count == 2, touch = count > 0;
		if (finger != em.tool_finger && !finger) {
			put(&b, EV_KEY, BTN_TOOL_FINGER, 0);
			em.tool_finger = 0;
		}
		if (dbl != em.tool_doubletap && !dbl) {
			put(&b, EV_KEY, BTN_TOOL_DOUBLETAP, 0);
			em.tool_doubletap = 0;
		}
		if (finger != em.tool_finger) {
			put(&b, EV_KEY, BTN_TOOL_FINGER, 1);
			em.tool_finger = 1;
		}
		if (dbl != em.tool_doubletap) {
			put(&b, EV_KEY, BTN_TOOL_DOUBLETAP, 1);
			em.tool_doubletap = 1;
		}
		if (touch != em.btn_touch) {
			put(&b, EV_KEY, BTN_TOUCH, touch);
			em.btn_touch = touch;
		}
	}
	if (ptr >= 0) {
		const struct slot_state *s = &em.st.s[ptr];
		if (s->x != em.abs_x) {
			put(&b, EV_ABS, ABS_X, s->x);
			em.abs_x = s->x;
		}
		if (s->y != em.abs_y) {
			put(&b, EV_ABS, ABS_Y, s->y);
			em.abs_y = s->y;
		}
		if (s->p != em.abs_p) {
			put(&b, EV_ABS, ABS_PRESSURE, s->p);
			em.abs_p = s->p;
		}
	} else if (em.abs_p != 0) {
		put(&b, EV_ABS, ABS_PRESSURE, 0);
		em.abs_p = 0;
	}
	if (b.n == 0)
		die("internal: frame %d (%s) changes nothing; the kernel would drop it",
		    frame_no, phase);
	end_frame(&b, phase, NULL);
}

/* SYN_REPORT, then the frame's expect record; `extra` (JSON members) may be NULL. */
static void end_frame(struct evbuf *bp, const char *phase, const char *extra)
{
	struct evbuf b;
	long long t;

	put(bp, EV_SYN, SYN_REPORT, 0);
	b = *bp;

	t = now_us();
	if (!t0_set) {
		t0_set = 1;
		t0.tv_sec = t / 1000000LL;
		t0.tv_nsec = (t % 1000000LL) * 1000;
	}
	if (expect_fp) {
		long long rel = t - ((long long)t0.tv_sec * 1000000LL + t0.tv_nsec / 1000);
		fprintf(expect_fp, "{\"type\":\"frame\",\"frame\":%d,\"phase\":\"%s\",\"t_us\":%lld,",
			frame_no, phase, rel);
		json_slots(expect_fp, &em.st);
		fputc(',', expect_fp);
		json_pointer(expect_fp);
		if (extra)
			fprintf(expect_fp, ",%s", extra);
		fputs(",\"events\":[", expect_fp);
		for (int i = 0; i < b.n; i++)
			fprintf(expect_fp, "%s[%d,%d,%d]", i ? "," : "", b.ev[i][0], b.ev[i][1],
				b.ev[i][2]);
		fputs("]}\n", expect_fp);
	}
	frame_no++;
}

/* "end" (last line) or "hold" (state held while the device idles). */
static void write_record(const char *type, int unplugged)
{
	if (!expect_fp)
		return;
	fprintf(expect_fp, "{\"type\":\"%s\",\"frames\":%d,\"unplugged\":%s,\"final\":{", type,
		frame_no, unplugged ? "true" : "false");
	json_slots(expect_fp, &em.st);
	fputc(',', expect_fp);
	json_pointer(expect_fp);
	fputs("}}\n", expect_fp);
	fflush(expect_fp);
}

/* ---- modes ----------------------------------------------------------- */

struct opts {
	long start_delay_ms;
	long hold_ms;
	long frame_us;
	int lift;
};

static void frame_pause(const struct opts *o)
{
	sleep_us(o->frame_us);
}

/*
 * Scripted gesture (94 frames, ~10 ms apart):
 *   down          1 frame   slot 0 tid 100 at (1000,2000) p=10
 *   ramp         40 frames  p = 10 + 6*i -> 250, x/y still
 *   move         30 frames  x = 1000 + 40*i -> 2200, p = 250
 *   second-down   1 frame   slot 1 tid 101 at (3000,3000) p=30
 *   second-press 20 frames  slot 1 p = 30 + 10*i -> 230
 *   second-up     1 frame   slot 1 lifts
 *   up            1 frame   slot 0 lifts
 */
static void mode_script(const struct opts *o)
{
	struct state st;
	memset(&st, 0, sizeof st);
	st.s[0].tid = st.s[1].tid = -1;

	st.s[0] = (struct slot_state){ 100, 1000, 2000, 10 };
	send_frame(&st, "down");
	for (int i = 1; i <= 40; i++) {
		frame_pause(o);
		st.s[0].p = 10 + 6 * i;
		send_frame(&st, "ramp");
	}
	for (int i = 1; i <= 30; i++) {
		frame_pause(o);
		st.s[0].x = 1000 + 40 * i;
		send_frame(&st, "move");
	}
	frame_pause(o);
	st.s[1] = (struct slot_state){ 101, 3000, 3000, 30 };
	send_frame(&st, "second-down");
	for (int i = 1; i <= 20; i++) {
		frame_pause(o);
		st.s[1].p = 30 + 10 * i;
		send_frame(&st, "second-press");
	}
	frame_pause(o);
	st.s[1].tid = -1;
	send_frame(&st, "second-up");
	frame_pause(o);
	st.s[0].tid = -1;
	send_frame(&st, "up");
	write_record("end", 0);
	sleep_us(o->hold_ms * 1000LL);
}

/*
 * Flood: slot 0 tid 200 down at (1000,1000) p=255, then N frames with
 * p = 1 + (i % 250) (always differs from the previous frame), then a
 * "final" frame moving to (3000,1500) with p=200.  That final state
 * (finger DOWN) is held for --hold-ms and described by a "hold" record
 * written right after the final frame; then, unless --no-lift, a "lift"
 * frame is sent, and an "end" record follows before the device is
 * destroyed.
 */
static void mode_flood(const struct opts *o, long n)
{
	struct state st;
	memset(&st, 0, sizeof st);
	st.s[0].tid = st.s[1].tid = -1;

	st.s[0] = (struct slot_state){ 200, 1000, 1000, 255 };
	send_frame(&st, "down");
	for (long i = 0; i < n; i++) {
		frame_pause(o);
		st.s[0].p = 1 + (int)(i % 250);
		send_frame(&st, "flood");
	}
	frame_pause(o);
	st.s[0].x = 3000;
	st.s[0].y = 1500;
	st.s[0].p = 200;
	send_frame(&st, "final");
	write_record("hold", 0);
	sleep_us(o->hold_ms * 1000LL);
	if (o->lift && !got_signal) {
		st.s[0].tid = -1;
		send_frame(&st, "lift");
		sleep_us(100 * 1000LL); /* let readers see the lift before unplug */
	}
	write_record("end", 0);
}

/*
 * Unplug: slot 0 tid 300 down at (2048,2048) p=50, then frames with
 * p = 50 + (5*i % 150) and x = 2048 + (i % 100) until N ms have passed
 * since frame 0; then the device is destroyed with the finger still down
 * (no lift frame).  The "end" record has "unplugged":true.
 */
static void mode_unplug(const struct opts *o, long ms)
{
	struct state st;
	long long start;
	int i = 0;
	memset(&st, 0, sizeof st);
	st.s[0].tid = st.s[1].tid = -1;

	st.s[0] = (struct slot_state){ 300, 2048, 2048, 50 };
	send_frame(&st, "down");
	start = now_us();
	while (now_us() - start < ms * 1000LL && !got_signal) {
		frame_pause(o);
		i++;
		st.s[0].p = 50 + (5 * i) % 150;
		st.s[0].x = 2048 + i % 100;
		send_frame(&st, "touch");
	}
	write_record("end", 1);
}

/* One key frame: MSC_SCAN, the key, SYN_REPORT, as a keyboard driver sends it. */
static void send_key(int code, int value)
{
	struct evbuf b = { 0 };
	char extra[96];
	put(&b, EV_MSC, MSC_SCAN, code); /* letters: KEY_* == AT set 1 scancode */
	put(&b, EV_KEY, code, value);
	snprintf(extra, sizeof extra, "\"key\":%d,\"scan\":%d,\"key_value\":%d", code, code, value);
	end_frame(&b, value ? "key-down" : "key-up", extra);
}

/*
 * Type: slot 0 tid 400 down at (1500,1500) p=20; for each letter of TEXT a
 * pressure step (p = 40 + 30*i), then its key down and key up frames; then
 * p=30 and the lift.  3 + 3*len(TEXT) frames.
 */
static void mode_type(const struct opts *o, const char *text)
{
	struct state st;
	memset(&st, 0, sizeof st);
	st.s[0].tid = st.s[1].tid = -1;

	if (!opt_keys)
		die("type needs --keys");
	st.s[0] = (struct slot_state){ 400, 1500, 1500, 20 };
	send_frame(&st, "down");
	for (int i = 0; text[i]; i++) {
		int key = letter_key(text[i]);
		frame_pause(o);
		st.s[0].p = 40 + 30 * i;
		send_frame(&st, "press");
		frame_pause(o);
		send_key(key, 1);
		frame_pause(o);
		send_key(key, 0);
	}
	frame_pause(o);
	st.s[0].p = 30;
	send_frame(&st, "release");
	frame_pause(o);
	st.s[0].tid = -1;
	send_frame(&st, "up");
	write_record("end", 0);
	sleep_us(o->hold_ms * 1000LL);
}

/*
 * Calibrate: ROUNDS rounds of the protocol's classes, one finger each, the
 * peak of round r drawn evenly from the class's range (app: tap 20..40,
 * peek-press 110..150, pop-press 200..240; touchpad: light 30..45, normal
 * 60..100, thumb 130..160, palm 190..240: thumbs and palms press harder).
 * Before trial 3 a two-finger trial, before trial 5 one too short (down and
 * up with no pause), both of the next trial's class, which calibrate must
 * discard.  A trial rises to its peak in the middle frame and falls again
 * (x moves by 1 each frame, so every frame changes something); 150 ms gaps.
 */
static void mode_calibrate(const struct opts *o, const char *protocol, long rounds)
{
	static const struct { const char *cls; int lo, hi, frames; } app[] = {
		{ "tap", 20, 40, 8 }, { "peek-press", 110, 150, 30 }, { "pop-press", 200, 240, 30 },
	}, pad[] = {
		{ "light", 30, 45, 8 }, { "normal", 60, 100, 25 }, { "thumb", 130, 160, 30 }, { "palm", 190, 240, 30 },
	};
	const int napp = 3, npad = 4;
	int touchpad = strcmp(protocol, "touchpad") == 0;
	int nclasses = touchpad ? npad : napp;
	struct state st;
	int tid = 500, index = 0;

	if (!touchpad && strcmp(protocol, "app") != 0)
		die("calibrate: protocol must be app or touchpad, not %s", protocol);
	memset(&st, 0, sizeof st);
	st.s[0].tid = st.s[1].tid = -1;
	for (long r = 0; r < rounds; r++) {
		for (int c = 0; c < nclasses; c++, index++) {
			const char *cls = touchpad ? pad[c].cls : app[c].cls;
			int lo = touchpad ? pad[c].lo : app[c].lo, hi = touchpad ? pad[c].hi : app[c].hi;
			int frames = touchpad ? pad[c].frames : app[c].frames;
			int peak = rounds > 1 ? lo + (int)((hi - lo) * r / (rounds - 1)) : lo;
			/* flaw 1: two fingers (before trial 3); flaw 2: too short (before trial 5) */
			for (int flaw = (index == 2 ? 1 : index == 4 ? 2 : 0); flaw >= 0; flaw = flaw ? 0 : -1) {
				int n = flaw == 2 ? 1 : frames;
				if (expect_fp) {
					fprintf(expect_fp, "{\"type\":\"trial\",\"index\":%d,\"class\":\"%s\",\"peak\":%d,\"flaw\":%s,\"first_frame\":%d}\n",
						index, cls, peak, flaw == 1 ? "\"two-fingers\"" : flaw == 2 ? "\"too-short\"" : "null", frame_no);
				}
				tid++;
				if (flaw == 2)
					batch_begin();
				for (int i = 0; i <= n; i++) {
					int up = n / 2, p;
					p = i <= up ? 1 + (peak - 1) * i / (up ? up : 1) : 1 + (peak - 1) * (n - i) / (n - up);
					if (p < 1)
						p = 1;
					st.s[0] = (struct slot_state){ tid, 1500 + i, 1500, p };
					if (flaw == 1 && i >= 3 && i < n - 2)
						st.s[1] = (struct slot_state){ tid + 1000, 2500 + i, 1500, p };
					else
						st.s[1].tid = -1;
					send_frame(&st, cls);
					if (flaw != 2)
						frame_pause(o);
				}
				st.s[0].tid = st.s[1].tid = -1;
				send_frame(&st, "lift");
				if (flaw == 2)
					batch_end();
				sleep_us(150000);
			}
		}
	}
	write_record("end", 0);
	sleep_us(o->hold_ms * 1000LL);
}

/* The Bézier of xsetwacom's PressureCurve at t for control values a, b (0..1). */
static double bezier(double t, double a, double b)
{
	double u = 1 - t;
	return 3 * u * u * t * a + 3 * u * t * t * b + t * t * t;
}

/* The input (0..1) whose output the curve makes `out`: y(t) = out by bisection, then x(t). */
static double curve_input(double out)
{
	double lo = 0, hi = 1;
	for (int i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;
		if (bezier(mid, opt_pen_curve[1] / 100.0, opt_pen_curve[3] / 100.0) < out)
			lo = mid;
		else
			hi = mid;
	}
	return bezier((lo + hi) / 2, opt_pen_curve[0] / 100.0, opt_pen_curve[2] / 100.0);
}

/* One pen frame: only changed values, then SYN_REPORT. */
static void pen_frame(int tool, int touch, int x, int p, const char *phase)
{
	struct evbuf b = { 0 };
	if (tool != em.tool_pen && tool) {
		put(&b, EV_KEY, BTN_TOOL_PEN, 1);
		em.tool_pen = 1;
	}
	if (x != em.abs_x) {
		put(&b, EV_ABS, ABS_X, x);
		em.abs_x = x;
	}
	if (em.abs_y != 6000) {
		put(&b, EV_ABS, ABS_Y, 6000);
		em.abs_y = 6000;
	}
	if (p != em.abs_p) {
		put(&b, EV_ABS, ABS_PRESSURE, p);
		em.abs_p = p;
	}
	if (touch != em.btn_touch) {
		put(&b, EV_KEY, BTN_TOUCH, touch);
		em.btn_touch = touch;
	}
	if (tool != em.tool_pen && !tool) {
		put(&b, EV_KEY, BTN_TOOL_PEN, 0);
		em.tool_pen = 0;
	}
	if (b.n == 0)
		die("internal: pen frame %d (%s) changes nothing", frame_no, phase);
	end_frame(&b, phase, NULL);
}

/*
 * Calibrate pen: ROUNDS rounds of hover, stroke-light, stroke-normal,
 * stroke-firm, full-press. The person aims through --pen-curve over
 * --pen-range: a stroke class peaks, in its middle round, at the raw
 * pressure the curve maps to its target (25, 50, 85 %), the other rounds
 * 3 % of the range either side (light: at most down to the range's low
 * end, which the first round's light stroke peaks at); full presses peak at
 * the range's high end (first round) and up to 6 % below it. Hovers carry
 * pressure noise 0..round+2 without touching. Before trial 6 (the second
 * round's hover) a hover whose tip touches, before trial 7 a stroke too
 * short (one touching frame, batched): calibrate must discard both.
 */
static void mode_calibrate_pen(const struct opts *o, long rounds)
{
	static const char *cls[] = { "hover", "stroke-light", "stroke-normal", "stroke-firm", "full-press" };
	static const double target[] = { 0, 0.25, 0.50, 0.85, 1 };
	double span = opt_pen_hi - opt_pen_lo;
	int index = 0;

	if (!opt_pen)
		die("calibrate pen needs --pen");
	for (long r = 0; r < rounds; r++) {
		double offset = rounds > 1 ? -1 + 2.0 * r / (rounds - 1) : 0;
		for (int c = 0; c < 5; c++, index++) {
			int peak;
			if (c == 0) {
				peak = (int)r + 2;
			} else if (c == 4) {
				peak = (int)(opt_pen_hi - 0.06 * span * (offset + 1) / 2 + 0.5);
			} else {
				double aim = opt_pen_lo + span * curve_input(target[c]);
				double spread = 0.03 * span;
				if (c == 1 && aim - opt_pen_lo < spread)
					spread = aim - opt_pen_lo;
				peak = (int)(aim + spread * offset + 0.5);
				if (c == 1 && r == 0)
					peak = opt_pen_lo;
			}
			/* flaw 1: a hover that touches (before trial 6); flaw 2: too short (before trial 7) */
			for (int flaw = (index == 5 ? 1 : index == 6 ? 2 : 0); flaw >= 0; flaw = flaw ? 0 : -1) {
				int n = flaw == 2 ? 1 : c == 0 ? 12 : 24;
				int p_flawed = flaw ? 900 : peak;
				if (expect_fp)
					fprintf(expect_fp, "{\"type\":\"trial\",\"index\":%d,\"class\":\"%s\",\"peak\":%d,\"flaw\":%s,\"first_frame\":%d}\n",
						index, cls[c], flaw ? p_flawed : peak,
						flaw == 1 ? "\"touching-hover\"" : flaw == 2 ? "\"too-short\"" : "null", frame_no);
				if (flaw == 2)
					batch_begin();
				pen_frame(1, 0, 5000, 0, "proximity");
				if (flaw != 2)
					frame_pause(o);
				for (int i = 1; i <= n; i++) {
					int up = n / 2, p, touch;
					if (c == 0 && flaw != 1) {
						p = i % (peak + 1);
						touch = 0;
					} else {
						p = i <= up ? p_flawed * i / (up ? up : 1) : p_flawed * (n + 1 - i) / (n + 1 - up);
						if (p < 1)
							p = 1;
						touch = c == 0 ? i == up : 1;
					}
					pen_frame(1, touch, 5000 + 7 * i, p, cls[c]);
					if (flaw != 2)
						frame_pause(o);
				}
				pen_frame(1, 0, 5000 + 7 * (n + 1), 0, "lift");
				pen_frame(0, 0, 5000 + 7 * (n + 1), 0, "out");
				if (flaw == 2)
					batch_end();
				sleep_us(150000);
			}
		}
	}
	write_record("end", 0);
	sleep_us(o->hold_ms * 1000LL);
}

/*
 * Levels: the order `forcetrace levels --levels 2-4 --trials 10 --seed SEED`
 * asks for, computed here on its own (docs/ANALYSIS.md, "Levels"): per
 * count, ascending, levels 1..N ten times each, shuffled by Fisher-Yates
 * (swap i with next() % (i + 1), i from the end) over a SplitMix64 stream
 * seeded with SEED and shared by the blocks. The person holds 3 levels: at 2
 * and 3 every trial sits in the middle of its band, except that level 2 of 3
 * misses into level 3 once (9 in 10: on the 90 % rule, still reliable); at 4
 * every level misses twice (8 in 10: not). Capacity 3. A trial: 3 frames up,
 * frames held for LEVELS_HOLD_US by the clock (x moves by 1, pressure
 * constant: longer than the 300 ms hold; TCG stretches each frame's pause,
 * so a frame count would waste time), 3 frames down, the lift, 30 ms apart. Before trial 3
 * a two-finger trial, before trial 5 one too short (one frame), which the
 * session must ask again.
 */
#define LEVELS_LO 2
#define LEVELS_HI 4
#define LEVELS_TRIALS 10
#define LEVELS_HOLD_US 340000LL

static unsigned long long splitmix_state;

static unsigned long long splitmix_next(void)
{
	unsigned long long z;
	splitmix_state += 0x9E3779B97F4A7C15ULL;
	z = splitmix_state;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* The least raw value r with r / PRESSURE_MAX >= k / n (level k+1 starts there). */
static int levels_edge(int k, int n)
{
	double wanted = (double)k / n;
	int r;
	if (k == n)
		return PRESSURE_MAX + 1;
	for (r = 0; r <= PRESSURE_MAX && (double)r / PRESSURE_MAX < wanted; r++)
		;
	return r;
}

static void mode_levels(const struct opts *o, unsigned long long seed)
{
	struct state st;
	int tid = 700, index = 0;

	memset(&st, 0, sizeof st);
	st.s[0].tid = st.s[1].tid = -1;
	splitmix_state = seed;
	for (int n = LEVELS_LO; n <= LEVELS_HI; n++) {
		int order[LEVELS_HI * LEVELS_TRIALS], total = n * LEVELS_TRIALS, seen[LEVELS_HI + 1] = { 0 };
		for (int i = 0; i < total; i++)
			order[i] = 1 + i / LEVELS_TRIALS;
		for (int i = total - 1; i > 0; i--) {
			int j = (int)(splitmix_next() % (unsigned long long)(i + 1)), t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
		for (int t = 0; t < total; t++, index++) {
			int level = order[t], aimed = level, occurrence = seen[level]++, held;
			if ((n == 3 && level == 2 && occurrence == 0) || (n == 4 && occurrence < 2))
				aimed = level < n ? level + 1 : level - 1;
			held = (levels_edge(aimed - 1, n) + levels_edge(aimed, n) - 1) / 2;
			if (held < 1)
				held = 1;
			for (int flaw = (index == 2 ? 1 : index == 4 ? 2 : 0); flaw >= 0; flaw = flaw ? 0 : -1) {
				int k = 0;
				if (expect_fp)
					fprintf(expect_fp, "{\"type\":\"trial\",\"index\":%d,\"count\":%d,\"level\":%d,\"held\":%d,\"flaw\":%s,\"first_frame\":%d}\n",
						index, n, level, held, flaw == 1 ? "\"two-fingers\"" : flaw == 2 ? "\"too-short\"" : "null", frame_no);
				tid++;
				if (flaw == 2) {
					/* one frame and the lift in one write: no hold at all */
					batch_begin();
					st.s[0] = (struct slot_state){ tid, 1500, 1500, held };
					st.s[1].tid = -1;
					send_frame(&st, "level");
				} else {
					long long hold_start = 0;
					/* phase 0: 3 frames up; 1: held until LEVELS_HOLD_US has passed; 2: 3 frames down */
					for (int phase = 0; phase < 3; phase++) {
						for (int i = 0;; i++) {
							int p = held;
							if (phase == 0 && i == 3)
								break;
							if (phase == 2 && i == 3)
								break;
							if (phase == 1 && i > 0 && now_us() - hold_start >= LEVELS_HOLD_US)
								break;
							if (phase == 0)
								p = 1 + (held - 1) * (i + 1) / 4;
							else if (phase == 2)
								p = 1 + (held - 1) * (3 - i) / 4;
							if (p < 1)
								p = 1;
							st.s[0] = (struct slot_state){ tid, 1500 + k, 1500, p };
							if (flaw == 1 && phase == 1 && i >= 1)
								st.s[1] = (struct slot_state){ tid + 1000, 2500 + k, 1500, p };
							else
								st.s[1].tid = -1;
							send_frame(&st, "level");
							if (phase == 1 && i == 0)
								hold_start = now_us();
							k++;
							frame_pause(o);
						}
					}
				}
				st.s[0].tid = st.s[1].tid = -1;
				send_frame(&st, "lift");
				if (flaw == 2)
					batch_end();
				sleep_us(30000);
			}
		}
	}
	write_record("end", 0);
	sleep_us(o->hold_ms * 1000LL);
}

static void usage(void)
{
	fputs("usage: player script [options]\n"
	      "       player flood N [options]\n"
	      "       player unplug-after-ms N [options]\n"
	      "       player type TEXT [options] (with --keys)\n"
	      "       player calibrate app|touchpad ROUNDS [options]\n"
	      "       player levels SEED [options]\n"
	      "       player calibrate pen ROUNDS --pen [--pen-curve X1,Y1,X2,Y2] [--pen-range LO..HI]\n"
	      "options: --start-delay-ms N --wait-signal --hold-ms N --frame-us N\n"
	      "         --expect FILE\n"
	      "         --devnode-file FILE --no-lift --name NAME --id BUS:VENDOR:PRODUCT\n"
	      "         --touchpad [--pressurepad UNITS_PER_GRAM] --keys\n",
	      stderr);
	exit(2);
}

static long parse_long(const char *s, const char *what)
{
	char *end;
	long v;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0)
		die("bad %s: %s", what, s);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "start-delay-ms", required_argument, 0, 'd' },
		{ "hold-ms", required_argument, 0, 'h' },
		{ "frame-us", required_argument, 0, 'f' },
		{ "expect", required_argument, 0, 'e' },
		{ "devnode-file", required_argument, 0, 'n' },
		{ "no-lift", no_argument, 0, 'L' },
		{ "name", required_argument, 0, 'N' },
		{ "id", required_argument, 0, 'I' },
		{ "wait-signal", no_argument, 0, 'W' },
		{ "touchpad", no_argument, 0, 'T' },
		{ "pressurepad", required_argument, 0, 'U' },
		{ "keys", no_argument, 0, 'K' },
		{ "pen", no_argument, 0, 'P' },
		{ "pen-curve", required_argument, 0, 'C' },
		{ "pen-range", required_argument, 0, 'R' },
		{ 0, 0, 0, 0 },
	};
	struct opts o = { -1, -1, -1, 1 };
	int wait_signal = 0;
	const char *expect = NULL, *devnode_file = NULL, *name = "forcetrace-test-touch";
	const char *mode;
	long arg = 0;
	const char *text = NULL;
	char *devnode;
	int c;
	struct sigaction sa;

	if (argc < 2)
		usage();
	mode = argv[1];
	optind = 2;
	if (strcmp(mode, "flood") == 0 || strcmp(mode, "unplug-after-ms") == 0) {
		if (argc < 3)
			usage();
		arg = parse_long(argv[2], mode);
		optind = 3;
	} else if (strcmp(mode, "calibrate") == 0) {
		if (argc < 4)
			usage();
		text = argv[2];
		arg = parse_long(argv[3], mode);
		optind = 4;
	} else if (strcmp(mode, "levels") == 0) {
		if (argc < 3)
			usage();
		text = argv[2];
		arg = parse_long(argv[2], mode);
		optind = 3;
	} else if (strcmp(mode, "type") == 0) {
		if (argc < 3)
			usage();
		text = argv[2];
		optind = 3;
	} else if (strcmp(mode, "script") != 0) {
		usage();
	}
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o.start_delay_ms = parse_long(optarg, "--start-delay-ms"); break;
		case 'h': o.hold_ms = parse_long(optarg, "--hold-ms"); break;
		case 'f': o.frame_us = parse_long(optarg, "--frame-us"); break;
		case 'e': expect = optarg; break;
		case 'n': devnode_file = optarg; break;
		case 'L': o.lift = 0; break;
		case 'N': name = optarg; break;
		case 'I': {
			int used = 0;
			if (sscanf(optarg, "%x:%x:%x%n", &opt_bus, &opt_vendor, &opt_product, &used) != 3 ||
			    optarg[used] != '\0' || opt_bus > 0xffff || opt_vendor > 0xffff || opt_product > 0xffff)
				die("bad --id: %s (BUS:VENDOR:PRODUCT in hex)", optarg);
			break;
		}
		case 'W': wait_signal = 1; break;
		case 'T': opt_touchpad = 1; break;
		case 'U':
			opt_pressurepad = (int)parse_long(optarg, "--pressurepad");
			if (opt_pressurepad < 1 || opt_pressurepad > 1000)
				die("bad --pressurepad: %s (units per gram, 1..1000)", optarg);
			break;
		case 'K': opt_keys = 1; break;
		case 'P': opt_pen = 1; break;
		case 'C': {
			int used = 0, *v = opt_pen_curve;
			if (sscanf(optarg, "%d,%d,%d,%d%n", &v[0], &v[1], &v[2], &v[3], &used) != 4 || optarg[used] != '\0' ||
			    v[0] < 0 || v[1] < 0 || v[2] > 100 || v[3] > 100 || v[0] > v[2] || v[1] > v[3])
				die("bad --pen-curve: %s (X1,Y1,X2,Y2 in 0..100, X1 <= X2, Y1 <= Y2)", optarg);
			break;
		}
		case 'R': {
			int used = 0;
			if (sscanf(optarg, "%d..%d%n", &opt_pen_lo, &opt_pen_hi, &used) != 2 || optarg[used] != '\0' ||
			    opt_pen_lo < 1 || opt_pen_lo >= opt_pen_hi || opt_pen_hi > PEN_PRESSURE_MAX)
				die("bad --pen-range: %s (LO..HI, 1 <= LO < HI <= 4095)", optarg);
			break;
		}
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	if (opt_pressurepad && !opt_touchpad)
		die("--pressurepad needs --touchpad");
	if (o.frame_us < 0)
		o.frame_us = strcmp(mode, "flood") == 0 ? 0 : 10000;
	if (o.start_delay_ms < 0)
		o.start_delay_ms = wait_signal ? 30000 : 1000;
	if (o.hold_ms < 0)
		o.hold_ms = strcmp(mode, "flood") == 0 ? 2000 : 500;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_go;
	sigaction(SIGUSR1, &sa, NULL); /* before the device exists: no race */

	if (expect) {
		expect_fp = fopen(expect, "w");
		if (!expect_fp)
			die("cannot open %s: %s", expect, strerror(errno));
	}

	create_device(name);
	{
		const char *n = libevdev_uinput_get_devnode(uidev);
		devnode = n ? strdup(n) : find_devnode_by_name(name);
	}
	if (!devnode)
		die("device created but its /dev/input node was not found");
	printf("DEVNODE %s\n", devnode);
	fflush(stdout);
	if (devnode_file)
		write_devnode_file(devnode_file, devnode);
	if (expect_fp) {
		fprintf(expect_fp,
			"{\"type\":\"device\",\"name\":\"%s\",\"devnode\":\"%s\",\"mode\":\"%s\","
			"\"arg\":%ld,\"slots\":%d,\"frame_us\":%ld,\"lift\":%s}\n",
			name, devnode, mode, arg, NSLOTS, o.frame_us, o.lift ? "true" : "false");
		fflush(expect_fp);
	}

	if (wait_signal) {
		long long deadline = now_us() + o.start_delay_ms * 1000LL;
		while (!got_go && !got_signal && now_us() < deadline)
			sleep_us(10000);
		if (!got_go && !got_signal)
			fprintf(stderr, "player: WARNING: no SIGUSR1 within %ld ms, playing anyway\n",
				o.start_delay_ms);
	} else {
		sleep_us(o.start_delay_ms * 1000LL);
	}

	if (!got_signal) {
		if (strcmp(mode, "script") == 0)
			mode_script(&o);
		else if (strcmp(mode, "flood") == 0)
			mode_flood(&o, arg);
		else if (strcmp(mode, "type") == 0)
			mode_type(&o, text);
		else if (strcmp(mode, "calibrate") == 0 && strcmp(text, "pen") == 0)
			mode_calibrate_pen(&o, arg);
		else if (strcmp(mode, "calibrate") == 0)
			mode_calibrate(&o, text, arg);
		else if (strcmp(mode, "levels") == 0)
			mode_levels(&o, (unsigned long long)arg);
		else
			mode_unplug(&o, arg);
	}

	libevdev_uinput_destroy(uidev);
	fprintf(stderr, "player: %s done, %d frames, device destroyed\n", mode, frame_no);
	if (expect_fp && fclose(expect_fp) != 0)
		die("writing %s: %s", expect, strerror(errno));
	free(devnode);
	return 0;
}
