#!/usr/bin/env node
import { webChatCommand } from './web-chat.js';
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { describeError, EXIT } from './context.js';
import { confirmationsCommand } from './confirmations.js';
import { interactionsCommand } from './interactions.js';
import { mcpCommand, mcpProxyCommand } from './mcp.js';
import { migrateCommand } from './migrate.js';
import { presetsCommand } from './presets.js';

/**
 * The `askgate` command: the gateway's processes (`start`, `serve`, `worker`) and the `interactions` client.
 * Every failure ends as one `askgate: ...` line on stderr and a documented exit code (docs/cli.md).
 */

type Runner = 'runAll' | 'runServe' | 'runWorker';

/** The server is imported only when a server command runs, so client commands start fast and load no server deps. */
async function runServer(runner: Runner): Promise<void> {
  const server = await import('../main.js');
  await server[runner](process.env);
}

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

function buildProgram(): Command {
  const program = new Command('askgate')
    .description('askgate: ask people questions from running programs, and answer them')
    .version(version())
    .option('--url <url>', 'gateway base URL (env ASKGATE_URL, default http://127.0.0.1:8080)')
    .option('--token <token>', 'bearer token (env ASKGATE_TOKEN; the dev token is printed by `npm start`)')
    .addHelpText(
      'after',
      `
Examples:
  $ askgate start                                   # the whole gateway in one process
  $ REDIS_URL=redis://127.0.0.1:6379 askgate serve  # the HTTP side alone
  $ REDIS_URL=redis://127.0.0.1:6379 askgate worker # the queue workers alone
  $ export ASKGATE_TOKEN=...                        # printed by \`npm start\` in dev mode
  $ askgate interactions list
  $ askgate interactions ask "Ship it?" --format confirm --wait
`,
    );

  program
    .command('start')
    .description('run the whole gateway in one process (HTTP doors, channel webhooks, queue workers)')
    .addHelpText(
      'after',
      '\nConfigured by the environment (PORT, HOST, REDIS_URL, ASKGATE_TOKENS, ...); see docs.\n\n' +
        'Examples:\n  $ askgate start\n  $ PORT=9000 REDIS_URL=redis://127.0.0.1:6379 askgate start\n',
    )
    .action(() => runServer('runAll'));
  program
    .command('serve')
    .description('run the HTTP side alone (scale it out beside workers on one Redis)')
    .addHelpText('after', '\nExamples:\n  $ REDIS_URL=redis://127.0.0.1:6379 askgate serve\n')
    .action(() => runServer('runServe'));
  program
    .command('worker')
    .description('run the queue workers alone (expiries, deliveries, resumes) on REDIS_URL')
    .addHelpText('after', '\nExamples:\n  $ REDIS_URL=redis://127.0.0.1:6379 askgate worker\n')
    .action(() => runServer('runWorker'));
  program.addCommand(migrateCommand());
  program.addCommand(interactionsCommand());
  program.addCommand(presetsCommand());
  program.addCommand(confirmationsCommand());
  program.addCommand(webChatCommand());
  program.addCommand(mcpCommand());
  program.addCommand(mcpProxyCommand());
  // Commands built apart (interactions.ts) do not inherit settings; give every level the same error hint.
  const hintEverywhere = (command: Command): void => {
    command.showHelpAfterError('(add --help for usage and examples)');
    // Commander's own parse errors ("error: missing required argument ...") speak with every other failure's voice.
    command.configureOutput({
      outputError: (text, write) => write(`askgate: ${text.replace(/^error: /, '')}`),
    });
    command.commands.forEach(hintEverywhere);
  };
  hintEverywhere(program);
  return program;
}

// A reader that goes away (`askgate interactions list | head -1`) is a normal end, not a crash.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(EXIT.ok);
  throw error;
});

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`askgate: ${describeError(error)}\n`);
  process.exitCode =
    typeof (error as { exitCode?: unknown }).exitCode === 'number'
      ? (error as { exitCode: number }).exitCode
      : EXIT.failed;
}
