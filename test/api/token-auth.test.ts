import { describe, expect, it } from 'vitest';
import type { Identity } from '../../src/core/types.js';
import { TokenAuthenticator } from '../../src/doors/auth.js';

/** The token lookup: HMACs under a per-process key, so no comparison of secret bytes happens in the clear. */
describe('TokenAuthenticator', () => {
  const ada: Identity = { name: 'ada', scopes: new Set(['read']), webhookSecret: null } as Identity;
  const bob: Identity = { name: 'bob', scopes: new Set(['answer']), webhookSecret: null } as Identity;
  const auth = new TokenAuthenticator(
    new Map([
      ['ada-token-0123456789abcdef', ada],
      ['bob-token-0123456789abcdef', bob],
    ]),
  );

  it('finds the identity of a known token, and nothing for an unknown one, a prefix or an extension', () => {
    expect(auth.identify('ada-token-0123456789abcdef')).toBe(ada);
    expect(auth.identify('bob-token-0123456789abcdef')).toBe(bob);
    expect(auth.identify('ada-token-0123456789abcde')).toBeNull();
    expect(auth.identify('ada-token-0123456789abcdef0')).toBeNull();
    expect(auth.identify('')).toBeNull();
  });

  it('reads a bearer header the way the middleware does', () => {
    expect(auth.fromHeader('Bearer bob-token-0123456789abcdef')).toBe(bob);
    expect(auth.fromHeader('bearer   bob-token-0123456789abcdef  ')).toBe(bob);
    expect(auth.fromHeader('Basic bob-token-0123456789abcdef')).toBeNull();
    expect(auth.fromHeader(undefined)).toBeNull();
  });

  it('keys its HMACs per instance: the same token maps under a fresh key in another process', () => {
    const other = new TokenAuthenticator(new Map([['ada-token-0123456789abcdef', ada]]));
    expect(other.identify('ada-token-0123456789abcdef')).toBe(ada);
  });
});
