// What a stored extraction must look like to be served, and the version its shared-store key
// carries. The version is derived from openapi.yaml's Metadata schema (as generated), so a new or
// changed Metadata field changes the key and no instance serves an entry written before it; the
// number before it names the rules that fill the fields (bump it when a field's meaning changes
// with the same schema). An entry read back is also checked against the schema before use: a
// store shared with other versions, or edited by hand, never hands out a wrong shape.

import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import * as schemas from '../../generated/schemas.gen.js';

/** The rules version: 4 since the `url` no longer keeps the requester's fragment and entries carry `expiresAt`. */
const RULES = 4;

/** The generated schemas, by name as openapi.yaml's components spell them. */
export const COMPONENTS: Record<string, unknown> = Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name.replace(/Schema$/, ''), schema]));

/** The schema without what does not change a value's shape (prose and examples). */
function shapeOf(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(shapeOf);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => key !== 'description' && key !== 'example' && key !== 'examples')
      .map(([key, value]) => [key, shapeOf(value)]),
  );
}

/** The components a Metadata is made of: Metadata and everything it refers to, in a fixed order. */
const METADATA_PARTS = ['Metadata', 'ImageMetadata', 'Embed', 'SafetyTag', 'FailureReason'] as const;

/**
 * `x4.` and 8 hex digits of the SHA-256 of the shape of the Metadata schema among `components`
 * (the generated schemas by name).
 */
export function extractionVersion(components: Record<string, unknown>): string {
  const shape = JSON.stringify(METADATA_PARTS.map((name) => shapeOf(components[name])));
  return `x${RULES}.${createHash('sha256').update(shape).digest('hex').slice(0, 8)}`;
}

/** This build's version, in every shared-store key of an extraction. */
export const EXTRACTION_VERSION = extractionVersion(COMPONENTS);

const ENTRY = {
  oneOf: [
    {
      type: 'object',
      required: ['ok', 'og', 'twitter', 'expiresAt'],
      properties: {
        ok: { enum: [true] },
        og: { $ref: 'openapi#/components/schemas/Metadata' },
        twitter: { $ref: 'openapi#/components/schemas/Metadata' },
        expiresAt: { type: 'number' },
      },
    },
    {
      type: 'object',
      required: ['ok', 'code', 'reason', 'expiresAt'],
      properties: {
        ok: { enum: [false] },
        code: { enum: ['FETCH_FAILED', 'FETCH_TIMEOUT'] },
        reason: { type: 'string' },
        failure: {
          type: 'object',
          required: ['reason', 'message'],
          properties: { reason: { $ref: 'openapi#/components/schemas/FailureReason' }, message: { type: 'string' } },
        },
        expiresAt: { type: 'number' },
      },
    },
  ],
};

let validator: ValidateFunction | null = null;

/**
 * The check of a stored entry: true when `value` (parsed from a store) is an Extraction of this
 * version's shape. Ajv is loaded and the schema compiled by the first call, synchronously, so a
 * shared store pays for it when it is made, before the service listens, and no read waits for it
 * within the store's deadline; the library, which keeps its entries in memory, never loads it.
 */
export function storedExtractionCheck(): (value: unknown) => boolean {
  if (!validator) {
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    // Formats (uri) are the answer's business, checked where it is made; the shape is what matters here.
    const ajv = new Ajv({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'openapi', components: { schemas: COMPONENTS } });
    validator = ajv.compile(ENTRY);
  }
  const validate = validator;
  return (value) => validate(value);
}
