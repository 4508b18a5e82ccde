# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Grafana dashboards as data: every panel's Prometheus query, and what makes a dashboard unfit to provision.

Pure functions over a dashboard's JSON model (a dict, or its JSON text):
dashboard_queries lists every panel query with the template variables
substituted, so each can be evaluated against a real Prometheus;
dashboard_errors lists what is wrong with a dashboard the grafana role ships.
Each raises GrafanaError for input that is not a dashboard, never Python's
own errors.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import (
    MAX_DIGITS,
    MAX_FLOAT_CHARS,
    TEXT_TYPES,
    as_text,
    clip,
    guarded,
)


class GrafanaError(Exception):
    """Input that is not a Grafana dashboard."""


# Grafana's built-in variables, as the queries are evaluated outside Grafana.
BUILTINS = {
    "__rate_interval": "1m",
    "__interval": "1m",
    "__interval_ms": "60000",
    "__range": "1h",
    "__range_s": "3600",
    "__range_ms": "3600000",
}
# The value of a query or custom variable left to its default: everything, as a regex (label=~"$node").
MATCH_ALL = ".*"
# $var, ${var}, ${var:format}, [[var]], [[var:format]] (Grafana's three syntaxes).
_VARIABLE_RE = re.compile(r"\$(\w+)|\$\{(\w+)(?::[^}]*)?\}|\[\[(\w+)(?::[^\]]*)?\]\]")
# Rows nest one level in Grafana; anything deeper is not a dashboard this reads.
MAX_DEPTH = 8


def _what(value):
    return type(value).__name__


def _number(text, kind):
    limit = MAX_DIGITS if kind == "integer" else MAX_FLOAT_CHARS
    if len(text) - text.startswith("-") > limit:
        raise GrafanaError("dashboard JSON: a number of %d characters (%s); at most %d are read"
                           % (len(text), clip(text, 24), limit))
    value = int(text) if kind == "integer" else float(text)
    if value in (float("inf"), float("-inf")):
        raise GrafanaError("dashboard JSON: the number %s is too large" % clip(text, 24))
    return value


def _constant(name):
    raise GrafanaError("dashboard JSON: %s is not a JSON number" % name)


def load(dashboard):
    """The dashboard as a dict: a dict as it is, JSON text or bytes parsed (numbers bounded, no NaN)."""
    if isinstance(dashboard, dict):
        return dashboard
    if isinstance(dashboard, (bytes, bytearray)) or isinstance(dashboard, TEXT_TYPES):
        text = as_text(dashboard, "dashboard JSON", GrafanaError)
        try:
            dashboard = json.loads(text, parse_int=lambda digits: _number(digits, "integer"),
                                   parse_float=lambda digits: _number(digits, "float"), parse_constant=_constant)
        except ValueError as exc:
            raise GrafanaError("dashboard JSON: %s" % clip(str(exc), 120))
    if not isinstance(dashboard, dict):
        raise GrafanaError("not a dashboard: expected a JSON object (dict), got %s" % _what(dashboard))
    return dashboard


def _label(dashboard):
    """The dashboard in messages: its uid, else 'dashboard <title>', else 'dashboard (no uid)'."""
    uid = dashboard.get("uid")
    if isinstance(uid, TEXT_TYPES) and uid.strip():
        return clip(uid, 60)
    title = dashboard.get("title")
    if isinstance(title, TEXT_TYPES) and title.strip():
        return "dashboard %s" % clip(title, 60)
    return "dashboard (no uid)"


def _panels(dashboard):
    """[(panel, place)] of every panel in the dashboard's order, a row's own panels (a collapsed row's) right after
    it, then those of the old rows[].panels layout.

    place names the panel for messages: 'panel 3', 'panel 2 panel 1' (in row panel 2) or 'row 1 panel 1'.
    Raises GrafanaError where panels is not a list of objects.
    """
    found = []

    def walk(panels, where, prefix, depth):
        if not isinstance(panels, list):
            raise GrafanaError("%s: %s must be a list, got %s" % (_label(dashboard), where, _what(panels)))
        if depth > MAX_DEPTH:
            raise GrafanaError("%s: %s: rows nested more than %d deep" % (_label(dashboard), where, MAX_DEPTH))
        for number, panel in enumerate(panels, 1):
            place = "%spanel %d" % (prefix, number)
            if not isinstance(panel, dict):
                raise GrafanaError("%s: %s must be an object, got %s" % (_label(dashboard), place, _what(panel)))
            found.append((panel, place))
            if panel.get("type") == "row" and "panels" in panel:
                walk(panel["panels"], place + " panels", place + " ", depth + 1)

    walk(dashboard.get("panels", []), "panels", "", 0)
    # Dashboards of schema 1 keep their panels in rows[].panels.
    rows = dashboard.get("rows")
    if rows is not None:
        if not isinstance(rows, list):
            raise GrafanaError("%s: rows must be a list, got %s" % (_label(dashboard), _what(rows)))
        for number, row in enumerate(rows, 1):
            if not isinstance(row, dict):
                raise GrafanaError("%s: rows[%d] must be an object, got %s" % (_label(dashboard), number, _what(row)))
            walk(row.get("panels", []), "rows[%d].panels" % number, "row %d " % number, 1)
    return found


def _targets(dashboard, panel, place):
    """[(refId, expr)] of the panel's targets that carry an expr; GrafanaError where targets or an expr has the
    wrong type."""
    targets = panel.get("targets", [])
    if targets is None:
        targets = []
    if not isinstance(targets, list):
        raise GrafanaError("%s: %s targets must be a list, got %s" % (_label(dashboard), place, _what(targets)))
    out = []
    for number, target in enumerate(targets, 1):
        if not isinstance(target, dict):
            raise GrafanaError("%s: %s target %d must be an object, got %s"
                               % (_label(dashboard), place, number, _what(target)))
        if "expr" not in target:
            continue
        expr = target["expr"]
        if not isinstance(expr, TEXT_TYPES):
            raise GrafanaError("%s: %s target %s: expr must be a string, got %s"
                               % (_label(dashboard), place, target.get("refId", number), _what(expr)))
        out.append((target.get("refId", number), expr))
    return out


def _title(panel, place):
    title = panel.get("title")
    return title if isinstance(title, TEXT_TYPES) and title.strip() else place


def _as_value(value, name):
    if isinstance(value, (list, tuple)):
        if not all(isinstance(item, TEXT_TYPES) for item in value):
            raise GrafanaError("variables: %s must be a string or a list of strings" % name)
        return value[0] if len(value) == 1 else "(" + "|".join(value) + ")"
    if isinstance(value, bool) or not isinstance(value, TEXT_TYPES + (int, float)):
        raise GrafanaError("variables: %s must be a string or a list of strings, got %s" % (name, _what(value)))
    return str(value)


def _current(variable):
    current = variable.get("current")
    value = current.get("value") if isinstance(current, dict) else None
    if isinstance(value, list):
        value = value[0] if len(value) == 1 else None
    return value if isinstance(value, TEXT_TYPES) and value not in ("$__all", "") else None


def variable_values(dashboard, variables=None):
    """{name: value} of the dashboard's template variables, then Grafana's built-ins, then variables (which win).

    A query or custom variable is its allValue, or MATCH_ALL (".*": the queries use them as regexes);
    a constant or textbox its query (or current value); an interval variable "1m"; a datasource
    variable its current value, else its query.
    """
    dashboard = load(dashboard)
    values = dict(BUILTINS)
    templating = dashboard.get("templating", {})
    if not isinstance(templating, dict):
        raise GrafanaError("%s: templating must be an object, got %s" % (_label(dashboard), _what(templating)))
    listed = templating.get("list", [])
    if not isinstance(listed, list):
        raise GrafanaError("%s: templating.list must be a list, got %s" % (_label(dashboard), _what(listed)))
    for number, variable in enumerate(listed, 1):
        if not isinstance(variable, dict) or not isinstance(variable.get("name"), TEXT_TYPES):
            raise GrafanaError("%s: templating.list[%d] must be an object with a name" % (_label(dashboard), number))
        kind = variable.get("type", "query")
        query = variable.get("query")
        query = query if isinstance(query, TEXT_TYPES) else None
        if kind in ("query", "custom"):
            all_value = variable.get("allValue")
            value = all_value if isinstance(all_value, TEXT_TYPES) and all_value else MATCH_ALL
        elif kind in ("constant", "textbox"):
            value = query if query is not None else (_current(variable) or "")
        elif kind == "interval":
            value = "1m"
        else:
            value = _current(variable) or query or ""
        values[variable["name"]] = value
    if variables is not None:
        if not isinstance(variables, dict):
            raise GrafanaError("variables must be a dict of name: value, got %s" % _what(variables))
        for name, value in variables.items():
            if not isinstance(name, TEXT_TYPES):
                raise GrafanaError("variables: names must be strings, got %s" % _what(name))
            values[name] = _as_value(value, name)
    return values


def substitute(expr, values):
    """expr with every $var, ${var}, ${var:format} and [[var]] of values replaced; unknown names stay."""
    def replace(match):
        name = match.group(1) or match.group(2) or match.group(3)
        return values.get(name, match.group(0))
    return _VARIABLE_RE.sub(replace, expr)


def variables_used(expr):
    """The variable names expr refers to, in order, without repeats."""
    names = []
    for match in _VARIABLE_RE.finditer(expr):
        name = match.group(1) or match.group(2) or match.group(3)
        if name not in names:
            names.append(name)
    return names


def dashboard_queries(dashboard, variables=None):
    """[{dashboard, panel, expr}] of every panel target with an expr, those of panels in rows included.

    dashboard is the dashboard's JSON model (a dict, or its JSON text); variables ({name: value or list of
    values}) override the values variable_values gives. The dashboard is its uid (else its title), the panel
    its title (else its place, 'panel 3').
    """
    dashboard = load(dashboard)
    values = variable_values(dashboard, variables)
    uid = _label(dashboard)
    out = []
    for panel, place in _panels(dashboard):
        for dummy, expr in _targets(dashboard, panel, place):
            out.append({"dashboard": uid, "panel": _title(panel, place), "expr": substitute(expr, values)})
    return out


def dashboard_errors(dashboard):
    """Messages for what keeps the dashboard from being provisioned and checked: a missing uid or title, a panel
    id used twice, a panel without a title, a panel (not a row) without a target with an expr, an empty expr, a
    variable no one defines. [] when there is nothing to say."""
    dashboard = load(dashboard)
    errors = []
    uid = _label(dashboard)
    for key in ("uid", "title"):
        value = dashboard.get(key)
        if not isinstance(value, TEXT_TYPES) or not value.strip():
            errors.append("%s: the dashboard has no %s" % (uid, key))
    values = variable_values(dashboard)
    seen = {}
    for panel, place in _panels(dashboard):
        title = panel.get("title")
        named = "%s (%s)" % (place, clip(title, 60)) if isinstance(title, TEXT_TYPES) and title.strip() else place
        panel_id = panel.get("id")
        if panel_id is not None:
            key = json.dumps(panel_id, sort_keys=True, default=str)
            if key in seen:
                errors.append("%s: %s has id %s, as %s has" % (uid, named, clip(key, 24), seen[key]))
            else:
                seen[key] = named
        if panel.get("type") == "row":
            continue
        if named == place:
            errors.append("%s: %s has no title" % (uid, place))
        targets = _targets(dashboard, panel, place)
        if not targets:
            errors.append("%s: %s has no target with an expr" % (uid, named))
        for ref, expr in targets:
            if not expr.strip():
                errors.append("%s: %s target %s has an empty expr" % (uid, named, ref))
            unknown = [name for name in variables_used(expr) if name not in values]
            if unknown:
                errors.append("%s: %s target %s uses %s, which the dashboard does not define"
                              % (uid, named, ref, ", ".join("$" + name for name in unknown)))
    return errors


load = guarded(GrafanaError, "dashboard")(load)
variable_values = guarded(GrafanaError, "dashboard variables")(variable_values)
dashboard_queries = guarded(GrafanaError, "dashboard queries")(dashboard_queries)
dashboard_errors = guarded(GrafanaError, "dashboard checks")(dashboard_errors)
