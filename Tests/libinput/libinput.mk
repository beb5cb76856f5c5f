# libinput.mk - libinput releases as what-if oracles (Tests/libinput/README.md).
# Included by the top-level Makefile.
#
#   make libinput-oracles   build each tarball of ../shared/libinput once per
#                           machine into ~/.cache/forcetrace/libinput/ (SKIP
#                           without ../shared/libinput)

LIBINPUT_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))

.PHONY: libinput-oracles
libinput-oracles:
	@bash $(LIBINPUT_DIR)/build-oracles.sh
