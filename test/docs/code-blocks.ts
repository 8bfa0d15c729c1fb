// The fenced code blocks of the READMEs a user reads: the repository's, the SDK's (packed with it)
// and the element's, and of CONTRIBUTING.md. Every one is checked by a test (readme-blocks.test.ts
// says which).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const READMES = ['README.md', 'client/README.md', 'element/README.md', 'CONTRIBUTING.md'] as const;

export interface CodeBlock {
  /** README path from the repository root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's info string: sh, ts, html, js… */
  lang: string;
  text: string;
}

/** The blocks of one Markdown file, in order. */
export function codeBlocks(file: string): CodeBlock[] {
  const lines = readFileSync(REPO_ROOT + file, 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    // A fence may be indented (a block inside a list item): its lines lose that indentation.
    const open = /^( *)```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const end = lines.findIndex((l, j) => j > i && /^ *```\s*$/.test(l));
    if (end === -1) throw new Error(`${file}:${i + 1}: a code block that is never closed`);
    const text = lines.slice(i + 1, end).map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)));
    blocks.push({ file, line: i + 1, lang: open[2]!, text: text.join('\n') });
    i = end;
  }
  return blocks;
}

export function readmeBlocks(): CodeBlock[] {
  return READMES.flatMap(codeBlocks);
}

/** A block that uses the engine's package (`linkpeek`), not the SDK (`linkpeek-client`). */
export function importsEngine(block: CodeBlock): boolean {
  return /from 'linkpeek'/.test(block.text) || /^npx linkpeek /m.test(block.text);
}
