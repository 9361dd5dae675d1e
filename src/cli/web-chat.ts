import { Command } from 'commander';
import { clientFrom, type GlobalOptions } from './context.js';

/** `askgate web-chat link RECIPIENT`: mints the link a person opens to chat with askgate as RECIPIENT. */
export function webChatCommand(): Command {
  const webChat = new Command('web-chat').description('the web chat: links for people to open (write scope)');
  webChat
    .command('link')
    .description('mint the chat link for RECIPIENT; prints the URL (the sign-in token rides in its fragment)')
    .argument('<recipient>', 'the web chat address questions are asked to with channel "web"')
    .option('--json', 'print {"recipient", "token", "url"} as JSON')
    .addHelpText(
      'after',
      `
Examples:
  $ askgate web-chat link ada
  $ askgate interactions ask "Ship it?" --format confirm --channel web --recipient ada --wait

Hand the URL to that person only: whoever holds it answers as RECIPIENT. Rotating ASKGATE_TOKENS revokes every link.
`,
    )
    .action(async (recipient: string, options: { json?: boolean }, command: Command) => {
      const client = clientFrom(command.optsWithGlobals<GlobalOptions>());
      const minted = await client.request<{ recipient: string; token: string; url: string }>(
        'POST',
        '/api/channels/web/links',
        { recipient },
      );
      // Without INTERACTIONS_PUBLIC_BASE_URL the gateway mints a relative link: complete it with the address used.
      const link = { ...minted, url: new URL(minted.url, `${client.url}/`).toString() };
      process.stdout.write(options.json === true ? `${JSON.stringify(link)}\n` : `${link.url}\n`);
    });
  return webChat;
}
