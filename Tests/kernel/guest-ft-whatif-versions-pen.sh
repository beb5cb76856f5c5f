#!/bin/sh
# Scenario ft-whatif-versions-pen: the pen fixtures of Tests/fixtures/libinput-versions
# through every libinput version; the steps are guest-ft-whatif.sh's.
WHATIF_PART=versions-pen . /usr/share/ft/scenarios/ft-whatif.sh
