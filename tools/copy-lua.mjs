// The build's last step (package.json `build`): tsc does not copy the Redis scripts, so this puts every .lua file
// of src/store/redis/scripts/ beside its compiled loader in dist/, where the loader reads them (and `npm pack`
// ships them). A .lua file left in dist/ by an earlier build, whose source is gone, is removed first.
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const source = join(root, 'src', 'store', 'redis', 'scripts');
const target = join(root, 'dist', 'src', 'store', 'redis', 'scripts');

if (existsSync(target)) {
  for (const file of readdirSync(target, { recursive: true, encoding: 'utf8' })) {
    if (file.endsWith('.lua')) rmSync(join(target, file));
  }
}
cpSync(source, target, { recursive: true, filter: (path) => !path.endsWith('.ts') });
