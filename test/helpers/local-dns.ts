// The nameserver every service a test builds is pointed at (DNS_SERVERS) unless the test brings its
// own world (test/world/dns-server.ts): the simulated internet's, on 127.0.0.1, with no names in
// it, so any name a test does not set up is NXDOMAIN and no lookup ever reaches the system's
// resolvers. One per test process, started on first import; it does not keep the process alive.

import { startWorldDns } from '../world/dns-server.js';

/** The empty loopback nameserver (its query counts show what was asked). */
export const localDns = await startWorldDns({ unref: true });

/** host:port of the empty loopback nameserver, the DNS_SERVERS value of the tests' services. */
export const LOCAL_DNS_SERVERS = localDns.server;
