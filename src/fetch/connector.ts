// Where the socket connects: the last place a URL can lie about its host. undici
// calls this for every new connection (first request, every redirect hop, every reconnect), so
// the address checks below see the address actually dialled, not one resolved earlier:
//   1. an IP literal host is checked here, because undici skips `lookup` for literals
//      — target.ts has refused them already, this is the second net;
//   2. a name goes through guardLookup, which refuses the whole answer if any address is not
//      public, inside net/tls.connect, so DNS rebinding (public when checked, 127.0.0.1 when
//      dialled) has no window;
//   3. once connected, the socket's remote address is checked once more (last net: it catches
//      anything the two above missed, e.g. a resolver that answers differently per family).
// Before dialling a name, `resolve` (the caching resolver) is asked once and timed: its failure
// ends the connection attempt with the resolver's own error, and the lookup inside net.connect
// that follows is answered from its cache, still through the guard.

import fs from 'node:fs';
import type { LookupFunction } from 'node:net';
import tls from 'node:tls';
import { buildConnector } from 'undici';
import type { Config } from '../config.js';
import { ipLiteral } from '../ip-literal.js';
import { BlockedAddressError, blockedReason, guardLookup, isPublicAddress } from './address.js';
import { recordConnection } from './timings.js';

export type Connector = buildConnector.connector;

export interface ConnectorOptions {
  /** The resolver net.connect calls (production: resolver.ts DnsResolver.lookup; tests inject one). */
  lookup?: LookupFunction;
  /** Resolves a name before dialling (production: DnsResolver.resolve); its time is the connection's DNS time. */
  resolve?: (hostname: string) => Promise<unknown>;
  /**
   * Test seam: which addresses count as public (default address.ts isPublicAddress). Lets a test
   * trust exactly one loopback fixture while the guard stays on for every other address.
   */
  isPublic?: (ip: string) => boolean;
}

/** A connector for undici's Agent that applies the address policy at connect time. */
export function createGuardedConnector(
  config: Pick<Config, 'allowPrivateNetworks' | 'connectTimeoutMs' | 'upstreamCaFile'>,
  options: ConnectorOptions = {},
): Connector {
  const guard = !config.allowPrivateNetworks;
  const isPublic = options.isPublic ?? isPublicAddress;
  const refusal = (ip: string): string | null => (isPublic(ip) ? null : (blockedReason(ip) ?? 'not public under the test policy'));
  const lookup = guard ? guardLookup(options.lookup, isPublic) : options.lookup;
  const connect = buildConnector({
    // undici only offers h2 in ALPN when the connector is built with it; the Agent's own allowH2
    // is not passed down to a custom connector (undici 7.30 lib/core/connect.js).
    allowH2: true,
    timeout: config.connectTimeoutMs,
    ...(lookup ? { lookup } : {}),
    ...trustedCas(config.upstreamCaFile),
  });

  const dial: Connector = guard ? guarded(connect, refusal) : connect;
  const resolve = options.resolve;
  return (opts, callback) => {
    const named = resolve !== undefined && ipLiteral(opts.hostname) === null;
    const started = performance.now();
    (named ? resolve(opts.hostname) : Promise.resolve()).then(
      () => {
        const dialled = performance.now();
        dial(opts, (err, socket) => {
          if (err || !socket) return callback(err ?? new Error('no socket'), null);
          recordConnection(socket, { dnsMs: named ? dialled - started : null, connectMs: performance.now() - dialled });
          return callback(null, socket);
        });
      },
      (err: Error) => callback(err, null),
    );
  };
}

/** The address checks of a connection (1 and 3 above; 2 is inside `connect`'s lookup). */
function guarded(connect: Connector, refusal: (ip: string) => string | null): Connector {
  return (opts, callback) => {
    const literal = ipLiteral(opts.hostname);
    const literalWhy = literal === null ? null : refusal(literal);
    if (literal !== null && literalWhy !== null) {
      callback(new BlockedAddressError(opts.hostname, literal, literalWhy), null);
      return;
    }
    connect(opts, (err, socket) => {
      if (err || !socket) return callback(err ?? new Error('no socket'), null);
      const remote = socket.remoteAddress;
      const remoteWhy = remote === undefined ? 'socket has no remote address' : refusal(remote);
      if (remoteWhy !== null) {
        socket.destroy();
        return callback(new BlockedAddressError(opts.hostname, remote ?? '', remoteWhy), null);
      }
      return callback(null, socket);
    });
  };
}

/**
 * UPSTREAM_CA_FILE adds CA certificates beside the bundled roots (tests trust their self-signed
 * upstream this way; verification is never turned off). Passing `ca` replaces Node's default
 * store, so the roots are listed again. Without the setting, Node's default store is used as is,
 * NODE_EXTRA_CA_CERTS included. The context is built once: given as `ca`, tls.connect would parse
 * the ~145 roots again for every connection (tens of milliseconds of CPU each).
 */
function trustedCas(caFile: string | null): { secureContext?: tls.SecureContext } {
  if (caFile === null) return {};
  return { secureContext: tls.createSecureContext({ ca: [...tls.rootCertificates, fs.readFileSync(caFile, 'utf8')] }) };
}
