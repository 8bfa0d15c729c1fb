// The package's entry point (package.json "exports"): the engine in-process. README "As a library".

export { createLinkPeek, type LinkPeek, type MetadataOptions } from './engine/linkpeek.js';
export type { ExtractHtmlOptions } from './engine/extract-html.js';
export type { LinkPeekOptions } from './engine/options.js';
export { PreviewError, type PreviewErrorReason } from './engine/preview-error.js';
export { ConfigError } from './config.js';
export type { FieldProblem } from './errors.js';
export type { Prefer } from './metadata/service-types.js';
export type { FailureReason, ImageMetadata, Metadata, SafetyTag } from '../generated/types.gen.js';
