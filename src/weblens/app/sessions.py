"""The app's names for saved sessions; the store itself lives in `weblens.store` (owned by the Runtime)."""

from weblens.store.sessions import (
    TITLE_MAX_CHARS,
    MessageStatus,
    SessionInfo,
    SessionStore,
    StorageError,
    StoredMessage,
)

__all__ = ["TITLE_MAX_CHARS", "MessageStatus", "SessionInfo", "SessionStore", "StorageError", "StoredMessage"]
