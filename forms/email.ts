/**
 * The one rule for `format: "email"`, shared by the form pages (forms/check.ts, in the browser) and the server's
 * schema validator (src/core/schema-validator.ts registers it with ajv), so a page never accepts an address the
 * server refuses. It is ajv-formats' "full" rule: dot-separated atoms before the `@`, and a domain of at least two
 * labels (`ada@example` is refused: mail to a dotless host does not reach a person).
 */
const ATOM = "[a-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LABEL = '[a-z0-9](?:[a-z0-9-]*[a-z0-9])?';
export const EMAIL = new RegExp(`^${ATOM}(?:\\.${ATOM})*@(?:${LABEL}\\.)+${LABEL}$`, 'i');
