"""How to connect a model, said the same way by `weblens serve`, `weblens chat` and the page.

weblens talks to any OpenAI-compatible chat-completions endpoint; these are the three
most people start from, each as the variables to set.
"""

from __future__ import annotations

from weblens.config import Settings
from weblens.redact import mask_url

__all__ = ["MODEL_RECIPES", "model_status"]

MODEL_RECIPES: tuple[tuple[str, str], ...] = (
    ("OpenAI", "WEBLENS_LLM_BASE_URL=https://api.openai.com/v1 WEBLENS_LLM_MODEL=gpt-4o-mini WEBLENS_LLM_API_KEY=sk-…"),
    ("Ollama", "WEBLENS_LLM_BASE_URL=http://127.0.0.1:11434/v1 WEBLENS_LLM_MODEL=qwen2.5:7b"),
    ("vLLM", "WEBLENS_LLM_BASE_URL=http://127.0.0.1:8000/v1 WEBLENS_LLM_MODEL=<the model vLLM serves>"),
)
"""(name, the variables to set): put them in the environment, `.env` or `[llm]` of weblens.toml."""


def model_status(settings: Settings) -> str | None:
    """ "model gpt-4o-mini at https://…" when chat can work, None when no model is configured."""
    if not settings.llm.base_url or not settings.llm.model:
        return None
    return f"model {settings.llm.model} at {mask_url(settings.llm.base_url)}"
