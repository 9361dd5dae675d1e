import { invalid } from './errors.js';
import { MEDIA_KINDS, type MediaItem, type MediaKind } from './types.js';

/** The rules for media items, in one place. */
export const MEDIA_LIMITS = {
  maxItems: 10,
  maxCaption: 1024,
  /** The decoded size of a `data:image/*;base64,` URI. */
  maxDataUriBytes: 256 * 1024,
} as const;

const DATA_IMAGE = /^data:image\/[a-z0-9.+-]+;base64,([a-z0-9+/]*={0,2})$/i;

function isAbsoluteUrl(raw: string, protocols: readonly string[]): boolean {
  try {
    const url = new URL(raw);
    return protocols.includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

function checkUrl(kind: MediaKind, url: string, field: string): void {
  if (kind === 'image') {
    const data = DATA_IMAGE.exec(url);
    if (data) {
      // base64 length → bytes, without decoding a possibly large string.
      const payload = data[1] ?? '';
      const bytes = Math.floor((payload.length * 3) / 4) - (payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0);
      if (bytes > MEDIA_LIMITS.maxDataUriBytes) {
        throw invalid(
          field,
          `${field} is a data URI of ${bytes} bytes; the limit is ${MEDIA_LIMITS.maxDataUriBytes} (256 KiB): ` +
            'host the image and pass its https:// URL.',
        );
      }
      return;
    }
    if (url.startsWith('data:')) {
      throw invalid(
        field,
        `${field} must be a base64 data:image/* URI (data:image/png;base64,...) or an absolute https:// URL.`,
      );
    }
    if (!isAbsoluteUrl(url, ['https:']))
      throw invalid(field, `${field} must be an absolute https:// URL or a data:image/* URI.`);
    return;
  }
  if (kind === 'link') {
    if (!isAbsoluteUrl(url, ['https:', 'http:'])) throw invalid(field, `${field} must be an absolute http(s):// URL.`);
    return;
  }
  if (!isAbsoluteUrl(url, ['https:'])) throw invalid(field, `${field} must be an absolute https:// URL for a ${kind}.`);
}

/** Validates the `media` field item by item; the error names the offending item, e.g. `media[2].url`. */
export function parseMedia(raw: unknown): MediaItem[] | null {
  if (raw === undefined || raw === null) return null;
  if (!Array.isArray(raw)) throw invalid('media', 'media must be a list of {kind, url, caption?} objects.');
  if (raw.length > MEDIA_LIMITS.maxItems) {
    throw invalid('media', `media has ${raw.length} items; at most ${MEDIA_LIMITS.maxItems} are allowed.`);
  }
  return raw.map((item: unknown, i): MediaItem => {
    const at = `media[${i}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item))
      throw invalid(at, `${at} must be an object {kind, url, caption?}.`);
    const { kind, url, caption, ...rest } = item as Record<string, unknown>;
    const extra = Object.keys(rest)[0];
    if (extra !== undefined)
      throw invalid(`${at}.${extra}`, `${at}.${extra} is not a media field; use kind, url and caption.`);
    if (typeof kind !== 'string' || !(MEDIA_KINDS as readonly string[]).includes(kind)) {
      throw invalid(`${at}.kind`, `${at}.kind must be one of ${MEDIA_KINDS.join(', ')}.`);
    }
    if (typeof url !== 'string' || url === '') throw invalid(`${at}.url`, `${at}.url is required.`);
    checkUrl(kind as MediaKind, url, `${at}.url`);
    if (caption !== undefined) {
      if (typeof caption !== 'string') throw invalid(`${at}.caption`, `${at}.caption must be a string.`);
      if (caption.length > MEDIA_LIMITS.maxCaption) {
        throw invalid(
          `${at}.caption`,
          `${at}.caption has ${caption.length} characters; at most ${MEDIA_LIMITS.maxCaption} are allowed.`,
        );
      }
    }
    return caption === undefined ? { kind: kind as MediaKind, url } : { kind: kind as MediaKind, url, caption };
  });
}
