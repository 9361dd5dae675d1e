import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AskAnswer, AskgateClient, SuspendedAsk } from 'askgate-sdk';

/**
 * Type-level tests of `ask`'s inference: the answer type follows the body. They run as no-ops under vitest; the
 * TypeScript check of the test files is what enforces them (see docs/sdk.md, "Types").
 */

declare const client: AskgateClient;

/** Wraps checks that must type-check but never run: `client` exists only for the type checker. */
const typeOnly = (check: () => void): void => void check;

describe('ask types', () => {
  it('types the answer from the format', () =>
    typeOnly(() => {
      expectTypeOf(client.ask({ question: 'q', answer_format: 'confirm' })).resolves.toEqualTypeOf<
        AskAnswer<boolean>
      >();
      expectTypeOf(client.ask({ question: 'q', answer_format: 'text' })).resolves.toEqualTypeOf<AskAnswer<string>>();
      expectTypeOf(client.ask({ question: 'q', answer_format: 'select', choices: ['a', 'b'] })).resolves.toEqualTypeOf<
        AskAnswer<'a' | 'b'>
      >();
      expectTypeOf(
        client.ask({ question: 'q', answer_format: 'form', schema: { type: 'object' } }),
      ).resolves.toEqualTypeOf<AskAnswer<Record<string, unknown>>>();
      expectTypeOf(client.ask({ question: 'q', answer_format: 'external' })).resolves.toEqualTypeOf<
        AskAnswer<unknown>
      >();
    }));

  it('suspends async asks', () =>
    typeOnly(() => {
      expectTypeOf(
        client.ask({ question: 'q', answer_format: 'confirm', mode: 'async', expiry_at: '2030-01-01T00:00:00Z' }),
      ).resolves.toEqualTypeOf<SuspendedAsk>();
      expectTypeOf(
        client.ask({
          question: 'q',
          answer_format: 'text',
          to: 'caller',
          mode: 'async',
          expiry_at: '2030-01-01T00:00:00Z',
        }),
      ).resolves.toEqualTypeOf<SuspendedAsk>();
    }));

  it('refuses contradictory bodies', () =>
    typeOnly(() => {
      // @ts-expect-error select needs choices
      void client.ask({ question: 'q', answer_format: 'select' });
      // @ts-expect-error form needs schema
      void client.ask({ question: 'q', answer_format: 'form' });
      // @ts-expect-error timeout and expiry_at bound the same wait two ways
      void client.ask({
        question: 'q',
        answer_format: 'text',
        mode: 'async',
        expiry_at: '2030-01-01T00:00:00Z',
        timeout: 5,
      });
      // @ts-expect-error async needs expiry_at
      void client.ask({ question: 'q', answer_format: 'text', mode: 'async' });
    }));

  it('refuses misspelt fields, at the top and inside the nested objects', () =>
    typeOnly(() => {
      // @ts-expect-error answerFormat is answer_format
      void client.ask({ question: 'q', answer_format: 'text', answerFormat: 'text' });
      // @ts-expect-error groupId is group_id
      void client.ask({ question: 'q', answer_format: 'text', groupId: 'g' });
      // @ts-expect-error expiresAt is expiry_at
      void client.ask({ question: 'q', answer_format: 'text', mode: 'async', expiry_at: 'x', expiresAt: 'x' });
      // @ts-expect-error rejct is reject
      void client.ask({ question: 'q', answer_format: 'confirm', quorum: { approve: 2, rejct: 1 } });
      void client.ask({
        question: 'q',
        answer_format: 'text',
        // @ts-expect-error recipent is recipient
        deliver: [{ channel: 'slack', recipient: 'U1', recipent: 'U1' }],
      });
      // @ts-expect-error evry is every
      void client.ask({ question: 'q', answer_format: 'text', remind: { every: 60, max: 2, evry: 60 } });
      void client.ask({
        question: 'q',
        answer_format: 'text',
        // @ts-expect-error chanel is channel
        escalate: [{ after: 60, channel: 'slack', chanel: 'x' }],
      });
      void client.ask({
        question: 'q',
        answer_format: 'text',
        mode: 'async',
        expiry_at: '2030-01-01T00:00:00Z',
        // @ts-expect-error runId is run_id
        run: { run_id: 'r', runId: 'r', resume: { handler: 'h' } },
      });
      // @ts-expect-error questoin is question
      void client.askPreset('deposit', { questoin: 'q' });
      // @ts-expect-error a preset ask's timeout is a number of seconds, as an ask's
      void client.askPreset('deposit', { timeout: '60' });
    }));

  it('keeps accepting every correctly spelt field, and open JSON where the contract has it', () =>
    typeOnly(() => {
      expectTypeOf(
        client.ask({
          question: 'q',
          answer_format: 'select',
          choices: ['a', 'b'],
          group_id: 'g',
          deliver: [{ channel: 'slack', recipient: 'U1' }],
          approvers: ['slack:U1'],
          remind: { every: 60, max: 2 },
          escalate: [{ after: 60, channel: 'telegram', recipient: '42' }],
          media: [],
          link: true,
          timeout: 60,
        }),
      ).resolves.toEqualTypeOf<AskAnswer<'a' | 'b'>>();
      expectTypeOf(
        client.ask({ question: 'q', answer_format: 'confirm', quorum: { approve: 2, reject: 1 } }),
      ).resolves.toEqualTypeOf<AskAnswer<boolean>>();
      // A form's schema, a verifier's options and a run's state are JSON of the caller's choosing.
      void client.ask({ question: 'q', answer_format: 'form', schema: { type: 'object', 'x-anything': 1 } });
      void client.ask({ question: 'q', answer_format: 'external', verifier: { name: 'stripe', secret_env: 'S' } });
      void client.ask({
        question: 'q',
        answer_format: 'text',
        mode: 'async',
        expiry_at: '2030-01-01T00:00:00Z',
        run: { run_id: 'r', state: { any: ['json'] }, resume: { webhook: 'https://example.com/resume' } },
      });
      void client.askPreset('deposit', { question: 'q', timeout: 60 });
    }));
});

describe('the type-level tests are enforced', () => {
  // The checks above never run; this one does, and fails when `npm test` stops type-checking the test files.
  it('npm test type-checks every test file before it runs', async () => {
    const { readFile } = await import('node:fs/promises');
    const root = new URL('../../', import.meta.url);
    const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts['pretest']).toMatch(/\btsc -p tsconfig\.test\.json\b/);
    const config = JSON.parse(await readFile(new URL('tsconfig.test.json', root), 'utf8')) as {
      include: string[];
      compilerOptions: { noEmit?: boolean };
    };
    expect(config.include).toContain('test/**/*.ts');
  });
});
