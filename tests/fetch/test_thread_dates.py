"""A thread's author lines give the day a post was written, not the machine timestamp behind it."""

from __future__ import annotations

from weblens.fetch.extract import extract


def _post(author: str, date: str, body: str) -> str:
    return (
        "<article itemscope itemtype='https://schema.org/Comment'>"
        f"<div itemprop='author' itemscope itemtype='https://schema.org/Person'><span itemprop='name'>{author}</span>"
        f"</div>{date}<div itemprop='text'><p>{body}</p></div></article>"
    )


def test_a_post_timestamp_is_shown_as_its_day_and_a_written_date_as_written() -> None:
    page = (
        "<html><head><title>Kettle scale</title></head><body><h1>Kettle scale</h1>"
        "<div itemscope itemtype='https://schema.org/DiscussionForumPosting'>"
        + _post(
            "old_tom",
            "<time itemprop='datePublished' datetime='2024-01-14T21:50:50-05:00'>3 days ago</time>",
            "White crust builds up in my kettle every week; vinegar shifts it but the taste lingers for days.",
        )
        + _post(
            "grace_h",
            "<meta itemprop='datePublished' content='2024-01-15 08:02:11Z'>",
            "Citric acid does the same job, leaves no taste, and one sachet does three kettles.",
        )
        + _post(
            "ada_keeper",
            "<span itemprop='dateCreated'>Jan 16, 2024, 09:03 AM</span>",
            "A filter jug for the water that goes in keeps the crust from forming at all.",
        )
        + "</div></body></html>"
    )
    content = extract(page.encode(), "text/html").content

    assert "**old_tom** · 2024-01-14\n\nWhite crust builds up" in content
    assert "**grace_h** · 2024-01-15\n\nCitric acid" in content
    assert "21:50" not in content and "08:02" not in content
    assert "**ada_keeper** · Jan 16, 2024, 09:03 AM\n\nA filter jug" in content  # a date written for readers stays
