# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Atomic file writes for the collection's modules (file_bundle, validate_report)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import tempfile


def write_atomically(module, path, data, prefix):
    """Write bytes to path through a temporary file in its directory and module.atomic_move."""
    fd, tmp = tempfile.mkstemp(prefix=prefix, dir=os.path.dirname(path) or "/")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        module.atomic_move(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
