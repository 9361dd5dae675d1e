import type { ReconcileSummary } from '../confirmations/reconcile.js';
import { Command } from 'commander';
import { CliError, clientFrom, type GlobalOptions } from './context.js';

/** `askgate confirmations reconcile|failed|retry`: the operator's side of confirmations (scope admin). */

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const globals = (command: Command): GlobalOptions => command.optsWithGlobals<GlobalOptions>();

interface FailedJob {
  job: string;
  session: string;
  reference: string;
  reason: string;
  attempts: number;
  failed_at: string | null;
}

function parseHours(raw: string): number {
  const hours = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(hours) || hours <= 0)
    throw new CliError('--lookback-hours: use a positive number of hours.');
  return hours;
}

export function confirmationsCommand(): Command {
  const confirmations = new Command('confirmations').description(
    'reconcile confirmations and deal with failed bridge deliveries (admin)',
  );
  confirmations
    .command('reconcile')
    .description('one reconcile run now; exits 1 when any confirmation failed')
    .option(
      '--lookback-hours <hours>',
      "how far back to look (default: the gateway's ASKGATE_RECONCILE_LOOKBACK_HOURS)",
      parseHours,
    )
    .option('--json', 'print the summary as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  $ askgate confirmations reconcile\n' +
        '  $ askgate confirmations reconcile --lookback-hours 96 --json   # after a 3-day outage\n',
    )
    .action(async (options: { lookbackHours?: number; json?: boolean }, command: Command) => {
      const body = options.lookbackHours === undefined ? {} : { lookback_hours: options.lookbackHours };
      const summary = await clientFrom(globals(command)).request<ReconcileSummary>(
        'POST',
        '/api/confirmations/reconcile',
        body,
      );
      if (options.json === true) out(JSON.stringify(summary, null, 2));
      else {
        out(
          `selected ${summary.selected}: answered ${summary.answered}, already answered ${summary.already_answered}, ` +
            `expired ${summary.expired}, rejected ${summary.rejected}, failed ${summary.failed.length}`,
        );
        for (const f of summary.failed) out(`  failed ${f.session}: ${f.reason}`);
      }
      if (summary.failed.length > 0) process.exitCode = 1;
    });
  confirmations
    .command('failed')
    .description('list bridge jobs kept as failed')
    .option('--json', 'print them as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const { items } = await clientFrom(globals(command)).request<{ items: FailedJob[] }>(
        'GET',
        '/api/confirmations/failed',
      );
      if (options.json === true) return out(JSON.stringify(items, null, 2));
      if (items.length === 0) return out('no failed bridge jobs.');
      for (const j of items)
        out(`${j.job}  session ${j.session}  reference ${j.reference}  tries ${j.attempts}  ${j.reason}`);
    });
  confirmations
    .command('retry')
    .description('retry one failed bridge job with a fresh retry ladder')
    .argument('<job>', 'the job id from `askgate confirmations failed`')
    .action(async (job: string, _o: unknown, command: Command) => {
      await clientFrom(globals(command)).request('POST', `/api/confirmations/failed/${encodeURIComponent(job)}/retry`);
      out(`retrying ${job}`);
    });
  return confirmations;
}
