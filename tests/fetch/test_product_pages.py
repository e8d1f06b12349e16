"""Product pages: when the main-content pass keeps one block of a shop page (its reviews, its spec table), the
reader still gets the product's description."""

from __future__ import annotations

from weblens.fetch.extract import extract

_FEATURES = (
    ("Warm in the wind", "The shell is a three-layer fabric that stops the wind on a ridge and lets the heat of a "
     "climb out through the back."),
    ("Dry in the rain", "Taped seams and a hood that turns with your head keep a day of steady rain out of the collar "
     "and the cuffs."),
    ("Packs small", "The whole jacket folds into its own chest pocket, the size of a water bottle, and weighs under "
     "four hundred grams."),
    ("Made to mend", "Every panel is sewn, not glued, so a tear on a branch can be patched at home or by our repair "
     "service for free."),
    ("Room to move", "Cut long in the back and the arms, so nothing rides up when you reach for a hold or lift a pack "
     "onto one shoulder."),
    ("Seen at dusk", "Reflective tabs on the cuffs and the hood catch a car's lights on the lane back from the hill "
     "after dark."),
)  # fmt: skip
_REVIEWS = (
    "I wore this jacket on a week of walking in the hills, in rain most days and wind on every top, and came home "
    "dry each evening.",
    "The hood stays put in a gale, the pockets take a folded map, and it packs down into a corner of my rucksack "
    "when the sun comes out.",
    "After two winters of use the seams are still sealed and the zip runs as smoothly as it did on the first day I "
    "took it out.",
)
_PRODUCT = '<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product"}</script>'


def _shop_page(head: str) -> bytes:
    cards = "".join(
        f"<div class='feature'><h3>{name}</h3><p>{text}</p><a href='/f{i}'>Learn more</a></div>"
        for i, (name, text) in enumerate(_FEATURES)
    )
    reviews = "".join(f"<p>{review}</p>" for review in _REVIEWS)
    return (
        f"<html><head><title>Ridge jacket</title>{head}</head><body>"
        "<header><nav><a href='/'>Home</a> <a href='/men'>Men</a> <a href='/cart'>Cart</a></nav></header>"
        "<main><div class='buy'><h1>Ridge jacket</h1><p>£180.00</p><button>Add to cart</button></div>"
        f"<section class='features'><h2>Built for a day on the hill</h2>{cards}</section>"
        f"<section class='reviews post-content'><h2>What walkers say</h2>{reviews}</section>"
        "</main><footer><p>Hill Kit Ltd, 2 Mill Lane</p></footer></body></html>"
    ).encode()


def test_a_product_page_keeps_its_description_beside_the_block_the_pass_chose() -> None:
    # trafilatura keeps only the reviews (a `post-content` box): the features are what the product is
    found = extract(_shop_page(_PRODUCT), "text/html")

    content = found.content
    assert found.extractor == "sections"
    assert found.title == "Ridge jacket" and not content.startswith("# Ridge jacket")  # the title, not repeated
    order = ["## Built for a day on the hill", "### Warm in the wind", _FEATURES[0][1],
             "### Seen at dusk", _FEATURES[5][1], "## What walkers say", _REVIEWS[0], _REVIEWS[2]]  # fmt: skip
    positions = [content.index(text) for text in order]
    assert positions == sorted(positions)
    assert content.count(_REVIEWS[1]) == 1
    for left_out in ("Learn more", "Add to cart", "Home", "Hill Kit Ltd"):
        assert left_out not in content


def test_a_page_declaring_an_article_keeps_the_passs_output() -> None:
    article = '<meta property="og:type" content="article">'
    found = extract(_shop_page(article), "text/html")

    assert found.extractor == "trafilatura"
    assert _REVIEWS[0] in found.content
    assert _FEATURES[0][1] not in found.content
