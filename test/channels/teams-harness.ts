import { startPlatformWorld, type PlatformWorld } from './platform-world.js';
import { startFakeTeams, type FakeTeams, type FakeTeamsMessage } from '../fakes/teams-server.js';

export interface TeamsWorld extends PlatformWorld<FakeTeams> {
  /** Asks on Teams (a fresh personal chat the bot was installed in, unless the body names a recipient). */
  ask(body: Record<string, unknown>): Promise<{ id: string; message: FakeTeamsMessage; conversation: string }>;
  /** A fresh conversation with the bot installed (askgate has seen it). */
  conversation(type?: 'personal' | 'channel'): Promise<string>;
  /** Waits until the question message has been replaced at least `versions - 1` times. */
  edited(message: FakeTeamsMessage, versions?: number): Promise<FakeTeamsMessage>;
}

let seq = 0;
/** A fresh conversation id per question keeps one test's per-conversation pacing from slowing the next. */
export const freshConversation = (type: 'personal' | 'channel' = 'personal'): string =>
  type === 'channel' ? `19:askgate-${Date.now()}-${++seq}@thread.tacv2` : `a:1askgate-${Date.now()}-${++seq}`;

export async function startTeamsWorld(env: Record<string, string> = {}): Promise<TeamsWorld> {
  const fake = await startFakeTeams();
  const world = await startPlatformWorld(fake, {
    TEAMS_APP_ID: fake.appId,
    TEAMS_APP_PASSWORD: fake.appPassword,
    TEAMS_TENANT_ID: fake.tenantId,
    TEAMS_LOGIN_URL: fake.loginUrl,
    TEAMS_OPENID_METADATA_URL: fake.metadataUrl,
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    ...env,
  });
  fake.useGateway(world.gw.url);
  const conversation = async (type: 'personal' | 'channel' = 'personal'): Promise<string> => {
    const id = freshConversation(type);
    const installed = await fake.install(id, type);
    if (installed.status !== 200) throw new Error(`the install was refused: ${JSON.stringify(installed)}`);
    return id;
  };
  return {
    ...world,
    conversation,
    async ask(body) {
      const recipient = typeof body['recipient'] === 'string' ? body['recipient'] : await conversation();
      const { id, message } = await world.askDelivered({ channel: 'teams', ...body, recipient }, (delivery) =>
        fake.message(delivery['conversation_id'] ?? '', delivery['activity_id'] ?? ''),
      );
      return { id, message, conversation: recipient };
    },
    async edited(message, versions = 2) {
      const deadline = Date.now() + 5000;
      while (message.history.length < versions) {
        if (Date.now() > deadline) throw new Error('the question message was never replaced');
        await new Promise((r) => setTimeout(r, 20));
      }
      return message;
    },
  };
}
