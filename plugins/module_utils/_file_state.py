# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Compare wanted files and directories with what one ``find`` call saw.

A role looks at every file it manages with a single
``ansible.builtin.find`` (``get_checksum: true``), then runs its copy/file
tasks only over the entries this module says are stale. An idempotent run
then costs one remote call instead of two per file, and the copy/file
modules still do every real change (and ``--check``/``--diff``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import binascii
import hashlib


class FileStateError(Exception):
    """A wanted entry or the find result is malformed."""


def _text_bytes(content):
    if isinstance(content, bytes):
        return content
    return content.encode("utf-8", "surrogateescape")


def content_checksum(content):
    """The SHA-1 that ``find``/``stat`` report for a file holding content."""
    return hashlib.sha1(_text_bytes(content)).hexdigest()


def _norm_mode(mode):
    if mode is None:
        return None
    text = str(mode).strip()
    try:
        return "%04o" % int(text, 8)
    except ValueError:
        raise FileStateError("mode %r is not an octal string such as '0644'" % (mode,))


def index_found(found):
    """Map path -> entry for the ``files`` list of a find result (or the result)."""
    if isinstance(found, dict):
        found = found.get("files", [])
    if not isinstance(found, (list, tuple)):
        raise FileStateError("expected the find result or its files list, got %s" % type(found).__name__)
    index = {}
    for entry in found:
        if not isinstance(entry, dict) or "path" not in entry:
            raise FileStateError("find entry without a path: %r" % (entry,))
        index[entry["path"].rstrip("/") or "/"] = entry
    return index


def is_stale(wanted, have):
    """True when the wanted entry differs from what was found (or is missing).

    wanted: dict with path, and optionally state (file|directory|absent), owner,
    group, mode and content (files).
    """
    if not isinstance(wanted, dict) or not wanted.get("path"):
        raise FileStateError("each wanted entry needs a path: %r" % (wanted,))
    path = str(wanted["path"]).rstrip("/") or "/"
    entry = have.get(path)
    state = wanted.get("state", "file")
    if state not in ("file", "directory", "absent"):
        raise FileStateError("state %r for %s: use file, directory or absent" % (state, path))
    if state == "absent":
        return entry is not None
    if entry is None:
        return True
    if state == "directory":
        if not entry.get("isdir", False):
            return True
    else:
        if not entry.get("isreg", False):
            return True
        if "content" in wanted and wanted["content"] is not None:
            if entry.get("checksum") != content_checksum(wanted["content"]):
                return True
        if wanted.get("content_b64") is not None:
            try:
                data = base64.b64decode(wanted["content_b64"], validate=True)
            except (TypeError, ValueError, binascii.Error):
                raise FileStateError("content_b64 of %s is not valid base64" % path)
            if entry.get("checksum") != content_checksum(data):
                return True
    if wanted.get("owner") is not None and entry.get("pw_name") != str(wanted["owner"]):
        return True
    if wanted.get("group") is not None and entry.get("gr_name") != str(wanted["group"]):
        return True
    want_mode = _norm_mode(wanted.get("mode"))
    if want_mode is not None and _norm_mode(entry.get("mode")) != want_mode:
        return True
    return False


def stale_entries(wanted, found):
    """The wanted entries that differ from the find result, in their order.

    wanted may also be a dict of such lists (files grouped by the handler they notify): the result
    is then the same dict with each list cut to its stale entries, from one reading of found.
    """
    have = index_found(found)
    if isinstance(wanted, dict):
        return dict((key, _stale(group, have, key)) for key, group in wanted.items())
    return _stale(wanted, have)


def _stale(wanted, have, key=None):
    if not isinstance(wanted, (list, tuple)):
        raise FileStateError("expected a list of wanted entries%s, got %s"
                             % ("" if key is None else " under %r" % (key,), type(wanted).__name__))
    return [item for item in wanted if is_stale(item, have)]
