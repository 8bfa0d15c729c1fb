// The DNS of the simulated internet: a nameserver on 127.0.0.1 (UDP, and TCP on the same port for
// answers too large for a datagram) that answers the names a test or benchmark chooses, the way a
// recursive resolver would: A/AAAA records with their TTLs, CNAME chains followed in the answer,
// NXDOMAIN, SERVFAIL, a delay or silence per name, and answers that change between queries. The
// service under test is pointed at it with DNS_SERVERS, so nothing ever asks the system's resolvers.
//
//   const dns = await startWorldDns();
//   dns.set('site.test', { A: ['127.0.0.1'], ttl: 300 });
//   dns.set('alias.test', { CNAME: 'site.test' });
//   dns.set('gone.test', { rcode: 'NXDOMAIN' });        // unknown names are NXDOMAIN too
//   dns.set('dead.test', { silent: true });             // never answers
//   dns.set('*.zone', { A: ['127.0.0.2'] });            // every name below zone without a rule of its own
//   dns.set('flip.test', ({ n }) => (n === 0 ? { A: ['127.0.0.1'] } : { A: ['127.0.0.2'] }));
//   dns.server                       → '127.0.0.1:PORT' (the DNS_SERVERS value)
//   dns.queries('site.test', 'A')    → queries seen for that name and type
//   await dns.close()
//
// startWorldDns({ port: 5300 }) listens on a chosen port (`npm run dns:local`); { unref: true } lets
// the process exit while it listens (the tests' default nameserver, test/helpers/local-dns.ts).

import dgram from 'node:dgram';
import net from 'node:net';
import * as packet from 'dns-packet';

type QueryType = 'A' | 'AAAA';

/** What a name answers. Records of the asked type only; no record of that type is NODATA. */
interface NameAnswer {
  A?: string[];
  AAAA?: string[];
  /** The name is an alias: the answer holds this CNAME, then the target's own answer. */
  CNAME?: string;
  /** TTL of every record, seconds (default 300). */
  ttl?: number;
  /** An error instead of records. */
  rcode?: 'NXDOMAIN' | 'SERVFAIL' | 'REFUSED';
  /** Milliseconds before the answer is sent. */
  delayMs?: number;
  /** Never answer (a nameserver that drops the query). */
  silent?: boolean;
}

/** `n` counts the earlier queries of this name and type, from 0. */
type NameRule = NameAnswer | ((query: { type: QueryType; n: number }) => NameAnswer);

export interface WorldDns {
  /** host:port for DNS_SERVERS. */
  server: string;
  port: number;
  set(name: string, rule: NameRule): void;
  /** Queries received for a name (any type when `type` is absent). */
  queries(name: string, type?: QueryType): number;
  close(): Promise<void>;
}

/** A recursive resolver gives up on a chain this long (and on a loop), as real ones do. */
const MAX_CNAME_CHAIN = 16;

export interface WorldDnsOptions {
  /** UDP and TCP port on 127.0.0.1 (default 0: a free one). */
  port?: number;
  /** Do not keep the process alive for the nameserver's sake. */
  unref?: boolean;
}

export async function startWorldDns(options: WorldDnsOptions = {}): Promise<WorldDns> {
  const rules = new Map<string, NameRule>();
  const counts = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const key = (name: string, type: string) => `${type} ${name.toLowerCase()}`;

  /**
   * The name's own rule, else the nearest wildcard above it (RFC 4592: `*.zone` answers every name
   * below zone that has no rule of its own; zone itself is not covered).
   */
  function ruleFor(name: string): NameRule | undefined {
    const lower = name.toLowerCase();
    const own = rules.get(lower);
    if (own !== undefined) return own;
    for (let dot = lower.indexOf('.'); dot !== -1; dot = lower.indexOf('.', dot + 1)) {
      const wildcard = rules.get(`*${lower.slice(dot)}`);
      if (wildcard !== undefined) return wildcard;
    }
    return undefined;
  }

  function answerFor(name: string, type: QueryType, n: number): NameAnswer {
    const rule = ruleFor(name);
    if (rule === undefined) return { rcode: 'NXDOMAIN' };
    return typeof rule === 'function' ? rule({ type, n }) : rule;
  }

  /** The response to one query, or null for silence; `delayMs` says when to send it. */
  function respond(query: packet.Packet): { response: packet.Packet | null; delayMs: number } {
    const question = query.questions?.[0];
    const reply = (rcode: string, answers: packet.Answer[] = []): packet.Packet => ({
      id: query.id,
      type: 'response',
      flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | rcodeFlag(rcode),
      questions: query.questions,
      answers,
    });
    if (!question || (question.type !== 'A' && question.type !== 'AAAA')) return { response: reply('NOTIMP'), delayMs: 0 };
    const type = question.type;
    const countKey = key(question.name, type);
    const n = counts.get(countKey) ?? 0;
    counts.set(countKey, n + 1);

    const answers: packet.Answer[] = [];
    const seen = new Set<string>();
    let name = question.name;
    let first: NameAnswer | null = null;
    for (let step = 0; step < MAX_CNAME_CHAIN; step++) {
      const lower = name.toLowerCase();
      if (seen.has(lower)) break; // a loop: the chain so far and no address, as a resolver gives up
      seen.add(lower);
      const answer = answerFor(name, type, step === 0 ? n : 0);
      first ??= answer;
      if (answer.silent) return { response: null, delayMs: 0 };
      if (answer.rcode) return { response: reply(answer.rcode, answers), delayMs: first.delayMs ?? 0 };
      const ttl = answer.ttl ?? 300;
      if (answer.CNAME !== undefined) {
        answers.push({ type: 'CNAME', name, ttl, class: 'IN', data: answer.CNAME });
        name = answer.CNAME;
        continue;
      }
      for (const data of answer[type] ?? []) answers.push({ type, name, ttl, class: 'IN', data });
      break;
    }
    return { response: reply('NOERROR', answers), delayMs: first?.delayMs ?? 0 };
  }

  function later(delayMs: number, send: () => void): void {
    if (delayMs <= 0) return send();
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, delayMs);
    timers.add(timer);
  }

  function onDatagram(udp: dgram.Socket, msg: Buffer, from: dgram.RemoteInfo): void {
    let query: packet.Packet;
    try {
      query = packet.decode(msg);
    } catch {
      return; // not DNS: dropped, like any nameserver does
    }
    const { response, delayMs } = respond(query);
    if (!response) return;
    // Past 1232 bytes (the EDNS size c-ares offers) a real server truncates: TC set, no records,
    // and the client asks again over TCP.
    const whole = packet.encode(response);
    const sent = whole.length <= 1232 ? whole : packet.encode({ ...response, answers: [], flags: (response.flags ?? 0) | TRUNCATED });
    later(delayMs, () => udp.send(sent, from.port, from.address, () => {}));
  }

  // TCP on the same port number (c-ares retries a truncated answer there): 2-byte length framing.
  const sockets = new Set<net.Socket>();
  const tcp = net.createServer((socket) => {
    sockets.add(socket);
    if (options.unref) socket.unref();
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const length = buffered.readUInt16BE(0);
        const query = packet.decode(buffered.subarray(2, 2 + length));
        buffered = buffered.subarray(2 + length);
        const { response, delayMs } = respond(query);
        if (response) later(delayMs, () => socket.write(packet.streamEncode(response)));
      }
    });
  });
  const { udp, port } = await listenOnOnePort(tcp, onDatagram, options.port ?? 0);
  if (options.unref) {
    udp.unref();
    tcp.unref();
  }

  return {
    server: `127.0.0.1:${port}`,
    port,
    set: (name, rule) => void rules.set(name.toLowerCase().replace(/\.$/, ''), rule),
    queries: (name, type) => (type ? (counts.get(key(name, type)) ?? 0) : (counts.get(key(name, 'A')) ?? 0) + (counts.get(key(name, 'AAAA')) ?? 0)),
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}

const TRUNCATED = 1 << 9;

/**
 * A UDP socket on a free port and `tcp` listening on the same port number. The UDP port is free
 * for UDP only: its number may be taken for TCP (any loopback connection of another test), so on
 * EADDRINUSE both are tried again on another port, and nothing is left bound on the way.
 */
async function listenOnOnePort(
  tcp: net.Server,
  onDatagram: (udp: dgram.Socket, msg: Buffer, from: dgram.RemoteInfo) => void,
  chosenPort: number,
): Promise<{ udp: dgram.Socket; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const udp = dgram.createSocket('udp4');
    udp.on('message', (msg, from) => onDatagram(udp, msg, from));
    const bound = await new Promise<Error | null>((resolve) => {
      udp.once('error', resolve);
      udp.bind(chosenPort, '127.0.0.1', () => {
        udp.off('error', resolve);
        resolve(null);
      });
    });
    if (bound) throw bound; // a chosen port that is taken
    const port = udp.address().port;
    const failed = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      tcp.once('error', resolve);
      tcp.listen(port, '127.0.0.1', () => {
        tcp.off('error', resolve);
        resolve(null);
      });
    });
    if (failed === null) return { udp, port };
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    if (failed.code !== 'EADDRINUSE' || attempt === 20 || chosenPort !== 0) throw failed;
  }
}

function rcodeFlag(rcode: string): number {
  return { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 }[rcode] ?? 2;
}
