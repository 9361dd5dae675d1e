#!/usr/bin/env node
// Counts source lines over 140 characters; fails above the allowance (a long URL or a platform's sample payload may
// need one, a habit may not).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const LIMIT = 140;
const ALLOWANCE = 20;
const ROOTS = ["src", "channels", "forms", "web", "bench", "test", "tools", "packages"];
const EXTENSIONS = /\.(ts|mts|mjs|cjs|js|lua|css|html)$/;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (EXTENSIONS.test(name)) yield path;
  }
}

const long = [];
for (const root of ROOTS) {
  for (const file of files(root)) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (line.length > LIMIT) long.push(`${file}:${i + 1} (${line.length})`);
      });
  }
}
if (long.length > ALLOWANCE) {
  console.error(`long-lines: ${long.length} lines over ${LIMIT} characters (at most ${ALLOWANCE}):`);
  for (const line of long) console.error(`  ${line}`);
  process.exit(1);
}
console.log(`long-lines: ${long.length} lines over ${LIMIT} characters (at most ${ALLOWANCE})`);
