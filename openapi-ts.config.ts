import { defineConfig } from '@hey-api/openapi-ts';

// The SDK, types and JSON schemas all come from the one contract (DESIGN.md "contract").
export default defineConfig({
  input: './openapi.yaml',
  output: { path: './generated', postProcess: [] },
  plugins: ['@hey-api/typescript', '@hey-api/schemas', '@hey-api/client-fetch', '@hey-api/sdk'],
});
