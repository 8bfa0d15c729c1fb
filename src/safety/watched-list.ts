// A domain list read from a file named by a setting (SAFETY_ADULT_LIST, SAFETY_THREAT_LIST) and
// read again when the file changes (issue 6). Changes are seen by polling the file's stat
// (fs.watchFile): unlike fs.watch it also sees a file replaced by rename (editors, `mv new old`),
// a Kubernetes ConfigMap's symlink swap, and network file systems, at the cost of a stat per
// interval. A missing or unreadable file never stops the service: the last good list stays.

import fs from 'node:fs';
import type { Stats } from 'node:fs';
import { parseDomainList } from './domain-list.js';

export interface ListLogger {
  warn(obj: object, msg?: string): void;
}

export interface WatchedListOptions {
  /** How often the file's stat is compared; lists change rarely, a stat is cheap. */
  pollIntervalMs?: number;
  logger?: ListLogger;
}

/** Lists change by the hour at most; five seconds is quick enough and costs one stat. */
export const DEFAULT_LIST_POLL_MS = 5_000;

export class WatchedDomainList {
  private domains: ReadonlySet<string> = new Set();
  private reloading: Promise<void> | null = null;
  private changedWhileReloading = false;
  private closed = false;
  private readonly listener: (curr: Stats, prev: Stats) => void;

  constructor(
    readonly path: string,
    private readonly options: WatchedListOptions = {},
  ) {
    // The first read is synchronous, at startup, so the first request already sees the list.
    this.replace(() => fs.readFileSync(path, 'utf8'));
    this.listener = (curr, prev) => {
      if (curr.mtimeMs === prev.mtimeMs && curr.size === prev.size && curr.ino === prev.ino) return;
      if (curr.nlink === 0 && curr.mtimeMs === 0) {
        this.options.logger?.warn({ list: this.path }, 'safety list file is gone; keeping the last list');
        return;
      }
      void this.reload();
    };
    fs.watchFile(path, { interval: options.pollIntervalMs ?? DEFAULT_LIST_POLL_MS, persistent: false }, this.listener);
  }

  /** The domains of the last good read. */
  current(): ReadonlySet<string> {
    return this.domains;
  }

  /** Reads the file again now; resolves when the new list is in use (or kept on error). */
  reload(): Promise<void> {
    if (this.reloading) {
      this.changedWhileReloading = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      do {
        this.changedWhileReloading = false;
        let text: string | null = null;
        try {
          text = await fs.promises.readFile(this.path, 'utf8');
        } catch (err) {
          this.options.logger?.warn({ list: this.path, err }, 'safety list could not be read; keeping the last list');
        }
        if (text !== null && !this.closed) this.replace(() => text);
      } while (this.changedWhileReloading && !this.closed);
    })().finally(() => {
      this.reloading = null;
    });
    return this.reloading;
  }

  close(): void {
    this.closed = true;
    fs.unwatchFile(this.path, this.listener);
  }

  private replace(read: () => string): void {
    let text: string;
    try {
      text = read();
    } catch (err) {
      this.options.logger?.warn({ list: this.path, err }, 'safety list could not be read; it is empty until it can');
      return;
    }
    const parsed = parseDomainList(text);
    if (parsed.rejected > 0) {
      this.options.logger?.warn({ list: this.path, rejected: parsed.rejected }, 'safety list has lines that name no domain');
    }
    this.domains = parsed.domains;
  }
}
