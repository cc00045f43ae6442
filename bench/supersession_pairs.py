"""Labelled pairs for supersession: (stored fact, new statement, expected outcome).

expected: ``merge`` (the same statement again), ``supersede`` (a newer value for the same
subject), ``conflict`` (the same subject, opposite words: a person decides), ``keep`` (a
different subject: both stay, untouched). The shapes come from issue #27: different people,
pets and relatives, numbered items (tickets, repos, servers), organisations of an MCP memory
graph, and antonyms an embedding reads as the same sentence.
"""

from __future__ import annotations

PEOPLE = [("Alice", "Bob"), ("Carol", "Dave"), ("Priya", "Marco"), ("Chen", "Fatima")]

# the same attribute of two different people: both facts stay
_KEEP_PEOPLE = [
    ("{a} works at Google", "{b} works at Meta"),
    ("{a} lives in Paris", "{b} lives in Lyon"),
    ("{a}'s timezone is Europe/Paris", "{b}'s timezone is America/New_York"),
    ("{a}'s favourite language is Rust", "{b}'s favourite language is Go"),
    ("{a} is based in Berlin", "{b} is based in Madrid"),
    ("{a} uses vim as the main editor", "{b} uses emacs as the main editor"),
    ("{a} prefers pnpm over npm", "{b} prefers yarn over npm"),
    ("{a} owns the billing service", "{b} owns the billing service"),
    ("{a} is allergic to peanuts", "{b} is allergic to shellfish"),
    ("{a}'s phone number ends in 42", "{b}'s phone number ends in 17"),
    ("{a} moved to Toronto in 2023", "{b} moved to Sydney in 2024"),
    ("{a}'s manager is Dana", "{b}'s manager is Eli"),
    ("{a} speaks German at work", "{b} speaks Spanish at work"),
]

_KEEP_FIXED = [
    ("My dog's name is Rex", "My cat's name is Tom"),
    ("User's mother lives in Paris", "User's father lives in Lyon"),
    ("My sister works at IBM", "My brother works at SAP"),
    ("My wife's birthday is May 3", "My son's birthday is June 9"),
    ("User's manager is Dana", "User's mentor is Eli"),
    ("My daughter's school is Lincoln Elementary", "My son's school is Oak Ridge Middle"),
    ("My landlord's name is Mr Fischer", "My neighbour's name is Mrs Ortega"),
    ("My father's timezone is Asia/Tokyo", "My mother's timezone is Europe/Lisbon"),
    ("My dog is allergic to chicken", "My cat is allergic to fish"),
    ("User's brother lives in Oslo", "User's sister lives in Bergen"),
    ("Ticket ENG-101 is blocked", "ENG-102 is blocked"),
    ("Ticket ENG-101 is blocked", "Ticket ENG-102 is blocked"),
    ("Ticket OPS-7 is assigned to Ana", "Ticket OPS-8 is assigned to Ben"),
    ("Repo A uses Node 18", "Repo B uses Node 20"),
    ("Repo A uses Python 3.11", "Repo B uses Python 3.12"),
    ("Server web-1 runs Ubuntu 22.04", "Server web-2 runs Ubuntu 24.04"),
    ("Project Apollo uses PostgreSQL 15", "Project Zeus uses PostgreSQL 16"),
    ("The billing service listens on port 8080", "The search service listens on port 9200"),
    ("Issue #12 is assigned to Ana", "Issue #13 is assigned to Ben"),
    ("Acme Corp is headquartered in Oslo", "Globex is headquartered in Rome"),
    ("The staging cluster has 12 nodes", "The production cluster has 40 nodes"),
    ("Frontend repo uses React 18", "Backend repo uses Django 5"),
    ("Worker 3 processes the EU queue", "Worker 4 processes the US queue"),
    ("Client Initech pays in EUR", "Client Umbrella pays in USD"),
    ("Team Red deploys on Mondays", "Team Blue deploys on Thursdays"),
]

_KEEP_ORGS = [
    (f"Org{n}: is based in city {n}", f"Org{n + 1}: is based in city {n + 1}") for n in range(10)
] + [(f"Org{n} is based in city {n}", f"Org{n + 1} is based in city {n + 1}") for n in range(10)]

# a newer value of the same subject: the old fact is superseded (with a note saying so)
_SUPERSEDE_PEOPLE = [
    ("{a} works at Google", "{a} works at Meta"),
    ("{a} lives in Paris", "{a} moved to Lyon"),
    ("{a}'s timezone is Europe/Paris", "{a}'s timezone is America/New_York"),
    ("{a}'s favourite language is Rust", "{a}'s favourite language is Go"),
]

_SUPERSEDE_FIXED = [
    ("I live in Berlin", "I moved to Munich"),
    ("User lives in Paris", "User moved to Lyon"),
    ("My timezone is CET", "My timezone is PST"),
    ("User works at Google", "User works at Meta"),
    ("My dog's name is Rex", "My dog's name is Max"),
    ("User's mother lives in Paris", "User's mother lives in Nice"),
    ("Repo A uses Node 18", "Repo A uses Node 20"),
    ("Ticket ENG-101 is assigned to Ana", "Ticket ENG-101 is assigned to Ben"),
    ("Server web-1 runs Ubuntu 22.04", "Server web-1 runs Ubuntu 24.04"),
    ("Org5 is based in Lisbon", "Org5 is based in Porto"),
    ("User is allergic to peanuts", "User is not allergic to peanuts"),
    ("Server IP is 10.0.0.5", "Server IP is 10.0.0.6"),
    ("API server listens on port 8080", "API server listens on port 8081"),
    ("The project uses Python 3.11", "The project uses Python 3.12"),
    ("The project uses PostgreSQL 15 for storage", "The project uses PostgreSQL 16 for storage"),
    ("Release is planned for 2025-03-01", "Release is planned for 2025-04-01"),
    ("Backups run nightly at 02:00 UTC", "Backups run nightly at 03:00 UTC"),
    ("Request timeout is 30 seconds", "Request timeout is 30 minutes"),
    ("Disk quota per user is 10 GB", "Disk quota per user is 10 MB"),
    ("The billing service is owned by Alice", "The billing service is owned by Bob"),
    ("The build uses Node 18", "The build uses Node 20"),
    ("Redis runs at 192.168.1.20:6379", "Redis runs at 192.168.1.21:6379"),
    ("Max upload size is 25 MB", "Max upload size is 50 MB"),
    ("The team standup is at 9:30", "The team standup is at 10:30"),
    ("User uses vim as the main editor", "User no longer uses vim as the main editor"),
    ("The service is deployed to eu-west-1", "The service is deployed to eu-west-2"),
    ("The on-call engineer this week is Priya", "The on-call engineer this week is Marco"),
    ("Feature flag new_checkout is enabled", "Feature flag new_checkout is not enabled"),
    ("Docker image tag is v1.4.2", "Docker image tag is v1.4.3"),
    ("The retry limit is 3 attempts", "The retry limit is 5 attempts"),
    ("The user can read Japanese", "The user cannot read Japanese"),
    ("The cluster has 12 nodes", "The cluster has 16 nodes"),
    ("Contract renewal date is 2024-11-30", "Contract renewal date is 2025-11-30"),
]

# the same statement again: merged
_MERGE_PEOPLE = [
    ("{a} works at Google", "{a} works at Google."),
    ("{a} lives in Paris", "{a} lives in Paris!"),
    ("{a}'s timezone is Europe/Paris", "{a}'s timezone is Europe/Paris."),
    ("{a} prefers pnpm over npm", "{a} prefers pnpm over npm."),
]

_MERGE_FIXED = [
    ("User prefers dark mode in the editor", "The user prefers dark mode in the editor."),
    ("User prefers pnpm over npm", "The user prefers pnpm over npm."),
    ("The project uses PostgreSQL 15 for storage", "the project uses PostgreSQL 15 for storage"),
    ("Deploys go through GitHub Actions", "Deploys go through GitHub Actions."),
    ("User's favourite language is Rust", "The user's favourite language is Rust"),
    ("API server listens on port 8080", "The API server listens on port 8080"),
    ("Tests are run with pytest -q", "Tests are run with pytest -q."),
    ("User is allergic to peanuts", "The user is allergic to peanuts"),
    ("The staging database is at 10.0.0.5", "The staging database is at 10.0.0.5."),
    ("Backups run nightly at 02:00 UTC", "Backups run nightly at 02:00 UTC."),
    ("User does not like emoji in code comments", "The user does not like emoji in code comments"),
    ("Python version for the service is 3.11", "The Python version for the service is 3.11"),
    ("Logs are shipped to Loki", "Logs are shipped to Loki."),
    ("User's timezone is Europe/Paris", "The user's timezone is Europe/Paris"),
    ("My dog's name is Rex", "My dog's name is Rex."),
    ("Ticket ENG-101 is blocked", "Ticket ENG-101 is blocked."),
    ("Repo A uses Node 18", "Repo A uses Node 18."),
    ("I live in Berlin", "I live in Berlin."),
]

# the same subject, opposite words: both kept, the new one waits in the review inbox
_CONFLICT_PEOPLE = [
    ("{a} likes cilantro", "{a} dislikes cilantro"),
    ("{a} always writes tests first", "{a} never writes tests first"),
    ("{a} loves long meetings", "{a} hates long meetings"),
]

_CONFLICT_FIXED = [
    ("User likes cilantro", "User dislikes cilantro"),
    ("User always uses tabs for indentation", "User never uses tabs for indentation"),
    ("Force pushes are allowed on main", "Force pushes are forbidden on main"),
    ("Telemetry is enabled in staging", "Telemetry is disabled in staging"),
    ("Dark mode is on in the editor", "Dark mode is off in the editor"),
    ("Code review is required for hotfixes", "Code review is optional for hotfixes"),
    ("The user likes spicy food", "The user dislikes spicy food"),
    ("User always replies in English", "User never replies in English"),
    ("Emoji are allowed in commit messages", "Emoji are forbidden in commit messages"),
    ("The docs site is public", "The docs site is private"),
    ("Type hints are required in new modules", "Type hints are optional in new modules"),
    (
        "Vendored files are included in the lint run",
        "Vendored files are excluded from the lint run",
    ),
    ("User loves pair programming", "User hates pair programming"),
    ("Auto-save is enabled in the editor", "Auto-save is disabled in the editor"),
    (
        "User always runs the linter before committing",
        "User never runs the linter before committing",
    ),
]


def _people(templates):
    return [(o.format(a=a, b=b), n.format(a=a, b=b)) for a, b in PEOPLE for o, n in templates]


def pairs() -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    for label, rows in (
        ("keep", _people(_KEEP_PEOPLE) + _KEEP_FIXED + _KEEP_ORGS),
        ("supersede", _people(_SUPERSEDE_PEOPLE) + _SUPERSEDE_FIXED),
        ("merge", _people(_MERGE_PEOPLE) + _MERGE_FIXED),
        ("conflict", _people(_CONFLICT_PEOPLE) + _CONFLICT_FIXED),
    ):
        out += [(old, new, label) for old, new in rows]
    return out


PAIRS = pairs()
