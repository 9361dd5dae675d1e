import type { InteractionRecord, TailEvent } from 'askgate-sdk';

/**
 * Human output of the CLI: aligned tables, short ages, one-line events and a detail view. Pure functions of
 * their input (and `now`), so they are easy to test and `--json` never goes through them.
 */

/** "42s", "5m", "3h", "2d": the age of a moment, coarse on purpose so columns stay narrow. */
export function age(iso: string, now: number = Date.now()): string {
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return '?';
  return span(Math.max(0, ms));
}

/** "in 4m" / "4m ago" relative to now. */
export function relative(iso: string, now: number = Date.now()): string {
  const ms = Date.parse(iso) - now;
  if (!Number.isFinite(ms)) return '?';
  return ms >= 0 ? `in ${span(ms)}` : `${span(-ms)} ago`;
}

function span(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** One line of at most `width` characters: whitespace runs (newlines too) become one space, the cut marked with "…". */
export function truncate(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= width) return flat;
  return width <= 1 ? flat.slice(0, width) : `${flat.slice(0, width - 1)}…`;
}

/** Aligned columns separated by two spaces; the last column is not padded. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** The list table: id, status, format, where it was asked, age, and the question cut to what is left of the width. */
export function interactionTable(
  items: readonly InteractionRecord[],
  columns: number,
  now: number = Date.now(),
): string {
  const rows = items.map((r) => [r.id, r.status, r.answer_format, surfaceNames(r), age(r.created_at, now), r.question]);
  const headers = ['ID', 'STATUS', 'FORMAT', 'CHANNEL', 'AGE'];
  const fixed = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const questionWidth = Math.max(20, columns - fixed.reduce((a, b) => a + b + 2, 0));
  return table(
    [...headers, 'QUESTION'],
    rows.map((r) => [...r.slice(0, 5), truncate(r[5] ?? '', questionWidth)]),
  );
}

/** "inbox", "slack", or every channel of a question on several surfaces: "slack,telegram". */
function surfaceNames(record: InteractionRecord): string {
  const channels = record.deliver?.map((surface) => surface.channel) ?? [record.channel ?? 'inbox'];
  return [...new Set(channels)].join(',');
}

/** One line per stream event: `12:03:04  answered   <id>  confirm  Ship it?  → true`. */
export function eventLine(event: TailEvent, columns: number): string {
  const { record } = event;
  const time = new Date().toTimeString().slice(0, 8);
  const kind = event.type.replace(/^interaction\./, '').padEnd(9);
  const outcome =
    event.type === 'interaction.answered' && record.result !== null ? `  → ${compactJson(record.result.answer)}` : '';
  const head = `${time}  ${kind}  ${record.id}  ${record.answer_format.padEnd(8)}  `;
  return head + truncate(record.question, Math.max(20, columns - head.length - outcome.length)) + outcome;
}

/** The `show` view: one aligned field per line, the answer as JSON. */
export function recordDetail(record: InteractionRecord, now: number = Date.now()): string {
  const fields: [string, string][] = [
    ['id', record.id],
    ['status', record.status],
    ['format', record.answer_format],
    ['question', record.question],
  ];
  if (record.choices !== null && record.choices !== undefined) fields.push(['choices', record.choices.join(', ')]);
  if (record.schema !== null && record.schema !== undefined) fields.push(['schema', compactJson(record.schema)]);
  if (record.group_id !== null && record.group_id !== undefined) fields.push(['group', record.group_id]);
  const where = record.channel === null || record.channel === undefined ? 'inbox' : record.channel;
  fields.push(['channel', record.recipient ? `${where} → ${record.recipient}` : where]);
  fields.push(['mode', record.mode]);
  fields.push(['asked by', record.asked_by]);
  fields.push(['created', `${record.created_at} (${relative(record.created_at, now)})`]);
  fields.push(['deadline', `${record.deadline_at} (${relative(record.deadline_at, now)})`]);
  const result = record.result;
  if (result !== null && result !== undefined) {
    fields.push(['answer', compactJson(result.answer)]);
    fields.push(['answered', `by ${result.answered_by} via ${result.surface} at ${result.answered_at}`]);
    if (result.reply_to !== null)
      fields.push(['reply to', `${result.reply_to.message_id}: ${truncate(result.reply_to.text, 60)}`]);
    if (result.params !== null) fields.push(['params', compactJson(result.params)]);
  } else if (record.resolved_at) {
    fields.push(['resolved', record.resolved_at]);
  }
  const width = Math.max(...fields.map(([k]) => k.length));
  return fields.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n');
}

function compactJson(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}
