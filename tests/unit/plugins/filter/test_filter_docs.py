# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every filter of the collection has its documentation file (plugins/filter/<name>.yml), and the file says what the
function takes: the positional options are the function's parameters after the input, in order, with its defaults."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import inspect
import os

import pytest
import yaml

FILTER_DIR = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "plugins", "filter"))
MODULES = sorted(name[:-3] for name in os.listdir(FILTER_DIR) if name.endswith(".py") and not name.startswith("_"))


def _filters():
    found = {}
    for module in MODULES:
        plugin = importlib.import_module("ansible_collections.gpuops.cluster.plugins.filter." + module)
        for name, function in plugin.FilterModule().filters().items():
            assert name not in found, "filter %s defined twice" % name
            found[name] = function
    return found


FILTERS = _filters()


def test_every_doc_file_is_a_filter():
    documented = sorted(name[:-4] for name in os.listdir(FILTER_DIR) if name.endswith(".yml"))
    assert documented == sorted(FILTERS)


@pytest.mark.parametrize("name", sorted(FILTERS))
def test_filter_doc_file(name):
    with open(os.path.join(FILTER_DIR, name + ".yml")) as handle:
        doc = yaml.safe_load(handle)
    documentation = doc["DOCUMENTATION"]
    assert documentation["name"] == name
    assert documentation["author"]
    assert str(documentation["version_added"]).count(".") == 2
    assert documentation["short_description"] and documentation["description"]
    options = documentation["options"]
    assert "_input" in options
    for option in options.values():
        assert option.get("type") and option.get("description")
    parameters = list(inspect.signature(FILTERS[name]).parameters.values())[1:]
    positional = [parameter for parameter in parameters
                  if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)]
    assert [key for key in options if key != "_input"] == [parameter.name for parameter in positional]
    for parameter in positional:
        option = options[parameter.name]
        if parameter.default is inspect.Parameter.empty:
            assert option.get("required") is True, parameter.name
        else:
            assert not option.get("required") and option.get("default") in (parameter.default, ""), parameter.name
    assert doc["EXAMPLES"] and "gpuops.cluster.%s" % name in doc["EXAMPLES"]
    yaml.safe_load(doc["EXAMPLES"])
    assert doc["RETURN"]["_value"]["type"] and doc["RETURN"]["_value"]["description"]
