#!/usr/bin/env node
// Fails when folders import each other in a circle. dependency-cruiser's `circular` rule works on modules, so a
// circle that passes through several modules of several folders (store → queue → park → store) slips past it;
// this collapses its module graph to folders and looks for strongly connected components (Tarjan).
import { cruise } from "dependency-cruiser";

const ROOTS = ["src", "channels", "forms", "web"];
const result = await cruise(ROOTS, {
  doNotFollow: { path: "node_modules" },
  tsPreCompilationDeps: true,
  tsConfig: { fileName: "tsconfig.json" },
  exclude: { path: "node_modules" },
});

/**
 * A module's room: src/<room>/… and channels/<channel>/… with their subfolders; a root's own top-level files share
 * the root's room (channels/contract.ts is "channels"), except src/'s, which are each their own (config.ts, the
 * composition root).
 */
function folderOf(source) {
  const parts = source.split("/");
  if (parts.length > 2) return parts.slice(0, 2).join("/");
  return parts[0] === "src" ? source : parts[0];
}

const edges = new Map();
for (const mod of result.output.modules) {
  if (!ROOTS.some((root) => mod.source.startsWith(`${root}/`))) continue;
  const from = folderOf(mod.source);
  if (!edges.has(from)) edges.set(from, new Map());
  for (const dep of mod.dependencies) {
    if (!ROOTS.some((root) => dep.resolved.startsWith(`${root}/`))) continue;
    const to = folderOf(dep.resolved);
    if (to === from) continue;
    if (!edges.get(from).has(to)) edges.get(from).set(to, `${mod.source} → ${dep.resolved}`);
  }
}

let index = 0;
const stack = [];
const state = new Map();
const circles = [];
function visit(node) {
  state.set(node, { index, low: index, onStack: true });
  index += 1;
  stack.push(node);
  for (const next of edges.get(node)?.keys() ?? []) {
    if (!state.has(next)) {
      visit(next);
      state.get(node).low = Math.min(state.get(node).low, state.get(next).low);
    } else if (state.get(next).onStack) {
      state.get(node).low = Math.min(state.get(node).low, state.get(next).index);
    }
  }
  if (state.get(node).low === state.get(node).index) {
    const members = [];
    let member;
    do {
      member = stack.pop();
      state.get(member).onStack = false;
      members.push(member);
    } while (member !== node);
    if (members.length > 1) circles.push(members.sort());
  }
}
for (const node of edges.keys()) if (!state.has(node)) visit(node);

if (circles.length === 0) {
  console.log(`folder-cycles: no circle among ${edges.size} folders`);
  process.exit(0);
}
for (const members of circles) {
  console.error(`folder-cycles: these folders import each other in a circle: ${members.join(", ")}`);
  for (const from of members) {
    for (const [to, example] of edges.get(from) ?? []) {
      if (members.includes(to)) console.error(`  ${from} → ${to}  (e.g. ${example})`);
    }
  }
}
process.exit(1);
