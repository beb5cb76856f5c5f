#!/bin/sh
# Scenario ft-whatif-shared: the genuine recordings of
# ../shared/recordings against libinput; the steps are guest-ft-whatif.sh's.
WHATIF_PART=shared . /usr/share/ft/scenarios/ft-whatif.sh
