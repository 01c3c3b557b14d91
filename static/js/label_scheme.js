// The study's scheme as the labelling page gets it: dimensions, each a tree of categories
// named by their key paths ("memory/leak"), with "" for the top level.

export function schemeDimensions(dimensions) {
  return dimensions.map(function (dimension) {
    const byPath = new Map();
    const children = new Map();
    dimension.categories.forEach(function (category) {
      byPath.set(category.path, category);
      const parent = category.parent || "";
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent).push(category);
    });
    return Object.assign({}, dimension, { byPath: byPath, children: children });
  });
}

export function optionsAt(dim, level) {
  return dim.children.get(level || "") || [];
}

export function hasChildren(dim, category) {
  return optionsAt(dim, category.path).length > 0;
}

export function selectable(dim, category) {
  return !(dim.leafOnly && hasChildren(dim, category));
}

export function nameOf(dim, path) {
  const names = [];
  let category = dim.byPath.get(path);
  while (category) {
    names.unshift(category.name);
    category = category.parent ? dim.byPath.get(category.parent) : null;
  }
  return names.join(" › ") || path;
}

// Number keys reach the first 99 options of a list. Up to 9 options, one digit each; in a
// longer list every option takes two ("01" … "12"), so that no key waits to see whether a
// second one follows: "1" then "2" is always the 12th.
export const MAX_NUMBERED = 99;

export function twoDigits(count) {
  return count > 9;
}

export function optionKey(count, index) {
  if (index >= MAX_NUMBERED) return "";
  return twoDigits(count) ? String(index + 1).padStart(2, "0") : String(index + 1);
}
