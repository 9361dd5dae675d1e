// dist/cjs holds the CommonJS build beside the ES module one: its own package.json marks its .js and .d.ts files as
// CommonJS (the package's "type" is "module"), so Node loads them with require and TypeScript types them as such.
import { writeFileSync } from 'node:fs';

writeFileSync(new URL('../dist/cjs/package.json', import.meta.url), `${JSON.stringify({ type: 'commonjs' })}\n`);
