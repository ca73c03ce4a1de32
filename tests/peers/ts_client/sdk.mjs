// Load the pinned TypeScript SDK from the peers cache (.peers/node_modules, see tests/peers/install.sh).
// The cache lives outside this folder, so bare specifiers would not resolve; import by path.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const NODE_MODULES = process.env.PEERS_NODE_MODULES ?? join(here, '..', '..', '..', '.peers', 'node_modules');
const esm = (rel) => import(pathToFileURL(join(NODE_MODULES, '@modelcontextprotocol', 'sdk', 'dist', 'esm', rel)).href);

export const { Client } = await esm('client/index.js');
export const { StdioClientTransport } = await esm('client/stdio.js');
export const { StreamableHTTPClientTransport } = await esm('client/streamableHttp.js');
export const types = await esm('types.js');
