/**
 * What askgate takes as a recipient's address: `local@domain`, no spaces or angle brackets, a domain with a dot,
 * within SMTP's path limit. Deliberately narrower than RFC 5322 (no quoted local parts, no comments): an address an
 * asker writes into JSON, which nodemailer must put into RCPT TO unchanged.
 */

/** RFC 5321 §4.5.3.1.3: a path is at most 256 octets including the angle brackets. */
export const ADDRESS_MAX = 254;
/** RFC 5321 §4.5.3.1.1: a local part is at most 64 octets. */
export const LOCAL_PART_MAX = 64;

const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN = /^(?=.{1,253}$)([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/** Why `address` is not one askgate sends to, as the end of a sentence starting with the field's name; null: fine. */
export function addressRefusal(address: string | null): string | null {
  const example = 'write it as ann@example.com.';
  if (address === null || address.trim() === '') return `is required: the email address to send to; ${example}`;
  if (Buffer.byteLength(address) > ADDRESS_MAX)
    return `is longer than ${ADDRESS_MAX} characters, more than SMTP allows an address.`;
  const at = address.lastIndexOf('@');
  if (at <= 0) return `is not an email address (no local part and @domain); ${example}`;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local.length > LOCAL_PART_MAX || !LOCAL.test(local))
    return `is not an email address (its part before @ is not one); ${example}`;
  if (!DOMAIN.test(domain)) return `is not an email address (its domain is not one); ${example}`;
  return null;
}

/** Addresses compare without regard to case (domains are case-insensitive; local parts are in practice). */
export const sameAddress = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
