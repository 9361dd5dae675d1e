/**
 * A reply's new text, without the history it quotes or the signature under it. Mail clients mark what they quote
 * in a handful of ways, and these rules cut at the first of them:
 *
 * - an attribution line: Gmail's `On Thu, Dec 3, 2026 at 4:01 PM Askgate <askgate@example.com> wrote:` (which it
 *   may wrap onto a second line), Apple Mail's `On 3 Dec 2026, at 16:01, Askgate <askgate@example.com> wrote:`,
 *   Thunderbird's `On 03/12/2026 16:01, Askgate wrote:`;
 * - Outlook's header block: an optional `________________________________` rule, then `From:` followed within a few
 *   lines by `Sent:` or `Date:` (and `To:`, `Subject:`); and the older `-----Original Message-----`;
 * - the signature delimiter `-- ` (RFC 3676 §4.3), and the phones' `Sent from my iPhone` lines;
 * - any line quoted with `>` is dropped wherever it is.
 *
 * **Decision:** hand-written rather than a library: the maintained reply parsers are for other languages, and these
 * rules are few and each is tested against a raw message of the client that writes it (test/channels/email-*.ts).
 */

/** `On … wrote:`, and the same in French, German, Spanish, Italian (German Gmail: `Am … schrieb Name <a@b>:`). */
const ATTRIBUTION = /^\s*(On|Le|Am|El|Il)\s.*\s(wrote|a écrit|schrieb|escribió|ha scritto)(\s.*)?:\s*$/i;
/** The first line of an attribution that wraps before `wrote:` (Gmail wraps at about 78 characters). */
const ATTRIBUTION_START = /^\s*On\s.+\d.*$/;
const ATTRIBUTION_END = /^.*\bwrote\s*:\s*$/i;
const OUTLOOK_RULE = /^\s*_{10,}\s*$/;
const ORIGINAL_MESSAGE = /^\s*-{2,}\s*(Original Message|Forwarded message)\s*-{2,}\s*$/i;
const HEADER_FROM = /^\s*\**(From|De|Von|Van)\s*:\**\s/i;
const HEADER_SENT = /^\s*\**(Sent|Date|Envoyé|Gesendet|Enviado|Verzonden)\s*:\**\s/i;
const SIGNATURE = /^-- ?$/;
const MOBILE_SIGNATURE = /^\s*Sent from my \w+/i;

/** The new text of a reply (trimmed; '' when the person wrote nothing above the quote). */
export function newTextOf(body: string): string {
  const lines = body.replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (endsHere(lines, i)) break;
    if (/^\s*>/.test(line)) continue;
    kept.push(line);
  }
  return kept.join('\n').trim();
}

/** Whether line `i` starts the quoted history or the signature. */
function endsHere(lines: readonly string[], i: number): boolean {
  const line = lines[i] as string;
  const next = lines[i + 1] ?? '';
  if (SIGNATURE.test(line) || MOBILE_SIGNATURE.test(line)) return true;
  if (ATTRIBUTION.test(line) || ORIGINAL_MESSAGE.test(line)) return true;
  if (ATTRIBUTION_START.test(line) && !ATTRIBUTION_END.test(line) && ATTRIBUTION_END.test(next)) return true;
  if (OUTLOOK_RULE.test(line) && HEADER_FROM.test(nextNonBlank(lines, i + 1))) return true;
  if (HEADER_FROM.test(line)) {
    // Outlook's block: From:, then Sent: (or Date:) within the next few lines. A sentence starting "From:" alone is kept.
    return lines.slice(i + 1, i + 4).some((l) => HEADER_SENT.test(l));
  }
  return false;
}

function nextNonBlank(lines: readonly string[], from: number): string {
  for (let i = from; i < lines.length; i++) if ((lines[i] as string).trim() !== '') return lines[i] as string;
  return '';
}
