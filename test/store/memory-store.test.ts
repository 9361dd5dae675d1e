import { MemoryStore } from '../../src/store/memory-store.js';
import { runAuditContract } from './audit-contract.js';
import { runStoreContract } from './contract.js';
import { runSurfacesContract } from './surfaces-contract.js';

runStoreContract('MemoryStore', async (options) => {
  const store = new MemoryStore(options);
  return { store, cleanup: () => store.close() };
});

runAuditContract('MemoryStore', async (options) => {
  const store = new MemoryStore(options);
  return { store, cleanup: () => store.close() };
});

runSurfacesContract('MemoryStore', async (options) => {
  const store = new MemoryStore(options);
  return { store, cleanup: () => store.close() };
});
