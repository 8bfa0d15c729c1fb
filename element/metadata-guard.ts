// data-meta comes from the embedding page and the API answer crosses the network: both are
// checked against the Metadata schema (openapi.yaml) before anything is rendered. A value that
// is not valid Metadata yields null, which the element shows as its error state.
import { SafetyTagSchema } from '../generated/schemas.gen.js';
import type { ImageMetadata, Metadata, SafetyTag } from '../generated/types.gen.js';

export const SAFETY_TAGS: readonly SafetyTag[] = SafetyTagSchema.enum;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v == 'object' && v != null && !Array.isArray(v);
const isOptional = (v: unknown, type: 'string' | 'number') => v == null || typeof v == type;
const isStringMap = (v: unknown) => isObject(v) && Object.values(v).every((s) => typeof s == 'string');

function isImage(v: unknown): v is ImageMetadata {
  return (
    isObject(v) &&
    isOptional(v.url, 'string') &&
    isOptional(v.type, 'string') &&
    isOptional(v.width, 'number') &&
    isOptional(v.height, 'number') &&
    isOptional(v.size, 'number') &&
    (v.cors_safe === undefined || typeof v.cors_safe == 'boolean')
  );
}

export function isMetadata(v: unknown): v is Metadata {
  return (
    isObject(v) &&
    typeof v.url == 'string' &&
    isOptional(v.title, 'string') &&
    isOptional(v.description, 'string') &&
    isOptional(v.type, 'string') &&
    isImage(v.image) &&
    isImage(v.favicon) &&
    isStringMap(v.og) &&
    isStringMap(v.twitter) &&
    (v.safety_tags === undefined ||
      (Array.isArray(v.safety_tags) && v.safety_tags.every((t: unknown) => (SAFETY_TAGS as readonly unknown[]).includes(t))))
  );
}

/** Metadata from a data-meta attribute, or null when it is not JSON or not Metadata. */
export function parseMetadata(json: string): Metadata | null {
  try {
    const value: unknown = JSON.parse(json);
    return isMetadata(value) ? value : null;
  } catch {
    return null;
  }
}
