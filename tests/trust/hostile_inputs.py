"""Hostile inputs the tests and ``bench limits`` share."""

from __future__ import annotations

# a "billion laughs" YAML frontmatter: nine aliases deep, 9**9 "lol"s if a parser expands it
LAUGHS = (
    "---\n"
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
    )
    + "description: *i\n---\n"
)
