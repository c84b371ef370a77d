/**
 * `npm run openapi`: writes docs/openapi.json (served at `GET /openapi.json`) from the routes'
 * schemas, and client/src/schema.ts, the typed client's types, from that document.
 * `npm run openapi -- --check` writes nothing and fails when either file is stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { generateDocument } from '../shared/openapi/collect';
import { documentTypes } from '../shared/openapi/typescript';

const check = process.argv.includes('--check');
const doc = await generateDocument();
const outputs = [
  { path: 'docs/openapi.json', text: `${JSON.stringify(doc, null, 2)}\n` },
  { path: 'client/src/schema.ts', text: documentTypes(doc) },
];
let stale = false;
for (const { path, text } of outputs) {
  const current = await readFile(path, 'utf8').catch(() => '');
  if (current === text) {
    console.log(`${path} is current`);
  } else if (check) {
    console.error(`${path} is stale: run npm run openapi`);
    stale = true;
  } else {
    await writeFile(path, text);
    console.log(`wrote ${path} (${text.length} bytes)`);
  }
}
if (stale) process.exit(1);
