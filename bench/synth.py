"""Seeded synthetic memories that look like what agents store: preferences, environment
notes, project facts, relationships, tasks, rules and day-by-day episodes, with varied
lengths and a Zipf-like vocabulary (a few words everywhere, most words rare), so that keyword
search at scale meets realistic posting-list lengths.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

_SYL = (
    "ka ri no ta mel lo ve sa dan ar is el on ba tor min gre fa lu ko zi ber an ro "
    "li sen mar vo ti pa ne hal qu or ym ast ric bel dor fen gil hor jas kel"
).split()

TOOLS = (
    "pytest ruff mypy docker podman kubectl helm terraform ansible poetry uv pip npm "
    "pnpm yarn vite webpack rollup eslint prettier black isort tox nox make cmake ninja "
    "bazel gradle maven cargo rustup go node deno bun redis postgres sqlite mysql kafka "
    "rabbitmq nginx caddy grafana prometheus sentry datadog vim neovim emacs vscode "
    "jetbrains tmux zsh fish git gh jq ripgrep fzf htop"
).split()
LANGS = "python rust go typescript javascript kotlin swift java ruby elixir haskell zig c++".split()
PLACES = (
    "Berlin Lisbon Toronto Osaka Nairobi Austin Oslo Porto Lyon Krakow Seoul Denver "
    "Valencia Tallinn Bristol Munich Dublin Helsinki Zurich Montreal Melbourne"
).split()
TOPICS = (
    "billing webhook login session cache invalidation release pipeline flaky test "
    "database migration index rebuild backup restore onboarding docs api rate limit "
    "search ranking embeddings latency memory leak retry policy feature flag dark mode "
    "accessibility audit logging tracing alerting payment refund invoice export import "
    "schema sync conflict offline mode notifications permissions audit trail"
).split()
VERBS = (
    "fixed broke reviewed shipped reverted refactored documented benchmarked profiled "
    "deployed migrated tested paired on discussed planned postponed debugged"
).split()
ADJ = (
    "slow fast flaky stable noisy quiet urgent minor critical tricky simple verbose "
    "compact legacy shiny brittle robust"
).split()
CATEGORIES = [
    ("fact", 20),
    ("pref", 12),
    ("env", 12),
    ("proj:", 18),
    ("rel:", 6),
    ("task", 10),
    ("tmp", 6),
    ("rule", 6),
    ("episode", 10),
]


class Generator:
    def __init__(self, seed: int = 7, names: int = 4000, projects: int = 300):
        self.r = random.Random(seed)
        r = self.r
        self.names = sorted(
            {"".join(r.choice(_SYL) for _ in range(r.randint(2, 3))).title() for _ in range(names)}
        )
        self.projects = sorted(
            {
                "".join(r.choice(_SYL) for _ in range(2))
                + r.choice(["", "-api", "-web", "-cli", "-core", "-sync"])
                for _ in range(projects)
            }
        )
        # rare words: most of the vocabulary is seen a handful of times
        self.rare = sorted(
            {"".join(r.choice(_SYL) for _ in range(r.randint(3, 4))) for _ in range(50000)}
        )
        for lst in (self.names, self.projects, self.rare):
            r.shuffle(lst)
        self._cats = [c for c, w in CATEGORIES for _ in range(w)]

    def zipf(self, seq):
        # skewed pick: the first items of a (shuffled) list are frequent, the tail is long
        return seq[int(len(seq) * self.r.random() ** 2.5)]

    def fact(self, i: int) -> tuple[str, str, date]:
        r = self.r
        cat = r.choice(self._cats)
        who, other = self.zipf(self.names), self.zipf(self.names)
        proj, tool, tool2 = self.zipf(self.projects), self.zipf(TOOLS), r.choice(TOOLS)
        topic, place, lang = self.zipf(TOPICS), r.choice(PLACES), self.zipf(LANGS)
        day = date(2024, 1, 1) + timedelta(days=r.randint(0, 900))
        n = r.randint(1, 9999)
        if cat == "pref":
            s = r.choice(
                [
                    f"Prefers {tool} over {tool2} for {topic} work",
                    f"Likes answers short; no bullet lists when discussing {topic}",
                    f"Wants {lang} examples with type hints and tests",
                    f"Dislikes {r.choice(ADJ)} CI jobs; keep {proj} builds under {n % 20 + 2} minutes",
                ]
            )
        elif cat == "env":
            s = r.choice(
                [
                    f"{proj} runs {tool} {n % 9}.{n % 13} on a {r.choice(ADJ)} host in {place}",
                    f"Local setup: {tool} + {tool2}, {lang} {n % 4 + 3}.{n % 12}",
                    f"Staging database for {proj} is {tool} on port {5000 + n % 4000}",
                ]
            )
        elif cat == "proj:":
            cat = f"proj:{proj}"
            s = r.choice(
                [
                    f"{proj} {r.choice(VERBS)} the {topic} module; {who} owns follow-up",
                    f"Decision: {proj} moves {topic} to {tool} after the {r.choice(ADJ)} incident #{n}",
                    f"{proj} milestone {n % 40}: {topic} and {self.zipf(TOPICS)} due {day.isoformat()}",
                ]
            )
        elif cat == "rel:":
            cat = f"rel:{who.lower()}"
            s = r.choice(
                [
                    f"{who} is the {r.choice(['manager', 'designer', 'reviewer', 'client', 'sister', 'mentor'])} for {proj}",
                    f"{who} and {other} pair on {topic} every {r.choice(['Monday', 'Tuesday', 'Thursday'])}",
                ]
            )
        elif cat == "task":
            s = f"TODO: {r.choice(VERBS).rstrip('ed')} {topic} in {proj} before {day.isoformat()}"
        elif cat == "tmp":
            s = f"Until {day.isoformat()}: {proj} freeze on {topic}, ask {who} first"
        elif cat == "rule":
            s = r.choice(
                [
                    f"Always run {tool} before committing to {proj}",
                    f"Never push {topic} changes on Fridays",
                    f"Use {tool2} for {lang} formatting in {proj}",
                ]
            )
        elif cat == "episode":
            s = (
                f"{day.isoformat()}: {who} and the agent {r.choice(VERBS)} {topic} in {proj}; "
                f"{r.choice(ADJ)} {tool} run took {n % 300} s"
            )
        else:
            s = r.choice(
                [
                    f"{who} lives in {place} and works on {proj}",
                    f"The {topic} bug in {proj} was caused by {tool} {r.choice(ADJ)} config",
                    f"{who} speaks {lang} and reviews {topic} changes",
                    f"Error {tool.upper()}_{n} means the {topic} step failed",
                ]
            )
        # varied lengths: a long tail of memories with extra detail
        extra = int(r.expovariate(1 / 6))
        if extra:
            s += " — " + " ".join(
                self.zipf(self.rare) if r.random() < 0.5 else r.choice(TOPICS + TOOLS)
                for _ in range(min(extra, 60))
            )
        return s, cat, day

    def query(self) -> str:
        """A search as a user would type it: two to four words of a plausible memory."""
        s, _, _ = self.fact(-1)
        words = [w.strip(";:,.—#") for w in s.split() if len(w) > 3]
        k = min(len(words), self.r.randint(2, 4))
        return " ".join(self.r.sample(words, k)) if words else "release"


def noisy_vectors(index, agent_id: int, ids: list[int], base, rng) -> None:
    """A vector for each of ``ids``: a noisy copy (sigma 0.03, unit length) of one of the real
    embeddings ``base``, upserted 5,000 at a time (embedding 10^5 texts is out of a bench's
    budget; the model's own rate is the throughput bench)."""
    import numpy as np

    for s in range(0, len(ids), 5000):
        part = ids[s : s + 5000]
        v = base[rng.integers(0, len(base), len(part))]
        v = v + rng.normal(0, 0.03, v.shape).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        index.upsert(agent_id, part, [""] * len(part), v)
