import { Command } from 'commander';
import { type AuditEvent, verifyChain } from 'askgate-sdk';
import { CliError, clientFrom, type GlobalOptions } from './context.js';
import { table, truncate } from './format.js';

/**
 * `askgate interactions audit ID [--json] [--verify]`: a question's audit trail, and a check of its hash chain
 * recomputed here from the events as the gateway returned them (docs/audit.md).
 */

/** How much of each hash the table shows; `--json` prints them whole. */
const SHORT_HASH = 12;

export function auditCommand(): Command {
  return new Command('audit')
    .description(
      "print a question's audit trail, oldest first (created, delivered, answered, ...), each event with its hash",
    )
    .argument('<id>', 'the interaction id')
    .option(
      '--json',
      'print the trail as JSON: {"items": [{"seq", "at", "type", "surface"?, "by"?, "detail"?, "hash"}]}',
    )
    .option(
      '--verify',
      'recompute the hash chain; exit 1 naming the first event that does not match (edited, removed or reordered)',
    )
    .addHelpText(
      'after',
      [
        '',
        'Each hash is the hex SHA-256 of the previous event\'s hash ("" for the first) followed by the event\'s',
        'canonical JSON without "hash" (keys sorted at every level, no whitespace). See docs/audit.md.',
        '',
        'Examples:',
        '  $ askgate interactions audit ia_123',
        '  $ askgate interactions audit ia_123 --verify',
        '  $ askgate interactions audit ia_123 --json | jq -r ".items[] | [.seq, .type, .by] | @tsv"',
        '',
      ].join('\n'),
    )
    .action(async (id: string, options: { json?: boolean; verify?: boolean }, command: Command) => {
      const items = await clientFrom(command.optsWithGlobals<GlobalOptions>()).events(id);
      process.stdout.write(
        `${options.json === true ? JSON.stringify({ items }, null, 2) : auditTable(items, process.stdout.columns ?? 120)}\n`,
      );
      if (options.verify !== true) return;
      const verdict = verifyChain(items);
      if (!verdict.ok) {
        throw new CliError(`audit trail of ${id} fails verification at seq ${verdict.seq}: ${verdict.reason}.`);
      }
      process.stderr.write(`verified: ${verdict.count} events, hash chain intact.\n`);
    });
}

/** The trail as a table: seq, time, type, surface, who, the detail as compact JSON (cut to fit), the hash's start. */
export function auditTable(items: readonly AuditEvent[], columns: number): string {
  const rows = items.map((e) => [
    String(e.seq),
    e.at,
    e.type,
    e.surface ?? '',
    e.by ?? '',
    e.hash.slice(0, SHORT_HASH),
    e.detail === undefined ? '' : JSON.stringify(e.detail),
  ]);
  const headers = ['SEQ', 'AT', 'TYPE', 'SURFACE', 'BY', 'HASH', 'DETAIL'];
  const fixed = headers
    .slice(0, -1)
    .map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
    .reduce((a, b) => a + b + 2, 0);
  const detailWidth = Math.max(20, columns - fixed);
  return table(
    headers,
    rows.map((r) => [...r.slice(0, -1), truncate(r[r.length - 1] ?? '', detailWidth)]),
  );
}
