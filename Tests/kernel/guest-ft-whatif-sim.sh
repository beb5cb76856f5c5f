#!/bin/sh
# Scenario ft-whatif-sim: simulated calibration sessions
# (touchpad, pen) against libinput; the steps are guest-ft-whatif.sh's.
WHATIF_PART=sim . /usr/share/ft/scenarios/ft-whatif.sh
