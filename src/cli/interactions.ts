import { readFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { ANSWER_FORMATS, STATUSES } from '../core/types.js';
import { AskCancelledError, AskTimeoutError } from 'askgate-sdk';
import type { AskBody, InteractionRecord, InteractionStatus, JsonSchema } from 'askgate-sdk';
import { auditCommand } from './audit.js';
import { CliError, clientFrom, EXIT, parseAnswerValue, parseInteger, parseSeconds } from './context.js';
import type { GlobalOptions } from './context.js';
import { eventLine, interactionTable, recordDetail } from './format.js';

/**
 * `askgate interactions list|tail|show|answer|ask|audit` (audit in audit.ts): the CLI face of the HTTP doors. Human output goes through
 * format.ts; `--json` prints exactly what the SDK returned, so scripts see the doors' own shapes.
 */

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const note = (line: string): void => {
  process.stderr.write(`${line}\n`);
};
const columns = (): number => process.stdout.columns ?? 120;

/** The global options (`--url`, `--token`) wherever they were written on the command line. */
const globals = (command: Command): GlobalOptions => command.optsWithGlobals<GlobalOptions>();

export function interactionsCommand(): Command {
  const interactions = new Command('interactions')
    .alias('i')
    .description(
      'list, watch, inspect, answer, ask and audit questions on a running gateway (ASKGATE_URL, ASKGATE_TOKEN)',
    );
  interactions.addCommand(listCommand());
  interactions.addCommand(tailCommand());
  interactions.addCommand(showCommand());
  interactions.addCommand(answerCommand());
  interactions.addCommand(askCommand());
  interactions.addCommand(auditCommand());
  return interactions;
}

function listCommand(): Command {
  return new Command('list')
    .description('print one page of interactions, oldest first (the gateway lists pending ones by default)')
    .addOption(new Option('--status <status>', 'only this status').choices(STATUSES))
    .option('--limit <n>', 'page size, 1..200 (gateway default 50)', parseInteger)
    .option('--cursor <cursor>', 'the next_cursor of the previous page')
    .option('--group <group>', 'only this group_id')
    .option('--json', 'print the page as JSON: {"items": [...], "next_cursor": ...}')
    .addHelpText(
      'after',
      examples([
        'askgate interactions list',
        'askgate interactions list --limit 10 --group deploys',
        'askgate interactions list --json | jq -r ".items[].id"',
        'askgate interactions list --cursor "$NEXT"',
      ]),
    )
    .action(
      async (
        options: { status?: InteractionStatus; limit?: number; cursor?: string; group?: string; json?: boolean },
        command: Command,
      ) => {
        const client = clientFrom(globals(command));
        const page = await client.list({
          status: options.status,
          limit: options.limit,
          cursor: options.cursor,
          groupId: options.group,
        });
        if (options.json === true) return out(JSON.stringify(page, null, 2));
        if (page.items.length === 0) note('no interactions.');
        else out(interactionTable(page.items, columns()));
        if (page.next_cursor !== null) note(`more: askgate interactions list --cursor ${page.next_cursor}`);
      },
    );
}

function tailCommand(): Command {
  return new Command('tail')
    .description('print live events (created, answered, expired, cancelled), one line each, until Ctrl-C')
    .option('--json', 'one JSON object per line: {"type": ..., "record": {...}}')
    .addHelpText(
      'after',
      examples([
        'askgate interactions tail',
        'askgate interactions tail --json | jq -c "select(.type == \\"interaction.created\\") | .record.id"',
      ]),
    )
    .action(async (options: { json?: boolean }, command: Command) => {
      const client = clientFrom(globals(command));
      const stream = client.tail();
      let stopped = false;
      const stop = (): void => {
        stopped = true;
        stream.close();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      await stream.opened;
      // On stderr, so a pipe of stdout sees events only; it also tells a script the tail is live.
      note(`tailing ${client.url} (Ctrl-C to stop)`);
      for await (const event of stream) {
        out(options.json === true ? JSON.stringify(event) : eventLine(event, columns()));
      }
      if (!stopped) throw new CliError('the gateway closed the stream.');
    });
}

function showCommand(): Command {
  return new Command('show')
    .description('print one interaction, its answer included once resolved')
    .argument('<id>', 'the interaction id')
    .option('--json', 'print the record as JSON')
    .addHelpText(
      'after',
      examples(['askgate interactions show ia_123', 'askgate interactions show ia_123 --json | jq .result.answer']),
    )
    .action(async (id: string, options: { json?: boolean }, command: Command) => {
      const record = await clientFrom(globals(command)).get(id);
      out(options.json === true ? JSON.stringify(record, null, 2) : recordDetail(record));
    });
}

function answerCommand(): Command {
  return new Command('answer')
    .description('answer a pending interaction; prints "answered", or "already_answered" when an earlier answer won')
    .argument('<id>', 'the interaction id')
    .argument(
      '<value>',
      'the answer as JSON, matching the format: true/false for confirm, "text" for text and select, {"a":1} for form. ' +
        'A bare word that is not JSON (yes, Friday) is taken as a string.',
    )
    .addHelpText(
      'after',
      examples([
        'askgate interactions answer ia_123 true',
        'askgate interactions answer ia_123 \'"blue"\'          # a JSON string',
        'askgate interactions answer ia_123 blue              # a bare word: the string "blue"',
        'askgate interactions answer ia_123 \'{"count": 3}\'',
        'askgate interactions answer ia_123 -- -5             # a value that starts with "-"',
      ]) +
        "\nA refused answer prints the gateway's message and the failing field to stderr and exits 1; the question stays pending.\n",
    )
    .action(async (id: string, raw: string, _options: unknown, command: Command) => {
      out(await clientFrom(globals(command)).answer(id, parseAnswerValue(raw)));
    });
}

interface AskCliOptions {
  format: AskBody['answer_format'];
  choices?: string;
  schema?: string;
  group?: string;
  timeout?: number;
  channel?: string;
  recipient?: string;
  deliver?: string[];
  approver?: string[];
  quorum?: string;
  link?: boolean;
  remindEvery?: number;
  remindMax?: number;
  escalate?: string[];
  wait?: boolean;
  json?: boolean;
}

/** `--escalate <after>,<channel>[,<recipient>]`, repeatable: each occurrence one step, in order. */
function collectStep(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function escalationStep(value: string): Record<string, unknown> {
  const [after = '', channel = '', ...rest] = value.split(',');
  const recipient = rest.join(',');
  // The gateway checks the numbers and the channel; here only the shape is read, so its refusal names the field.
  return {
    after: after.trim() === '' ? after : Number(after),
    channel: channel.trim(),
    ...(recipient === '' ? {} : { recipient: recipient.trim() }),
  };
}

function askCommand(): Command {
  return new Command('ask')
    .description('ask a question; prints the new id, or with --wait blocks and prints the answer as JSON')
    .argument('<question>', 'the question, 1..4096 characters')
    .addOption(new Option('--format <format>', 'the answer format').choices(ANSWER_FORMATS).makeOptionMandatory())
    .option('--choices <a,b,...>', 'comma-separated choices (select)')
    .option('--schema <file>', 'a JSON Schema file (form; optional pin for external)')
    .option('--group <group>', 'group_id threading related questions')
    .option('--timeout <seconds>', 'deadline in seconds (gateway default 300)', parseSeconds)
    .option('--channel <channel>', 'also deliver on this registered channel (the question shows in the inbox as well)')
    .option('--recipient <address>', 'the channel address (chat id, user id, phone)')
    .option(
      '--deliver <channel:recipient...>',
      'instead of --channel/--recipient: one more surface each, e.g. --deliver slack:C01 telegram:42',
    )
    .option('--approver <identity...>', 'who may answer (token identity, or <channel>:<user id>); repeatable')
    .option('--quorum <approve[/reject]>', 'confirm with approvers: yes votes needed, and optionally no votes (2/1)')
    .option('--link', 'also mint a callback URL (printed to stderr)')
    .option('--remind-every <seconds>', 'remind in the question thread every N seconds (at least 60)', parseSeconds)
    .option('--remind-max <n>', 'at most N reminders, 1..10 (default 3 with --remind-every)', Number)
    .option(
      '--escalate <after,channel,recipient>',
      'deliver to one more surface when still pending after N seconds; repeat for up to 5 steps',
      collectStep,
    )
    .option('--wait', 'block until answered; exit 2 on timeout, 3 if cancelled')
    .option('--json', 'print the created record (or, with --wait, {"answer", "reply_to", "params"}) as JSON')
    .addHelpText(
      'after',
      examples([
        'askgate interactions ask "Ship it?" --format confirm --wait',
        'askgate interactions ask "Which region?" --format select --choices eu,us --timeout 600 --wait',
        'askgate interactions ask "Deploy details" --format form --schema deploy.schema.json --json',
        'askgate interactions ask "Approve?" --format confirm --channel telegram --recipient 12345 --wait',
        'askgate interactions ask "Approve?" --format confirm --channel slack --recipient C0123 --timeout 3600 ' +
          '--remind-every 900 --remind-max 2 --escalate 1800,telegram,12345',
        'id=$(askgate interactions ask "Release notes?" --format text)',
      ]),
    )
    .action(async (question: string, options: AskCliOptions, command: Command) => {
      const client = clientFrom(globals(command));
      const body = await askBody(question, options);
      if (options.wait !== true) {
        const record = await client.create(body);
        announceCallback(record);
        return out(options.json === true ? JSON.stringify(record, null, 2) : record.id);
      }
      const abort = new AbortController();
      let asked: InteractionRecord | null = null;
      const interrupt = (): void =>
        abort.abort(
          new CliError(
            asked === null
              ? 'interrupted.'
              : `stopped waiting; ${asked.id} is still open (askgate interactions show ${asked.id}).`,
            EXIT.interrupted,
          ),
        );
      process.once('SIGINT', interrupt);
      try {
        const result = await client.ask(body, {
          signal: abort.signal,
          onCreated: (record) => {
            asked = record;
            announceCallback(record);
            if (process.stderr.isTTY)
              note(`waiting for an answer to ${record.id} until ${record.deadline_at} (Ctrl-C stops waiting)`);
          },
        });
        // A sync body (the CLI never sends mode "async") always comes back as an answer.
        out(
          options.json === true
            ? JSON.stringify(result, null, 2)
            : JSON.stringify((result as { answer: unknown }).answer),
        );
      } catch (error) {
        if (error instanceof AskTimeoutError) {
          throw new CliError(
            `no answer to ${error.interactionId} before its deadline ${error.deadlineAt}; it expired.`,
            EXIT.timeout,
          );
        }
        if (error instanceof AskCancelledError)
          throw new CliError(`${error.interactionId} was cancelled.`, EXIT.cancelled);
        throw error;
      } finally {
        process.off('SIGINT', interrupt);
      }
    });
}

async function askBody(question: string, options: AskCliOptions): Promise<AskBody> {
  const base: Record<string, unknown> = { question, answer_format: options.format };
  if (options.choices !== undefined)
    base['choices'] = options.choices
      .split(',')
      .map((c) => c.trim())
      .filter((c) => c !== '');
  if (options.schema !== undefined) base['schema'] = await readSchema(options.schema);
  if (options.group !== undefined) base['group_id'] = options.group;
  if (options.timeout !== undefined) base['timeout'] = options.timeout;
  if (options.channel !== undefined) base['channel'] = options.channel;
  if (options.recipient !== undefined) base['recipient'] = options.recipient;
  if (options.deliver !== undefined)
    base['deliver'] = options.deliver.map((surface) => {
      // The channel is up to the first colon; the recipient keeps any colons of its own (whatsapp:+1…).
      const at = surface.indexOf(':');
      return at <= 0 ? { channel: surface } : { channel: surface.slice(0, at), recipient: surface.slice(at + 1) };
    });
  if (options.approver !== undefined) base['approvers'] = options.approver;
  if (options.quorum !== undefined) {
    const [approve, reject] = options.quorum.split('/').map(Number);
    base['quorum'] = reject === undefined ? { approve } : { approve, reject };
  }
  if (options.link === true) base['link'] = true;
  if (options.remindEvery !== undefined || options.remindMax !== undefined)
    base['remind'] = { every: options.remindEvery, max: options.remindMax ?? 3 };
  if (options.escalate !== undefined) base['escalate'] = options.escalate.map(escalationStep);
  // The gateway validates the combination (choices for select, schema for form) and names the field it refuses.
  return base as unknown as AskBody;
}

async function readSchema(file: string): Promise<JsonSchema> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`--schema ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as JsonSchema;
  } catch (error) {
    throw new CliError(`--schema ${file}: not a JSON Schema object (${(error as Error).message}).`);
  }
}

/** The callback URL is shown once, in the ask's response: hand it to the person now or lose it. */
function announceCallback(record: InteractionRecord): void {
  if (record.callback_url !== undefined) note(`callback: ${record.callback_url}`);
}

function examples(lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}
