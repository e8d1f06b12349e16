// Turning model text into safe HTML: markdown (marked) -> sanitised (DOMPurify) -> citations
// linked, code highlighted (highlight.js) with a copy button. Raw HTML in the text is shown
// as text. A link keeps its href, and an image can be loaded (on a click, never by itself),
// only when `new URL(...)` of its address, as the browser resolves it, is one of the answer's
// allowed URLs (its sources and `linked_urls`); `https:/x`, `//x` and the like resolve to
// another site and lose their href.
/* global marked, DOMPurify, hljs */

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

export function safeHref(url) {
  try {
    const parsed = new URL(url);
    return ["http:", "https:", "mailto:"].includes(parsed.protocol) ? parsed.href : null;
  } catch (_) {
    return null;
  }
}

/** The set of `urls` as the browser resolves them, for `renderMarkdown`'s `allowed`. */
export function allowedUrls(urls) {
  const allowed = new Set();
  for (const url of urls || []) {
    try {
      allowed.add(new URL(url, document.baseURI).href);
    } catch (_) { /* not a URL: allows nothing */ }
  }
  return allowed;
}

function isAllowed(url, allowed) {
  try {
    return allowed.has(new URL(url, document.baseURI).href);
  } catch (_) {
    return false;
  }
}

let allowedNow = new Set(); // the allowed URLs of the text being sanitised (DOMPurify hooks are global)

export function siteOf(url) {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch (_) {
    return "";
  }
}

const markdown = new marked.Marked({
  gfm: true,
  breaks: false,
  renderer: {
    // raw HTML from the model is text, never markup
    html: ({ text }) => escapeHtml(text),
    // an image becomes a placeholder: nothing is fetched from another site until the user asks
    image: ({ href, text }) =>
      `<span class="image-placeholder" data-src="${escapeHtml(href || "")}" data-alt="${escapeHtml(text || "")}"></span>`,
    checkbox: ({ checked }) => (checked ? "☑ " : "☐ "),
  },
});

const PURIFY = {
  ALLOWED_TAGS: [
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "ul", "ol", "li", "strong", "em",
    "del", "code", "pre", "a", "table", "thead", "tbody", "tr", "th", "td", "span", "sup", "sub",
  ],
  ALLOWED_ATTR: ["href", "title", "class", "data-src", "data-alt", "start", "align"],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i, // also checks data-src: an image placeholder's address
  ADD_URI_SAFE_ATTR: ["data-alt"], // plain text, not an address
  ALLOW_DATA_ATTR: false,
  RETURN_DOM_FRAGMENT: true,
};

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    const href = node.getAttribute("href");
    if (!href || !isAllowed(href, allowedNow)) node.removeAttribute("href");
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
  }
});

function imageButtons(root, allowed) {
  for (const holder of root.querySelectorAll(".image-placeholder")) {
    const address = holder.dataset.src || "";
    const src = isAllowed(address, allowed) ? safeHref(new URL(address, document.baseURI).href) : null;
    const alt = holder.dataset.alt || "image";
    const button = el("button", "load-image", `Image: ${alt}${src ? ` — load image from ${siteOf(src)}` : " (not from a source)"}`);
    button.type = "button";
    button.disabled = !src;
    button.addEventListener("click", () => {
      const image = el("img");
      image.alt = alt;
      image.referrerPolicy = "no-referrer";
      image.src = src;
      button.replaceWith(image);
    });
    holder.replaceWith(button);
  }
}

/** The markdown `text` as a sanitised fragment; links and images only to `allowed` (a Set from
 * `allowedUrls`; while an answer streams it is empty, so nothing is a link until it is checked). */
export function renderMarkdown(text, allowed = new Set()) {
  allowedNow = allowed;
  let fragment;
  try {
    fragment = DOMPurify.sanitize(markdown.parse(text || ""), PURIFY);
  } finally {
    allowedNow = new Set();
  }
  imageButtons(fragment, allowed);
  return fragment;
}

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const scratch = el("textarea");
  scratch.value = text;
  document.body.append(scratch);
  scratch.select();
  document.execCommand("copy");
  scratch.remove();
}

/** Highlight every code block under `root` and give it a copy button. */
export function enhanceCode(root) {
  for (const code of root.querySelectorAll("pre > code")) {
    const pre = code.parentElement;
    if (pre.dataset.enhanced) continue;
    pre.dataset.enhanced = "1";
    const language = [...code.classList].find((c) => c.startsWith("language-"));
    if (!language || hljs.getLanguage(language.slice(9))) hljs.highlightElement(code);
    const button = el("button", "copy", "Copy");
    button.type = "button";
    button.setAttribute("aria-label", "Copy the code");
    button.addEventListener("click", async () => {
      try {
        await copyText(code.textContent);
        button.textContent = "Copied";
      } catch (_) {
        button.textContent = "Copy failed";
      }
      setTimeout(() => { button.textContent = "Copy"; }, 1500);
    });
    pre.classList.add("has-copy"); // room above the code for the button
    pre.append(button);
  }
}

// -- citations ---------------------------------------------------------------------------

const CITE = /\[(\d{1,3})\]/g;
const STATUS_WORDS = {
  verified: "verified: the passage is in the source",
  quote_not_found: "not verified: the quoted passage was not found in the source",
  unknown_source: "not verified: no such source",
  cited: "cited, not quoted: nothing to verify word for word",
  unsupported: "unsupported: the source does not seem to say this",
};

/** What the answer says about citation `number`: its source, and the check of this marker when known
 * (the i-th `[n]` of the text is the i-th check of n in the `done` event's `citations`). */
function citationInfo(number, sources, citations, seen) {
  const source = (sources || []).find((s) => Number(s.number) === number);
  const checks = (citations || []).filter((c) => Number(c.number) === number);
  const found = checks[Math.min(seen, checks.length - 1)] || {};
  const passage = found.passage || source?.passage || "";
  const status = found.status || "";
  return source || status === "unknown_source" ? { source, passage, status, score: found.score } : null;
}

function textNodes(root) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => (node.parentElement.closest("code, pre, a") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  const nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  return nodes;
}

/** Turn `[n]` markers under `root` into links to source n, with a hover/focus card. */
export function linkCitations(root, sources, citations, card) {
  if (!sources?.length && !citations?.length) return;
  const seen = new Map();
  for (const node of textNodes(root)) {
    const text = node.textContent;
    if (!CITE.test(text)) continue;
    CITE.lastIndex = 0;
    const parts = document.createDocumentFragment();
    let last = 0;
    for (const match of text.matchAll(CITE)) {
      const number = Number(match[1]);
      const info = citationInfo(number, sources, citations, seen.get(number) || 0);
      seen.set(number, (seen.get(number) || 0) + 1);
      const href = info?.source && safeHref(info.source.url);
      if (!href && info?.status !== "unknown_source") continue;
      parts.append(text.slice(last, match.index));
      const link = el(href ? "a" : "span", `cite ${info.status ? `cite-${info.status}` : ""}`.trim(), match[0]);
      if (href) {
        link.href = href;
        link.target = "_blank";
        link.rel = "noopener noreferrer nofollow";
      } else {
        link.tabIndex = 0; // no source to open, but the card says why
      }
      link.setAttribute("aria-describedby", card.id);
      link.dataset.number = match[1];
      link.citation = info;
      parts.append(link);
      last = match.index + match[0].length;
    }
    if (last === 0) continue;
    parts.append(text.slice(last));
    node.replaceWith(parts);
  }
}

/** The card that shows a citation's title, site and passage on hover or focus. */
export function citationCard(card) {
  const show = (link) => {
    const { source, passage, status, score } = link.citation;
    card.replaceChildren(
      el("div", "cite-title", source ? source.title || source.url : `Source ${link.dataset.number}`),
      el("div", "cite-site", source ? siteOf(source.url) : ""),
    );
    if (passage) card.append(el("blockquote", "cite-passage", passage));
    if (status) {
      const support = typeof score === "number" && status !== "unknown_source" ? ` · ${Math.round(score * 100)} % of the sentence's words in this passage` : "";
      card.append(el("div", `cite-status cite-${status}`, (STATUS_WORDS[status] || status) + support));
    }
    card.hidden = false;
    const box = link.getBoundingClientRect();
    const width = Math.min(360, window.innerWidth - 16);
    card.style.width = `${width}px`;
    card.style.left = `${Math.max(8, Math.min(box.left, window.innerWidth - width - 8))}px`;
    const below = box.bottom + 6;
    card.style.top = `${below + card.offsetHeight > window.innerHeight ? Math.max(8, box.top - card.offsetHeight - 6) : below}px`;
  };
  const hide = () => { card.hidden = true; };
  const target = (event) => event.target instanceof Element && event.target.closest(".cite");
  document.addEventListener("mouseover", (event) => { const link = target(event); if (link?.citation) show(link); });
  document.addEventListener("mouseout", (event) => { if (target(event)) hide(); });
  document.addEventListener("focusin", (event) => { const link = target(event); if (link?.citation) show(link); else hide(); });
  document.addEventListener("keydown", (event) => { if (event.key === "Escape") hide(); });
  window.addEventListener("scroll", hide, true);
}
