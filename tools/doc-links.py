# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every relative link of the Markdown documentation points at a file that exists (and an anchor it has).

    python3 tools/doc-links.py            # README.md, CHANGELOG.md, docs/, roles/*/README.md, bench/reference/
    python3 tools/doc-links.py FILE...    # those files only

Links to web addresses are not followed. An anchor (``file.md#part``) must be
an ``<a id="part">`` of the target or the GitHub slug of one of its headings.
Exit 1 with one line per broken link.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT = ["README.md", "CHANGELOG.md", "docs/*.md", "roles/*/README.md", "bench/reference/README.md"]
_LINK = re.compile(r"(?<!\!)\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(([^()\s]+)\)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE = re.compile(r"(`+)(?:(?!\1).)+\1")


def _text_lines(path):
    """The lines of a Markdown file outside fenced code blocks, code spans blanked."""
    inside = False
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if _FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            yield number, _CODE.sub("", line)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    found = set()
    seen = {}
    inside = False
    for line in path.read_text(encoding="utf-8").split("\n"):
        if _FENCE.match(line):
            inside = not inside
            continue
        if inside:
            continue
        found.update(re.findall(r'<a id="([^"]+)"', line))
        match = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken(path):
    out = []
    for number, line in _text_lines(path):
        for target in _LINK.findall(line):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue
            name, anchor = target.split("#", 1) if "#" in target else (target, "")
            dest = (path.parent / name).resolve() if name else path
            where = f"{path.relative_to(ROOT)}:{number}: {target}"
            if not dest.exists():
                out.append(f"{where}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                out.append(f"{where}: no anchor #{anchor} in {dest.relative_to(ROOT)}")
    return out


def main(argv):
    paths = [ROOT / arg for arg in argv] if argv else sorted(p for pattern in DEFAULT for p in ROOT.glob(pattern))
    problems = [problem for path in paths for problem in broken(path.resolve())]
    for problem in problems:
        print(problem)
    print(f"doc-links: {len(paths)} files, {len(problems)} broken links", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
