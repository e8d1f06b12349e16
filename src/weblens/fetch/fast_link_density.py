"""trafilatura's link-density pruning (`delete_by_link_density`), testing only the elements that hold a link.

Before it reads a candidate subtree, trafilatura's main pass deletes the `div`s, lists, paragraphs,
headings and quotes that are mostly links (menus, "related" boxes). It asks each such element in
turn for every link below it (`link_density_test` starts with `findall(".//ref")`): a walk of the
element's whole subtree, so a page's nested `div`s are walked again at every level, and it reads the
text of each of those links again for every element above it (a menu's links once per level).
`delete_by_link_density` here marks the elements that hold a link in one pass up from each link, and
runs trafilatura's test, rewritten to read each link's text once per pass, on those alone, in the same
order, deleting the same elements after the loop as trafilatura does (the tree does not change before
then). The tests took 8 % of weblens' extraction time on modern pages: the stand-in takes 2.3 % off on
modern pages and 0.9 % on the 2019 articles, the same markdown on all 590 pages in both of trafilatura's
modes (bench/stand_ins.py).

Like the other stand-ins it is swapped in (into `trafilatura.main_extractor`, the one caller) only
while the code it was written against is unchanged: the first 32 bits of the SHA-256 of the function,
of the test it rewrites and of the link reader that test calls (`swap.GuardedSwap`). `stock` puts
trafilatura's own back for a while.
"""

from __future__ import annotations

from typing import Any

# modules, not their names: a release without those names keeps its own code (the digest differs), never fails here
from trafilatura import htmlprocessing, utils, xml

from weblens.fetch.swap import GuardedSwap

__all__ = ["DIGEST", "delete_by_link_density", "install", "installed", "source_digest", "stock"]

DIGEST = "08e0b9b7"
_MODULE = "trafilatura.main_extractor"


def _sources() -> list[Any]:
    return [htmlprocessing.delete_by_link_density, htmlprocessing.link_density_test, htmlprocessing.collect_link_info]


def _link_density_test(element: Any, favor_precision: bool, link_texts: dict[Any, str]) -> tuple[bool, bool]:
    """trafilatura's `link_density_test`, each link's trimmed text read once per pass (`link_texts`): trafilatura
    reads every link below an element again for each element above it, a menu's links once per level."""
    links = element.findall(".//ref")
    if not links:
        return False, False
    if element.find(".//graphic") is not None:  # an image's container is kept
        return False, False
    text = utils.trim(element.text_content())
    if len(links) == 1:
        len_threshold = 10 if favor_precision else 100
        link_text = _link_text(links[0], link_texts)
        if len(link_text) > len_threshold and len(link_text) > len(text) * 0.9:
            return True, False
    if element.tag == "p":
        limitlen = 60 if element.getnext() is None else 30
    elif element.getnext() is None:
        limitlen = 300
    else:
        limitlen = 100
    elemlen = len(text)
    if elemlen < limitlen:
        linklen, elemnum, shortelems = _link_info(links, link_texts)
        if elemnum == 0:
            return True, False
        return linklen > elemlen * 0.8 or (elemnum > 1 and shortelems / elemnum > 0.8), True
    if len(links) > 4:
        linklen, elemnum, _ = _link_info(links, link_texts)
        if (
            linklen > len(text) * utils.LINK_FARM_RATIO
            and linklen < 100 * elemnum
            and not htmlprocessing.is_paragraph_listing(links)
        ):
            return True, False
    return False, False


def _link_text(link: Any, link_texts: dict[Any, str]) -> str:
    text = link_texts.get(link)
    if text is None:
        text = link_texts[link] = utils.trim(link.text_content())
    return text


def _link_info(links: list[Any], link_texts: dict[Any, str]) -> tuple[int, int, int]:
    """trafilatura's `collect_link_info` from the texts read once: (their length, how many are not empty, how many
    of those are under 10 characters)."""
    lengths = [length for link in links if (length := len(_link_text(link, link_texts)))]
    return sum(lengths), len(lengths), sum(1 for length in lengths if length < 10)


def delete_by_link_density(
    subtree: Any, tagname: str, backtracking: bool = False, favor_precision: bool = False
) -> Any:
    """trafilatura's `delete_by_link_density`, asking only the `tagname` elements that hold a link."""
    linked: set[Any] = set()
    for link in subtree.iter("ref"):
        for holder in link.iterancestors(tagname):
            if holder in linked:  # and so is every holder above it, marked when it was
                break
            linked.add(holder)
    deletions = []
    len_threshold = 200 if favor_precision else 100
    depth_threshold = 1 if favor_precision else 3
    link_texts: dict[Any, str] = {}  # the tree does not change before the loop ends
    for elem in subtree.iter(tagname):
        if elem not in linked:  # trafilatura's test answers (False, False) for an element without a link
            continue
        result, short_with_links = _link_density_test(elem, favor_precision, link_texts)
        if result or (
            backtracking
            and short_with_links
            and len(elem) >= depth_threshold
            and len(utils.trim(elem.text_content())) < len_threshold
        ):
            parent = elem.getparent()
            if tagname == "p" and parent is not None and parent.tag in ("item", "td", "th"):
                continue
            deletions.append(elem)
    for elem in dict.fromkeys(deletions):
        xml.delete_element(elem)
    return subtree


_SWAP = GuardedSwap(_MODULE, {"delete_by_link_density": lambda: delete_by_link_density}, _sources, DIGEST)
install, installed, stock, source_digest = _SWAP.install, _SWAP.installed, _SWAP.stock, _SWAP.source_digest
