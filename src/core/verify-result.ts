/**
 * The one verdict of every inbound verification: a channel's webhook `verify`, a verifier bound to a question, the
 * Stripe ingress. Refusal is data (`{ok: false, reason}`: the door answers 401 with the reason, which names the
 * header and never the secret); a check that cannot run at all (its secret unset, a key it cannot fetch) throws.
 * This module imports nothing, so `channels/http.ts` re-exports the type without depending on the core at run time.
 */
export type VerifyResult = { ok: true } | { ok: false; reason: string };

/** The accepting verdict. */
export const ACCEPTED: VerifyResult = Object.freeze({ ok: true });

/** A refusing verdict; `reason` names what is wrong with the request (a header), never a secret. */
export const refused = (reason: string): VerifyResult => ({ ok: false, reason });
