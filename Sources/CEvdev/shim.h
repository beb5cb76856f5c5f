#ifndef FORCETRACE_CEVDEV_SHIM_H
#define FORCETRACE_CEVDEV_SHIM_H

#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input.h>

#endif
