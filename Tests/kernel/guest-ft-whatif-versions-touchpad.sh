#!/bin/sh
# Scenario ft-whatif-versions-touchpad: the touchpad fixtures of Tests/fixtures/libinput-versions
# through every libinput version; the steps are guest-ft-whatif.sh's.
WHATIF_PART=versions-touchpad . /usr/share/ft/scenarios/ft-whatif.sh
