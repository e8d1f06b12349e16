"""`weblens extract URL --schema file.json` as a script runs it: data on stdout, notes on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from weblens.testing.extract_pages import PRODUCT_SCHEMA, product_page, products

from .conftest import Site


def weblens(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WEBLENS_LLM_")}
    return subprocess.run([sys.executable, "-m", "weblens", *args], env={**clean, **env}, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)  # fmt: skip


async def test_extract_command(site: Site, tmp_path: Path) -> None:
    good = site.page("/p", product_page(products(2)[1], "disagreeing"))
    schema = tmp_path / "product.json"
    schema.write_text(json.dumps(PRODUCT_SCHEMA))
    env = {"WEBLENS_FETCH_ALLOWED_HOSTS": f"127.0.0.1:{site.server.port}", "WEBLENS_DATA_DIR": str(tmp_path),
           "WEBLENS_CACHE_ENABLED": "false"}  # fmt: skip
    done = weblens("extract", good, "--schema", str(schema), env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["sku"] == "SKU-4101"
    assert "price: the json-ld markup says 1309" in done.stderr
    assert "WEBLENS_LLM_BASE_URL" in done.stderr
    strict = weblens("extract", good, "--schema", str(schema), "--strict", "--json", env=env)
    envelope = json.loads(strict.stdout)
    assert envelope["data"]["results"][0]["fields"]["price"]["value"] is None
    schema.write_text("{not json")
    bad = weblens("extract", good, "--schema", str(schema), env=env)
    assert bad.returncode == 2 and "validation_error: the schema file" in bad.stderr


TIED = """<html><head><script type="application/ld+json">[{"@type": "Store", "name": "Harbour Store"},
{"@type": "Brand", "name": "Nordic Kettles"}, {"@type": "Person", "name": "Ada Byron"},
{"@type": "Place", "name": "Old Harbour"}, {"@type": "Event", "name": "Spring Sale"},
{"@type": "Offer", "name": "Kettle deal"}]</script></head><body><p>Harbour Store, Nordic Kettles, Ada Byron,
Old Harbour, Spring Sale, Kettle deal.</p></body></html>"""


async def test_items_answering_alike_give_the_same_answer_every_run(site: Site, tmp_path: Path) -> None:
    url = site.page("/tied", TIED)
    schema = tmp_path / "name.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"name": {"type": "string"}}}))
    env = {"WEBLENS_FETCH_ALLOWED_HOSTS": f"127.0.0.1:{site.server.port}", "WEBLENS_DATA_DIR": str(tmp_path),
           "WEBLENS_CACHE_ENABLED": "false"}  # fmt: skip
    names = {json.loads(weblens("extract", url, "--schema", str(schema), env={**env, "PYTHONHASHSEED": seed}).stdout)
             ["name"] for seed in ("1", "2", "3", "4")}  # fmt: skip
    assert names == {"Harbour Store"}  # the first item the page declares
