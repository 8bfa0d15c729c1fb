// One upstream fetch for concurrent requests of one image (keyed by its URL without the fragment,
// which never reaches the server), as /v1/metadata shares a page fetch. The fetch is charged to
// the client that started it; those who join share it free.
//
// Who may join: every request that comes while the image is being fetched and checked, and until
// the flight has read past its first chunk. Each member gets its own stream of the same bytes.
// Past that point a newcomer starts its own flight: sharing a body already half sent would mean
// keeping it, and memory stays bounded instead.
//
// Bounded memory, and no member slows the others: the upstream is read as fast as the fastest
// member reads; a member more than MAX_LAG_BYTES behind it leaves the flight and goes on with a
// fetch of its own (own-fetch.ts), so a flight holds at most that much per member, and a slow
// client is never worse off for having shared. A member going away never ends the others' fetch:
// the upstream is closed when the last one has gone.

import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { FetchFailed } from '../errors.js';
import type { ProxyImageFormat } from '../fetch/policy.js';
import type { ByteScheduler } from './byte-scheduler.js';
import { OwnFetch, type ByteSource } from './own-fetch.js';

/** An upstream image, checked and ready to stream (proxy.ts openImage). */
export interface OpenedImage {
  format: ProxyImageFormat;
  /** The byte count to announce as Content-Length, or null (chunked). */
  length: number | null;
  /** Upstream headers passed on to the client. */
  headers: Record<string, string>;
  /** The body's bytes, with every check of the stream; throws to abort the clients' connections. */
  bytes: AsyncGenerator<Uint8Array>;
  /** Closes the upstream at once (idempotent). */
  close(): void;
}

/** What one request gets: the image, and its own stream of its bytes. */
export interface Joined {
  /** Rejects with the flight's error (ProxyRejected, FetchFailed, FetchTimeout) for every member alike. */
  ready: Promise<{ image: OpenedImage; body: Readable }>;
  /**
   * The member went away. Before its stream exists this counts it out of the flight; after, the
   * stream's destruction does (Koa destroys a body whose response closed), and leave() does nothing.
   */
  leave(): void;
}

/** How far one member may fall behind the fastest before it goes on with a fetch of its own. */
const MAX_LAG_BYTES = 256 * 1024;
/** Chunk size of the streams towards the clients. */
const STREAM_HIGH_WATER_MARK = 64 * 1024;

/** A member of a flight: whose request it is (its bytes are charged to it) and how it fetches the image alone. */
export interface Member {
  client: string;
  open: (signal: AbortSignal) => Promise<OpenedImage>;
}

export class ImageFlights {
  private readonly joinable = new Map<string, Flight>();

  /** `scheduler` gives each chunk its turn (byte-scheduler.ts). */
  constructor(private readonly scheduler: ByteScheduler) {}

  /**
   * Joins the flight of `key`, or starts one with `member.open` (given the signal that aborts it
   * once every member has gone). A flight's bytes are charged to the client that started it, as
   * its fetch is.
   */
  join(key: string, member: Member): Joined {
    let flight = this.joinable.get(key);
    if (flight === undefined) {
      const started: Flight = new Flight(member, this.scheduler, () => {
        if (this.joinable.get(key) === started) this.joinable.delete(key);
      });
      flight = started;
      this.joinable.set(key, flight);
    }
    return flight.join(member);
  }

  /** Flights that may still be joined (for tests and metrics). */
  get size(): number {
    return this.joinable.size;
  }

  /** Members of the joinable flight of `key`. */
  members(key: string): number {
    return this.joinable.get(key)?.members ?? 0;
  }
}

class Flight implements ByteSource {
  members = 0;
  private readonly controller = new AbortController();
  private readonly opened: Promise<OpenedImage>;
  private image: OpenedImage | null = null;
  private readonly streams = new Set<Readable>();
  /**
   * Streams that asked for data (their read()) and have not been pushed a chunk since. Node calls a
   * stream's read() once and not again until it is pushed to, and may call it while the chunk being
   * consumed still counts in readableLength, so asking whether a stream has room would leave a
   * stream that asked with a buffer just at its mark waiting for a push that never comes.
   */
  private readonly wanting = new Set<Readable>();
  /** Each member's own way to fetch the image (charged to its client), should it leave the flight. */
  private readonly memberOf = new Map<Readable, Member>();
  /** Members that left the flight for a fetch of their own: their streams' source from then on. */
  private readonly ownFetches = new WeakMap<Readable, OwnFetch>();
  private first: Uint8Array | null = null;
  /** Bytes pulled so far, and their CRC-32: what a member that leaves has been sent. */
  private offset = 0;
  private crc = 0;
  private pulls = 0;
  private pulling = false;
  private finished = false;

  private readonly client: string;

  constructor(
    starter: Member,
    private readonly scheduler: ByteScheduler,
    private readonly closeToNewcomers: () => void,
  ) {
    this.client = starter.client;
    this.opened = starter.open(this.controller.signal);
    this.opened.then(
      (image) => {
        this.image = image;
        if (this.members === 0) this.end();
      },
      () => this.closeToNewcomers(), // the error is every member's, through `ready`
    );
  }

  join(member: Member): Joined {
    this.members++;
    // Each member is counted out once: by leave() while it waits, by its stream once it has one.
    let state: 'waiting' | 'streaming' | 'left' = 'waiting';
    const subscribe = (image: OpenedImage) => {
      if (state === 'left') throw new FetchFailed('the client went away', { pageFailure: false });
      state = 'streaming';
      return { image, body: this.subscribe(member) };
    };
    // Once the image is open, a newcomer's stream exists at once, so that no chunk pulled from
    // here on can miss it; before, every member's stream is made as the image opens, before any pull.
    const ready = this.image !== null ? Promise.resolve(subscribe(this.image)) : this.opened.then(subscribe);
    return {
      ready,
      leave: () => {
        if (state !== 'waiting') return;
        state = 'left';
        this.memberGone();
      },
    };
  }

  private subscribe(member: Member): Readable {
    const stream: Readable = new Readable({
      highWaterMark: STREAM_HIGH_WATER_MARK,
      read: () => (this.ownFetches.get(stream) ?? this).want(stream),
      destroy: (err, callback) => {
        (this.ownFetches.get(stream) ?? this).gone(stream);
        callback(err);
      },
    });
    this.memberOf.set(stream, member);
    if (this.first !== null) stream.push(this.first);
    this.streams.add(stream);
    return stream;
  }

  want(stream: Readable): void {
    this.wanting.add(stream);
    this.pump();
  }

  gone(stream: Readable): void {
    this.wanting.delete(stream);
    this.memberOf.delete(stream);
    if (this.streams.delete(stream)) this.memberGone();
  }

  /** The member of `stream` leaves the flight with what it was sent so far, and fetches the rest itself. */
  private detach(stream: Readable): void {
    const member = this.memberOf.get(stream)!;
    this.gone(stream);
    this.ownFetches.set(stream, new OwnFetch(stream, member, this.scheduler, this.image!, this.offset, this.crc));
  }

  /** Reads the upstream while any member wants more; each chunk goes to every member. */
  private pump(): void {
    if (this.pulling || this.finished || this.image === null) return;
    this.pulling = true;
    const bytes = this.image.bytes;
    void (async () => {
      try {
        while (!this.finished && this.wanting.size > 0) {
          const next = await bytes.next();
          if (++this.pulls >= 2) this.closeToNewcomers();
          if (next.done) {
            this.finished = true;
            this.closeToNewcomers();
            for (const s of this.streams) s.push(null);
            return;
          }
          // The chunk's turn among every client's proxied bytes; the upstream is not read meanwhile.
          await this.scheduler.send(this.client, next.value.length);
          if (this.finished) return;
          if (this.pulls === 1) this.first = next.value;
          for (const s of [...this.streams]) {
            if (s.readableLength > MAX_LAG_BYTES) this.detach(s);
            else {
              this.wanting.delete(s); // before the push, which may ask again at once
              s.push(next.value);
            }
          }
          this.offset += next.value.length;
          // Only a flight with two members can leave one behind, and after its first chunk it takes
          // no newcomer: a flight down to one member never needs the sum again (it would cost
          // about a third of the proxy's CPU per byte).
          if (this.pulls === 1 || this.streams.size > 1) this.crc = crc32(next.value, this.crc);
        }
      } catch (err) {
        this.finished = true;
        this.closeToNewcomers();
        for (const s of [...this.streams]) s.destroy(err as Error);
      } finally {
        this.pulling = false;
      }
    })();
  }

  private memberGone(): void {
    if (--this.members > 0) return;
    this.end();
  }

  /** Nobody is left: the upstream closes, or the fetch is aborted if it has not answered yet. */
  private end(): void {
    this.finished = true;
    this.closeToNewcomers();
    if (this.image) this.image.close();
    else this.controller.abort(new FetchFailed('every client went away', { pageFailure: false }));
  }
}
