// `npm run bench -- <name> [--quick]` runs bench/<name>.ts (docs/architecture.md §7). Each benchmark prints,
// as its last line, one JSON object {"bench": name, ...figures, "ratio": headline}.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const [name, ...rest] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
if (!name || !/^[a-z0-9-]+$/.test(name) || !existsSync(join(here, `${name}.ts`))) {
  console.error(`usage: npm run bench -- <name> [--quick]; unknown benchmark '${name ?? ''}'`);
  process.exit(2);
}
process.argv = [process.argv[0]!, join(here, `${name}.ts`), ...rest];
await import(join(here, `${name}.ts`));
