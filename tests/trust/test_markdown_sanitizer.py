"""Rendered memory is cleaned by nh3 (bleach, deprecated upstream, is no longer a
dependency): the app renders hostile Markdown without bleach installed, byte for byte as
bleach did (EXPECTED is what the bleach version printed for HOSTILE)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

HOSTILE = (
    "# Notes\n<script>alert('x')</script>\n\n![t](https://evil.example/p.png)\n\n"
    "[ok](https://example.com) [bad](javascript:alert(1)) [file](file:///etc/passwd)\n\n"
    "see https://docs.example.org/a_b, and memory.md; `https://not.a.link`\n\n"
    "<img src=x onerror=alert(1)> `a < b` <b onclick=x>hi</b>\n\n"
    "| a | b |\n|:-|-:|\n| 1 | 2 |\n\n```\ncode https://x.example\n```\n"
)
EXPECTED = (
    "<h1>Notes</h1>\n<p>&lt;script&gt;alert('x')&lt;/script&gt;</p>\n<p></p>\n"
    '<p><a href="https://example.com">ok</a> bad file</p>\n'
    '<p>see <a href="https://docs.example.org/a_b">https://docs.example.org/a_b</a>, and '
    "memory.md; <code>https://not.a.link</code></p>\n"
    "<p>&lt;img src=x onerror=alert(1)&gt; <code>a &lt; b</code> "
    "&lt;b onclick=x&gt;hi&lt;/b&gt;</p>\n"
    # (the table's alignment comes as a style attribute, which is not allowed)
    "<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n"
    "</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td>2</td>\n</tr>\n"
    "</tbody>\n</table>\n<pre><code>code https://x.example\n</code></pre>"
)


def test_hostile_markdown_renders_safely_without_bleach(tmp_path):
    code = textwrap.dedent(
        """
        import sys
        sys.modules["bleach"] = None  # not installed: importing it fails
        from ui.markdown_view import render_markdown
        sys.stdout.write(render_markdown(sys.stdin.read()))
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        input=HOSTILE,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"},
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == EXPECTED
