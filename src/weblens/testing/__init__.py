"""Real local HTTP servers that speak upstream protocols, for offline tests.

weblens' own tests use these, and so can yours: start a server, point the matching
base-URL setting at it, and script its answers (including failures).
"""

from weblens.testing.llm import ScriptedCall, ScriptedLLM, Turn
from weblens.testing.providers import FakeBrave, FakeDuckDuckGo, FakeSearxng, FakeSerper, FakeTavily, ProviderFake
from weblens.testing.server import FakeServer, RecordedRequest, Reply, ServedApp

__all__ = [
    "FakeBrave",
    "FakeDuckDuckGo",
    "FakeSearxng",
    "FakeSerper",
    "FakeServer",
    "FakeTavily",
    "ProviderFake",
    "RecordedRequest",
    "Reply",
    "ScriptedCall",
    "ScriptedLLM",
    "ServedApp",
    "Turn",
]
