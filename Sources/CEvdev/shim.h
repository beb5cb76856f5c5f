#ifndef FORCETRACE_CEVDEV_SHIM_H
#define FORCETRACE_CEVDEV_SHIM_H

#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input.h>
#include <sys/ioctl.h>

// No shims yet: everything the live recorder needs is libevdev's API
// (libevdev_new_from_fd, libevdev_set_clock_id, libevdev_next_event with
// LIBEVDEV_READ_FLAG_NORMAL/SYNC, libevdev_grab, libevdev_get_abs_info,
// libevdev_get_slot_value), which imports as is (checked with libevdev 1.13
// and Swift 6.3.1). The raw ioctl macros (EVIOCGABS, EVIOCGRAB) do not
// import, and are not needed while libevdev does that work.

// EVIOCSCLOCKID is an _IOW macro, which Swift does not import. The recorder
// sets the clock right after open(2), before libevdev_new_from_fd reads the
// device's state: the kernel flushes the client's queue on a clock change,
// and events that arrived between the state read and a later switch
// (libevdev_set_clock_id) would be lost with the state already stale.
static inline int CEvdev_set_clock_id(int fd, int clock_id) {
    return ioctl(fd, EVIOCSCLOCKID, &clock_id);
}

#endif
