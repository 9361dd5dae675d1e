import { Command } from 'commander';
import { CliError, clientFrom, type GlobalOptions, parseSeconds } from './context.js';

/**
 * `askgate mcp` (the MCP server on stdio, a client of a running gateway) and `askgate mcp-proxy` (a stdio MCP server
 * wrapped so its elicitations are answered by people through askgate). Both speak MCP on stdout, so nothing else
 * may be written there: their own words go to stderr. The MCP code loads only when one of them runs.
 */

const globals = (command: Command): GlobalOptions => command.optsWithGlobals<GlobalOptions>();

export function mcpCommand(): Command {
  return new Command('mcp')
    .description('run the MCP server on stdio: the ask_human tool, asking through the gateway at ASKGATE_URL')
    .option('--progress-seconds <s>', 'the longest gap between two progress notifications (default 10)', parseSeconds)
    .option('--preset <name...>', 'also offer this preset as the tool preset_<name>; repeatable')
    .addHelpText(
      'after',
      '\nIn an MCP client config:\n  {"command": "askgate", "args": ["mcp", "--preset", "refund"], ' +
        '"env": {"ASKGATE_URL": "http://127.0.0.1:8080", "ASKGATE_TOKEN": "..."}}\n',
    )
    .action(async (options: { progressSeconds?: number; preset?: string[] }, command: Command) => {
      const client = clientFrom(globals(command));
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const { createAskgateMcpServer } = await import('../mcp/server.js');
      const { clientPresetDoor, planPresetTools, registerPresetTools } = await import('../mcp/preset-tools.js');
      const inFlight = new Set<Promise<unknown>>();
      const toolOptions = {
        inFlight,
        ...(options.progressSeconds === undefined ? {} : { progressSeconds: options.progressSeconds }),
      };
      const server = createAskgateMcpServer(client, toolOptions);
      // Each named preset is read before the server speaks: one that cannot be offered stops the start, named.
      const door = clientPresetDoor(client);
      const plans = await planPresetTools(door, [...new Set(options.preset ?? [])]);
      const refused = plans.find((plan) => !plan.offered);
      if (refused !== undefined && !refused.offered)
        throw new CliError(`--preset ${refused.name} cannot be offered as a tool: ${refused.reason}`);
      registerPresetTools(server, client, door, plans, toolOptions);
      const closed = new Promise<void>((resolve) => {
        server.server.onclose = () => resolve();
      });
      await server.connect(new StdioServerTransport());
      // The client closing our stdin is the end of the session: close the server, which withdraws any question
      // still waiting (a late answer is then told 410), and only then exit.
      process.stdin.once('end', () => void server.close());
      for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void server.close());
      await closed;
      await Promise.allSettled([...inFlight]);
    });
}

export function mcpProxyCommand(): Command {
  return new Command('mcp-proxy')
    .description('run a stdio MCP server behind askgate: its elicitations are answered by people through askgate')
    .argument('<command...>', 'the MCP server to run, after --')
    .option('--channel <name>', 'the channel to ask on (the web inbox when absent)')
    .option('--recipient <address>', "the person's address on that channel (chat id, user id, phone)")
    .option(
      '--deliver <json>',
      'instead of --channel/--recipient: several surfaces at once, as JSON, ' +
        'e.g. \'[{"channel":"slack","recipient":"C01"},{"channel":"telegram","recipient":"42"}]\'',
      parseDeliver,
    )
    .option('--approver <identity...>', 'who may answer (token identity, or <channel>:<user id>); repeatable')
    .option('--timeout <s>', 'seconds a person has to answer (the gateway default when absent)', parseSeconds)
    .option('--ask-always', 'answer every elicitation through askgate, even one the client could show itself')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  $ askgate mcp-proxy --channel telegram --recipient 42 -- node my-server.js\n' +
        '  $ askgate mcp-proxy --deliver \'[{"channel":"slack","recipient":"C01"},{"channel":"telegram","recipient":"42"}]\' ' +
        '--approver slack:U01 --approver telegram:42 -- node my-server.js\n' +
        '  $ askgate mcp-proxy -- npx -y @some/mcp-server   # elicitations go to the inbox\n',
    )
    .action(
      async (
        argv: string[],
        options: {
          channel?: string;
          recipient?: string;
          deliver?: Surface[];
          approver?: string[];
          timeout?: number;
          askAlways?: boolean;
        },
        command: Command,
      ) => {
        if (options.recipient !== undefined && options.channel === undefined)
          throw new CliError('--recipient goes with --channel; name the channel to ask on.');
        if (options.deliver !== undefined && options.channel !== undefined)
          throw new CliError('--deliver names every surface itself; drop --channel and --recipient.');
        const [program, ...args] = argv;
        if (program === undefined) throw new CliError('name the MCP server to run after --, e.g. -- node server.js');
        const client = clientFrom(globals(command));
        const { startElicitationProxy } = await import('../mcp/proxy.js');
        const proxy = startElicitationProxy({
          command: program,
          args,
          client,
          route: {
            ...(options.channel === undefined ? {} : { channel: options.channel }),
            ...(options.recipient === undefined ? {} : { recipient: options.recipient }),
            ...(options.deliver === undefined ? {} : { deliver: options.deliver }),
            ...(options.approver === undefined ? {} : { approvers: options.approver }),
            ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
          },
          askAlways: options.askAlways === true,
          input: process.stdin,
          output: process.stdout,
          log: (line) => process.stderr.write(`${line}\n`),
        });
        // Stopped by a signal: leave as a client closing does, withdrawing the questions still out first.
        for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => proxy.shutdown());
        process.exitCode = await proxy.exited;
        // The server is gone; the client's pipe must not keep the proxy alive.
        process.stdin.destroy();
      },
    );
}

interface Surface {
  channel: string;
  recipient: string;
}

/** `--deliver`'s JSON: an array of `{channel, recipient}`; the gateway checks the rest (names, duplicates, size). */
function parseDeliver(raw: string): Surface[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new CliError(`--deliver is not valid JSON; give an array like '[{"channel":"slack","recipient":"C01"}]'.`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0)
    throw new CliError('--deliver must be a non-empty JSON array of {"channel", "recipient"} objects.');
  return parsed.map((item: unknown, i) => {
    const surface = item as Partial<Record<keyof Surface, unknown>> | null;
    if (typeof surface?.channel !== 'string' || typeof surface.recipient !== 'string')
      throw new CliError(`--deliver[${i}] must be {"channel": "<name>", "recipient": "<address>"} with both strings.`);
    return { channel: surface.channel, recipient: surface.recipient };
  });
}
