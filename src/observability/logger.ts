import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * The gateway's logger. Secrets never reach it by construction (tickets, tokens and signatures are not passed to
 * log calls); the redaction list is the second fence for fields that might carry them.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'askgate' },
    redact: {
      paths: [
        'token',
        'ticket',
        'authorization',
        'headers.authorization',
        'callback_url',
        '*.callback_url',
        'secret',
        '*.secret',
      ],
      censor: '[redacted]',
    },
  });
}

/** A path fit for logs: a callback ticket or an action link's token in it is replaced; each is a bearer capability. */
export function loggablePath(path: string): string {
  return path.replace(/(\/api\/interactions\/callback\/)[^/?#]+/, '$1[ticket]').replace(/^(\/a\/)[^/?#]+/, '$1[token]');
}
