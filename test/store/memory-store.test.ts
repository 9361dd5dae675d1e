import { MemoryStore } from '../../src/store/memory-store.js';
import { runAuditContract } from './audit-contract.js';
import { runStoreContract } from './contract.js';
import { runSurfacesContract } from './surfaces-contract.js';

runStoreContract('MemoryStore', async (options) => {
  const store = new MemoryStore(options);
  return { store, cleanup: () => store.close(), recipientIndexes: async () => recipientIndexes(store) };
});

runAuditContract('MemoryStore', async (options) => {
  const store = new MemoryStore(options);
  return { store, cleanup: () => store.close(), recipientIndexes: async () => recipientIndexes(store) };
});

runSurfacesContract('MemoryStore', async (options) => {
  const store = new MemoryStore(options);
  return { store, cleanup: () => store.close(), recipientIndexes: async () => recipientIndexes(store) };
});

/** The memory store's recipient index map (private; keys are `<channel>\n<recipient>`), as `<channel>:<recipient>`. */
function recipientIndexes(store: MemoryStore): string[] {
  const map = (store as unknown as { recipients: Map<string, unknown> }).recipients;
  return [...map.keys()].map((k) => k.replace('\n', ':'));
}
