"""Long pages of four kinds, each hiding the answer to one question deep inside.

A forum thread of 40 posts, a documentation page with code blocks, a product page with
specifications, reviews and policies, and a category listing of 60 items: the pages a
model reads with `web_fetch(url, query=...)`. Each `LongPage` names the question a user
would ask, words only the answering passage holds, and the heading that passage sits
under, so tests (and benchmarks) can check what comes back. `PageServer` serves them at
their `path`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LONG_PAGES", "LongPage"]

_TOPICS = (
    ("the garden shed", "cedar boards", "a damp corner", "linseed oil"),
    ("the river path", "loose gravel", "the old footbridge", "spring floods"),
    ("the village bakery", "sourdough starter", "the wood oven", "early mornings"),
    ("the night train", "sleeper cabins", "the border crossing", "a late connection"),
    ("the choir rehearsal", "the second altos", "the church hall", "a borrowed piano"),
    ("the allotment", "runner beans", "the compost heap", "a dry summer"),
    ("the chess club", "the endgame", "the club ladder", "a long tournament"),
    ("the harbour", "fishing boats", "the tide tables", "a winter storm"),
)


def _filler(seed: int, sentences: int = 4) -> str:
    """Plain prose on everyday topics, different for every seed, sharing no words with the answers."""
    out = []
    for i in range(sentences):
        place, thing, spot, time = _TOPICS[(seed + i) % len(_TOPICS)]
        out.append(
            f"Around {place} the talk turned to {thing} near {spot}, and someone remembered "
            f"{time} in year {1950 + (seed * 7 + i) % 70}."
        )
    return " ".join(out)


@dataclass(frozen=True)
class LongPage:
    path: str
    kind: str
    html: str
    question: str
    answer: str
    """Words that appear in the answering passage and nowhere else on the page."""
    heading: str
    """The heading the answering passage sits under."""


def _page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{title}</title></head><body>"
        "<nav><a href='/'>Home</a> <a href='/help'>Help</a></nav>"
        f"<main>{body}</main><footer>© Example Ltd</footer></body></html>"
    )


def _forum() -> LongPage:
    answer = (
        "The fan noise after firmware 4.2 comes from the new thermal curve: open Settings, then Power, "
        "set Cooling profile to Quiet and reboot. The whirring stopped for me and temperatures stayed fine."
    )
    posts = []
    for n in range(40):
        text = answer if n == 27 else _filler(n, 3)
        posts.append(
            f"<div class='msg' id='m{n + 1}'><p><b>member{n}</b> · reply #{n + 1}</p>"
            f"<p>{text}</p><p>{_filler(n + 100, 2)}</p></div>"
        )
    body = "<h1>Laptop makes a loud noise since the last update</h1><div class='thread'>" + "".join(posts) + "</div>"
    return LongPage(
        path="/forum/thread",
        kind="forum",
        html=_page("Laptop makes a loud noise since the last update - Forum", body),
        question="how do I stop the fan noise after the firmware update",
        answer="set Cooling profile to Quiet",
        heading="Laptop makes a loud noise since the last update",
    )


def _docs() -> LongPage:
    sections = []
    for n, name in enumerate(("Installation", "Quick start", "Configuration", "Deployment", "Troubleshooting")):
        subsections = []
        for m, sub in enumerate(("Overview", "Options", "Examples")):
            if name == "Configuration" and sub == "Options":
                text = (
                    "To send every request through a proxy, set the proxy URL in the environment before "
                    "starting the service. Authentication goes in the URL itself."
                )
                code = "export EXAMPLE_HTTP_PROXY=http://user:secret@proxy.internal:3128\nexample serve"
            else:
                text = _filler(n * 10 + m, 4)
                code = f"example {name.lower().replace(' ', '-')} --step {m}\necho done"
            subsections.append(
                f"<h3>{sub}</h3><p>{text}</p><pre><code class='language-sh'>{code}</code></pre>"
                f"<p>{_filler(n * 10 + m + 50, 3)}</p>"
            )
        sections.append(f"<h2>{name}</h2><p>{_filler(n + 200, 3)}</p>" + "".join(subsections))
    body = "<article><h1>Example service documentation</h1>" + "".join(sections) + "</article>"
    return LongPage(
        path="/docs/guide",
        kind="documentation",
        html=_page("Example service documentation", body),
        question="how do I configure a proxy for requests",
        answer="EXAMPLE_HTTP_PROXY=http://user:secret@proxy.internal:3128",
        heading="Options",
    )


def _product() -> LongPage:
    specs = "".join(
        f"<tr><th>{key}</th><td>{value}</td></tr>"
        for key, value in (("Weight", "1.2 kg"), ("Capacity", "28 litres"), ("Fabric", "recycled nylon"),
                           ("Colour", "slate grey"), ("Frame", "aluminium stay"))
    )  # fmt: skip
    reviews = "".join(
        f"<div class='review'><p><b>Reviewer {n}</b> rated it {3 + n % 3} of 5</p><p>{_filler(n + 300, 3)}</p></div>"
        for n in range(25)
    )
    policy = (
        "Unused items can be sent back within 60 days for a full refund; the prepaid label is in the "
        "parcel. Refunds reach your card within five working days of the parcel arriving at our depot."
    )
    body = (
        "<article><h1>Trailhead 28 backpack</h1><p class='price'>£89.00</p>"
        f"<h2>Description</h2><p>{_filler(400, 5)}</p><p>{_filler(401, 5)}</p>"
        f"<h2>Specifications</h2><table>{specs}</table>"
        f"<h2>Customer reviews</h2>{reviews}"
        f"<h2>Delivery and returns</h2><p>{_filler(402, 2)}</p><p>{policy}</p>"
        "</article>"
    )
    return LongPage(
        path="/shop/backpack",
        kind="product",
        html=_page("Trailhead 28 backpack", body),
        question="can I return it and get a refund",
        answer="within 60 days for a full refund",
        heading="Delivery and returns",
    )


def _listing() -> LongPage:
    items = []
    for n in range(60):
        if n == 44:
            name, blurb = "Ridgeline GTX boot", "Waterproof leather hiking boot with a Vibram sole and ankle support."
        else:
            name, blurb = f"Everyday item {n}", _filler(n + 500, 1)
        items.append(f"<li><h3>{name}</h3><p>{blurb}</p><p class='price'>£{20 + n}.00</p></li>")
    body = "<h1>Outdoor footwear and gear</h1><p>60 products</p><ul class='products'>" + "".join(items) + "</ul>"
    return LongPage(
        path="/shop/outdoor",
        kind="listing",
        html=_page("Outdoor footwear and gear", body),
        question="waterproof hiking boots with a vibram sole",
        answer="Waterproof leather hiking boot with a Vibram sole",
        heading="Outdoor footwear and gear",
    )


LONG_PAGES: tuple[LongPage, ...] = (_forum(), _docs(), _product(), _listing())
