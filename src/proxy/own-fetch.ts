// A member that fell too far behind its flight (image-flight.ts) goes on alone: its own upstream
// fetch of the image, charged to its own client, as if it had never shared. The bytes it was
// already sent are read again and skipped, and must be the same bytes (their CRC-32 against the
// flight's): an image that changed in between would otherwise be spliced from two images, so
// then its connection is aborted, the only signal left after the 200.

import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { FetchFailed } from '../errors.js';
import type { ByteScheduler } from './byte-scheduler.js';
import type { Member, OpenedImage } from './image-flight.js';

/** Where a member's stream gets its bytes: its flight, or its own fetch once detached. */
export interface ByteSource {
  /** The stream asked for more (its read()); the source pushes when it has some. */
  want(stream: Readable): void;
  /** The stream was destroyed (its client went away, or it failed). */
  gone(stream: Readable): void;
}

/** Response headers that name one version of an image (forwarded to the client: fetch/policy.ts). */
const VALIDATORS = ['etag', 'last-modified'] as const;

export class OwnFetch implements ByteSource {
  private readonly controller = new AbortController();
  private image: OpenedImage | null = null;
  private wanted = false;
  private pulling = false;
  private done = false;
  /** CRC-32 of the bytes read again so far. */
  private crc = 0;

  /**
   * Fetches again with `member.open` for `stream`, which was sent the first `skip` bytes of `sent`,
   * of CRC-32 `sentCrc`. Every byte read is charged to `member.client` (the skipped ones too: they
   * took upstream bandwidth).
   */
  constructor(
    private readonly stream: Readable,
    private readonly member: Member,
    private readonly scheduler: ByteScheduler,
    sent: Pick<OpenedImage, 'length' | 'headers'>,
    private skip: number,
    private readonly sentCrc: number,
  ) {
    member.open(this.controller.signal).then(
      (image) => {
        this.image = image;
        if (this.done) return image.close();
        // The length the client was promised, and the validators it was sent, must hold too.
        if (image.length !== sent.length || VALIDATORS.some((name) => image.headers[name] !== sent.headers[name])) {
          return this.fail(new FetchFailed('the image changed while it was sent'));
        }
        this.pump();
      },
      (err: unknown) => this.fail(err),
    );
  }

  want(): void {
    this.wanted = true;
    this.pump();
  }

  gone(): void {
    if (this.done) return;
    this.done = true;
    if (this.image) this.image.close();
    else this.controller.abort(new FetchFailed('the client went away', { pageFailure: false }));
  }

  private pump(): void {
    const image = this.image;
    if (this.pulling || this.done || image === null || !this.wanted) return;
    this.pulling = true;
    void (async () => {
      try {
        while (!this.done && this.wanted) {
          const next = await image.bytes.next();
          if (next.done) {
            if (this.skip > 0) throw new FetchFailed('the image changed while it was sent: it is shorter now');
            this.done = true;
            this.stream.push(null);
            return;
          }
          await this.scheduler.send(this.member.client, next.value.length);
          if (this.done) return;
          const chunk = this.skip > 0 ? this.skipped(next.value) : next.value;
          if (chunk.length === 0) continue;
          this.wanted = false; // before the push, which may ask again at once
          this.stream.push(chunk);
        }
      } catch (err) {
        this.fail(err);
      } finally {
        this.pulling = false;
      }
    })();
  }

  /** What is left of `chunk` past the bytes already sent, after checking those. */
  private skipped(chunk: Uint8Array): Uint8Array {
    const seen = chunk.subarray(0, Math.min(this.skip, chunk.length));
    this.crc = crc32(seen, this.crc);
    this.skip -= seen.length;
    if (this.skip === 0 && this.crc !== this.sentCrc) throw new FetchFailed('the image changed while it was sent');
    return chunk.subarray(seen.length);
  }

  private fail(err: unknown): void {
    this.done = true;
    this.image?.close();
    if (!this.stream.destroyed) this.stream.destroy(err instanceof Error ? err : new Error(String(err)));
  }
}
