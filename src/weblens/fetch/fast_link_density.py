"""trafilatura's link-density pruning (`delete_by_link_density`), testing only the elements that hold a link.

Before it reads a candidate subtree, trafilatura's main pass deletes the `div`s, lists, paragraphs,
headings and quotes that are mostly links (menus, "related" boxes). It asks each such element in
turn for every link below it (`link_density_test` starts with `findall(".//ref")`): a walk of the
element's whole subtree, so a page's nested `div`s are walked again at every level. An element with
no link below it is never deleted. `delete_by_link_density` here marks the elements that hold a link
in one pass up from each link, and runs trafilatura's own test on those alone, in the same order,
deleting the same elements after the loop as trafilatura does. The tests took 8 % of weblens'
extraction time on modern pages, most of it on elements that do hold links: the stand-in takes 0.6-0.9 %
off on modern pages and nothing measurable on the 2019 articles, the same markdown on all 590 pages
(bench/stand_ins.py).

Like the other stand-ins it is swapped in (into `trafilatura.main_extractor`, the one caller) only
while the code it was written against is unchanged: the first 32 bits of the SHA-256 of the function
and of the test it runs (`swap.GuardedSwap`). `stock` puts trafilatura's own back for a while.
"""

from __future__ import annotations

from typing import Any

# modules, not their names: a release without those names keeps its own code (the digest differs), never fails here
from trafilatura import htmlprocessing, utils, xml

from weblens.fetch.swap import GuardedSwap

__all__ = ["DIGEST", "delete_by_link_density", "install", "installed", "source_digest", "stock"]

DIGEST = "18eb7005"
_MODULE = "trafilatura.main_extractor"


def _sources() -> list[Any]:
    return [htmlprocessing.delete_by_link_density, htmlprocessing.link_density_test]


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
    for elem in subtree.iter(tagname):
        if elem not in linked:  # trafilatura's test answers (False, False) for an element without a link
            continue
        result, short_with_links = htmlprocessing.link_density_test(elem, favor_precision)
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
