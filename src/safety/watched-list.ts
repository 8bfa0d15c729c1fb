// A domain list read from a file named by a setting (SAFETY_ADULT_LIST, SAFETY_THREAT_LIST) and
// read again when the file changes. Changes are seen by polling the file's stat and
// comparing it with the stat of the copy in use. Unlike fs.watch this also sees a file replaced
// by rename (editors, `mv new old`), a Kubernetes ConfigMap's symlink swap and network file
// systems; unlike fs.watchFile it cannot miss a change made between the first read and the
// watcher's first stat. A missing or unreadable file never stops the service: the last good
// list stays in use.

import fs from 'node:fs';
import type { Stats } from 'node:fs';
import { parseDomainList } from './domain-list.js';

interface ListLogger {
  warn(obj: object, msg?: string): void;
}

export interface WatchedListOptions {
  /** How often the file's stat is compared; lists change rarely, a stat is cheap. */
  pollIntervalMs?: number;
  logger?: ListLogger;
}

/** Lists change by the hour at most; five seconds is quick enough and costs one stat. */
const DEFAULT_LIST_POLL_MS = 5_000;

/** What identifies one version of the file: a rewrite changes mtime or size, a rename the inode. */
const versionOf = (stat: Stats) => `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
const MISSING = 'missing';

export class WatchedDomainList {
  private domains: ReadonlySet<string> = new Set();
  /** The version of the file the current list was read from ('missing' when there was none). */
  private version = MISSING;
  private polling = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly path: string,
    private readonly options: WatchedListOptions = {},
  ) {
    // The first read is synchronous, at startup, so the first request already sees the list.
    try {
      const version = versionOf(fs.statSync(path));
      this.use(fs.readFileSync(path, 'utf8'), version);
    } catch (err) {
      this.options.logger?.warn({ list: path, err }, 'safety list could not be read; it is empty until it can');
    }
    this.timer = setInterval(() => void this.poll(), options.pollIntervalMs ?? DEFAULT_LIST_POLL_MS);
    this.timer.unref();
  }

  /** The domains of the last good read. */
  current(): ReadonlySet<string> {
    return this.domains;
  }

  close(): void {
    clearInterval(this.timer);
  }

  /** One comparison of the file with the copy in use; reads it again when it differs. */
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      let version: string;
      try {
        version = versionOf(await fs.promises.stat(this.path));
      } catch {
        if (this.version !== MISSING) {
          this.options.logger?.warn({ list: this.path }, 'safety list file is gone; keeping the last list');
          this.version = MISSING;
        }
        return;
      }
      if (version === this.version) return;
      try {
        this.use(await fs.promises.readFile(this.path, 'utf8'), version);
      } catch (err) {
        this.options.logger?.warn({ list: this.path, err }, 'safety list could not be read; keeping the last list');
      }
    } finally {
      this.polling = false;
    }
  }

  private use(text: string, version: string): void {
    const parsed = parseDomainList(text);
    if (parsed.rejected > 0) {
      this.options.logger?.warn({ list: this.path, rejected: parsed.rejected }, 'safety list has lines that name no domain');
    }
    this.domains = parsed.domains;
    this.version = version;
  }
}
