#!/usr/bin/env python3
"""Host-side check of the ft-whatif-sim scenario: check_ft_whatif.py's comparison.

usage: check_ft_whatif_sim.py RESULT_DIR"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_ft_whatif import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv, "ft-whatif-sim"))
