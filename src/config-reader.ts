// Reading one setting from its text: each method parses one kind of value and names the setting
// in every failure. The settings themselves are declared in config.ts, in one table.

import { readFileSync } from 'node:fs';
import { validateHeaderValue } from 'node:http';
import { isIP } from 'node:net';
import { createSecureContext } from 'node:tls';

export type Env = Record<string, string | undefined>;

/** A setting that cannot be used, named, with what is wrong with it. */
export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`Invalid setting ${setting}: ${message}`);
    this.name = 'ConfigError';
  }
}

/**
 * One setting's text as its source gave it (the environment's string, or a library option turned
 * into one), parsed into one kind of value by each method; every failure names the setting as
 * its source names it (FETCH_TIMEOUT_MS, or fetchTimeoutMs).
 */
export class Field {
  private readonly text: string | undefined;

  constructor(
    /** The setting's name where it came from. */
    readonly name: string,
    text: string | undefined,
    /** Another setting's name in the same source, for messages that compare the two. */
    readonly nameOf: (setting: string) => string,
  ) {
    this.text = text === undefined || text.trim() === '' ? undefined : text.trim();
  }

  /** Refuses the value with `message`, naming the setting. */
  fail(message: string): never {
    throw new ConfigError(this.name, message);
  }

  string(fallback: string): string {
    return this.text ?? fallback;
  }

  stringOrNull(): string | null {
    return this.text ?? null;
  }

  /** A value sent as an HTTP header: no control characters (Node would refuse it at the first request). */
  headerValue(fallback: string): string {
    const value = this.string(fallback);
    try {
      validateHeaderValue(this.name, value);
    } catch {
      this.fail(`"${value.replace(/[\x00-\x1f\x7f]/g, '?')}" has a control character, which an HTTP header cannot carry`);
    }
    return value;
  }

  /**
   * A file of PEM certificates to trust, read and checked now (as TLS will read it), so that a
   * missing or unreadable one is a bad setting, not a stack trace at the first fetch.
   */
  certificateFileOrNull(): string | null {
    const file = this.text;
    if (file === undefined) return null;
    let pem: string;
    try {
      pem = readFileSync(file, 'utf8');
    } catch (err) {
      this.fail(`"${file}" cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) this.fail(`"${file}" holds no PEM certificate`);
    try {
      createSecureContext({ ca: pem });
    } catch (err) {
      this.fail(`"${file}" holds a certificate TLS cannot use (${(err as Error).message})`);
    }
    return file;
  }

  intOrNull(range: { min?: number; max?: number } = {}): number | null {
    return this.text === undefined ? null : this.int(0, range);
  }

  /** A Redis key prefix: printable ASCII without spaces, so keys stay readable in redis-cli. */
  keyPrefix(fallback: string): string {
    const value = this.text;
    if (value === undefined) return fallback;
    if (!/^[\x21-\x7e]{1,64}$/.test(value)) this.fail(`"${value}" must be 1 to 64 printable characters without spaces`);
    return value;
  }

  int(fallback: number, range: { min?: number; max?: number } = {}): number {
    const value = this.text;
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value)) this.fail(`"${value}" is not a whole number`);
    const n = Number(value);
    if (!Number.isSafeInteger(n)) this.fail(`"${value}" is too large`);
    if (range.min !== undefined && n < range.min) this.fail(`must be at least ${range.min}`);
    if (range.max !== undefined && n > range.max) this.fail(`must be at most ${range.max}`);
    return n;
  }

  bool(fallback: boolean): boolean {
    const value = this.text?.toLowerCase();
    if (value === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(value)) return true;
    if (['false', '0', 'no', 'off'].includes(value)) return false;
    this.fail(`"${value}" is not true or false`);
  }

  oneOf<const T extends readonly string[]>(fallback: T[number], allowed: T): T[number] {
    const value = this.text;
    if (value === undefined) return fallback;
    if (!allowed.includes(value)) this.fail(`"${value}" is not one of ${allowed.join(', ')}`);
    return value;
  }

  /**
   * An address to listen on: an IP address, never a name. A name would be looked up through the
   * system's resolver at listen time, outside DNS_SERVERS, and a bad one ended in a stack trace.
   */
  listenAddress(fallback: string): string {
    const value = this.text;
    if (value === undefined) return fallback;
    const address = value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
    if (isIP(address) === 0) this.fail(`"${value}" is not an IP address (names are not looked up): e.g. 0.0.0.0, 127.0.0.1 or ::`);
    return address;
  }

  httpUrl(fallback: string): string {
    return this.httpUrlOrNull() ?? fallback;
  }

  httpUrlOrNull(): string | null {
    const value = this.text;
    if (value === undefined) return null;
    const url = URL.parse(value);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) this.fail(`"${value}" is not an absolute http(s) URL`);
    return url.href;
  }

  /**
   * Comma-separated nameservers, each an IP address with an optional port: 192.0.2.53,
   * 192.0.2.53:5353, 2001:db8::53, [2001:db8::53]:5353. c-ares takes addresses only, not names.
   */
  nameserversOrNull(): string[] | null {
    const value = this.text;
    if (value === undefined) return null;
    return value.split(',').map((entry) => {
      const server = entry.trim();
      const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(server);
      const v4 = /^(\d+\.\d+\.\d+\.\d+)(?::(\d+))?$/.exec(server);
      const [host, port] = bracketed ? [bracketed[1]!, bracketed[2]] : v4 ? [v4[1]!, v4[2]] : [server, undefined];
      const family = isIP(host);
      if (family === 0 || (family === 6 && !bracketed && server.includes(']'))) {
        this.fail(`"${server}" is not an IP address with an optional port (IPv6 in brackets when a port follows)`);
      }
      if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) this.fail(`"${server}" has no valid port`);
      return server;
    });
  }

  /** Comma-separated host:port addresses (a name or an IP; IPv6 in brackets). */
  hostPortsOrNull(): string[] | null {
    const value = this.text;
    if (value === undefined) return null;
    return value.split(',').map((entry) => {
      const address = entry.trim();
      const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(address);
      if (!match || Number(match[2]) < 1 || Number(match[2]) > 65535) this.fail(`"${address}" is not host:port`);
      return address;
    });
  }

  redisUrlOrNull(): string | null {
    const value = this.text;
    if (value === undefined) return null;
    const url = URL.parse(value);
    if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:')) this.fail(`"${value}" is not a redis:// or rediss:// URL`);
    return value;
  }
}
