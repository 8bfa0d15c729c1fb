// Where pages are scanned (page-scan.ts): on a pool of worker threads, so that the event loop that
// answers requests never scans (Piscina's model, with node:worker_threads directly: each task is
// one message each way, and the queue in front of the threads is LinkPeek's own fair queue). Or
// inline, on the caller's thread, for a caller that wants no threads (the library and the CLI by
// default: one page at a time gains nothing from a thread, and a process that starts threads
// starts slower).
//
// - One slot of the fair queue (fairness/fair-queue.ts) per thread: scans wait per client, the
//   client using least first, and a client alone gets every thread. Each scan's time is charged to
//   its client in the ledger, so a client of costly pages gets fewer turns; its pages are never cut.
// - A thread more than the shared ones is kept for light clients (lightThread): a page of a client
//   weighing less than two slots in the ledger (LIGHT_SLOTS: one asking a page every 2 s weighs
//   about one, one at the rate limit's pace three), whose pages are short to scan (LIGHT_PAGE_MS,
//   LIGHT_BYTES), is scanned on it at once when it is free, and waits in the queue like any other
//   when it is not. A scan is never cut, so a page granted a shared thread waits out the scan
//   ahead of it: with one shared thread (SCAN_WORKERS on 2 cores) and 2 MB heads from 128
//   addresses, that was 50 to 90 ms of each bystander page's time. Heavy clients never reach it,
//   so it takes little CPU from the event loop while they are what is asked, and a client alone
//   still has every shared thread.
// - The bytes are transferred to the thread, not copied: the task's buffer is the caller's no more.
// - A thread that dies (an error it did not catch, its heap limit) fails only the task it was
//   running, with ScanFailed; a scan whose request gives up (its deadline) ends the thread running
//   it, in case it hangs. Either way a new thread takes its place.

import { Worker, type WorkerOptions } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScanFailed } from '../errors.js';
import type { ClientLedger } from '../fairness/client-ledger.js';
import { FairQueue } from '../fairness/fair-queue.js';
import { type PageScan, type PageScanTask, READY, type ResultMessage, scanPage } from './page-scan.js';

export interface PageScanner {
  /**
   * Scans `task` for the client with key `client` (null: the service's own). Rejects with the
   * signal's reason when it aborts first, Overloaded when the queue is full, ScanFailed when the
   * thread running it died.
   */
  scan(task: PageScanTask, client: string | null, signal: AbortSignal): Promise<PageScan>;
  /** The queue in front of the threads (for /healthz); null inline. */
  readonly queue: FairQueue | null;
  /** Resolves once every thread has started (at once inline): a service listens after it. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/** Scans on the caller's thread, one at a time as the caller awaits them. */
export function inlineScanner(): PageScanner {
  return {
    queue: null,
    ready: Promise.resolve(),
    async scan(task, _client, signal) {
      signal.throwIfAborted();
      return scanPage(task);
    },
    async close() {},
  };
}

export interface ScanPoolOptions {
  /** Threads (SCAN_WORKERS), at least 1. */
  size: number;
  /** Scans that may wait; past it the heaviest client's newest is refused (Overloaded). */
  maxQueued: number;
  /** Each scan's time is charged here to its client (shared with the fetch and lookup queues). */
  ledger: ClientLedger;
  /** The thread's module; scan-worker beside this file by default (tests give one that fails on cue). */
  workerUrl?: URL;
  /** The heap of one thread: past it the thread dies and fails its scan alone. */
  maxHeapMb?: number;
  /** A scan that has waited this long (ms) is refused, Overloaded, if refusesStale says so of its client (FairQueueOptions.maxWaitMs); 0 or absent: no bound. */
  maxWaitMs?: number;
  refusesStale?: (client: string) => boolean;
  /** Keep one more thread for the pages of light clients (see the top of this file). */
  lightThread?: boolean;
}

/**
 * A client weighing less than this in the ledger (slots) is light: its page may take the light
 * thread. A bystander asking a page every 2 s (two fresh for one cached) weighed 0.8 to 1.2 in a
 * trace of bench:fairness with both cores loaded, so that with a bound of 1 half its pages missed
 * the thread; a client asking at the rate limit's pace (2 a second) weighs 2.9 for its asks alone
 * (client-ledger.ts).
 */
const LIGHT_SLOTS = 2;

/**
 * The thread is never to be held long, so its pages must be short to scan: a client whose pages
 * lately took this long each (ms, ledger.perPage) is not light, whatever it weighs, nor is a page
 * longer than LIGHT_BYTES. A client may weigh little and still send 2 MB heads: one refused for a
 * while asks little (with both cores loaded, such a scan held the thread while a bystander's page
 * waited 530 ms in the queue). Ordinary pages took 1 to 6 ms each in bench:fairness, loaded; 2 MB
 * heads, 22 to 92 (their reading stops at 128 KiB, too dense in tags: scan/head-bytes.ts).
 */
const LIGHT_PAGE_MS = 15;
/** 90% of the saved real pages' heads are shorter (p50 21 KB, p90 213 KB, p99 775 KB). */
const LIGHT_BYTES = 256 * 1024;

/** scan-worker.js in the build, scan-worker.ts when run from source (tsx): the extension of this file. */
const DEFAULT_WORKER = new URL(`./scan-worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url);

export class ScanPool implements PageScanner {
  readonly queue: FairQueue;
  readonly ready: Promise<void>;
  private readonly idle: ScanThread[] = [];
  private readonly threads = new Set<ScanThread>();
  private closed = false;
  /** Threads that ended in a row without answering a scan. */
  private silentDeaths = 0;
  /** The thread kept for light clients (ScanPoolOptions.lightThread), and whether a scan holds it. */
  private light: ScanThread | null = null;
  private lightBusy = false;

  constructor(private readonly opts: ScanPoolOptions) {
    if (opts.size < 1) throw new RangeError('ScanPool: size must be at least 1');
    this.queue = new FairQueue({
      maxActive: opts.size,
      maxQueued: opts.maxQueued,
      perClient: 0,
      perHost: 0,
      unit: 'scan',
      costs: opts.ledger,
      maxWaitMs: opts.maxWaitMs ?? 0,
      refusesStale: opts.refusesStale,
    });
    for (let i = 0; i < opts.size; i++) this.spawn();
    if (opts.lightThread) this.spawnLight();
    this.ready = Promise.all(this.allThreads().map((thread) => thread.started)).then(() => {});
  }

  /** Threads alive now (a dead one is replaced at once). */
  get size(): number {
    return this.threads.size;
  }

  async scan(task: PageScanTask, client: string | null, signal: AbortSignal): Promise<PageScan> {
    if (this.closed) throw new ScanFailed('the scan pool is closed');
    const light = this.light;
    if (
      // A thread that ends is dropped from this.light at once (spawnLight).
      light !== null &&
      !this.lightBusy &&
      client !== null &&
      task.bytes.byteLength <= LIGHT_BYTES &&
      this.opts.ledger.slots(client) < LIGHT_SLOTS &&
      this.opts.ledger.perPage(client) < LIGHT_PAGE_MS
    ) {
      signal.throwIfAborted();
      this.lightBusy = true;
      return this.runOn(light, task, client, signal, () => {
        if (this.light === light) this.lightBusy = false;
      });
    }
    const release = await this.queue.acquire(signal, { client, host: '' });
    // A slot per thread: a granted slot finds one idle, unless its replacement is yet to start.
    const thread = this.idle.pop() ?? this.spawn(false);
    return this.runOn(thread, task, client, signal, () => {
      if (thread.alive) this.idle.push(thread);
      release();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.allThreads().map((thread) => thread.stop()));
  }

  /** The shared threads and the one kept for light clients. */
  private allThreads(): ScanThread[] {
    return this.light === null ? [...this.threads] : [...this.threads, this.light];
  }

  /** Runs `task` on `thread`, charges its time to `client`, then hands the thread back (`done`). */
  private async runOn(thread: ScanThread, task: PageScanTask, client: string | null, signal: AbortSignal, done: () => void): Promise<PageScan> {
    const started = performance.now();
    let threadMs: number | null = null;
    try {
      const { scan, ms } = await thread.run(task, signal);
      threadMs = ms;
      return scan;
    } finally {
      // The thread's own time; a scan that failed or was ended costs all the time it held the thread.
      if (client !== null) this.opts.ledger.charge(client, threadMs ?? performance.now() - started, 1);
      done();
    }
  }

  /** The thread kept for light clients; when it ends, another takes its place (as replace() does for the shared ones). */
  private spawnLight(): void {
    const thread = new ScanThread(this.opts.workerUrl ?? DEFAULT_WORKER, this.opts.maxHeapMb ?? 256, () => {
      if (this.light !== thread) return;
      this.light = null;
      this.lightBusy = false;
      const refill = () => {
        if (!this.closed && this.light === null) this.spawnLight();
      };
      if (thread.answered > 0) refill();
      else setTimeout(refill, RESTART_DELAY_MS).unref();
    });
    this.light = thread;
  }

  /** A new thread, idle unless `idle` is false (it is taken at once). */
  private spawn(idle = true): ScanThread {
    const thread = new ScanThread(this.opts.workerUrl ?? DEFAULT_WORKER, this.opts.maxHeapMb ?? 256, () => this.replace(thread));
    this.threads.add(thread);
    if (idle) this.idle.push(thread);
    return thread;
  }

  /**
   * A thread has ended: a new one takes its place at once, or a second later when threads keep
   * ending without answering any scan (one that cannot start must not be restarted in a tight loop).
   */
  private replace(thread: ScanThread): void {
    this.threads.delete(thread);
    const at = this.idle.indexOf(thread);
    if (at !== -1) this.idle.splice(at, 1);
    this.silentDeaths = thread.answered > 0 ? 0 : this.silentDeaths + 1;
    const refill = () => {
      if (!this.closed && this.threads.size < this.opts.size) this.spawn();
    };
    if (this.silentDeaths < 2) refill();
    else setTimeout(refill, RESTART_DELAY_MS).unref();
  }
}

/**
 * A worker thread of the module at `url`. From source (`npm run dev`, the tests), the module is
 * TypeScript: tsx's loader, which the main thread has, is not a worker's, so the thread registers
 * it first.
 */
function startWorker(url: URL, options: WorkerOptions): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options);
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}

/** After two threads in a row ended without answering a scan, the next is started this much later. */
const RESTART_DELAY_MS = 1000;

/** A scan, and how long it took on its thread (ms). */
interface ThreadAnswer {
  scan: PageScan;
  ms: number;
}

/** One worker thread running one scan at a time. */
class ScanThread {
  alive = true;
  /** Scans it answered (a thread that never did may be unable to start). */
  answered = 0;
  /** Resolves when the thread has loaded the scanner and listens (or has ended). */
  readonly started: Promise<void>;
  private markStarted!: () => void;
  private readonly worker: Worker;
  private pending: { id: number; resolve: (answer: ThreadAnswer) => void; reject: (err: unknown) => void } | null = null;
  private nextId = 0;
  /** Why the thread is being ended by us (a request gave up): the running scan fails with it. */
  private endedBecause: unknown = null;

  constructor(url: URL, maxHeapMb: number, onExit: () => void) {
    this.worker = startWorker(url, { resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } });
    // An idle thread keeps no process alive (a library caller need not close the pool to exit).
    this.worker.unref();
    this.started = new Promise((resolve) => (this.markStarted = resolve));
    this.worker.on('message', (message: ResultMessage | typeof READY) => (message === READY ? this.markStarted() : this.settle(message)));
    // An uncaught error ends the thread: 'exit' follows and fails the scan.
    this.worker.on('error', (err) => (this.endedBecause ??= new ScanFailed('the scan worker failed', { cause: err })));
    this.worker.on('exit', () => {
      this.alive = false;
      this.markStarted();
      onExit();
      const pending = this.pending;
      this.pending = null;
      pending?.reject(this.endedBecause ?? new ScanFailed('the scan worker stopped'));
    });
  }

  run(task: PageScanTask, signal: AbortSignal): Promise<ThreadAnswer> {
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<ThreadAnswer>((resolve, reject) => {
      const onAbort = (): void => {
        // The scan may never end (a hang is a bug, but it must cost only this request).
        this.endedBecause = signal.reason;
        void this.worker.terminate();
      };
      const done = (): void => {
        signal.removeEventListener('abort', onAbort);
        this.worker.unref();
      };
      const id = this.nextId++;
      this.pending = {
        id,
        resolve: (answer) => (done(), resolve(answer)),
        reject: (err) => (done(), reject(err)),
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.worker.ref();
      const { bytes } = task;
      // Only a buffer of its own can be transferred; a view into a larger one is copied first.
      const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
      this.worker.postMessage({ id, task: { ...task, bytes: own } }, [own.buffer as ArrayBuffer]);
    });
  }

  async stop(): Promise<void> {
    this.endedBecause ??= new ScanFailed('the scan pool is closed');
    await this.worker.terminate();
  }

  private settle(message: ResultMessage): void {
    const pending = this.pending;
    if (pending === null || pending.id !== message.id) return;
    this.pending = null;
    this.answered++;
    if (message.ok) pending.resolve({ scan: message.scan, ms: message.ms });
    else pending.reject(new ScanFailed(`the page could not be scanned: ${message.message}`));
  }
}
