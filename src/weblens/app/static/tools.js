// The tools panel: run search, fetch or weather directly and see exactly what a model would get.
// Useful before a model is connected; the form is built from each tool's input schema.
import { api } from "./api.js";
import { el, safeHref, siteOf } from "./render.js";

function field(name, schema, required) {
  const id = `tool-field-${name}`;
  const wrap = el("div", "field");
  const label = el("label", null, `${name}${required ? "" : " (optional)"}`);
  label.htmlFor = id;
  let input;
  if (Array.isArray(schema.enum)) {
    input = el("select");
    for (const value of schema.enum) input.append(new Option(String(value), String(value)));
  } else if (schema.type === "boolean") {
    input = el("input");
    input.type = "checkbox";
  } else {
    input = el("input");
    input.type = schema.type === "integer" || schema.type === "number" ? "number" : "text";
    if (schema.minimum !== undefined) input.min = schema.minimum;
    if (schema.maximum !== undefined) input.max = schema.maximum;
  }
  input.id = id;
  input.name = name;
  input.required = required;
  if (schema.default !== undefined && schema.default !== null) {
    if (input.type === "checkbox") input.checked = Boolean(schema.default);
    else input.value = String(schema.default);
  }
  if (schema.description) input.title = schema.description;
  if (schema.description && input.type === "text") input.placeholder = schema.description;
  wrap.append(label, input);
  return wrap;
}

function valueOf(input, schema) {
  if (input.type === "checkbox") return input.checked;
  if (input.value === "") return undefined;
  if (schema.type === "integer") return parseInt(input.value, 10);
  if (schema.type === "number") return Number(input.value);
  return input.value;
}

export class ToolPanel {
  constructor({ panel, toggle, form, select, fields, result }) {
    Object.assign(this, { panel, toggle, form, select, fields, result });
    this.tools = [];
    toggle.addEventListener("click", () => this.open(panel.hidden));
    select.addEventListener("change", () => this.showFields());
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.run();
    });
  }

  async load() {
    this.tools = (await api("GET", "/api/tools")).tools;
    this.select.replaceChildren(...this.tools.map((t) => new Option(t.name, t.name)));
    this.toggle.hidden = this.tools.length === 0;
    this.showFields();
  }

  open(show, focus = true) {
    this.panel.hidden = !show;
    this.toggle.setAttribute("aria-expanded", String(show));
    if (show && focus) this.select.focus();
  }

  tool() {
    return this.tools.find((t) => t.name === this.select.value);
  }

  showFields() {
    const tool = this.tool();
    this.fields.replaceChildren();
    if (!tool) return;
    const schema = tool.input_schema || {};
    const required = new Set(schema.required || []);
    const names = Object.keys(schema.properties || {}).sort((a, b) => required.has(b) - required.has(a));
    for (const name of names) this.fields.append(field(name, schema.properties[name], required.has(name)));
    this.fields.append(el("p", "muted", tool.description.split(". ")[0]));
  }

  async run() {
    const tool = this.tool();
    if (!tool) return;
    const properties = tool.input_schema?.properties || {};
    const args = {};
    for (const [name, schema] of Object.entries(properties)) {
      const value = valueOf(this.form.elements[name], schema);
      if (value !== undefined) args[name] = value;
    }
    this.result.replaceChildren(el("p", "muted", `Running ${tool.name}…`));
    const started = performance.now();
    try {
      const result = await api("POST", `/api/tools/${encodeURIComponent(tool.name)}`, { arguments: args });
      this.show(result, performance.now() - started);
    } catch (error) {
      this.result.replaceChildren(el("p", "error", error.message));
    }
  }

  show(result, ms) {
    const head = el("p", result.ok ? "tool-ok" : "error");
    head.textContent = `${result.ok ? "✓" : `✗ ${result.error?.code || "failed"}`} ${result.brief || ""} (${(ms / 1000).toFixed(1)} s)`;
    const text = el("pre", "tool-text");
    text.textContent = result.text; // exactly what a model reads
    const parts = [head, el("p", "muted", "What a model would read:"), text];
    if (result.sources?.length) {
      const list = el("ol", "sources");
      for (const source of result.sources) {
        const href = safeHref(source.url);
        const link = el(href ? "a" : "span", null, source.title || source.url);
        if (href) {
          link.href = href;
          link.target = "_blank";
          link.rel = "noopener noreferrer";
        }
        const item = el("li");
        item.append(link, el("span", "site", siteOf(source.url)));
        list.append(item);
      }
      parts.push(list);
    }
    this.result.replaceChildren(...parts);
    const box = this.result.getBoundingClientRect();
    const view = (this.result.closest("#scroller") || document.documentElement).getBoundingClientRect();
    if (box.top < view.top || box.bottom > view.bottom) this.result.scrollIntoView({ block: "start" });
  }
}
