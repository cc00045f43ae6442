"""Real-looking pairs for contradiction-aware dedup: (stored fact, new statement, expected).

expected: ``merge`` (the same statement again: paraphrases and restatements), ``supersede``
(a correction of it: negation, numbers, versions, dates, IPs/ports, names, units). The pairs
are data, in dedup_pairs.json beside this file.
"""

import json
from pathlib import Path

_BY_OUTCOME = json.loads(Path(__file__).with_suffix(".json").read_text(encoding="utf-8"))
PAIRS = [(old, new, outcome) for outcome, pairs in _BY_OUTCOME.items() for old, new in pairs]
