// The names of the fairness world, shared by its server (world-server.ts) and the clients
// (attacks.ts). Each attacker has zones of its own, each a made-up top-level name with a wildcard
// record, so every random name in it is a registrable domain of its own (tldts reads an unknown
// last label as a public suffix): the attacker's pages never share a destination's fetch share.

export const ATTACK_CLASSES = ['ordinary', 'drip', 'nodns', 'assets', 'heavy', 'images', 'keepalive-openapi', 'keepalive-healthz'] as const;
export type AttackClass = (typeof ATTACK_CLASSES)[number];

/**
 * Attackers per class the world has zones for (the largest size that can be asked). The issue's
 * sizes stop at 128; on a machine whose capacity is more than 128 addresses ask at the rate
 * limit's pace (about 230 pages a second), the control is past capacity only at more.
 */
export const MAX_ATTACKERS = 512;

/** Attacker `k`'s zone for its pages of `attack`. */
export const attackZone = (attack: AttackClass, k: number) => `${attack}-a${k}`;
/** Attacker `k`'s zone whose nameserver never answers, where its asset pages put image, icon and oEmbed. */
export const hangZone = (k: number) => `hang-a${k}`;

/** Where the world's nameserver sends each attack class's wildcard zones: its server in bench/fairness/attacker-servers.ts. */
export const ATTACKER_ADDRESS = { drip: '127.0.62.1', assets: '127.0.62.2', heavy: '127.0.62.3', ordinary: '127.0.62.4' } as const;

/** The bystander's ordinary sites: site-<i>.test, images and icons on cdn.site-<i>.test. */
export const SITES = 12;
export const siteName = (i: number) => `site-${i}.test`;
export const cdnName = (i: number) => `cdn.site-${i}.test`;
