import type { CompiledFlow } from './flow.js';
import type { GraphClient } from './graph-client.js';

/**
 * Publishes each distinct form once through the Flows API (create a draft, upload its Flow JSON, publish) and
 * remembers the flow id by the compiled flow's name. A published flow can never change, and its name is a hash of its
 * JSON, so reusing one is always right: after a restart the first form of a schema finds its flow by name instead of
 * publishing a twin. Concurrent asks with one new schema share one publication.
 */
export class FlowPublisher {
  private readonly ids = new Map<string, Promise<string>>();
  private known: Promise<Map<string, { id: string; status: string }>> | null = null;

  constructor(
    private readonly graph: GraphClient,
    private readonly businessAccountId: string,
  ) {}

  flowFor(flow: CompiledFlow): Promise<string> {
    let id = this.ids.get(flow.name);
    if (id === undefined) {
      id = this.publish(flow);
      this.ids.set(flow.name, id);
      // A failed publication is forgotten, so the next ask tries again instead of failing forever.
      id.catch(() => this.ids.delete(flow.name));
    }
    return id;
  }

  private async publish(flow: CompiledFlow): Promise<string> {
    const existing = (await this.existing()).get(flow.name);
    if (existing?.status === 'PUBLISHED') return existing.id;
    // A draft left by a publication that failed halfway is finished rather than duplicated.
    const id = existing?.id ?? (await this.graph.createFlow(this.businessAccountId, flow.name));
    await this.graph.uploadFlowJson(id, flow.json);
    await this.graph.publishFlow(id);
    return id;
  }

  /** The account's askgate flows, read once per process (then the map above is the truth). */
  private existing(): Promise<Map<string, { id: string; status: string }>> {
    if (this.known === null) {
      this.known = this.graph
        .listFlows(this.businessAccountId)
        .then(
          (flows) =>
            new Map(
              flows.filter((f) => f.name.startsWith('askgate_')).map((f) => [f.name, { id: f.id, status: f.status }]),
            ),
        );
      this.known.catch(() => {
        this.known = null;
      });
    }
    return this.known;
  }
}
