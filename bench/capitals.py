"""What ``samples/capitals.txt`` says: each country's capital, the answer an agent must give.

Shared by bench_concurrency and tests/integration/test_agent_concurrent, which both check
every answer against the question it was asked for.
"""

from __future__ import annotations

CAPITALS = {
    "France": "Paris",
    "Germany": "Berlin",
    "Spain": "Madrid",
    "Italy": "Rome",
    "Portugal": "Lisbon",
    "Austria": "Vienna",
    "Poland": "Warsaw",
    "Greece": "Athens",
}
