// Small DOM helpers for the pages' modules. Every text goes in through a text node or
// textContent: markup is only ever the server's sanitized HTML, which a caller inserts itself.

export const byId = (id) => document.getElementById(id);

export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  Object.entries(attrs || {}).forEach(function ([name, value]) {
    if (value === null || value === undefined || value === false) return;
    if (name === "text") node.textContent = value;
    else if (name === "className") node.className = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  });
  children.forEach(function (child) {
    if (child === null || child === undefined) return;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  });
  return node;
}

// Only http(s) addresses become links: a stored URL cannot smuggle in `javascript:`.
export function outLink(href, text) {
  if (!/^https?:\/\//i.test(href || "")) return el("span", { text: text });
  return el("a", { href: href, target: "_blank", rel: "noopener noreferrer", text: text });
}

export function day(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return date.toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

export function plural(count, word) {
  return count + " " + word + (count === 1 ? "" : "s");
}
