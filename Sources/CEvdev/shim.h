#ifndef FORCETRACE_CEVDEV_SHIM_H
#define FORCETRACE_CEVDEV_SHIM_H

#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input.h>

// No shims yet: everything the live recorder needs is libevdev's API
// (libevdev_new_from_fd, libevdev_set_clock_id, libevdev_next_event with
// LIBEVDEV_READ_FLAG_NORMAL/SYNC, libevdev_grab, libevdev_get_abs_info,
// libevdev_get_slot_value), which imports as is (checked with libevdev 1.13
// and Swift 6.3.1). The raw ioctl macros (EVIOCGABS, EVIOCGRAB) do not
// import, and are not needed while libevdev does that work.

#endif
