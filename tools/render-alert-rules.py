# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write the Prometheus rules file from the prometheus role's alert defaults (what tools/promtool.sh tests).

Usage: python3 tools/render-alert-rules.py DEFAULTS_YML OUT_YML, with PYTHONPATH naming a
folder where ansible_collections.gpuops.cluster imports (.build/collections).
The variables prometheus_alert_<setting> of DEFAULTS_YML are the settings.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import sys

import yaml

from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._alert_rules import alert_rules, alert_settings_errors

PREFIX = "prometheus_alert_"


class _Dumper(yaml.SafeDumper):
    """Multi-line strings (the longer expressions) as literal blocks."""


def _str(dumper, text):
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|" if "\n" in text else None)


_Dumper.add_representer(str, _str)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1]) as handle:
        defaults = yaml.safe_load(handle) or {}
    settings = dict((key[len(PREFIX):], value) for key, value in defaults.items() if key.startswith(PREFIX))
    errors = alert_settings_errors(settings)
    if errors:
        sys.stderr.write("%s: %s\n" % (argv[1], " ".join(errors)))
        return 1
    text = yaml.dump(alert_rules(settings), Dumper=_Dumper, sort_keys=False, width=1000, default_flow_style=False)
    part = argv[2] + ".part"
    with open(part, "w") as handle:
        handle.write("# Rendered by tools/render-alert-rules.py from %s: do not edit.\n" % argv[1])
        handle.write(text)
    os.rename(part, argv[2])
    print("wrote %s (%d rules)" % (argv[2], sum(len(group["rules"]) for group in alert_rules(settings)["groups"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
