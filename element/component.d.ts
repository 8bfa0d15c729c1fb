// The types of the package entry `linkpeek/element` (dist/element/component.js): importing it
// defines <linkpeek-preview> once. Copied beside component.js by the build (vite.config.ts);
// test/element/package.test.ts type-checks an app against it.

/** A link-preview card; its attributes are read from `dataset` (data-url, data-meta, ...). */
export declare class LinkPeekPreview extends HTMLElement {
  static observedAttributes: string[];
  connectedCallback(): void;
  disconnectedCallback(): void;
  attributeChangedCallback(): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'linkpeek-preview': LinkPeekPreview;
  }
}
