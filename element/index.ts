// Entry of component.js: defines <linkpeek-preview> once, even if the module is loaded twice
// under different URLs.
import { LinkPeekPreview } from './preview-element.js';

if (!customElements.get('linkpeek-preview')) customElements.define('linkpeek-preview', LinkPeekPreview);

export { LinkPeekPreview };
