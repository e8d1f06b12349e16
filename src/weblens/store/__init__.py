"""State backends: what each kind of shared state must do (`base`), in one process (`local`)
or shared by a fleet through Redis (`redis`), and the set a `Runtime` is built with (`backends`)."""

from weblens.store.backends import Backends, backends_for
from weblens.store.base import AnswerRelay, BreakerStore, CacheStore, Flight, SlotStore

__all__ = ["AnswerRelay", "Backends", "BreakerStore", "CacheStore", "Flight", "SlotStore", "backends_for"]
