import { InvalidArgumentError } from 'commander';
import { AskgateClient, AskgateHttpError } from 'askgate-sdk';

/**
 * What every interactions subcommand shares: the client built from the global options and the environment,
 * the answer-value rule, and one way to turn any failure into a line on stderr and an exit code.
 */

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** Exit codes the CLI documents (docs/cli.md): scripts branch on them. */
export const EXIT = {
  ok: 0,
  failed: 1,
  /** `ask --wait`: the deadline passed unanswered. */
  timeout: 2,
  /** `ask --wait`: the ask was cancelled. */
  cancelled: 3,
  /** Interrupted by Ctrl-C while waiting. */
  interrupted: 130,
} as const;

/** A failure the CLI reports as one line on stderr, with its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export interface GlobalOptions {
  url?: string;
  token?: string;
}

/** The client for `--url`/`--token`, else `ASKGATE_URL`/`ASKGATE_TOKEN`; a missing token is one clear line. */
export function clientFrom(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): AskgateClient {
  const url = options.url ?? nonEmpty(env['ASKGATE_URL']) ?? DEFAULT_URL;
  const token = options.token ?? nonEmpty(env['ASKGATE_TOKEN']);
  if (token === undefined) {
    throw new CliError('no token: set ASKGATE_TOKEN (the dev token is printed by `npm start`), or pass --token.');
  }
  try {
    // The CLI names itself on every request, so an answer it gives is recorded as the CLI's (surface `cli`).
    return new AskgateClient({ url, token, fetch: namedFetch });
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
}

/** `fetch` with the CLI's client name (`X-Askgate-Client: cli`), whatever headers the SDK sets. */
const namedFetch: typeof fetch = (input, init = {}) => {
  const headers = new Headers(init.headers);
  headers.set('x-askgate-client', 'cli');
  return fetch(input, { ...init, headers });
};

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * An answer value from the command line: JSON when it parses (`true`, `42`, `"text"`, `{"a":1}`), else the
 * word itself as a string, so `answer ID yes` answers a text question without shell-quoting gymnastics.
 */
export function parseAnswerValue(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    // A value that starts like an object, a list or a quoted string was meant as JSON: taking it as a bare string
    // would only move the mistake to the server ("must be object"), so say what is wrong with it here.
    if (/^\s*[[{"]/.test(raw)) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new CliError(
        `the answer ${JSON.stringify(raw)} is not valid JSON (${reason}); fix it, or pass a bare word for a text answer.`,
      );
    }
    return raw;
  }
}

/** The one line a failure prints (without the `askgate: ` prefix). */
export function describeError(error: unknown): string {
  if (error instanceof AskgateHttpError) {
    const field = error.field === undefined ? '' : ` (field: ${error.field})`;
    const hint =
      error.status === 401
        ? ' Check ASKGATE_TOKEN.'
        : error.code === 'forbidden'
          ? ' The token lacks the scope this needs.'
          : '';
    return `${error.message}${field} [${error.status} ${error.code}]${hint}`;
  }
  if (error instanceof Error) return error.message; // network, SDK and CLI errors are already one line
  return String(error);
}

/** Parses a whole-number option; commander reports the option name with the message. */
export function parseInteger(raw: string): number {
  if (!/^\d+$/.test(raw)) throw new InvalidArgumentError('Use a whole number.');
  return Number(raw);
}

/** Parses a positive number of seconds (fractions allowed). */
export function parseSeconds(raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value <= 0)
    throw new InvalidArgumentError('Use a positive number of seconds.');
  return value;
}
