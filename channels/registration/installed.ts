/**
 * The installed channels: one line each. Adding a channel is adding its line here (docs/adding-a-channel.md); the
 * gateway builds, registers and mounts every channel listed, knowing none of them by name.
 */
export { discord } from '../discord/channel.js';
export { email } from '../email/channel.js';
export { slack } from '../slack/channel.js';
export { telegram } from '../telegram/channel.js';
export { twilio } from '../twilio/channel.js';
export { web } from '../web/channel.js';
export { whatsapp } from '../whatsapp/channel.js';
export { teams } from '../teams/channel.js';
