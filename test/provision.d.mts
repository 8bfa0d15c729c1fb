// Types of provision.mjs (plain JavaScript, run by test/run.mjs without a TypeScript loader), for
// the TypeScript that imports it (bench/stalls.ts).

export declare const SYSTEM_PACKAGES: Record<string, string>;
export declare function onPath(command: string, pathVariable?: string): string | null;
export declare function provisionPlan(
  wanted: string[],
  options?: { pathVariable?: string; isRoot?: boolean },
): { missing: string[]; install?: string[][]; ask?: string };
export declare function provisionSystemPackages(wanted: string[]): string | null;
export declare function startRedis(command?: string, extraArgs?: string[]): Promise<{ url: string; port: number; stop(): Promise<void> }>;
export declare function freePort(): Promise<number>;
