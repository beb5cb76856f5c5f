# kernel.mk - live-kernel tests (qemu TCG guest with evdev + uinput).
# Included by the top-level Makefile: include Tests/kernel/kernel.mk
#
#   make test-kernel                      all default scenarios
#   make test-kernel KERNEL_SCENARIOS=evemu-smoke
#   make test-kernel KERNEL_BINS=.build/debug/forcetrace   also ship forcetrace
#
# Installs missing Debian packages (as root), builds player/fsprobe, builds
# the initramfs, boots the guest once and runs the host-side checkers.
# Prints "SKIP: ..." and succeeds only when qemu cannot boot a TCG guest.

KERNEL_TEST_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
KERNEL_SCENARIOS ?= evemu-smoke,player-selftest,bin-smoke,fs-probe
KERNEL_BINS ?=

.PHONY: test-kernel
test-kernel:
	KERNEL_SCENARIOS='$(KERNEL_SCENARIOS)' KERNEL_BINS='$(KERNEL_BINS)' \
		bash $(KERNEL_TEST_DIR)/test-kernel.sh
