#!/usr/bin/env python3
"""Host-side check of ft-whatif-versions-pen: check_ft_whatif_versions.py's.

usage: check_ft_whatif_versions_pen.py RESULT_DIR"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_ft_whatif_versions import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv, "ft-whatif-versions-pen"))
