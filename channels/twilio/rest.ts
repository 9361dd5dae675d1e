import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient.js';
import type * as TwilioHttp from 'twilio/lib/http/response.js';
import { ChannelError } from '../contract.js';
import { ERROR_UNSUBSCRIBED, RenderLimitError } from './limits.js';

/** The Twilio REST side of the channel: the package's HTTP client pointed at TWILIO_API_URL, and what its errors mean. */

/** Twilio's own REST root: the default of TWILIO_API_URL, and the host the package writes into every URL. */
export const TWILIO_HOST = 'https://api.twilio.com';

/**
 * The twilio package's own HTTP client, pointed at TWILIO_API_URL: the package builds `https://api.twilio.com/...`
 * URLs itself (its `edge`/`region` options only rename the host within twilio.com), so the base is swapped here.
 */
export class BaseUrlRequestClient extends twilio.RequestClient {
  constructor(private readonly base: string) {
    super();
  }

  override request<TData>(opts: RequestClient.RequestOptions<TData>): Promise<TwilioHttp.default<TData>> {
    const uri = opts.uri.startsWith(TWILIO_HOST) ? `${this.base}${opts.uri.slice(TWILIO_HOST.length)}` : opts.uri;
    return super.request({ ...opts, uri });
  }
}

export function toChannelError(err: unknown): ChannelError {
  if (err instanceof ChannelError) return err;
  if (err instanceof RenderLimitError) return new ChannelError('twilio', 'invalid', err.message, null, { cause: err });
  if (err instanceof twilio.RestException) {
    const why =
      err.code === ERROR_UNSUBSCRIBED
        ? ' — the recipient replied STOP and must text START before askgate can reach them'
        : '';
    return new ChannelError(
      'twilio',
      'refused',
      `Twilio refused the message: ${err.code ?? err.status} ${err.message}${why}`,
      null,
      { cause: err },
    );
  }
  return new ChannelError(
    'twilio',
    'network',
    `could not reach the Twilio API: ${err instanceof Error ? err.message : String(err)}`,
    null,
    { cause: err },
  );
}
