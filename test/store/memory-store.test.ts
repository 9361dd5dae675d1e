import { MemoryStore } from '../../src/store/memory-store.js';
import { runAuditContract } from './audit-contract.js';
import { runStoreContract } from './contract.js';
import { runSurfacesContract } from './surfaces-contract.js';

runStoreContract('MemoryStore', async (options) => {
  const store = new MemoryStore(options);
  return {
    store,
    cleanup: () => store.close(),
    recipientIndexes: async () => recipientIndexes(store),
    deliveryLookups: async () => deliveryLookups(store),
  };
});

runAuditContract('MemoryStore', async (options) => {
  const store = new MemoryStore(options);
  return {
    store,
    cleanup: () => store.close(),
    recipientIndexes: async () => recipientIndexes(store),
    deliveryLookups: async () => deliveryLookups(store),
  };
});

runSurfacesContract('MemoryStore', async (options) => {
  const store = new MemoryStore(options);
  return {
    store,
    cleanup: () => store.close(),
    recipientIndexes: async () => recipientIndexes(store),
    deliveryLookups: async () => deliveryLookups(store),
  };
});

/** The memory store's recipient index map (private; keys are `<channel>\n<recipient>`), as `<channel>:<recipient>`. */
function recipientIndexes(store: MemoryStore): string[] {
  const map = (store as unknown as { recipients: Map<string, unknown> }).recipients;
  return [...map.keys()].map((k) => k.replace('\n', ':'));
}

/** The memory store's delivery lookup (private; keys are `<channel>\n<ref>`), as `<channel>:<ref>`. */
function deliveryLookups(store: MemoryStore): string[] {
  const map = (store as unknown as { deliveries: Map<string, unknown> }).deliveries;
  return [...map.keys()].map((k) => k.replace('\n', ':')).sort();
}
