"""Real-looking pairs for contradiction-aware dedup: (stored fact, new statement, expected).

expected: ``merge`` (the same statement again), ``supersede`` (a correction of it).
"""

PAIRS = [
    # paraphrases and restatements: must merge
    ("User prefers dark mode in the editor", "The user prefers dark mode in the editor.", "merge"),
    ("User prefers pnpm over npm", "The user prefers pnpm over npm.", "merge"),
    (
        "The project uses PostgreSQL 15 for storage",
        "the project uses PostgreSQL 15 for storage",
        "merge",
    ),
    ("Deploys go through GitHub Actions", "Deploys go through GitHub Actions.", "merge"),
    ("User's favourite language is Rust", "The user's favourite language is Rust", "merge"),
    ("API server listens on port 8080", "The API server listens on port 8080", "merge"),
    ("Tests are run with pytest -q", "Tests are run with pytest -q.", "merge"),
    ("User is allergic to peanuts", "The user is allergic to peanuts", "merge"),
    ("The staging database is at 10.0.0.5", "The staging database is at 10.0.0.5.", "merge"),
    ("User works in the Berlin office", "The user works in the Berlin office", "merge"),
    (
        "Main branch is protected; merges need two approvals",
        "The main branch is protected; merges need two approvals",
        "merge",
    ),
    (
        "User prefers tabs over spaces in Go code",
        "User prefers tabs over spaces in Go code!",
        "merge",
    ),
    ("Frontend is built with React and Vite", "The frontend is built with React and Vite", "merge"),
    ("Backups run nightly at 02:00 UTC", "Backups run nightly at 02:00 UTC.", "merge"),
    (
        "User wants commit messages in the imperative mood",
        "The user wants commit messages in the imperative mood",
        "merge",
    ),
    (
        "The CI cache key includes the lockfile hash",
        "The CI cache key includes the lock file hash",
        "merge",
    ),
    (
        "User does not like emoji in code comments",
        "The user does not like emoji in code comments",
        "merge",
    ),
    (
        "Python version for the service is 3.11",
        "The Python version for the service is 3.11",
        "merge",
    ),
    ("Logs are shipped to Loki", "Logs are shipped to Loki.", "merge"),
    ("User's timezone is Europe/Paris", "The user's timezone is Europe/Paris", "merge"),
    ("Use ruff for linting", "Use ruff for linting.", "merge"),
    # corrections: must supersede (negation, numbers, versions, dates, IPs/ports, names, units)
    ("User is allergic to peanuts", "User is not allergic to peanuts", "supersede"),
    ("Server IP is 10.0.0.5", "Server IP is 10.0.0.6", "supersede"),
    ("API server listens on port 8080", "API server listens on port 8081", "supersede"),
    ("The project uses Python 3.11", "The project uses Python 3.12", "supersede"),
    (
        "The project uses PostgreSQL 15 for storage",
        "The project uses PostgreSQL 16 for storage",
        "supersede",
    ),
    ("Release is planned for 2025-03-01", "Release is planned for 2025-04-01", "supersede"),
    ("Backups run nightly at 02:00 UTC", "Backups run nightly at 03:00 UTC", "supersede"),
    ("Request timeout is 30 seconds", "Request timeout is 30 minutes", "supersede"),
    ("Disk quota per user is 10 GB", "Disk quota per user is 10 MB", "supersede"),
    ("The billing service is owned by Alice", "The billing service is owned by Bob", "supersede"),
    (
        "User prefers dark mode in the editor",
        "User does not prefer dark mode in the editor",
        "supersede",
    ),
    ("The build uses Node 18", "The build uses Node 20", "supersede"),
    ("Redis runs at 192.168.1.20:6379", "Redis runs at 192.168.1.21:6379", "supersede"),
    ("Max upload size is 25 MB", "Max upload size is 50 MB", "supersede"),
    ("The team standup is at 9:30", "The team standup is at 10:30", "supersede"),
    ("User uses vim as the main editor", "User no longer uses vim as the main editor", "supersede"),
    ("The service is deployed to eu-west-1", "The service is deployed to eu-west-2", "supersede"),
    (
        "The on-call engineer this week is Priya",
        "The on-call engineer this week is Marco",
        "supersede",
    ),
    (
        "Feature flag new_checkout is enabled",
        "Feature flag new_checkout is not enabled",
        "supersede",
    ),
    ("Docker image tag is v1.4.2", "Docker image tag is v1.4.3", "supersede"),
    ("The retry limit is 3 attempts", "The retry limit is 5 attempts", "supersede"),
    ("The user can read Japanese", "The user cannot read Japanese", "supersede"),
    ("The cluster has 12 nodes", "The cluster has 16 nodes", "supersede"),
    ("Contract renewal date is 2024-11-30", "Contract renewal date is 2025-11-30", "supersede"),
]
