/**
 * WhatsApp Cloud API numbers, in one place. Render code checks against these and names the limit it hit.
 * Sources: https://developers.facebook.com/docs/whatsapp/cloud-api/messages/interactive-reply-buttons-messages,
 * .../interactive-list-messages, .../flows/reference/flowjson and .../flows/reference/components.
 */

/** Body text of a plain text message. */
export const TEXT_BODY_MAX = 4096;
/** Body text of an interactive message (buttons, list, flow). */
export const INTERACTIVE_BODY_MAX = 1024;
/** Reply buttons per interactive message. */
export const REPLY_BUTTONS_MAX = 3;
/** Title of a reply button. */
export const BUTTON_TITLE_MAX = 20;
/** The id a button or row carries back (`button_reply.id`, `list_reply.id`). */
export const REPLY_ID_MAX = 256;
/** Rows over all sections of a list message. */
export const LIST_ROWS_MAX = 10;
/** Title of a list row. */
export const ROW_TITLE_MAX = 24;
/** Description of a list row (askgate puts the rest of a long choice there). */
export const ROW_DESCRIPTION_MAX = 72;
/** The label of the button that opens a list. */
export const LIST_BUTTON_MAX = 20;
/** The call-to-action of a flow message. */
export const FLOW_CTA_MAX = 20;
/** Caption of a media message (the question over an image, or a template parameter). */
export const CAPTION_MAX = 1024;

/** Flow JSON: a TextInput / Dropdown / DatePicker label. */
export const FLOW_LABEL_MAX = 20;
/** Flow JSON: a RadioButtonsGroup / CheckboxGroup label. */
export const FLOW_GROUP_LABEL_MAX = 30;
/** Flow JSON: helper-text under an input (askgate puts a clipped label's full words there). */
export const FLOW_HELPER_TEXT_MAX = 80;
/** Flow JSON: an OptIn label. */
export const FLOW_OPT_IN_LABEL_MAX = 120;
/** Flow JSON: the title of a data-source option (Dropdown, RadioButtonsGroup, CheckboxGroup). */
export const FLOW_OPTION_TITLE_MAX = 30;
/** Flow JSON: options of a Dropdown. */
export const FLOW_DROPDOWN_OPTIONS_MAX = 200;
/** Flow JSON: options of a RadioButtonsGroup or CheckboxGroup. */
export const FLOW_GROUP_OPTIONS_MAX = 20;
/** Flow JSON: components on one screen. */
export const FLOW_COMPONENTS_MAX = 50;
/** Flow JSON: a screen title. */
export const FLOW_SCREEN_TITLE_MAX = 30;
/** Flow JSON: a TextBody / TextHeading text. */
export const FLOW_TEXT_BODY_MAX = 4096;
/** Flow JSON: the Footer label. */
export const FLOW_FOOTER_LABEL_MAX = 35;

/** Hours after the person's last message during which free-form messages may be sent (the customer-service window). */
export const SERVICE_WINDOW_HOURS = 24;

/** Graph error codes askgate reacts to. */
export const ERROR_RE_ENGAGEMENT = 131047; // outside the 24-hour window: only a template may be sent
export const ERROR_THROUGHPUT = 130429; // the phone number's messages-per-second budget
export const ERROR_PAIR_RATE = 131056; // too many messages to one recipient in a short time
/** Cloud API throughput of one business phone number (messages per second, every process together). */
export const MESSAGES_PER_SECOND = 80;
/** The least gap askgate leaves between two sends to one recipient (Meta's pair rate limit, 131056, allows bursts). */
export const PER_RECIPIENT_INTERVAL_MS = 1000;
/** Retries of a throttled send (130429, 131056) before the refusal is reported. */
export const THROTTLE_RETRIES = 2;
/** Wait before the first retry of a throttled send; doubles each time. */
export const THROTTLE_BASE_DELAY_MS = 1000;

/** The one render-limit error of every channel (channels/limits.ts). */
export { RenderLimitError } from '../limits.js';
