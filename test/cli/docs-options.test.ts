import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Every option `askgate <command> --help` prints is in docs/cli.md, in that command's own part of the page: the
// ask table lacked half of ask's options once, and the mcp-proxy synopsis two of its.
const DOC = readFileSync('docs/cli.md', 'utf8');

/** The options a command's --help lists (the built CLI, as a user runs it). */
function optionsOf(command: string[]): string[] {
  const help = execFileSync(process.execPath, ['dist/src/cli/main.js', ...command, '--help'], { encoding: 'utf8' });
  const options = [...help.matchAll(/^ {2}(?:-\w, )?(--[a-z][a-z-]*)/gm)].map((m) => m[1] as string);
  return options.filter((option) => option !== '--help' && option !== '--version');
}

/** The part of docs/cli.md about one command: its `### \`name` section, or its table row `| \`name …`. */
function docPartOf(name: string): string {
  const heading = DOC.indexOf(`### \`${name}`);
  if (heading >= 0) {
    const next = DOC.slice(heading + 4).search(/^#{2,3} /m);
    return next < 0 ? DOC.slice(heading) : DOC.slice(heading, heading + 4 + next);
  }
  const row = DOC.split('\n').find((line) => line.startsWith(`| \`${name} `) || line.startsWith(`| \`${name}\``));
  if (row === undefined) throw new Error(`docs/cli.md has no section or table row for \`${name}\``);
  return row;
}

const COMMANDS: Array<[string[], string]> = [
  [['interactions', 'list'], 'list'],
  [['interactions', 'tail'], 'tail'],
  [['interactions', 'show'], 'show'],
  [['interactions', 'audit'], 'audit'],
  [['interactions', 'ask'], 'ask'],
  [['presets', 'ask'], 'presets ask'],
  [['confirmations', 'reconcile'], 'confirmations reconcile'],
  [['mcp'], 'mcp'],
  [['mcp-proxy'], 'mcp-proxy'],
];

describe('docs/cli.md', () => {
  it.each(COMMANDS)('documents every option of %j', (command, name) => {
    const options = optionsOf(command);
    expect(options.length).toBeGreaterThan(0);
    const part = docPartOf(name);
    expect(options.filter((option) => !part.includes(option))).toEqual([]);
  });
});
