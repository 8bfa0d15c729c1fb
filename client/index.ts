// The SDK for client apps: `import { getMetadata, createClient } from 'linkpeek/client'`.
// Everything here comes from openapi.yaml through generated/ (never edited by hand).
export * from '../generated/index.js';
export { client } from '../generated/client.gen.js';
export { createClient, createConfig } from '../generated/client/index.js';
export type { Client, Config } from '../generated/client/index.js';
