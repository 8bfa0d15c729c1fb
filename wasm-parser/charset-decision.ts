// Which charset the scan decodes with, as the bytes and the page's own declarations come in
// (the order is charset.ts's). The basis of the choice is the state:
//   undecided  ─first block─────────────────► bom (final) | valid-utf8 (tentative)
//   valid-utf8 ─the bytes are not UTF-8─────► http | meta (final) | default (tentative)
//   default    ─the page declares a charset─► meta (final; a re-scan unless it is the one in use)
// While the choice is tentative the source blocks are held: a switch re-scans them from the start.
// Each switch moves down charset.ts's order, so a document is re-scanned at most twice.

import type { Block } from './block-splitter.js';
import { type CharsetBasis, encodingForDeclaredLabel, encodingForLabel, sniffBom, utf8Evidence } from './charset.js';

export interface CharsetChoice {
  charset: string;
  basis: CharsetBasis;
  /** Bytes of a byte order mark at the start of the stream, which are not text. */
  bomLength: number;
}

/** A switch to take: the new choice and the source blocks to scan again under it. */
export interface CharsetSwitch {
  choice: CharsetChoice;
  replay: Uint8Array[];
}

const isTentative = (basis: CharsetBasis): boolean => basis === 'valid-utf8' || basis === 'default';

/** A charset other than UTF-8, which UTF-8 bytes can disprove but not replace. */
const usable = (name: string | null): name is string => name !== null && name !== 'utf-8';

export class CharsetDecision {
  private readonly httpCharset: string | null;
  private current: CharsetChoice | null = null;
  private held: Uint8Array[] = [];
  private next: CharsetChoice | null = null;

  /** `httpLabel`: the charset parameter of the HTTP Content-Type, one source. */
  constructor(httpLabel: string | null | undefined) {
    this.httpCharset = httpLabel === null || httpLabel === undefined ? null : encodingForLabel(httpLabel);
  }

  /** The charset in use; UTF-8 before the first block. */
  get charset(): string {
    return this.current?.charset ?? 'utf-8';
  }

  /** True when a switch is waiting for the scanner (takeSwitch). */
  get switching(): boolean {
    return this.next !== null;
  }

  /** The first decision, on the first block: a BOM decides for good, else UTF-8 until disproved. */
  begin(first: Uint8Array): CharsetChoice {
    const bom = sniffBom(first);
    const choice: CharsetChoice =
      bom === null ? { charset: 'utf-8', basis: 'valid-utf8', bomLength: 0 } : { charset: bom.charset, basis: 'bom', bomLength: bom.length };
    this.current = choice;
    return choice;
  }

  /** Keeps a source block while the choice can still change (a copy when its bytes do not last). */
  hold(block: Block): void {
    if (this.current === null || !isTentative(this.current.basis)) return;
    // A copy, and a plain Uint8Array: a Buffer's slice() is a view into the caller's memory, and
    // Uint8Array's slice() on a Buffer builds another Buffer, several times slower than the copy.
    this.held.push(block.lifetime === 'lasting' ? block.bytes : new Uint8Array(block.bytes));
  }

  /**
   * The bytes proved not to be UTF-8 (`declaredLabel`: the page's first charset declaration so
   * far). A declared charset other than UTF-8 is taken (HTTP first); a UTF-8 label the bytes
   * disprove comes after the other label. With UTF-8 the only label, UTF-8 is kept, lossy, when
   * the bytes held so far are mostly UTF-8 (more valid multi-byte sequences than bad bytes: a stray
   * byte in a UTF-8 page reads better as one U+FFFD than as windows-1252 mojibake); windows-1252
   * text labelled UTF-8 has no valid multi-byte sequence at all. Both of those stay tentative: a
   * later `<meta>` naming another charset decides.
   */
  disproveUtf8(declaredLabel: string | null): void {
    this.next = this.afterInvalidUtf8(declaredLabel === null ? null : encodingForDeclaredLabel(declaredLabel));
  }

  /**
   * The page's first charset declaration so far (`label`), looked at after every write. Only the
   * tentative default listens: there the page's own declaration decides (charset.ts 4).
   */
  pageDeclared(label: string | null): void {
    if (label === null || this.current?.basis !== 'default' || this.next !== null) return;
    const declared = encodingForDeclaredLabel(label);
    if (!usable(declared)) return;
    if (declared !== this.current.charset) {
      this.next = { charset: declared, basis: 'meta', bomLength: 0 };
    } else {
      // The page declares the charset already in use: settled, nothing to re-scan.
      this.current = { ...this.current, basis: 'meta' };
      this.held = [];
    }
  }

  /** Takes the waiting switch: the new choice, and the held blocks to scan again under it. */
  takeSwitch(): CharsetSwitch | null {
    const choice = this.next;
    if (choice === null) return null;
    this.next = null;
    const replay = this.held;
    this.current = choice;
    // Only a tentative choice can change again; after a final one nothing is re-scanned.
    if (!isTentative(choice.basis)) this.held = [];
    return { choice, replay };
  }

  /** Drops the held blocks (the scan is over). */
  clear(): void {
    this.held = [];
  }

  private afterInvalidUtf8(declared: string | null): CharsetChoice {
    if (usable(this.httpCharset)) return { charset: this.httpCharset, basis: 'http', bomLength: 0 };
    if (usable(declared)) return { charset: declared, basis: 'meta', bomLength: 0 };
    if (this.httpCharset === 'utf-8' || declared === 'utf-8') {
      const evidence = utf8Evidence(this.held);
      if (evidence.multiByte > evidence.invalid) return { charset: 'utf-8', basis: 'default', bomLength: 0 };
    }
    return { charset: 'windows-1252', basis: 'default', bomLength: 0 };
  }
}
