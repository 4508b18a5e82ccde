# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Small helpers of the roles' settings checks (module_utils/_<role>_settings.py): a value quoted as Ansible's
to_json shows it, and the tests the roles' preflights used to write in Jinja.

None of them raises, whatever the value's type.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import math
import re

from ansible.module_utils.common.collections import is_sequence
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import TEXT_TYPES, clip, shown

# http:// or https://, a host, an optional path; no white space anywhere.
URL_RE = re.compile(r"https?://[^\s/]+(/\S*)?")
# What Ansible's bool filter reads as true.
TRUE_WORDS = ("yes", "on", "1", "true", "y", "t")


def plain_data(value):
    """Lazy or templated containers from hostvars (what a filter receives) as plain dicts and lists."""
    if isinstance(value, dict) or (hasattr(value, "items") and hasattr(value, "keys")):
        return dict((key, plain_data(item)) for key, item in value.items())
    if is_sequence(value):
        return [plain_data(item) for item in value]
    return value


def json_shown(value, limit=100):
    """value as to_json writes it ("text", 70000, ["a"]), cut to limit characters; repr() where JSON cannot."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return shown(value, limit)
    return clip(text, limit) if len(text) > limit else text


def json_clipped(value, limit=60):
    """value as to_json writes it (text in double quotes, keys sorted), clipped with "..."; never raises."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError, OverflowError, RecursionError):
        text = shown(value, limit)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def plain(value, limit=100):
    """value as Jinja prints it into a message ({{ value }}): text as it is, anything else repr()."""
    return clip(value, limit) if isinstance(value, TEXT_TYPES) else shown(value, limit)


def names(values, limit=10):
    """Text values joined with ", " as Jinja's join prints them, each clipped, at most limit of them."""
    shown_names = [plain(value, 60) for value in values[:limit]]
    return ", ".join(shown_names) + (" and %d more" % (len(values) - limit) if len(values) > limit else "")


def is_text(value):
    return isinstance(value, TEXT_TYPES)


def matches(pattern, value):
    """value is text and pattern (compiled) matches all of it."""
    return is_text(value) and pattern.fullmatch(value) is not None


def is_url(value):
    return matches(URL_RE, value)


def is_list(value):
    return isinstance(value, (list, tuple))


def as_bool(value):
    """value as Ansible's bool filter reads it."""
    if isinstance(value, bool):
        return value
    if is_text(value):
        return value.strip().lower() in TRUE_WORDS
    return isinstance(value, (int, float)) and value == 1


def whole_number(value):
    """The int value of a whole number given as an int or its digits (value | string is match('^[0-9]+$')), or
    None. Digits past 18 are not read (no setting of seconds or releases has them)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value < 10 ** 18 else None
    if is_text(value) and re.fullmatch(r"[0-9]{1,18}", value):
        return int(value)
    return None


def number(value):
    """The float of a finite number given as an int, a float or its text (value | float in Jinja, without its
    0.0 for anything else), or None. Booleans are not numbers here."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            value = float(value)
        except OverflowError:
            return None
    elif is_text(value) and re.fullmatch(r"\s*[-+]?([0-9]{1,18}(\.[0-9]{0,18})?|\.[0-9]{1,18})\s*", value):
        value = float(value)
    else:
        return None
    return value if math.isfinite(value) else None


def path_is_absolute(value):
    """value is text that starts with / (value is match('^/'))."""
    return is_text(value) and value.startswith("/")


def fix_messages(prefix, settings, problems, variable="%s"):
    """One message per problem (key, fix): "<prefix><variable of key> is <its value as JSON>. Fix: <fix>."."""
    return ["%s%s is %s. Fix: %s." % (prefix, variable % key, json_shown(settings.get(key)), fix)
            for key, fix in problems]


def not_a_mapping(role, settings):
    """The one message of a settings check given something other than a mapping."""
    return ["%s: the settings must be a mapping of the %s_ variables, not %s." % (role, role, shown(settings))]
