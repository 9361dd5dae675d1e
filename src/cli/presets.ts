import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { AskCancelledError, AskTimeoutError, type InteractionRecord } from 'askgate-sdk';
import { CliError, clientFrom, EXIT, parseSeconds, type GlobalOptions } from './context.js';

/** `askgate presets put|get|ask`: write (admin), read and ask through presets on a running gateway. */

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const note = (line: string): void => {
  process.stderr.write(`${line}\n`);
};
const globals = (command: Command): GlobalOptions => command.optsWithGlobals<GlobalOptions>();
const path = (name: string): string => `/api/presets/${encodeURIComponent(name)}`;

function jsonObject(text: string, where: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${where}: not JSON (${(error as Error).message}).`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new CliError(`${where}: must be a JSON object.`);
  return parsed as Record<string, unknown>;
}

interface AskPresetOptions {
  fields?: string;
  question?: string;
  timeout?: number;
  wait?: boolean;
  json?: boolean;
}

/** The page for the party (a confirmation) or the callback URL is shown once: hand it on now. */
function announce(record: InteractionRecord): void {
  if (record.confirmation_url !== undefined) note(`confirmation: ${record.confirmation_url}`);
  if (record.callback_url !== undefined) note(`callback: ${record.callback_url}`);
}

export function presetsCommand(): Command {
  const presets = new Command('presets').description('write, read and ask through presets (reviewed, fixed asks)');
  presets
    .command('put')
    .description('write a new version of a preset from a JSON file {"ask": {...}, "confirmation"?: {...}} (admin)')
    .argument('<name>', 'the preset name')
    .argument('<file>', 'the preset body as JSON')
    .addHelpText('after', '\nExamples:\n  $ askgate presets put deposit deposit.preset.json\n')
    .action(async (name: string, file: string, _o: unknown, command: Command) => {
      const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new CliError(`${file}: cannot read it (${error.code ?? String(error)}).`);
      });
      const written = await clientFrom(globals(command)).request('PUT', path(name), jsonObject(text, file));
      out(JSON.stringify(written));
    });
  presets
    .command('get')
    .description('print a preset: its current body and every version with who wrote it and when')
    .argument('<name>', 'the preset name')
    .action(async (name: string, _o: unknown, command: Command) => {
      out(JSON.stringify(await clientFrom(globals(command)).request('GET', path(name)), null, 2));
    });
  presets
    .command('ask')
    .description('ask through a preset with the fields it leaves open; prints the id, or with --wait the answer')
    .argument('<name>', 'the preset name')
    .option('--fields <json>', 'the open ask fields as a JSON object')
    .option('--question <text>', 'the question, when the preset leaves it open')
    .option('--timeout <seconds>', 'deadline in seconds, when the preset leaves it open', parseSeconds)
    .option('--wait', 'block until answered; exit 2 on timeout, 3 if cancelled')
    .option('--json', 'print the created record (or, with --wait, {"answer", "reply_to", "params"}) as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  $ askgate presets ask deposit --question "Pay the deposit for order 42" --wait\n' +
        '  $ askgate presets ask deploy --fields \'{"question": "Ship 1.4?"}\' --json\n',
    )
    .action(async (name: string, options: AskPresetOptions, command: Command) => {
      const client = clientFrom(globals(command));
      const fields = options.fields === undefined ? {} : jsonObject(options.fields, '--fields');
      if (options.question !== undefined) fields['question'] = options.question;
      if (options.timeout !== undefined) fields['timeout'] = options.timeout;
      if (options.wait !== true) {
        const record = await client.request<InteractionRecord>('POST', `${path(name)}/ask`, fields);
        announce(record);
        return out(options.json === true ? JSON.stringify(record, null, 2) : record.id);
      }
      try {
        const result = await client.askPreset(name, fields, { onCreated: announce });
        out(options.json === true ? JSON.stringify(result, null, 2) : JSON.stringify(result.answer));
      } catch (error) {
        if (error instanceof AskTimeoutError)
          throw new CliError(`no answer to ${error.interactionId} before its deadline; it expired.`, EXIT.timeout);
        if (error instanceof AskCancelledError)
          throw new CliError(`${error.interactionId} was cancelled.`, EXIT.cancelled);
        throw error;
      }
    });
  return presets;
}
