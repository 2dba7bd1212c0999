#!/usr/bin/env python3
"""Runs lit from the installed Python package (`lit` is not runnable with `python3 -m`)."""
import sys

from lit.main import main

if __name__ == '__main__':
    sys.argv[0] = 'lit'
    main()
