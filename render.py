#!/usr/bin/env python3
"""鄉射禮 reconstruction: command-line front.  `python render.py --help` lists the sub-commands;
with no arguments it renders the default reading to out/xiangshe.mp4."""
import sys

from reconstruct.cli import main

if __name__ == "__main__":
    sys.exit(main())
