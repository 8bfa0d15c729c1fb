// Reading one setting from environment-style strings: each method parses one kind of value and
// names the setting in every failure. The settings themselves are declared in config.ts.

import { isIP } from 'node:net';

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

/** Parses one kind of value each; every failure names the setting. */
export class Reader {
  constructor(private readonly env: Env) {}

  private raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  stringOrNull(name: string): string | null {
    return this.raw(name) ?? null;
  }

  intOrNull(name: string, range: { min?: number; max?: number } = {}): number | null {
    return this.raw(name) === undefined ? null : this.int(name, 0, range);
  }

  /** A Redis key prefix: printable ASCII without spaces, so keys stay readable in redis-cli. */
  keyPrefix(name: string, fallback: string): string {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^[\x21-\x7e]{1,64}$/.test(value)) throw new ConfigError(name, `"${value}" must be 1 to 64 printable characters without spaces`);
    return value;
  }

  int(name: string, fallback: number, range: { min?: number; max?: number } = {}): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value)) throw new ConfigError(name, `"${value}" is not a whole number`);
    const n = Number(value);
    if (!Number.isSafeInteger(n)) throw new ConfigError(name, `"${value}" is too large`);
    if (range.min !== undefined && n < range.min) throw new ConfigError(name, `must be at least ${range.min}`);
    if (range.max !== undefined && n > range.max) throw new ConfigError(name, `must be at most ${range.max}`);
    return n;
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(value)) return true;
    if (['false', '0', 'no', 'off'].includes(value)) return false;
    throw new ConfigError(name, `"${value}" is not true or false`);
  }

  oneOf<const T extends readonly string[]>(name: string, fallback: T[number], allowed: T): T[number] {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!allowed.includes(value)) throw new ConfigError(name, `"${value}" is not one of ${allowed.join(', ')}`);
    return value;
  }

  /**
   * An address to listen on: an IP address, never a name. A name would be looked up through the
   * system's resolver at listen time, outside DNS_SERVERS, and a bad one ended in a stack trace.
   */
  listenAddress(name: string, fallback: string): string {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const address = value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
    if (isIP(address) === 0) throw new ConfigError(name, `"${value}" is not an IP address (names are not looked up): e.g. 0.0.0.0, 127.0.0.1 or ::`);
    return address;
  }

  httpUrl(name: string, fallback: string): string {
    return this.httpUrlOrNull(name) ?? fallback;
  }

  httpUrlOrNull(name: string): string | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    const url = URL.parse(value);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new ConfigError(name, `"${value}" is not an absolute http(s) URL`);
    }
    return url.href;
  }

  /**
   * Comma-separated nameservers, each an IP address with an optional port: 192.0.2.53,
   * 192.0.2.53:5353, 2001:db8::53, [2001:db8::53]:5353. c-ares takes addresses only, not names.
   */
  nameserversOrNull(name: string): string[] | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    return value.split(',').map((entry) => {
      const server = entry.trim();
      const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(server);
      const v4 = /^(\d+\.\d+\.\d+\.\d+)(?::(\d+))?$/.exec(server);
      const [host, port] = bracketed ? [bracketed[1]!, bracketed[2]] : v4 ? [v4[1]!, v4[2]] : [server, undefined];
      const family = isIP(host);
      if (family === 0 || (family === 6 && !bracketed && server.includes(']'))) {
        throw new ConfigError(name, `"${server}" is not an IP address with an optional port (IPv6 in brackets when a port follows)`);
      }
      if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) throw new ConfigError(name, `"${server}" has no valid port`);
      return server;
    });
  }

  /** Comma-separated host:port addresses (a name or an IP; IPv6 in brackets). */
  hostPortsOrNull(name: string): string[] | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    return value.split(',').map((entry) => {
      const address = entry.trim();
      const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(address);
      if (!match || Number(match[2]) < 1 || Number(match[2]) > 65535) throw new ConfigError(name, `"${address}" is not host:port`);
      return address;
    });
  }

  redisUrlOrNull(name: string): string | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    const url = URL.parse(value);
    if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:')) {
      throw new ConfigError(name, `"${value}" is not a redis:// or rediss:// URL`);
    }
    return value;
  }
}
